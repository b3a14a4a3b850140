use super::decimated::decimate;
use std::time::Instant;

use egui::Color32;

use crate::lab_report::COPY_COLOURS;
use crate::sim::runtime::snapshot::Snapshot;
use crate::ui::REFRESH;

use super::live::*;
use super::panel::*;

use crate::sim::Scene;

fn snapshot() -> Snapshot {
    Snapshot::of(&Scene::load("flag").unwrap().simulation().unwrap())
}

fn at(snap: &Snapshot, step: u64, time: f64) -> Snapshot {
    let mut s = snap.clone();
    s.step = step;
    s.time = time;
    s
}

#[test]
fn a_value_axis_spans_the_values_with_a_margin_and_never_collapses() {
    let close =
        |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12;
    // 5 % of the span (2) either side.
    assert!(close(value_axis([4.0, 2.0, 3.0], false), [1.9, 4.1]));
    // From 0: the span is 4, the margin 0.2 above only.
    assert!(close(value_axis([4.0, 2.0], true), [0.0, 4.2]));
    // Negative values keep their own low end even from zero.
    assert!(close(value_axis([-1.0, 1.0], true), [-1.1, 1.1]));
    // Equal step times: 0 … 30 µs and the margin.
    assert!(close(value_axis([30.0; 4], true), [0.0, 31.5]));
    // Equal strains: 0.1 % of 1 around 1, and the margin.
    assert!(close(
        value_axis([1.0; 3], false),
        [1.0 - 0.00055, 1.0 + 0.00055]
    ));
    // Only zeros (a cloth at rest), no values, only NaN: 0 … 1 and the margin, or 0 … 1.
    assert!(close(value_axis([0.0; 3], true), [0.0, 1.05]));
    assert!(close(value_axis([0.0; 3], false), [-0.55, 0.55]));
    assert_eq!(value_axis([], true), [0.0, 1.0]);
    assert_eq!(value_axis([f64::NAN], false), [0.0, 1.0]);
    assert!(close(
        value_axis([f64::NAN, 2.0, f64::INFINITY, 4.0], false),
        [1.9, 4.1]
    ));
}

#[test]
fn a_copy_that_stopped_early_leaves_the_window_and_the_time_axis_is_the_labs() {
    let base = snapshot();
    let mut plots = LivePlots {
        window: 20.0,
        ..LivePlots::default()
    };
    // Copy 1 diverged at 1.2 s; copy 0 runs on to 100 s.
    for k in 1..=1000u64 {
        let t = k as f64 * 0.1;
        plots.record(0, &at(&base, k, t));
        if k <= 12 {
            plots.record(1, &at(&base, k, t));
        }
    }
    assert!(
        plots.traces[1].samples.is_empty(),
        "copy 1's points are 80 s old"
    );
    assert_eq!(plots.traces[0].samples.len(), 201, "80 … 100 s");
    let drawn = Drawn::new(Instant::now(), &plots);
    assert!((drawn.x[0] - 80.0).abs() < 1e-9 && (drawn.x[1] - 100.0).abs() < 1e-9);
    // Within the window a stopped copy still shows, and the axis spans both.
    let mut plots = LivePlots::default();
    plots.record(1, &at(&base, 1, 0.5));
    plots.record(0, &at(&base, 100, 10.0));
    let drawn = Drawn::new(Instant::now(), &plots);
    assert_eq!(drawn.x, [0.5, 10.0]);
    // One point: a window's span up to it.
    let mut plots = LivePlots::default();
    plots.record(0, &at(&base, 3, 0.3));
    let drawn = Drawn::new(Instant::now(), &plots);
    assert_eq!(drawn.x, [0.3 - WINDOW_DEFAULT, 0.3]);
}

#[test]
fn a_point_per_new_step_and_none_for_a_repeated_one() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    plots.record(0, &at(&base, 1, 0.1));
    plots.record(0, &at(&base, 1, 0.1));
    plots.record(0, &at(&base, 2, 0.2));
    let trace = &plots.traces[0];
    assert_eq!(trace.samples.len(), 2);
    assert_eq!(trace.label, "implicit-mg");
    assert_eq!(trace.samples[1].time, 0.2);
    assert_eq!(trace.samples[1].kinetic_energy, base.kinetic_energy);
    assert_eq!(trace.samples[1].step_us, base.stats.step_seconds * 1e6);
    assert_eq!(trace.samples[1].dv_cosine, None);
}

#[test]
fn a_new_generation_or_a_step_back_starts_over_and_a_repeat_adds_nothing() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    for k in 1..=3 {
        plots.record(0, &at(&base, k, k as f64 * 0.1));
    }
    // The newest step again, after others: nothing new.
    plots.record(0, &at(&base, 3, 0.3));
    assert_eq!(plots.traces[0].samples.len(), 3);
    // A new generation (a scene load) whose step count is ahead: it starts over anyway.
    let mut loaded = at(&base, 10, 1.0);
    loaded.generation += 1;
    plots.record(0, &loaded);
    assert_eq!(plots.traces[0].samples.len(), 1);
    // The same generation going back a step (the last good state restored): over again.
    let mut back = at(&base, 9, 0.9);
    back.generation = loaded.generation;
    plots.record(0, &back);
    let times: Vec<f64> = plots.traces[0].samples.iter().map(|s| s.time).collect();
    assert_eq!(times, [0.9]);
    assert_eq!(plots.decimated[0][0].series().len(), 1);
}

#[test]
fn each_cloth_has_its_copys_colour_and_a_fifth_starts_over() {
    for (i, [r, g, b]) in COPY_COLOURS.into_iter().enumerate() {
        assert_eq!(colour(i), Color32::from_rgb(r, g, b));
    }
    assert_eq!(colour(COPY_COLOURS.len()), colour(0));
    assert_eq!(colour(COPY_COLOURS.len() + 1), colour(1));
}

#[test]
fn a_reset_starts_over_and_the_window_drops_old_points() {
    let base = snapshot();
    let mut plots = LivePlots {
        window: 10.0,
        ..LivePlots::default()
    };
    for k in 1..=30u32 {
        plots.record(0, &at(&base, u64::from(k), f64::from(k)));
    }
    // The newest at 30 s: the window keeps 20 … 30 s.
    let times: Vec<f64> = plots.traces[0].samples.iter().map(|s| s.time).collect();
    assert_eq!(times.first(), Some(&20.0));
    assert_eq!(times.len(), 11);
    let mut reset = at(&base, 1, 0.5);
    reset.generation += 1;
    plots.record(0, &reset);
    assert_eq!(plots.traces[0].samples.len(), 1);
    // A second cloth gets its own trace.
    plots.record(1, &at(&base, 3, 0.5));
    assert_eq!(plots.traces.len(), 2);
}

#[test]
fn the_csv_has_a_row_per_point_with_the_columns_named() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    let mut s = at(&base, 1, 0.25);
    s.kinetic_energy = 0.5;
    s.stats.max_strain = 1.03;
    s.stats.step_seconds = 40e-6;
    plots.record(0, &s);
    // A point while the lab's reference runs: its RMS distance in metres.
    let mut r = at(&base, 2, 0.5);
    r.kinetic_energy = 0.25;
    r.stats.max_strain = 1.02;
    r.stats.step_seconds = 50e-6;
    r.reference_distance = Some(crate::sim::model::shape::Distance {
        rms: 0.0125,
        max: 0.03,
    });
    plots.record(0, &r);
    assert_eq!(
        plots.csv(),
        "time,integrator,kinetic_energy,max_strain,step_us,dv_cosine,rms_distance_m\n\
         0.25,implicit-mg,5e-1,1.03,40.000,,\n\
         0.5,implicit-mg,2.5e-1,1.02,50.000,,1.25e-2\n"
    );
}

#[test]
fn the_distance_plot_appears_with_the_reference_and_is_in_centimetres() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    plots.record(0, &at(&base, 1, 0.1));
    let distance = QUANTITIES
        .iter()
        .position(|q| q.title.starts_with("distance from reference"))
        .expect("a distance plot");
    assert!(!plots.quantities_with_points().contains(&distance));
    let mut r = at(&base, 2, 0.2);
    r.reference_distance = Some(crate::sim::model::shape::Distance {
        rms: 0.004,
        max: 0.01,
    });
    plots.record(0, &r);
    assert!(plots.quantities_with_points().contains(&distance));
    let value = (QUANTITIES[distance].value)(&plots.traces[0].samples[1]);
    assert!((value.unwrap() - 0.4).abs() < 1e-12, "{value:?}");
}

#[test]
fn the_panel_draws_a_plot_per_quantity_that_has_points() {
    let base = snapshot();
    let mut state = crate::ui::UiState::new(Scene::load("flag").unwrap(), 0.12);
    let ctx = egui::Context::default();
    let draw = |state: &mut crate::ui::UiState| {
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            plots_ui(ui, state, false, Instant::now());
        });
        output.textures_delta.clear();
        output.shapes.len()
    };
    let empty = draw(&mut state);
    for k in 1..=5u32 {
        state
            .plots
            .record(0, &at(&base, u64::from(k), f64::from(k) / 60.0));
    }
    state.plots.drawn = None;
    let three = draw(&mut state);
    // Three plots (no cosine yet) paint far more than the empty panel's one line of text.
    assert!(
        three > empty + 20,
        "{empty} shapes empty, {three} with points"
    );
    assert_eq!(state.notices.log().len(), 0);
}

#[test]
fn the_drawn_points_follow_every_refresh_and_at_once_when_paused() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    let t0 = Instant::now();
    // The kinetic energy's points of the first trace, as drawn.
    let drawn =
        |plots: &mut LivePlots, paused, now| plots.refreshed(paused, now).series[0][0].len();
    plots.record(0, &at(&base, 1, 0.1));
    assert_eq!(drawn(&mut plots, false, t0), 1);
    plots.record(0, &at(&base, 2, 0.2));
    assert_eq!(drawn(&mut plots, false, t0 + REFRESH / 2), 1);
    assert_eq!(drawn(&mut plots, false, t0 + REFRESH), 2);
    plots.record(0, &at(&base, 3, 0.3));
    assert_eq!(drawn(&mut plots, true, t0 + REFRESH), 3);
}

#[test]
fn points_recorded_after_the_width_is_known_decimate_as_the_whole_trace_would() {
    let base = snapshot();
    let sample = |k: u32| {
        let mut s = at(&base, u64::from(k), f64::from(k) / 60.0);
        s.kinetic_energy = (f64::from(k) * 0.37).sin();
        s
    };
    let width = 0.1;
    let mut first = LivePlots::default();
    first.set_column_width(width);
    let mut later = LivePlots::default();
    for k in 1..=500 {
        first.record(0, &sample(k));
        later.record(0, &sample(k));
    }
    later.set_column_width(width);
    let energy = |p: &LivePlots| p.decimated[0][0].series();
    assert_eq!(energy(&first), energy(&later));
    let whole = decimate(
        later.traces[0]
            .samples
            .iter()
            .map(|s| [s.time, s.kinetic_energy]),
        width,
    );
    assert_eq!(energy(&later), whole);
    // 500 steps of 1/60 s in columns of 0.1 s: 84 columns, at most two points each.
    assert!(
        whole.len() <= 2 * 84 + 1 && whole.len() > 84,
        "{}",
        whole.len()
    );
}

#[test]
fn the_columns_follow_the_time_a_pixel_spans_as_the_plots_fill() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    let record_to = |plots: &mut LivePlots, last: u32| {
        for k in 0..=last {
            plots.record(0, &at(&base, u64::from(k) + 1, f64::from(k) / 60.0));
        }
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
    // 2 s of points on 200 pixels: a pixel spans 10 ms, and so do the columns.
    record_to(&mut plots, 120);
    plots.fit_columns(200.0);
    assert!(close(plots.column_width, 0.01), "{}", plots.column_width);
    // 3.5 s: a pixel spans 17.5 ms, and 10 ms is still between half of it and all of it.
    record_to(&mut plots, 210);
    plots.fit_columns(200.0);
    assert!(close(plots.column_width, 0.01), "{}", plots.column_width);
    // 4.5 s: a pixel spans 22.5 ms; 10 ms is less than half of it.
    record_to(&mut plots, 270);
    plots.fit_columns(200.0);
    assert!(close(plots.column_width, 0.0225), "{}", plots.column_width);
    // A narrower plot: a pixel of 90 spans 50 ms, and 22.5 ms is less than half of it.
    plots.fit_columns(90.0);
    assert!(close(plots.column_width, 0.05), "{}", plots.column_width);
    // Wider again: a pixel of 450 spans 10 ms, and 50 ms columns are wider than that.
    plots.fit_columns(450.0);
    assert!(close(plots.column_width, 0.01), "{}", plots.column_width);
}

#[test]
fn the_columns_fit_the_traces_span_not_its_end_and_leave_at_exactly_half_a_pixel() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
    // From 10 s to 12 s (steps of 1/60 s): a span of 2 s over 200 pixels, 10 ms a pixel.
    for k in 600..=720u32 {
        plots.record(0, &at(&base, u64::from(k), f64::from(k) / 60.0));
    }
    plots.fit_columns(200.0);
    assert!(close(plots.column_width, 0.01), "{}", plots.column_width);
    // To 14 s: a span of exactly 4 s, 20 ms a pixel, and 10 ms is exactly half of it,
    // which does not fit.
    for k in 721..=840u32 {
        plots.record(0, &at(&base, u64::from(k), f64::from(k) / 60.0));
    }
    plots.fit_columns(200.0);
    assert!(close(plots.column_width, 0.02), "{}", plots.column_width);
    // A reset leaves one point, no span: the columns stay as they were.
    let mut reset = at(&base, 1, 0.0);
    reset.generation += 1;
    plots.record(0, &reset);
    plots.fit_columns(200.0);
    assert!(close(plots.column_width, 0.02), "{}", plots.column_width);
}

#[test]
fn the_window_drops_decimated_points_as_it_drops_samples() {
    let base = snapshot();
    let mut plots = LivePlots {
        window: 10.0,
        ..LivePlots::default()
    };
    plots.set_column_width(0.5);
    for k in 0..=30u32 {
        plots.record(0, &at(&base, u64::from(k) + 1, f64::from(k)));
    }
    // The newest at 30 s: what is drawn starts at 20 s, as the kept samples do.
    let series = plots.decimated[0][0].series();
    assert_eq!(series.first().map(|p| p.x), Some(20.0));
    assert_eq!(series.last().map(|p| p.x), Some(30.0));
    assert_eq!(series.len(), 11);
}

#[test]
fn the_panel_lays_out_a_few_points_a_pixel_whatever_the_window() {
    let base = snapshot();
    let mut state = crate::ui::UiState::new(Scene::load("flag").unwrap(), 0.12);
    state.plots.window = WINDOW_MAX;
    // A minute of steps at 60 a second, for two cloths.
    for k in 1..=3600u32 {
        let mut s = at(&base, u64::from(k), f64::from(k) / 60.0);
        s.kinetic_energy = (f64::from(k) * 0.9).sin();
        state.plots.record(0, &s);
        state.plots.record(1, &s);
    }
    let span = (3600.0 - 1.0) / 60.0;
    let ctx = egui::Context::default();
    for ppp in [1.0, 2.0] {
        ctx.set_pixels_per_point(ppp);
        for _ in 0..2 {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(600.0, 300.0),
                )),
                ..Default::default()
            };
            let mut output = ctx.run_ui(input, |ui| plots_ui(ui, &mut state, true, Instant::now()));
            output.textures_delta.clear();
            assert_eq!(output.pixels_per_point, ppp);
        }
        // Three plots share the 600 points less the panel's margins: each 150 to 200
        // points, that many times `ppp` pixels. The columns are between half a pixel and a
        // pixel of the minute over a plot, at most 2 points each (and the newest column's
        // last): at most 4 points a pixel.
        let (most_px, least_px) = (200.0 * f64::from(ppp), 150.0 * f64::from(ppp));
        let width = state.plots.column_width;
        assert!(
            width > 0.5 * span / most_px && width <= span / least_px,
            "{width} s columns at {ppp} pixels a point"
        );
        let drawn = state.plots.drawn.as_ref().expect("drawn");
        assert_eq!(drawn.shown, [0, 1, 2]);
        for series in drawn.series.iter().flatten() {
            assert!(
                series.len() as f64 <= 4.0 * most_px + 1.0,
                "{} points laid out at {ppp} pixels a point",
                series.len()
            );
        }
    }
}

/// A lab of two copies at `step` (its time at the flag's 1/60 s).
fn lab_at(base: &Snapshot, step: u64) -> Snapshot {
    let t = step as f64 / 60.0;
    let mut lab = at(base, step, t);
    lab.lab = vec![at(base, step, t)];
    lab
}

#[test]
fn after_the_lab_closes_the_plots_follow_the_cloth_that_runs() {
    let base = snapshot();
    let mut plots = LivePlots::default();
    // The lab runs to 45 s …
    for step in 1..=2700 {
        let lab = lab_at(&base, step);
        plots.keep(2);
        plots.record(0, &lab);
        plots.record(1, &lab.lab[0]);
    }
    assert_eq!(Drawn::new(Instant::now(), &plots).x[1], 45.0);
    // … then one cloth again, its clock at 6 s and its step count on from the lab's.
    for step in 2701..=2820 {
        plots.keep(1);
        plots.record(0, &at(&base, step, 6.0 + (step - 2700) as f64 / 60.0));
    }
    assert_eq!(plots.traces.len(), 1, "the copy's trace is gone");
    let samples = &plots.traces[0].samples;
    assert_eq!(samples.len(), 120, "the lab's points are gone");
    assert!((samples[0].time - (6.0 + 1.0 / 60.0)).abs() < 1e-12);
    let drawn = Drawn::new(Instant::now(), &plots);
    assert!((drawn.x[1] - 8.0).abs() < 1e-9, "{:?}", drawn.x);
    assert_eq!(drawn.labels.len(), 1);
    // Fewer traces than kept: nothing changes.
    plots.keep(3);
    assert_eq!(plots.traces.len(), 1);
}

/// The viewer's panels for `snap` on a window of `size` points, with the plots shown, laid out
/// over a few frames; what accessibility reports of each widget: its label or value and its
/// rectangle.
fn laid_out(
    state: &mut crate::ui::UiState,
    snap: &Snapshot,
    size: [f32; 2],
) -> Vec<(String, egui::Rect)> {
    let ctx = egui::Context::default();
    ctx.enable_accesskit();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(size[0], size[1]),
            )),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |root| {
            crate::app::frame::panels(root, state, snap, &crate::ui::FrameInfo::default());
        });
        out.textures_delta.clear();
        let update = out.platform_output.accesskit_update.expect("a tree");
        nodes = update
            .nodes
            .iter()
            .filter_map(|(_, n)| {
                let text = n.label().or(n.value())?.to_string();
                let b = n.bounds()?;
                let rect = egui::Rect::from_min_max(
                    egui::pos2(b.x0 as f32, b.y0 as f32),
                    egui::pos2(b.x1 as f32, b.y1 as f32),
                );
                Some((text, rect))
            })
            .collect();
    }
    nodes
}

#[test]
fn in_a_small_window_save_csv_and_every_plot_lie_inside_it() {
    let scene = Scene::load("flag").unwrap();
    let base = snapshot();
    for size in [[800.0, 500.0], [1280.0, 800.0]] {
        let mut state = crate::ui::UiState::new(scene.clone(), 0.12);
        state.plots.shown = true;
        // A lab of two with a reference: four plots.
        let mut snap = lab_at(&base, 0);
        for step in 1..=120 {
            snap = lab_at(&base, step);
            snap.reference_distance = Some(crate::sim::model::shape::Distance {
                rms: 0.01,
                max: 0.02,
            });
            snap.lab[0].reference_distance = snap.reference_distance;
            state.sync(&snap);
        }
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0], size[1]));
        let nodes = laid_out(&mut state, &snap, size);
        let find = |text: &str| {
            let found = nodes.iter().find(|(t, _)| t == text);
            found.unwrap_or_else(|| panic!("no {text:?} at {size:?}")).1
        };
        let save = find("save CSV");
        assert!(window.contains_rect(save), "{size:?}: save CSV at {save:?}");
        let shown = state.plots.quantities_with_points();
        assert!(shown.len() >= 4, "{shown:?}");
        for q in shown {
            let title = find(QUANTITIES[q].title);
            assert!(
                title.min.x >= 0.0 && title.max.x <= size[0],
                "{size:?}: {} at {title:?}",
                QUANTITIES[q].title
            );
        }
    }
}
