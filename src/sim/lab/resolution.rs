//! The resolution study: one scene run at several key grids, each grid's copies beside an
//! accurate solve of the same springs, and each run's [`Motion`]. A material that does not
//! depend on the grid gives the accurate solve the same motion at every grid; a step that is
//! right gives its motion too.

use crate::sim::format::error::SimError;
use crate::sim::format::scene::Scene;
use crate::sim::lab::copies::{CopySpec, Lab};
use crate::sim::lab::motion::{Motion, MotionProbe};
use crate::sim::runtime::device::DeviceProvider;

/// How long each grid runs and what it measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StudySettings {
    /// Simulated seconds each grid runs, s.
    pub seconds: f64,
    /// Simulated seconds left out of the measures at the start (the flag's first swing), s.
    pub settle: f64,
    /// The finest grid (nodes along the larger side) that runs the accurate solve beside its
    /// copies: it costs far more than the copies.
    pub reference_up_to: usize,
}

/// One run of the study: a copy (or the accurate solve) at one grid.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRow {
    /// Key nodes `[nx, ny]`.
    pub grid: [usize; 2],
    /// The copy's label ([`CopySpec`]'s), or `accurate`.
    pub label: String,
    /// Whether this is the accurate solve.
    pub accurate: bool,
    /// The motion after the settling time (`None`: it stopped before the first sample).
    pub motion: Option<Motion>,
    /// Whether the guard stopped it.
    pub diverged: bool,
    /// Mean RMS node distance from the accurate solve at this grid over the measured time while
    /// the accurate solve ran, m (`None` without one).
    pub distance: Option<f64>,
    /// Mean wall time of its steps, s (`None` for the accurate solve, which the lab does not
    /// time).
    pub step_seconds: Option<f64>,
}

/// The label of the accurate solve's row.
pub const ACCURATE: &str = "accurate";

/// Runs `scene` at a key grid of `nx × ny` nodes with `specs`' copies (1 to 4) and, up to
/// `settings.reference_up_to`, the accurate solve: a row per copy, the accurate solve's first.
pub fn study_grid(
    scene: &Scene,
    [nx, ny]: [usize; 2],
    specs: &[CopySpec],
    gpu: Option<&dyn DeviceProvider>,
    settings: StudySettings,
) -> Result<Vec<StudyRow>, SimError> {
    if specs.is_empty() || specs.len() > 4 {
        return Err(SimError::CopyCount {
            count: specs.len(),
            min: 1,
            max: 4,
        });
    }
    let scene = scene.with_key_grid(nx, ny)?;
    let mut lab = Lab::of_copies(&scene, specs, gpu)?;
    if nx.max(ny) <= settings.reference_up_to {
        lab = lab.with_reference(&scene)?;
    }
    let interval = lab.dt;
    let probe = |sim: &crate::sim::Simulation| {
        MotionProbe::new(&sim.cloth, interval).map_err(|_| SimError::Structure {
            field: "cloth.grid",
            problem: "missing: the resolution study measures a grid cloth",
        })
    };
    let mut probes = lab
        .copies
        .iter()
        .map(|c| probe(&c.sim))
        .collect::<Result<Vec<_>, _>>()?;
    let mut reference_probe = lab.reference.as_deref().map(probe).transpose()?;
    let ticks = ((settings.seconds / lab.dt).round() as u64).max(1);
    let settle_ticks = ((settings.settle / lab.dt).round() as u64).min(ticks - 1);
    // Per copy: the sum of its RMS distances from the accurate solve and how many were taken
    // (none once the accurate solve has stopped).
    let mut distances = vec![(0.0, 0u64); specs.len()];
    let mut step_sums = vec![0.0; specs.len()];
    for tick in 1..=ticks {
        lab.tick();
        for (sum, copy) in step_sums.iter_mut().zip(&lab.copies) {
            *sum += copy.sample.step_seconds;
        }
        if tick <= settle_ticks {
            continue;
        }
        for ((probe, copy), (sum, count)) in probes.iter_mut().zip(&lab.copies).zip(&mut distances)
        {
            if copy.sim.divergence.is_none() {
                probe.sample(&copy.sim.cloth);
            }
            if let Some(d) = copy.sample.distance {
                *sum += d.rms;
                *count += 1;
            }
        }
        if let (Some(probe), Some(reference)) = (&mut reference_probe, lab.reference.as_deref())
            && reference.divergence.is_none()
        {
            probe.sample(&reference.cloth);
        }
    }
    let mut rows = Vec::with_capacity(specs.len() + 1);
    if let (Some(probe), Some(reference)) = (&reference_probe, lab.reference.as_deref()) {
        rows.push(StudyRow {
            grid: [nx, ny],
            label: ACCURATE.to_string(),
            accurate: true,
            motion: probe.motion(),
            diverged: reference.divergence.is_some(),
            distance: None,
            step_seconds: None,
        });
    }
    for (k, copy) in lab.copies.iter().enumerate() {
        rows.push(StudyRow {
            grid: [nx, ny],
            label: copy.spec.to_string(),
            accurate: false,
            motion: probes[k].motion(),
            diverged: copy.sim.divergence.is_some(),
            distance: {
                let (sum, count) = distances[k];
                (count > 0).then(|| sum / count as f64)
            },
            step_seconds: Some(step_sums[k] / ticks as f64),
        });
    }
    Ok(rows)
}
