//! Live plots under the 3-D view: kinetic energy, max strain, step time and, while the Fig. 8
//! comparison runs, the `Δv` cosine similarity to the precomputed filter, and while the lab's
//! reference copy runs, each cloth's RMS distance from it, over a rolling window
//! of simulated time, one line per cloth in its colour. Pausing freezes them (no new steps, no
//! new points); the points can be saved as CSV.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::Instant;

use egui::{Color32, Ui};
use egui_plot::{Line, Plot, PlotPoint, PlotPoints};

use super::stats::REFRESH;
use crate::lab_report::COPY_COLOURS;
use crate::sim::snapshot::Snapshot;
use decimated::Decimated;
pub use decimated::decimate;

mod decimated;

/// The window's shortest and longest span and its default, simulated seconds.
pub const WINDOW_MIN: f64 = 10.0;
pub const WINDOW_MAX: f64 = 60.0;
pub const WINDOW_DEFAULT: f64 = 20.0;

/// Height of each plot, points.
const PLOT_HEIGHT: f32 = 140.0;

/// One point of every plot: what a snapshot showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotSample {
    /// Simulated time, s.
    pub time: f64,
    /// `½ Σ m v²`, J.
    pub kinetic_energy: f64,
    /// Largest `|x_ab| / L` over the strain-limited springs.
    pub max_strain: f64,
    /// Wall time of the last step, µs.
    pub step_us: f64,
    /// Cosine similarity of the step's `Δv` to the precomputed filter's (only while the
    /// comparison runs).
    pub dv_cosine: Option<f64>,
    /// RMS distance from the lab's reference copy, m (only while one runs).
    pub rms_distance: Option<f64>,
}

/// One cloth's points.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The integrator (its name, as the panels write it).
    pub label: String,
    pub samples: VecDeque<PlotSample>,
}

/// The plots' data and settings.
#[derive(Debug, Clone)]
pub struct LivePlots {
    /// Whether the plots are shown (they record either way).
    pub shown: bool,
    /// The span of simulated time kept and drawn, s.
    pub window: f64,
    /// One per cloth.
    pub traces: Vec<Trace>,
    /// Where *save CSV* writes.
    pub csv_path: String,
    /// The snapshot generation and step last recorded, per trace.
    last: Vec<(u64, u64)>,
    /// Per trace, each of [`QUANTITIES`] decimated as it is recorded.
    decimated: Vec<[Decimated; QUANTITIES.len()]>,
    /// The width of the decimation's columns, simulated seconds: between half and all of
    /// what a pixel of a plot spans ([`Self::fit_columns`]; 0 until the plots are first laid
    /// out with points: every point is kept).
    column_width: f64,
    /// The plots as drawn: refreshed every [`REFRESH`] while the cloth runs, so the panel is
    /// not painted anew every frame.
    drawn: Option<Drawn>,
}

/// The plots as of the last refresh: what `egui_plot` lays out every frame.
#[derive(Debug, Clone)]
struct Drawn {
    /// When they were taken.
    at: Instant,
    /// The traces' labels.
    labels: Vec<String>,
    /// The quantities that have points (indices into [`QUANTITIES`]), a plot each.
    shown: Vec<usize>,
    /// `series[k][t]`: quantity `shown[k]` of trace `t`, decimated.
    series: Vec<Vec<Vec<PlotPoint>>>,
    /// The time axis: from the oldest point kept to the newest, s.
    x: [f64; 2],
    /// `y[k]`: plot `k`'s value axis ([`value_axis`]).
    y: Vec<[f64; 2]>,
}

impl Drawn {
    fn new(at: Instant, plots: &LivePlots) -> Self {
        let shown = plots.quantities_with_points();
        let series = shown
            .iter()
            .map(|&q| plots.decimated.iter().map(|d| d[q].series()).collect())
            .collect();
        let newest = plots.newest().unwrap_or(0.0);
        // The traces' span (the window once it has filled); a window's worth before the first
        // point when there is only one.
        let oldest = plots
            .traces
            .iter()
            .filter_map(|t| t.samples.front().map(|s| s.time))
            .fold(newest, f64::min);
        let oldest = if oldest < newest {
            oldest
        } else {
            newest - plots.window
        };
        let y = shown
            .iter()
            .zip(&series)
            .map(|(&q, s): (&usize, &Vec<Vec<PlotPoint>>)| {
                value_axis(s.iter().flatten().map(|p| p.y), QUANTITIES[q].from_zero)
            })
            .collect();
        Self {
            at,
            labels: plots.traces.iter().map(|t| t.label.clone()).collect(),
            shown,
            series,
            x: [oldest, newest],
            y,
        }
    }
}

/// A value axis for `values`: from their lowest (or from 0 when `from_zero` and none is
/// negative) to their highest, 5 % of the span added either side; a span of at least 0.1 % of
/// the largest magnitude (or 1 with no magnitude at all), so that equal values (a still cloth's
/// energy, every step time rounded alike) still get an axis with marks.
pub fn value_axis(values: impl IntoIterator<Item = f64>, from_zero: bool) -> [f64; 2] {
    let (mut lo, mut hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return [0.0, 1.0];
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    let magnitude = lo.abs().max(hi.abs());
    let least = if magnitude > 0.0 {
        1e-3 * magnitude
    } else {
        1.0
    };
    if hi - lo < least {
        let mid = 0.5 * (lo + hi);
        (lo, hi) = (mid - 0.5 * least, mid + 0.5 * least);
        if from_zero && lo < 0.0 && mid >= 0.0 {
            (lo, hi) = (0.0, least.max(2.0 * mid));
        }
    }
    let pad = 0.05 * (hi - lo);
    [
        if from_zero && lo == 0.0 {
            0.0
        } else {
            lo - pad
        },
        hi + pad,
    ]
}

impl Default for LivePlots {
    fn default() -> Self {
        Self {
            shown: false,
            window: WINDOW_DEFAULT,
            traces: Vec::new(),
            csv_path: "plots.csv".into(),
            last: Vec::new(),
            decimated: Vec::new(),
            column_width: 0.0,
            drawn: None,
        }
    }
}

impl LivePlots {
    /// Takes in cloth `copy`'s snapshot: a point when it holds a step not recorded yet. A reset
    /// or a scene load (a new generation) starts the trace over; points older than the window
    /// are dropped.
    pub fn record(&mut self, copy: usize, snap: &Snapshot) {
        while self.traces.len() <= copy {
            self.traces.push(Trace {
                label: String::new(),
                samples: VecDeque::new(),
            });
            self.last.push((u64::MAX, 0));
            self.decimated.push(Default::default());
        }
        let trace = &mut self.traces[copy];
        let (generation, step) = self.last[copy];
        if generation != snap.generation || snap.step < step {
            trace.samples.clear();
            self.decimated[copy] = Default::default();
        } else if snap.step == step {
            return;
        }
        self.last[copy] = (snap.generation, snap.step);
        trace.label = snap.params.integrator.name().to_string();
        let sample = PlotSample {
            time: snap.time,
            kinetic_energy: snap.kinetic_energy,
            max_strain: snap.stats.max_strain,
            step_us: snap.stats.step_seconds * 1e6,
            dv_cosine: snap.compare.as_ref().map(|c| c.cosine),
            rms_distance: snap.reference_distance.map(|d| d.rms),
        };
        trace.samples.push_back(sample);
        for (q, d) in QUANTITIES.iter().zip(&mut self.decimated[copy]) {
            if let Some(v) = (q.value)(&sample) {
                d.push([sample.time, v], self.column_width);
            }
        }
        self.trim();
    }

    /// The newest point's time over every trace, s: the lab's clock (a diverged copy's trace
    /// stops while the others run on).
    fn newest(&self) -> Option<f64> {
        self.traces
            .iter()
            .filter_map(|t| t.samples.back().map(|s| s.time))
            .reduce(f64::max)
    }

    /// Drops the points older than the window before the newest of any trace: every trace
    /// shares the time axis, so a copy that stopped long ago has nothing left to show.
    fn trim(&mut self) {
        let window = self.window;
        let Some(newest) = self.newest() else {
            return;
        };
        for (trace, decimated) in self.traces.iter_mut().zip(&mut self.decimated) {
            while trace
                .samples
                .front()
                .is_some_and(|s| s.time < newest - window)
            {
                trace.samples.pop_front();
            }
            for d in decimated {
                d.trim(newest - window);
            }
        }
    }

    /// Keeps the decimation's columns between half a pixel and a pixel of a plot `plot_px`
    /// pixels wide that spans the traces' time: when they leave that range (the plots
    /// filling after a reset, a new window or size), a pixel from then on. `egui_plot` fits
    /// its time axis to the traces, so the time a pixel spans follows them.
    fn fit_columns(&mut self, plot_px: f64) {
        let (oldest, newest) = self
            .traces
            .iter()
            .flat_map(|t| t.samples.front().into_iter().chain(t.samples.back()))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
                (lo.min(s.time), hi.max(s.time))
            });
        let pixel = (newest - oldest) / plot_px;
        let fits = self.column_width > 0.5 * pixel && self.column_width <= pixel;
        if pixel.is_finite() && pixel > 0.0 && !fits {
            self.set_column_width(pixel);
        }
    }

    /// Decimates in columns `width` seconds wide from now on, the points already recorded
    /// too (nothing to do when that is the width already).
    fn set_column_width(&mut self, width: f64) {
        if width == self.column_width {
            return;
        }
        self.column_width = width;
        for (trace, decimated) in self.traces.iter().zip(&mut self.decimated) {
            for (q, d) in QUANTITIES.iter().zip(decimated.iter_mut()) {
                *d = Decimated::default();
                for s in &trace.samples {
                    if let Some(v) = (q.value)(s) {
                        d.push([s.time, v], width);
                    }
                }
            }
        }
    }

    /// The quantities some trace has points of (indices into [`QUANTITIES`]).
    fn quantities_with_points(&self) -> Vec<usize> {
        (0..QUANTITIES.len())
            .filter(|&q| self.decimated.iter().any(|d| !d[q].is_empty()))
            .collect()
    }

    /// Every point as CSV:
    /// `time,integrator,kinetic_energy,max_strain,step_us,dv_cosine,rms_distance_m` (the last
    /// two empty where the comparison or the reference copy did not run), trace after trace.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "time,integrator,kinetic_energy,max_strain,step_us,dv_cosine,rms_distance_m\n",
        );
        for trace in &self.traces {
            for s in &trace.samples {
                let cosine = s.dv_cosine.map(|c| c.to_string()).unwrap_or_default();
                let distance = s.rms_distance.map(|d| format!("{d:e}")).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{},{},{:e},{},{:.3},{cosine},{distance}",
                    s.time, trace.label, s.kinetic_energy, s.max_strain, s.step_us
                );
            }
        }
        out
    }

    /// What to draw now: the plots as of the last refresh (every [`REFRESH`] while running,
    /// at once while paused).
    fn refreshed(&mut self, paused: bool, now: Instant) -> &Drawn {
        let drawn = match self.drawn.take() {
            Some(d) if !paused && now.duration_since(d.at) < REFRESH => d,
            _ => Drawn::new(now, self),
        };
        self.drawn.insert(drawn)
    }
}

/// The colour of cloth `copy`'s line (the lab's copy colours).
pub fn colour(copy: usize) -> Color32 {
    let [r, g, b] = COPY_COLOURS[copy % COPY_COLOURS.len()];
    Color32::from_rgb(r, g, b)
}

/// One plotted quantity: its title and how to read it from a point.
struct Quantity {
    title: &'static str,
    value: fn(&PlotSample) -> Option<f64>,
    /// Whether its axis starts at 0 (a cost or an energy, never negative).
    from_zero: bool,
}

const QUANTITIES: [Quantity; 5] = [
    Quantity {
        title: "kinetic energy, J",
        value: |s| Some(s.kinetic_energy),
        from_zero: true,
    },
    Quantity {
        title: "max strain |x|/L",
        value: |s| Some(s.max_strain),
        from_zero: false,
    },
    Quantity {
        title: "step time, µs",
        value: |s| Some(s.step_us),
        from_zero: true,
    },
    Quantity {
        title: "Δv cosine to the filter",
        value: |s| s.dv_cosine,
        from_zero: false,
    },
    Quantity {
        title: "distance from reference (RMS), cm",
        value: |s| s.rms_distance.map(|d| 100.0 * d),
        from_zero: true,
    },
];

/// The plots panel: the window, *save CSV*, and one plot per quantity side by side (the
/// cosine only when some point has it), as of `now` (the last refresh is kept until
/// [`REFRESH`] after it unless `paused`).
pub fn plots_ui(ui: &mut Ui, state: &mut super::UiState, paused: bool, now: Instant) {
    let plots = &mut state.plots;
    ui.horizontal(|ui| {
        ui.label("window");
        if ui
            .add(
                egui::Slider::new(&mut plots.window, WINDOW_MIN..=WINDOW_MAX)
                    .suffix(" s")
                    .fixed_decimals(0),
            )
            .on_hover_text("Simulated seconds shown (and kept for the CSV)")
            .changed()
        {
            plots.trim();
            plots.drawn = None;
        }
        ui.separator();
        ui.text_edit_singleline(&mut plots.csv_path)
            .on_hover_text("Where save CSV writes");
        if ui
            .button("save CSV")
            .on_hover_text("Every point in the window, one row per point and cloth")
            .clicked()
        {
            match crate::files::write_atomically(
                std::path::Path::new(&plots.csv_path),
                plots.csv().as_bytes(),
            ) {
                Ok(()) => (state.notices).info(format!("saved the plots to {}", plots.csv_path)),
                Err(e) => (state.notices).error(format!("cannot save {}: {e}", plots.csv_path)),
            }
        }
    });
    // Columns of the decimation no wider than a pixel of a plot (a plot is narrower than its
    // share of the strip by its axis labels).
    let shown = plots.quantities_with_points().len().max(1);
    let plot_px = (ui.available_width() * ui.pixels_per_point() / shown as f32).ceil();
    plots.fit_columns(f64::from(plot_px.max(1.0)));
    let drawn = plots.refreshed(paused, now);
    if drawn.shown.is_empty() {
        ui.label("No steps yet: the plots fill as the cloth runs.");
        return;
    }
    ui.columns(drawn.shown.len(), |columns| {
        let plots = columns.iter_mut().zip(&drawn.shown).zip(&drawn.series);
        for (k, ((ui, &q), series)) in plots.enumerate() {
            let title = QUANTITIES[q].title;
            ui.label(title);
            Plot::new(title)
                .height(PLOT_HEIGHT)
                .allow_zoom(false)
                .allow_drag(false)
                .allow_scroll(false)
                .allow_boxed_zoom(false)
                .show(ui, |p| {
                    // The lab's clock and the window, whatever each trace spans.
                    p.set_plot_bounds_x(drawn.x[0]..=drawn.x[1]);
                    p.set_plot_bounds_y(drawn.y[k][0]..=drawn.y[k][1]);
                    for (i, (label, points)) in drawn.labels.iter().zip(series).enumerate() {
                        let line = Line::new(label.as_str(), PlotPoints::Borrowed(points));
                        p.line(line.color(colour(i)));
                    }
                });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
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
        r.reference_distance = Some(crate::sim::shape::Distance {
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
        r.reference_distance = Some(crate::sim::shape::Distance {
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
        // which no longer fits.
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
                let mut output =
                    ctx.run_ui(input, |ui| plots_ui(ui, &mut state, true, Instant::now()));
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
}
