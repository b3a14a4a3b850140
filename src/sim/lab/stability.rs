//! The largest stable `dt` of an integrator on a scene, by bisection: what `flagsim bench`
//! reports per preset, and what the viewer's lab finds for its copies in the background
//! (`sim_thread::Search`). The lab's search also finds the largest *accurate* `dt`: the largest
//! at which the integrator moves the cloth as an accurate solve of the same springs
//! ([`shape::reference_params`]) does — the fly edge's sway, dominant frequency and reach
//! within [`ACCURATE_SHARE`] of the accurate solve's over the same seconds — since a step can
//! be stable and far from right.
//!
//! It compares how the cloth moves, not where each node is, because a flag in gusty wind is
//! chaotic: over seconds two accurate solves a hair apart end centimetres apart, so a pointwise
//! distance at the end of a run has no answer for any step (the resolution study judges a step
//! by the same figures).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::sim::format::params::{IntegratorKind, Params};
use crate::sim::format::scene::Scene;
use crate::sim::lab::motion::{Motion, MotionProbe, is_still, relative_difference};
use crate::sim::model::shape;

/// How far each motion figure may be from the accurate solve's for a run to count as accurate,
/// as a share of the accurate solve's (10 %).
pub const ACCURATE_SHARE: f64 = 0.10;

/// Simulated seconds an accuracy trial runs before its motion is measured (the flag's first
/// swing out into the wind), then the seconds it is measured over: a flag flaps at about
/// 1 Hz, so several periods.
pub const ACCURATE_SETTLE: f64 = 2.0;
pub const ACCURATE_WINDOW: f64 = 8.0;

/// Simulated seconds between two samples of an accuracy trial's motion (at least its step):
/// twenty a second resolve flapping up to 10 Hz.
const MOTION_INTERVAL: f64 = 0.05;

/// Strain beyond which a run counts as having run away (three times the rest length: no cloth
/// survives that, whatever the integrator's accuracy).
pub(crate) const RUNAWAY_STRAIN: f64 = 3.0;

/// The bisection's bounds, s: it searches `log dt` between them.
pub const DT_MIN: f64 = 1e-4;
pub const DT_MAX: f64 = 0.5;

/// Simulated seconds each stability trial runs, and the bisection's halvings after the two
/// bounds (`flagsim bench`'s full run).
pub const SECONDS: f64 = 3.0;
pub(crate) const ITERATIONS: u32 = 10;

/// Trials one bisection makes at most: the two bounds, then the halvings.
pub const TRIALS: u32 = ITERATIONS + 2;

/// The steps and the step a trial takes at about `dt` to end exactly at `seconds`:
/// `n = ⌈seconds / dt⌉` steps of `seconds / n` (at most `dt`), so that every trial and the
/// reference measure the same seconds.
pub fn steps_to(seconds: f64, dt: f64) -> (usize, f64) {
    // Rounding must not add a step: 1 / (1 / 7) is 7.000000000000001.
    let n = ((seconds / dt * (1.0 - 1e-12)).ceil() as usize).max(1);
    (n, seconds / n as f64)
}

/// A run stopped because its search was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// How `scene` moves with `params` at about their `dt` ([`steps_to`]): [`ACCURATE_SETTLE`]
/// seconds, then its [`Motion`] over [`ACCURATE_WINDOW`] seconds, sampled every
/// [`MOTION_INTERVAL`] (or every step where a step is longer). `Ok(None)` when the guard
/// stopped it, its strain ran away, the parameters do not fit or the cloth is not a grid.
fn motion_of(
    scene: &Scene,
    mut params: Params,
    cancel: &AtomicBool,
) -> Result<Option<Motion>, Cancelled> {
    let (steps, dt) = steps_to(ACCURATE_SETTLE + ACCURATE_WINDOW, params.dt);
    params.dt = dt;
    let mut s = scene.clone();
    s.params = params;
    let Ok(mut sim) = s.simulation() else {
        return Ok(None);
    };
    let every = ((MOTION_INTERVAL / dt).round() as usize).max(1);
    let Ok(mut probe) = MotionProbe::new(&sim.cloth, every as f64 * dt) else {
        return Ok(None);
    };
    let first = ((ACCURATE_SETTLE / dt).round() as usize).max(1);
    for k in 1..=steps {
        if k % 64 == 0 && cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        if !sim.step() || sim.stats.max_strain > RUNAWAY_STRAIN {
            return Ok(None);
        }
        if k >= first && (k - first).is_multiple_of(every) {
            probe.sample(&sim.cloth);
        }
    }
    Ok(probe.motion())
}

/// How the accurate solve of `scene` moves (its own step, with [`shape::REFERENCE_SUBSTEPS`]
/// times its substeps), measured as every accuracy trial is. `Ok(None)` if even it fails, or
/// the cloth is not a grid.
pub fn accuracy_reference(scene: &Scene, cancel: &AtomicBool) -> Result<Option<Motion>, Cancelled> {
    motion_of(scene, shape::reference_params(&scene.params), cancel)
}

/// How a run's motion differs from the accurate solve's, each figure as a share of the accurate
/// solve's: `None` for a figure that is not compared (the sway and frequency where the
/// accurate solve's fly edge is still, [`is_still`]; any figure the accurate solve has at 0).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Closeness {
    pub sway: Option<f64>,
    pub frequency: Option<f64>,
    pub reach: Option<f64>,
}

impl Closeness {
    /// `motion` against the accurate solve's `reference`.
    pub fn of(motion: &Motion, reference: &Motion) -> Self {
        let moving = !is_still(reference);
        let share = |v: f64, r: f64| relative_difference(v, r);
        Self {
            sway: moving.then(|| share(motion.sway, reference.sway)).flatten(),
            frequency: moving
                .then(|| share(motion.frequency, reference.frequency))
                .flatten(),
            reach: share(motion.reach, reference.reach),
        }
    }

    /// Whether every figure compared is within [`ACCURATE_SHARE`].
    pub fn accurate(&self) -> bool {
        [self.sway, self.frequency, self.reach]
            .into_iter()
            .flatten()
            .all(|d| d.abs() <= ACCURATE_SHARE)
    }
}

/// How `kind` at about `dt` moves `scene` against the accurate solve's `reference` motion:
/// `Ok(None)` when the guard stopped it or it ran away. `Err` when cancelled.
pub fn accuracy_trial(
    scene: &Scene,
    kind: IntegratorKind,
    dt: f64,
    reference: &Motion,
    cancel: &AtomicBool,
) -> Result<Option<Closeness>, Cancelled> {
    let mut params = scene.params.clone();
    params.integrator = kind;
    params.dt = dt;
    Ok(motion_of(scene, params, cancel)?.map(|m| Closeness::of(&m, reference)))
}

/// The largest accurate `dt` and the figures it was judged by.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Accurate {
    /// The largest `dt` in [`DT_MIN`]`..=` the stable one whose motion is within
    /// [`ACCURATE_SHARE`] of the accurate solve's, s; 0 when not even [`DT_MIN`]'s is.
    pub dt: f64,
    /// The motion's difference from the accurate solve's at `dt` (at [`DT_MIN`] when `dt` is
    /// 0); `None` where that run failed.
    pub closeness: Option<Closeness>,
}

/// The largest `dt` in [`DT_MIN`]`..=upper` (the stable one) at which `kind` moves `scene` as
/// the accurate solve does ([`accuracy_trial`], [`Closeness::accurate`]), by the same bisection
/// on `log dt` as [`largest_stable_dt`]: `upper` if that is accurate, 0 if not even `DT_MIN`
/// is (or `upper` is below it). The result is a step that divides the trial's seconds
/// ([`steps_to`]). `None` when cancelled.
pub fn largest_accurate_dt(
    scene: &Scene,
    kind: IntegratorKind,
    iterations: u32,
    upper: f64,
    reference: &Motion,
    cancel: &AtomicBool,
    trial: impl FnMut(u32),
) -> Option<Accurate> {
    if upper < DT_MIN {
        return Some(Accurate::default());
    }
    // The figures of the last passing trial (the bisection's result), and of the one at
    // DT_MIN should none pass.
    let (mut passed, mut at_min) = (None, None);
    let dt = bisect(
        |dt| {
            let closeness = accuracy_trial(scene, kind, dt, reference, cancel).ok()?;
            let ok = closeness.is_some_and(|c| c.accurate());
            if ok {
                passed = closeness;
            }
            if dt == DT_MIN {
                at_min = closeness;
            }
            Some(ok)
        },
        upper,
        iterations,
        trial,
    )?;
    Some(if dt > 0.0 {
        Accurate {
            dt: steps_to(ACCURATE_SETTLE + ACCURATE_WINDOW, dt).1,
            closeness: passed,
        }
    } else {
        Accurate {
            dt: 0.0,
            closeness: at_min,
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
