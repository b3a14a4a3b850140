//! Live plots under the 3-D view: kinetic energy, max strain, step time and, while the Fig. 8
//! comparison runs, the `Δv` cosine similarity to the precomputed filter, over a rolling window
//! of simulated time, one line per cloth in its colour. Pausing freezes them (no new steps, no
//! new points); the points can be saved as CSV.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::Instant;

use egui::{Color32, Ui};
use egui_plot::{Line, Plot, PlotPoints};

use super::stats::REFRESH;
use crate::lab::COPY_COLOURS;
use crate::sim::thread::Snapshot;

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
    /// The traces as drawn, and when they were taken: refreshed every [`REFRESH`] while the
    /// cloth runs, so the panel is not painted anew every frame.
    drawn: Option<(Instant, Vec<Trace>)>,
}

impl Default for LivePlots {
    fn default() -> Self {
        Self {
            shown: false,
            window: WINDOW_DEFAULT,
            traces: Vec::new(),
            csv_path: "plots.csv".into(),
            last: Vec::new(),
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
        }
        let trace = &mut self.traces[copy];
        let (generation, step) = self.last[copy];
        if generation != snap.generation || snap.step < step {
            trace.samples.clear();
        } else if snap.step == step {
            return;
        }
        self.last[copy] = (snap.generation, snap.step);
        trace.label = snap.params.integrator.name().to_string();
        trace.samples.push_back(PlotSample {
            time: snap.time,
            kinetic_energy: snap.kinetic_energy,
            max_strain: snap.stats.max_strain,
            step_us: snap.stats.step_seconds * 1e6,
            dv_cosine: snap.compare.as_ref().map(|c| c.cosine),
        });
        self.trim();
    }

    /// Drops the points older than the window before the newest.
    fn trim(&mut self) {
        let window = self.window;
        for trace in &mut self.traces {
            let Some(newest) = trace.samples.back().map(|s| s.time) else {
                continue;
            };
            while trace
                .samples
                .front()
                .is_some_and(|s| s.time < newest - window)
            {
                trace.samples.pop_front();
            }
        }
    }

    /// Every point as CSV: `time,integrator,kinetic_energy,max_strain,step_us,dv_cosine`
    /// (the last empty where the comparison did not run), trace after trace.
    pub fn csv(&self) -> String {
        let mut out = String::from("time,integrator,kinetic_energy,max_strain,step_us,dv_cosine\n");
        for trace in &self.traces {
            for s in &trace.samples {
                let cosine = s.dv_cosine.map(|c| c.to_string()).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{},{},{:e},{},{:.3},{cosine}",
                    s.time, trace.label, s.kinetic_energy, s.max_strain, s.step_us
                );
            }
        }
        out
    }

    /// The traces to draw now: the recorded ones as of the last refresh (every [`REFRESH`]
    /// while running, at once while paused).
    fn refreshed(&mut self, paused: bool, now: Instant) -> &[Trace] {
        let stale = self
            .drawn
            .as_ref()
            .is_none_or(|(at, _)| paused || now.duration_since(*at) >= REFRESH);
        if stale {
            self.drawn = Some((now, self.traces.clone()));
        }
        self.drawn.as_ref().map_or(&[], |(_, t)| t.as_slice())
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
}

const QUANTITIES: [Quantity; 4] = [
    Quantity {
        title: "kinetic energy, J",
        value: |s| Some(s.kinetic_energy),
    },
    Quantity {
        title: "max strain |x|/L",
        value: |s| Some(s.max_strain),
    },
    Quantity {
        title: "step time, µs",
        value: |s| Some(s.step_us),
    },
    Quantity {
        title: "Δv cosine to the filter",
        value: |s| s.dv_cosine,
    },
];

/// The plots panel: the window, *save CSV*, and one plot per quantity side by side (the
/// cosine only when some point has it).
pub fn plots_ui(ui: &mut Ui, state: &mut super::UiState, paused: bool) {
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
    let traces = plots.refreshed(paused, Instant::now());
    let shown: Vec<&Quantity> = QUANTITIES
        .iter()
        .filter(|q| {
            traces
                .iter()
                .any(|t| t.samples.iter().any(|s| (q.value)(s).is_some()))
        })
        .collect();
    if shown.is_empty() {
        ui.label("No steps yet: the plots fill as the cloth runs.");
        return;
    }
    ui.columns(shown.len(), |columns| {
        for (ui, q) in columns.iter_mut().zip(&shown) {
            ui.label(q.title);
            Plot::new(q.title)
                .height(PLOT_HEIGHT)
                .allow_zoom(false)
                .allow_drag(false)
                .allow_scroll(false)
                .allow_boxed_zoom(false)
                .show(ui, |p| {
                    for (i, trace) in traces.iter().enumerate() {
                        let points: PlotPoints = trace
                            .samples
                            .iter()
                            .filter_map(|s| (q.value)(s).map(|v| [s.time, v]))
                            .collect();
                        p.line(Line::new(trace.label.as_str(), points).color(colour(i)));
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
    fn a_point_per_new_step_and_none_for_a_repeated_one() {
        let base = snapshot();
        let mut plots = LivePlots::default();
        plots.record(0, &at(&base, 1, 0.1));
        plots.record(0, &at(&base, 1, 0.1));
        plots.record(0, &at(&base, 2, 0.2));
        let trace = &plots.traces[0];
        assert_eq!(trace.samples.len(), 2);
        assert_eq!(trace.label, "kang");
        assert_eq!(trace.samples[1].time, 0.2);
        assert_eq!(trace.samples[1].kinetic_energy, base.kinetic_energy);
        assert_eq!(trace.samples[1].step_us, base.stats.step_seconds * 1e6);
        assert_eq!(trace.samples[1].dv_cosine, None);
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
        assert_eq!(
            plots.csv(),
            "time,integrator,kinetic_energy,max_strain,step_us,dv_cosine\n\
             0.25,kang,5e-1,1.03,40.000,\n"
        );
    }

    #[test]
    fn the_panel_draws_a_plot_per_quantity_that_has_points() {
        let base = snapshot();
        let mut state = crate::ui::UiState::new(Scene::load("flag").unwrap(), 0.12);
        let ctx = egui::Context::default();
        let draw = |state: &mut crate::ui::UiState| {
            let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
                plots_ui(ui, state, false);
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
        plots.record(0, &at(&base, 1, 0.1));
        assert_eq!(plots.refreshed(false, t0)[0].samples.len(), 1);
        plots.record(0, &at(&base, 2, 0.2));
        assert_eq!(plots.refreshed(false, t0 + REFRESH / 2)[0].samples.len(), 1);
        assert_eq!(plots.refreshed(false, t0 + REFRESH)[0].samples.len(), 2);
        plots.record(0, &at(&base, 3, 0.3));
        assert_eq!(plots.refreshed(true, t0 + REFRESH)[0].samples.len(), 3);
    }
}
