//! `flagsim compare`: the integrator lab ([`crate::sim::lab`]) run headless. One CSV row per
//! lab step and copy, a summary per copy, and the same plots as the viewer's as SVG.

pub mod plot;

use std::fmt::Write as _;

use crate::sim::lab::{Lab, Sample};

/// The copies' colours, in copy order: the first four of the Okabe–Ito palette (told apart
/// with any common colour-vision deficiency). The viewer's labels and plots use them too.
pub const COPY_COLOURS: [[u8; 3]; 4] = [
    [0xD5, 0x5E, 0x00], // vermilion
    [0x00, 0x72, 0xB2], // blue
    [0x00, 0x9E, 0x73], // bluish green
    [0xCC, 0x79, 0xA7], // reddish purple
];

/// The CSV's first line. The distance columns are empty when the lab has no reference.
pub const CSV_HEADER: &str = "time,integrator,kinetic_energy,max_strain,step_us,diverged,\
shortest_edge,short_edges,rms_distance_m,max_distance_m\n";

/// The CSV rows of the lab's latest samples, one per copy.
pub fn csv_rows(lab: &Lab) -> String {
    let mut out = String::new();
    for copy in &lab.copies {
        let s = &copy.sample;
        // `{:e}`/`{}` print the shortest text that reads back to the same f64.
        let (rms, max) = s.distance.map_or((String::new(), String::new()), |d| {
            (format!("{:e}", d.rms), format!("{:e}", d.max))
        });
        let _ = writeln!(
            out,
            "{},{},{:e},{},{:.3},{},{},{},{rms},{max}",
            s.time,
            copy.spec,
            s.kinetic_energy,
            s.max_strain,
            s.step_seconds * 1e6,
            s.diverged,
            s.shortest_edge,
            s.short_edges
        );
    }
    out
}

/// Running figures of one copy over the lab steps before it diverged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
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
    pub distance: Option<crate::sim::shape::Distance>,
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
    fn add(&mut self, s: &Sample) {
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
pub struct Summaries(pub Vec<Summary>);

impl Summaries {
    pub fn new(lab: &Lab) -> Self {
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
    pub fn add(&mut self, lab: &Lab) {
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
    pub fn table(&self) -> String {
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

/// The samples kept for the plot: every copy's, at most about `capacity` per copy (when full,
/// every other one is dropped and the spacing doubles, so memory stays flat for any length).
#[derive(Debug, Clone)]
pub struct Series {
    pub labels: Vec<String>,
    pub samples: Vec<Vec<Sample>>,
    capacity: usize,
    /// Keep one lab step in `stride`.
    stride: u64,
}

impl Series {
    pub fn new(lab: &Lab, capacity: usize) -> Self {
        Self {
            labels: lab.copies.iter().map(|c| c.spec.to_string()).collect(),
            samples: vec![Vec::new(); lab.copies.len()],
            capacity: capacity.max(2),
            stride: 1,
        }
    }

    /// Takes in the lab's latest samples, if this lab step is one kept.
    pub fn add(&mut self, lab: &Lab) {
        if !lab.ticks.is_multiple_of(self.stride) {
            return;
        }
        for (series, copy) in self.samples.iter_mut().zip(&lab.copies) {
            series.push(copy.sample);
        }
        if self
            .samples
            .first()
            .is_some_and(|s| s.len() >= self.capacity)
        {
            // Keep the samples at multiples of the doubled stride (the 2nd, 4th, …).
            for series in &mut self.samples {
                let mut keep = true;
                series.retain(|_| {
                    keep = !keep;
                    keep
                });
            }
            self.stride *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(time: f64, kinetic_energy: f64, max_strain: f64) -> Sample {
        Sample {
            time,
            kinetic_energy,
            max_strain,
            step_seconds: 1e-5,
            diverged: false,
            shortest_edge: 1.0,
            short_edges: 0.0,
            distance: None,
        }
    }

    #[test]
    fn the_drift_is_the_slope_of_a_straight_line_through_the_energies() {
        // E = 3 + 2 t exactly: the least-squares slope is 2 J/s, the mean the value at the
        // mean time.
        let mut s = Summary::default();
        for t in [0.5, 1.0, 1.5, 2.0] {
            s.add(&sample(t, 3.0 + 2.0 * t, 1.0 + t / 10.0));
        }
        assert!((s.energy_drift - 2.0).abs() < 1e-12, "{}", s.energy_drift);
        assert!((s.mean_energy - (3.0 + 2.0 * 1.25)).abs() < 1e-12);
        assert!((s.mean_strain - 1.125).abs() < 1e-12);
        assert!((s.max_strain - 1.2).abs() < 1e-12);
        assert!((s.mean_step_seconds - 1e-5).abs() < 1e-18);
        assert_eq!(s.samples, 4);
    }

    #[test]
    fn the_plot_series_halves_itself_and_keeps_an_even_spacing() {
        use crate::sim::lab::{CopySpec, Lab};
        use crate::sim::{IntegratorKind, Scene};
        let spec = CopySpec {
            integrator: IntegratorKind::Kang,
            dt: None,
            device: crate::sim::DeviceChoice::Cpu,
        };
        let mut lab = Lab::new(&Scene::load("flag").unwrap(), &[spec, spec]).unwrap();
        let mut series = Series::new(&lab, 4);
        for _ in 0..21 {
            lab.tick();
            series.add(&lab);
        }
        // Capacity 4: after ticks 1..4 the 2nd and 4th stay (stride 2), after 2, 4, 6, 8 the 4th
        // and 8th (stride 4), then 4, 8, 12, 16 -> 8, 16 (stride 8); tick 21 is not a multiple.
        let ticks: Vec<u64> = series.samples[0]
            .iter()
            .map(|s| (s.time / lab.dt).round() as u64)
            .collect();
        assert_eq!(ticks, [8, 16]);
        assert_eq!(series.samples[1].len(), 2);
        assert_eq!(series.labels, ["kang", "kang"]);
    }

    #[test]
    fn one_sample_has_no_drift() {
        let mut s = Summary::default();
        s.add(&sample(1.0, 5.0, 1.0));
        assert_eq!(s.energy_drift, 0.0);
    }
}
