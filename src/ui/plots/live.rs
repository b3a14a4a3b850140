//! The plots' points: what each snapshot showed, per cloth, over a rolling window of
//! simulated time, and the lines last drawn from them.

use std::collections::VecDeque;
use std::fmt::Write as _;
use web_time::Instant;

use egui_plot::PlotPoint;

use super::decimated::Decimated;
use super::panel::QUANTITIES;
use crate::sim::runtime::snapshot::Snapshot;

/// How often the figures are refreshed while the cloth runs: often enough to follow, seldom
/// enough to read, and the panel does not have to be painted anew every frame (the viewer
/// reuses the last painted panels while nothing in them changes).
pub const REFRESH: std::time::Duration = std::time::Duration::from_millis(250);

/// The window's shortest and longest span and its default, simulated seconds.
pub const WINDOW_MIN: f64 = 10.0;
pub const WINDOW_MAX: f64 = 60.0;
pub const WINDOW_DEFAULT: f64 = 20.0;

/// Height of each plot, points.
pub(super) const PLOT_HEIGHT: f32 = 140.0;

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
    pub(super) last: Vec<(u64, u64)>,
    /// Per trace, each of [`QUANTITIES`] decimated as it is recorded.
    pub(super) decimated: Vec<[Decimated; QUANTITIES.len()]>,
    /// The width of the decimation's columns, simulated seconds: between half and all of
    /// what a pixel of a plot spans ([`Self::fit_columns`]; 0 until the plots are first laid
    /// out with points: every point is kept).
    pub(super) column_width: f64,
    /// The plots as drawn: refreshed every [`REFRESH`] while the cloth runs, so the panel is
    /// not painted anew every frame.
    pub(super) drawn: Option<Drawn>,
}

/// The plots as of the last refresh: what `egui_plot` lays out every frame.
#[derive(Debug, Clone)]
pub(super) struct Drawn {
    /// When they were taken.
    pub(super) at: Instant,
    /// The traces' labels.
    pub(super) labels: Vec<String>,
    /// The quantities that have points (indices into [`QUANTITIES`]), a plot each.
    pub(super) shown: Vec<usize>,
    /// `series[k][t]`: quantity `shown[k]` of trace `t`, decimated.
    pub(super) series: Vec<Vec<Vec<PlotPoint>>>,
    /// The time axis: from the oldest point kept to the newest, s.
    pub(super) x: [f64; 2],
    /// `y[k]`: plot `k`'s value axis ([`value_axis`]).
    pub(super) y: Vec<[f64; 2]>,
}

impl Drawn {
    pub(super) fn new(at: Instant, plots: &LivePlots) -> Self {
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
pub(crate) fn value_axis(values: impl IntoIterator<Item = f64>, from_zero: bool) -> [f64; 2] {
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
    /// or a scene load (a new generation), or a clock gone back, starts the trace over; points
    /// older than the window are dropped.
    pub(crate) fn record(&mut self, copy: usize, snap: &Snapshot) {
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
        if generation == snap.generation && snap.step == step {
            return;
        }
        // A clock that went back (the last good state restored, the lab opened or closed: its
        // copies keep their own time) starts the trace over, as a reset does.
        let back = trace.samples.back().is_some_and(|s| snap.time < s.time);
        if generation != snap.generation || back {
            trace.samples.clear();
            self.decimated[copy] = Default::default();
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

    /// Keeps the traces of the first `cloths` cloths, those shown now: the lab's copies'
    /// traces go when it closes, so that none stands still beside the cloth that runs on.
    pub(crate) fn keep(&mut self, cloths: usize) {
        if self.traces.len() > cloths {
            self.traces.truncate(cloths);
            self.last.truncate(cloths);
            self.decimated.truncate(cloths);
            self.drawn = None;
        }
    }

    /// The newest point's time over every trace, s: the lab's clock (a diverged copy's trace
    /// stops while the others run on).
    pub(super) fn newest(&self) -> Option<f64> {
        self.traces
            .iter()
            .filter_map(|t| t.samples.back().map(|s| s.time))
            .reduce(f64::max)
    }

    /// Drops the points older than the window before the newest of any trace: every trace
    /// shares the time axis, so a copy that stopped long ago has nothing left to show.
    pub(super) fn trim(&mut self) {
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
    pub(super) fn fit_columns(&mut self, plot_px: f64) {
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
    pub(super) fn set_column_width(&mut self, width: f64) {
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
    pub(super) fn quantities_with_points(&self) -> Vec<usize> {
        (0..QUANTITIES.len())
            .filter(|&q| self.decimated.iter().any(|d| !d[q].is_empty()))
            .collect()
    }

    /// Every point as CSV:
    /// `time,integrator,kinetic_energy,max_strain,step_us,dv_cosine,rms_distance_m` (the last
    /// two empty where the comparison or the reference copy did not run), trace after trace.
    pub(crate) fn csv(&self) -> String {
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
    pub(super) fn refreshed(&mut self, paused: bool, now: Instant) -> &Drawn {
        let drawn = match self.drawn.take() {
            Some(d) if !paused && now.duration_since(d.at) < REFRESH => d,
            _ => Drawn::new(now, self),
        };
        self.drawn.insert(drawn)
    }
}
