//! The largest stable `dt` of an integrator on a scene, by bisection: what `flagsim bench`
//! reports per preset, and what the viewer's lab finds for its copies in the background
//! (`sim_thread::Search`). The lab's search also finds the largest *accurate* `dt`: the largest at which
//! the integrator ends within [`ACCURATE_DISTANCE`] (RMS) of an accurate solve of the same
//! springs ([`shape::reference_params`]), since a step can be stable and far from right.

use std::sync::atomic::{AtomicBool, Ordering};

use glam::DVec3;

use crate::sim::format::params::IntegratorKind;
use crate::sim::format::scene::Scene;
use crate::sim::model::shape;

/// RMS distance from the reference under which a run counts as accurate, m (1 cm).
pub(crate) const ACCURATE_DISTANCE: f64 = 0.01;

/// Strain beyond which a run counts as having run away (three times the rest length: no cloth
/// survives that, whatever the integrator's accuracy).
pub(crate) const RUNAWAY_STRAIN: f64 = 3.0;

/// The bisection's bounds, s: it searches `log dt` between them.
pub(crate) const DT_MIN: f64 = 1e-4;
pub const DT_MAX: f64 = 0.5;

/// Simulated seconds each trial runs, and the bisection's halvings after the two bounds
/// (`flagsim bench`'s full run).
pub const SECONDS: f64 = 3.0;
pub(crate) const ITERATIONS: u32 = 10;

/// Trials one bisection makes at most: the two bounds, then the halvings.
pub const TRIALS: u32 = ITERATIONS + 2;

/// The steps and the step an accuracy trial takes at about `dt` to end exactly at `seconds`:
/// `n = ⌈seconds / dt⌉` steps of `seconds / n` (at most `dt`), so that every trial and the
/// reference are compared at the same instant.
pub fn steps_to(seconds: f64, dt: f64) -> (usize, f64) {
    // Rounding must not add a step: 1 / (1 / 7) is 7.000000000000001.
    let n = ((seconds / dt * (1.0 - 1e-12)).ceil() as usize).max(1);
    (n, seconds / n as f64)
}

/// A run stopped because its search was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Runs `scene` with `params` for `steps` steps: its final positions, or `Ok(None)` when the
/// guard stopped it or its strain ran away.
fn final_positions(
    scene: &Scene,
    params: crate::sim::format::params::Params,
    steps: usize,
    cancel: &AtomicBool,
) -> Result<Option<Vec<DVec3>>, Cancelled> {
    let mut s = scene.clone();
    s.params = params;
    let Ok(mut sim) = s.simulation() else {
        return Ok(None);
    };
    for k in 0..steps {
        if k % 64 == 0 && cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        if !sim.step() || sim.stats.max_strain > RUNAWAY_STRAIN {
            return Ok(None);
        }
    }
    Ok(Some(sim.cloth.x))
}

/// The reference's positions after `seconds` of `scene`: the accurate solve, at the scene's
/// own step (rounded down to end at `seconds`) with [`shape::REFERENCE_SUBSTEPS`] times its
/// substeps. `Ok(None)` if even it fails.
pub fn reference_positions(
    scene: &Scene,
    seconds: f64,
    cancel: &AtomicBool,
) -> Result<Option<Vec<DVec3>>, Cancelled> {
    let mut params = shape::reference_params(&scene.params);
    let (steps, dt) = steps_to(seconds, scene.params.dt);
    params.dt = dt;
    final_positions(scene, params, steps, cancel)
}

/// Whether `kind` at about `dt` ([`steps_to`]) ends `seconds` of `scene` stably and within
/// [`ACCURATE_DISTANCE`] RMS of `reference` (the reference's positions at `seconds`).
/// `None` when cancelled.
pub fn runs_accurately(
    scene: &Scene,
    kind: IntegratorKind,
    dt: f64,
    seconds: f64,
    reference: &[DVec3],
    cancel: &AtomicBool,
) -> Option<bool> {
    let mut params = scene.params.clone();
    params.integrator = kind;
    let (steps, dt) = steps_to(seconds, dt);
    params.dt = dt;
    let x = final_positions(scene, params, steps, cancel).ok()?;
    Some(x.is_some_and(|x| shape::distance(&x, reference).rms < ACCURATE_DISTANCE))
}

/// The largest `dt` in [`DT_MIN`]`..=upper` (the stable one) at which `kind` ends `seconds` of
/// `scene` within [`ACCURATE_DISTANCE`] of `reference`, by the same bisection on `log dt` as
/// [`largest_stable_dt`]: `upper` if that is accurate, 0 if not even `DT_MIN` is. The result
/// is a step that divides `seconds` ([`steps_to`]).
#[allow(clippy::too_many_arguments)]
pub fn largest_accurate_dt(
    scene: &Scene,
    kind: IntegratorKind,
    seconds: f64,
    iterations: u32,
    upper: f64,
    reference: &[DVec3],
    cancel: &AtomicBool,
    trial: impl FnMut(u32),
) -> Option<f64> {
    if upper < DT_MIN {
        return Some(0.0);
    }
    bisect(
        |dt| runs_accurately(scene, kind, dt, seconds, reference, cancel),
        upper,
        iterations,
        trial,
    )
    .map(|dt| {
        if dt > 0.0 {
            steps_to(seconds, dt).1
        } else {
            0.0
        }
    })
}

/// Runs `scene` with `kind` at `dt` for `seconds` (at least 30 steps); stable if the guard
/// never fires (no non-finite value, no spring past 10× its rest length, no thrashing) and the
/// strain never passes [`RUNAWAY_STRAIN`]. `None` when `cancel` was set meanwhile.
pub fn runs_stably(
    scene: &Scene,
    kind: IntegratorKind,
    dt: f64,
    seconds: f64,
    cancel: &AtomicBool,
) -> Option<bool> {
    let mut s = scene.clone();
    s.params.integrator = kind;
    s.params.dt = dt;
    let Ok(mut sim) = s.simulation() else {
        return Some(false);
    };
    let steps = ((seconds / dt).ceil() as usize).max(30);
    for k in 0..steps {
        if k % 64 == 0 && cancel.load(Ordering::Relaxed) {
            return None;
        }
        if !sim.step() || sim.stats.max_strain > RUNAWAY_STRAIN {
            return Some(false);
        }
    }
    Some(true)
}

/// The largest `dt` in [`DT_MIN`]..=[`DT_MAX`] at which `kind` runs `scene` stably for
/// `seconds`, by bisection on `log dt` (`iterations` halvings): `DT_MAX` if that runs, 0 if not
/// even `DT_MIN` does. `trial` is called after each trial with the number done. `None` when
/// cancelled.
pub fn largest_stable_dt(
    scene: &Scene,
    kind: IntegratorKind,
    seconds: f64,
    iterations: u32,
    cancel: &AtomicBool,
    trial: impl FnMut(u32),
) -> Option<f64> {
    bisect(
        |dt| runs_stably(scene, kind, dt, seconds, cancel),
        DT_MAX,
        iterations,
        trial,
    )
}

/// The largest `dt` in [`DT_MIN`]`..=top` that `passes`, by bisection on `log dt`: `top` if it
/// passes, 0 if `DT_MIN` does not, else the last passing of `iterations` halvings. `trial` is
/// called after each trial with the number done; `None` as soon as `passes` is cancelled.
fn bisect(
    mut passes: impl FnMut(f64) -> Option<bool>,
    top: f64,
    iterations: u32,
    mut trial: impl FnMut(u32),
) -> Option<f64> {
    let mut done = 0;
    let mut run = |dt: f64| {
        let ok = passes(dt);
        done += 1;
        trial(done);
        ok
    };
    let (mut lo, mut hi) = (DT_MIN, top);
    if run(hi)? {
        return Some(hi);
    }
    if !run(lo)? {
        return Some(0.0);
    }
    for _ in 0..iterations {
        let mid = (lo * hi).sqrt();
        if run(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}
