//! Running figures of each copy and the table printed at the end.

use crate::sim::lab::copies::{Lab, Sample};
use std::fmt::Write as _;

/// Running figures of one copy over the lab steps before it diverged.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Summary {
    /// The copy's label (`kang`, `xpbd@0.005`).
    pub label: String,
    /// Its published step, s.
    pub dt: f64,
    /// Lab steps it took part in before diverging.
    pub samples: u64,
    pub mean_strain: f64,
    pub max_strain: f64,
    /// Mean kinetic energy, J.
    pub mean_energy: f64,
    /// Least-squares slope of the kinetic energy over time, J/s: how fast the copy gains
    /// (positive) or loses energy on average.
    pub energy_drift: f64,
    /// Mean wall time per step of the copy, s.
    pub mean_step_seconds: f64,
    /// The copy's own step and the time at which the guard stopped it.
    pub diverged_at: Option<(u64, f64)>,
    /// The last sample's shortest structural edge and share of short ones (of the last good
    /// state when the copy diverged).
    pub shortest_edge: f64,
    pub short_edges: f64,
    /// The last sample's distance from the reference, and the largest RMS distance over the
    /// run, m (`None` without a reference).
    pub distance: Option<crate::sim::model::shape::Distance>,
    pub worst_rms_distance: Option<f64>,
    // Running sums for the means and the slope.
    sum_strain: f64,
    sum_t: f64,
    sum_e: f64,
    sum_tt: f64,
    sum_te: f64,
    sum_step: f64,
}

impl Summary {
    pub(super) fn add(&mut self, s: &Sample) {
        self.samples += 1;
        self.sum_strain += s.max_strain;
        self.max_strain = self.max_strain.max(s.max_strain);
        self.sum_t += s.time;
        self.sum_e += s.kinetic_energy;
        self.sum_tt += s.time * s.time;
        self.sum_te += s.time * s.kinetic_energy;
        self.sum_step += s.step_seconds;
        self.shortest_edge = s.shortest_edge;
        self.short_edges = s.short_edges;
        self.distance = s.distance;
        self.worst_rms_distance = s
            .distance
            .map(|d| self.worst_rms_distance.map_or(d.rms, |w| w.max(d.rms)));
        let n = self.samples as f64;
        self.mean_strain = self.sum_strain / n;
        self.mean_energy = self.sum_e / n;
        self.mean_step_seconds = self.sum_step / n;
        let spread = n * self.sum_tt - self.sum_t * self.sum_t;
        self.energy_drift = if spread > 0.0 {
            (n * self.sum_te - self.sum_t * self.sum_e) / spread
        } else {
            0.0
        };
    }
}

/// The summaries of a lab's copies, updated after each lab step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summaries(pub Vec<Summary>);

impl Summaries {
    pub(crate) fn new(lab: &Lab) -> Self {
        Self(
            lab.copies
                .iter()
                .map(|c| Summary {
                    label: c.spec.to_string(),
                    dt: c.dt(),
                    ..Summary::default()
                })
                .collect(),
        )
    }

    /// Takes in the lab's latest samples (a diverged copy's are left out).
    pub(crate) fn add(&mut self, lab: &Lab) {
        for (summary, copy) in self.0.iter_mut().zip(&lab.copies) {
            match &copy.sim.divergence {
                None => summary.add(&copy.sample),
                Some(d) if summary.diverged_at.is_none() => {
                    summary.diverged_at = Some((d.step, d.time));
                }
                Some(_) => {}
            }
        }
    }

    /// The summary as an aligned text table.
    pub(crate) fn table(&self) -> String {
        let mut out = format!(
            "{:<20} {:>8} {:>11} {:>10} {:>12} {:>14} {:>10} {:>10} {:>7} {:>8} {:>8} {:>10}  {}\n",
            "copy",
            "dt s",
            "mean strain",
            "max strain",
            "mean KE J",
            "KE drift J/s",
            "step µs",
            "min edge",
            "< 0.95",
            "RMS cm",
            "max cm",
            "worst RMS",
            "diverged"
        );
        for s in &self.0 {
            let diverged = match s.diverged_at {
                Some((step, time)) => format!("at step {step} (t = {time:.3} s)"),
                None => "no".into(),
            };
            let cm = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{:.3}", 100.0 * v));
            let _ = writeln!(
                out,
                "{:<20} {:>8.4} {:>11.4} {:>10.4} {:>12.4e} {:>14.3e} {:>10.1} {:>10.3} {:>6.1}% {:>8} {:>8} {:>10}  {diverged}",
                s.label,
                s.dt,
                s.mean_strain,
                s.max_strain,
                s.mean_energy,
                s.energy_drift,
                s.mean_step_seconds * 1e6,
                s.shortest_edge,
                100.0 * s.short_edges,
                cm(s.distance.map(|d| d.rms)),
                cm(s.distance.map(|d| d.max)),
                cm(s.worst_rms_distance)
            );
        }
        out
    }
}
