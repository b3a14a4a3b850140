//! How a flag moves over a run, measured the same way at every key grid: the fly edge's sway
//! out of the cloth's plane and its dominant frequency, how far the fly edge reaches from the
//! hoist, how rippled the cloth is, and how short its edges get. The resolution study
//! (`flagsim compare --resolutions`) compares these across grids and against the accurate solve.
//!
//! The fly edge's point is the middle of the edge at `u = 1` (the fly of a flag; for any grid
//! cloth, the last column), the hoist's the middle of the edge at `u = 0`: with an even number
//! of rows, the mean of the two middle nodes, so that the point is the same piece of cloth at
//! every grid. "Out of plane" is along the normal of the cloth's plane as it was built.

use std::collections::VecDeque;
use std::f64::consts::PI;

use glam::DVec3;

use crate::sim::model::cloth::Cloth;
use crate::sim::model::shape::structural_edges;

pub use crate::sim::model::shape::Motion;

/// Samples a cloth's motion at a fixed interval and turns them into a [`Motion`]: over every
/// sample, or over the last ones only ([`MotionProbe::keeping`]).
#[derive(Debug, Clone)]
pub struct MotionProbe {
    /// The one or two nodes whose mean is the fly edge's point, and the hoist's.
    fly: Vec<usize>,
    hoist: Vec<usize>,
    /// The unit normal of the cloth's plane as built.
    normal: DVec3,
    /// Seconds between samples.
    interval: f64,
    /// The samples the figures are taken over, oldest first.
    samples: VecDeque<ProbeSample>,
    /// How many samples are kept: the oldest is dropped past it.
    keep: usize,
}

/// What one sample measured.
#[derive(Debug, Clone, Copy)]
struct ProbeSample {
    out_of_plane: f64,
    reach: f64,
    spread: f64,
    shortest_edge: f64,
    share_short: f64,
}

/// Why a cloth cannot be probed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAGrid;

impl std::fmt::Display for NotAGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the motion is measured on a grid cloth (a scene with cloth.grid)")
    }
}

impl std::error::Error for NotAGrid {}

impl MotionProbe {
    /// A probe of `cloth` (a grid cloth, as built: its plane is taken from its positions now)
    /// sampled every `interval` seconds.
    pub fn new(cloth: &Cloth, interval: f64) -> Result<Self, NotAGrid> {
        let grid = cloth.grid().ok_or(NotAGrid)?;
        let (nx, ny) = (grid.nx, grid.ny);
        let rows = middle_rows(ny);
        let kept = |i: usize, j: usize| !cloth.topology.mesh.is_cut(j * nx + i);
        // The last (first) column that keeps the middle rows: a shaped flag may cut the corner.
        let fly_column = (0..nx).rev().find(|&i| rows.iter().all(|&j| kept(i, j)));
        let hoist_column = (0..nx).find(|&i| rows.iter().all(|&j| kept(i, j)));
        let (Some(fly_column), Some(hoist_column)) = (fly_column, hoist_column) else {
            return Err(NotAGrid);
        };
        let x = &cloth.x;
        let corner = |i: usize, j: usize| x[j * nx + i];
        let u = corner(nx - 1, 0) - corner(0, 0);
        let v = corner(0, ny - 1) - corner(0, 0);
        let normal = u.cross(v).try_normalize().ok_or(NotAGrid)?;
        Ok(Self {
            fly: rows.iter().map(|&j| j * nx + fly_column).collect(),
            hoist: rows.iter().map(|&j| j * nx + hoist_column).collect(),
            normal,
            interval,
            samples: VecDeque::new(),
            keep: usize::MAX,
        })
    }

    /// The probe keeping only its last `samples` samples (at least 1): the figures are then
    /// those of the last `samples × interval` seconds.
    #[must_use]
    pub fn keeping(mut self, samples: usize) -> Self {
        self.keep = samples.max(1);
        self
    }

    /// Drops every sample taken: the figures start again from the next one.
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// Takes one sample of `cloth` (the same cloth the probe was made for).
    pub fn sample(&mut self, cloth: &Cloth) {
        let x = &cloth.x;
        let mean =
            |nodes: &[usize]| nodes.iter().map(|&i| x[i]).sum::<DVec3>() / nodes.len() as f64;
        let (fly, hoist) = (mean(&self.fly), mean(&self.hoist));
        let edges = structural_edges(cloth, x);
        if self.samples.len() >= self.keep {
            self.samples.pop_front();
        }
        self.samples.push_back(ProbeSample {
            out_of_plane: fly.dot(self.normal),
            reach: fly.distance(hoist),
            spread: spread(cloth, self.normal),
            shortest_edge: edges.shortest,
            share_short: edges.share_short,
        });
    }

    /// The motion over the samples taken (`None` before the first).
    pub fn motion(&self) -> Option<Motion> {
        let n = self.samples.len();
        if n == 0 {
            return None;
        }
        let count = n as f64;
        let out_of_plane: Vec<f64> = self.samples.iter().map(|s| s.out_of_plane).collect();
        let sum = |f: fn(&ProbeSample) -> f64| self.samples.iter().map(f).sum::<f64>();
        Some(Motion {
            sway: standard_deviation(&out_of_plane),
            frequency: dominant_frequency(&out_of_plane, self.interval),
            reach: sum(|s| s.reach) / count,
            spread: sum(|s| s.spread) / count,
            shortest_edge: self
                .samples
                .iter()
                .map(|s| s.shortest_edge)
                .fold(f64::INFINITY, f64::min),
            short_edges: sum(|s| s.share_short) / count,
            samples: n,
        })
    }
}

/// The middle row, or the two middle rows of an even count.
fn middle_rows(ny: usize) -> Vec<usize> {
    if ny % 2 == 1 {
        vec![ny / 2]
    } else {
        vec![ny / 2 - 1, ny / 2]
    }
}

/// The RMS distance of the kept nodes' out-of-plane positions from their mean, m.
fn spread(cloth: &Cloth, normal: DVec3) -> f64 {
    let heights: Vec<f64> = (0..cloth.x.len())
        .filter(|&i| !cloth.topology.mesh.is_cut(i))
        .map(|i| cloth.x[i].dot(normal))
        .collect();
    standard_deviation(&heights)
}

/// The population standard deviation (0 for no values).
pub(crate) fn standard_deviation(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt()
}

/// Frequency steps of the spectrum search, per `1 / duration`: the peak is found to an eighth
/// of the record's resolution, then refined by a parabola through its neighbours.
const SEARCH_STEPS_PER_BIN: f64 = 8.0;

/// The frequency, Hz, at which the Hann-windowed spectrum of `values` (sampled every
/// `interval` s, their least-squares line removed) peaks, between two cycles per record and
/// the Nyquist frequency: a drift slower than that (the flag settling into a new mean in a
/// gust) is not its flapping. 0 for a record of fewer than 4 samples or one that does not move.
pub(crate) fn dominant_frequency(values: &[f64], interval: f64) -> f64 {
    let n = values.len();
    if n < 4 || interval <= 0.0 {
        return 0.0;
    }
    let count = n as f64;
    let mean = values.iter().sum::<f64>() / count;
    // A record that stays within round-off of its mean does not move.
    let still = 1e-12 * mean.abs().max(1e-3);
    if values.iter().all(|v| (v - mean).abs() <= still) {
        return 0.0;
    }
    // The line through the samples: slope over the centred sample index.
    let centre = (count - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (k, v) in values.iter().enumerate() {
        let dk = k as f64 - centre;
        sxy += dk * (v - mean);
        sxx += dk * dk;
    }
    let slope = sxy / sxx;
    let windowed: Vec<f64> = values
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let hann = 0.5 - 0.5 * (2.0 * PI * k as f64 / (count - 1.0)).cos();
            (v - mean - slope * (k as f64 - centre)) * hann
        })
        .collect();
    let duration = n as f64 * interval;
    let step = 1.0 / (duration * SEARCH_STEPS_PER_BIN);
    let nyquist = 0.5 / interval;
    let power = |f: f64| {
        let (mut re, mut im) = (0.0, 0.0);
        for (k, w) in windowed.iter().enumerate() {
            let phase = 2.0 * PI * f * k as f64 * interval;
            re += w * phase.cos();
            im -= w * phase.sin();
        }
        re * re + im * im
    };
    let first = 2.0 / duration;
    let steps = ((nyquist - first) / step).floor().max(0.0) as usize;
    let (mut best, mut best_power) = (0usize, 0.0_f64);
    let mut powers = Vec::with_capacity(steps + 1);
    for s in 0..=steps {
        let p = power(first + s as f64 * step);
        if p > best_power {
            (best, best_power) = (s, p);
        }
        powers.push(p);
    }
    if best_power <= 0.0 {
        return 0.0;
    }
    // A parabola through the peak and its neighbours puts the peak between search steps.
    let shift = if best > 0 && best < steps {
        let (a, b, c) = (powers[best - 1], powers[best], powers[best + 1]);
        let denominator = a - 2.0 * b + c;
        if denominator < 0.0 {
            (0.5 * (a - c) / denominator).clamp(-0.5, 0.5)
        } else {
            0.0
        }
    } else {
        0.0
    };
    first + (best as f64 + shift) * step
}

/// How far `value` is from `reference`, as a fraction of `reference` (`None` where the
/// reference is 0).
pub fn relative_difference(value: f64, reference: f64) -> Option<f64> {
    (reference != 0.0).then(|| (value - reference) / reference)
}

/// The sway under which the fly edge counts as still, m. A cloth hanging at rest sways by the
/// solve's noise (from 0.1 µm to a few tenths of a millimetre) at a "frequency" that is that
/// noise's: a share of it, or its frequency, says nothing about the motion.
pub const STILL_SWAY: f64 = 1e-3;

/// Whether a motion's fly edge is still ([`STILL_SWAY`]): its sway and frequency are then not
/// compared as shares of a reference's.
pub fn is_still(m: &Motion) -> bool {
    m.sway < STILL_SWAY
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Scene;

    /// Sampling rate of the synthetic records, Hz (the default `dt`'s).
    const RATE: f64 = 60.0;

    fn sine(amplitude: f64, frequency: f64, offset: f64, seconds: f64) -> Vec<f64> {
        let n = (seconds * RATE).round() as usize;
        (0..n)
            .map(|k| offset + amplitude * (2.0 * PI * frequency * k as f64 / RATE).sin())
            .collect()
    }

    #[test]
    fn a_sines_standard_deviation_is_its_amplitude_over_root_two() {
        // 13 whole periods of 1.3 Hz in 10 s.
        let s = standard_deviation(&sine(0.2, 1.3, 0.7, 10.0));
        assert!((s - 0.2 / 2f64.sqrt()).abs() < 1e-3, "{s}");
        assert_eq!(standard_deviation(&[]), 0.0);
        assert_eq!(standard_deviation(&[3.0, 3.0]), 0.0);
        // Population, not sample: {1, 3} has deviation 1.
        assert_eq!(standard_deviation(&[1.0, 3.0]), 1.0);
    }

    #[test]
    fn the_dominant_frequency_is_the_strongest_sines_between_bins() {
        for f in [0.6, 1.16, 1.3, 2.36, 7.9] {
            let mut v = sine(0.1, f, 0.3, 10.0);
            // A weaker sine far off, a drift and a swing slower than two cycles a record do not
            // move the peak.
            for (k, x) in v.iter_mut().enumerate() {
                let t = k as f64 / RATE;
                *x += 0.03 * (2.0 * PI * 11.0 * t).cos()
                    + 0.02 * t
                    + 0.05 * (2.0 * PI * 0.1 * t).sin();
            }
            let found = dominant_frequency(&v, 1.0 / RATE);
            assert!((found - f).abs() < 0.01, "{f} Hz found as {found}");
        }
    }

    #[test]
    fn a_record_that_does_not_move_or_is_too_short_has_no_frequency() {
        assert_eq!(dominant_frequency(&[0.4; 600], 1.0 / RATE), 0.0);
        assert_eq!(dominant_frequency(&[0.0, 1.0, 0.0], 1.0 / RATE), 0.0);
        assert_eq!(dominant_frequency(&sine(1.0, 1.0, 0.0, 2.0), 0.0), 0.0);
    }

    fn flag() -> Cloth {
        Scene::load("flag")
            .expect("preset")
            .simulation()
            .expect("simulation")
            .cloth
    }

    /// Samples `samples` steps of 1/`RATE` s of the 10 × 10 flag turning about its hoist like
    /// a door from `rest`: node `(i, j)` leaves the plane by `amplitude · u_i · sin(2π f t)`,
    /// `u_i = i / 9`.
    fn swing_like_a_door(
        probe: &mut MotionProbe,
        cloth: &mut Cloth,
        rest: &[DVec3],
        amplitude: f64,
        f: f64,
        samples: usize,
    ) {
        for k in 0..samples {
            let s = (2.0 * PI * f * k as f64 / RATE).sin();
            for (i, (x, r)) in cloth.x.iter_mut().zip(rest).enumerate() {
                *x = *r + DVec3::Z * (amplitude * (i % 10) as f64 / 9.0 * s);
            }
            probe.sample(cloth);
        }
    }

    /// The flag (10 × 10 nodes, 1.2 m wide, in the xy plane) turning about its hoist like a
    /// door: node `(i, j)` leaves the plane by `amplitude · u_i · sin(2π f t)`, `u_i = i / 9`.
    #[test]
    fn a_flag_swinging_like_a_door_measures_its_amplitude_frequency_and_ripple() {
        let mut cloth = flag();
        let rest = cloth.x.clone();
        let (amplitude, f) = (0.01, 1.25);
        let mut probe = MotionProbe::new(&cloth, 1.0 / RATE).expect("a grid");
        // The xy plane's normal.
        assert!(
            (probe.normal.z.abs() - 1.0).abs() < 1e-12,
            "{:?}",
            probe.normal
        );
        let samples = 8 * 60; // 8 s: 10 whole periods
        swing_like_a_door(&mut probe, &mut cloth, &rest, amplitude, f, samples);
        let m = probe.motion().expect("samples");
        assert_eq!(m.samples, samples);
        assert!(
            (m.sway - amplitude / 2f64.sqrt()).abs() < 1e-5,
            "{}",
            m.sway
        );
        assert!((m.frequency - f).abs() < 0.01, "{}", m.frequency);
        // The reach is √(W² + z²) with z ≤ 1 cm: within 1e-4 of the width.
        assert!((m.reach - 1.2).abs() < 1e-4, "{}", m.reach);
        // The spread is |sin| times the deviation of u over the nodes (√(285/810 − 1/4)),
        // and |sin| averages 2/π over whole periods.
        let std_u = (285.0 / 810.0 - 0.25_f64).sqrt();
        let expected = amplitude * std_u * 2.0 / PI;
        assert!(
            (m.spread - expected).abs() < 0.01 * expected,
            "{} vs {expected}",
            m.spread
        );
        // Nothing squeezed.
        assert!(m.shortest_edge > 0.999 && m.short_edges == 0.0, "{m:?}");
    }

    #[test]
    fn a_flag_folded_to_half_its_width_measures_half_the_reach_and_half_its_edges_short() {
        let mut cloth = flag();
        let hoist_x = cloth.x[0].x;
        for x in &mut cloth.x {
            x.x = hoist_x + 0.5 * (x.x - hoist_x);
        }
        let mut probe = MotionProbe::new(&flag(), 1.0 / RATE).expect("a grid");
        probe.sample(&cloth);
        let m = probe.motion().expect("a sample");
        assert!((m.reach - 0.6).abs() < 1e-12, "{}", m.reach);
        assert!((m.shortest_edge - 0.5).abs() < 1e-12, "{}", m.shortest_edge);
        // 9 × 10 edges along u are squeezed, 10 × 9 along v are not.
        assert!((m.short_edges - 0.5).abs() < 1e-12, "{}", m.short_edges);
        assert_eq!((m.sway, m.frequency, m.spread), (0.0, 0.0, 0.0));
    }

    /// A probe keeping 4 s of samples measures only them: a flag folded to half its width for
    /// 4 s, then swinging like a door for 4 s (4 whole periods), measures the swing alone.
    #[test]
    fn a_probe_keeping_the_last_samples_forgets_the_older_ones() {
        let mut cloth = flag();
        let rest = cloth.x.clone();
        let hoist_x = rest[0].x;
        let keep = 4 * 60;
        let mut probe = MotionProbe::new(&cloth, 1.0 / RATE)
            .expect("a grid")
            .keeping(keep);
        for x in &mut cloth.x {
            x.x = hoist_x + 0.5 * (x.x - hoist_x);
        }
        for _ in 0..keep {
            probe.sample(&cloth);
        }
        let folded = probe.motion().expect("samples");
        assert!((folded.reach - 0.6).abs() < 1e-12 && folded.shortest_edge < 0.51);
        let (amplitude, f) = (0.02, 1.0);
        swing_like_a_door(&mut probe, &mut cloth, &rest, amplitude, f, keep);
        let m = probe.motion().expect("samples");
        assert_eq!(m.samples, keep);
        assert!(
            (m.sway - amplitude / 2f64.sqrt()).abs() < 1e-5,
            "{}",
            m.sway
        );
        assert!((m.frequency - f).abs() < 0.01, "{}", m.frequency);
        // √(1.2² + 0.02²) at most: the fold is forgotten.
        assert!((m.reach - 1.2).abs() < 2e-4, "{}", m.reach);
        assert!(m.shortest_edge > 0.999 && m.short_edges == 0.0, "{m:?}");
        probe.clear();
        assert!(probe.motion().is_none());
        probe.sample(&cloth);
        assert_eq!(probe.motion().expect("a sample").samples, 1);
        // At least one sample is kept.
        let mut one = MotionProbe::new(&flag(), 0.1).expect("a grid").keeping(0);
        one.sample(&cloth);
        one.sample(&cloth);
        assert_eq!(one.motion().expect("a sample").samples, 1);
    }

    #[test]
    fn the_fly_point_is_the_middle_of_the_edge_at_every_grid() {
        assert_eq!(middle_rows(9), vec![4]);
        assert_eq!(middle_rows(10), vec![4, 5]);
        assert_eq!(middle_rows(2), vec![0, 1]);
        let probe = MotionProbe::new(&flag(), 0.1).expect("a grid");
        assert_eq!(probe.fly, vec![4 * 10 + 9, 5 * 10 + 9]);
        assert_eq!(probe.hoist, vec![40, 50]);
        assert!(
            MotionProbe::new(&flag(), 0.1)
                .expect("a grid")
                .motion()
                .is_none()
        );
    }

    #[test]
    fn a_difference_is_relative_to_the_reference() {
        assert!((relative_difference(1.1, 1.0).unwrap() - 0.1).abs() < 1e-15);
        assert_eq!(relative_difference(0.5, 2.0), Some(-0.75));
        assert_eq!(relative_difference(0.5, 0.0), None);
    }
}
