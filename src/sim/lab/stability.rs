//! The largest stable `dt` of an integrator on a scene, by bisection: what `flagsim bench`
//! reports per preset, and what the viewer's lab finds for its copies in the background
//! ([`Search`]). The lab's search also finds the largest *accurate* `dt`: the largest at which
//! the integrator ends within [`ACCURATE_DISTANCE`] (RMS) of an accurate solve of the same
//! springs ([`shape::reference_params`]), since a step can be stable and far from right.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use glam::DVec3;

use super::params::IntegratorKind;
use super::scene::Scene;
use super::shape;

/// RMS distance from the reference under which a run counts as accurate, m (1 cm).
pub const ACCURATE_DISTANCE: f64 = 0.01;

/// Strain beyond which a run counts as having run away (three times the rest length: no cloth
/// survives that, whatever the integrator's accuracy).
pub const RUNAWAY_STRAIN: f64 = 3.0;

/// The bisection's bounds, s: it searches `log dt` between them.
pub const DT_MIN: f64 = 1e-4;
pub const DT_MAX: f64 = 0.5;

/// Simulated seconds each trial runs, and the bisection's halvings after the two bounds
/// (`flagsim bench`'s full run).
pub const SECONDS: f64 = 3.0;
pub const ITERATIONS: u32 = 10;

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
    params: super::params::Params,
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

/// What a [`Search`] has found for one integrator.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Found {
    /// The largest stable `dt`, s (`None` while not found yet).
    pub stable: Option<f64>,
    /// The largest accurate `dt`, s, at most the stable one (`None` while not found yet).
    pub accurate: Option<f64>,
}

/// What the search thread writes and the panels read.
#[derive(Debug, Default)]
struct Shared {
    found: Vec<Found>,
    /// Why the accurate `dt`s cannot be found (the reference itself failed).
    failure: Option<String>,
}

/// A search for the largest stable and the largest accurate `dt` of several integrators on one
/// scene: first the reference ([`reference_positions`] at [`SECONDS`]), then each integrator's
/// two bisections, one after the other on a thread of its own, so neither the frame nor the
/// simulation waits for it.
#[derive(Debug)]
pub struct Search {
    /// The integrators searched, in order.
    pub integrators: Vec<IntegratorKind>,
    cancel: Arc<AtomicBool>,
    /// Trials done over all integrators (the reference counts as [`TRIALS`]).
    trials: Arc<AtomicU32>,
    shared: Arc<Mutex<Shared>>,
    join: Mutex<Option<JoinHandle<()>>>,
}

impl Search {
    /// Starts searching `scene` (with its parameters as they are) for each of `integrators`.
    pub fn start(scene: Scene, integrators: Vec<IntegratorKind>) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        let trials = Arc::new(AtomicU32::new(0));
        let shared = Arc::new(Mutex::new(Shared {
            found: vec![Found::default(); integrators.len()],
            failure: None,
        }));
        let (c, t, r, kinds) = (
            cancel.clone(),
            trials.clone(),
            shared.clone(),
            integrators.clone(),
        );
        let write = move |f: &mut dyn FnMut(&mut Shared)| match r.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        };
        let join = std::thread::Builder::new()
            .name("flagsim-stable-dt".into())
            .spawn(move || {
                let Ok(reference) = reference_positions(&scene, SECONDS, &c) else {
                    return;
                };
                if reference.is_none() {
                    write(&mut |s| {
                        s.failure = Some("the reference run failed on this scene".into());
                    });
                }
                t.store(TRIALS, Ordering::Relaxed);
                for (i, kind) in kinds.into_iter().enumerate() {
                    // Each integrator's share: its two bisections, TRIALS each at most.
                    let base = TRIALS * (2 * i as u32 + 1);
                    let found = largest_stable_dt(&scene, kind, SECONDS, ITERATIONS, &c, |n| {
                        t.store(base + n, Ordering::Relaxed);
                    });
                    let Some(stable) = found else {
                        return;
                    };
                    t.store(base + TRIALS, Ordering::Relaxed);
                    write(&mut |s| s.found[i].stable = Some(stable));
                    let Some(reference) = reference.as_deref() else {
                        continue;
                    };
                    let found = largest_accurate_dt(
                        &scene,
                        kind,
                        SECONDS,
                        ITERATIONS,
                        stable,
                        reference,
                        &c,
                        |n| t.store(base + TRIALS + n, Ordering::Relaxed),
                    );
                    let Some(accurate) = found else {
                        return;
                    };
                    // An integrator that stops early counts its whole share.
                    t.store(base + 2 * TRIALS, Ordering::Relaxed);
                    write(&mut |s| s.found[i].accurate = Some(accurate));
                }
            })
            .ok();
        Self {
            integrators,
            cancel,
            trials,
            shared,
            join: Mutex::new(join),
        }
    }

    /// A search that is over, with these findings (one per integrator): what the panels show
    /// once a search has finished, without running one (the layout tests).
    pub fn done(integrators: Vec<IntegratorKind>, found: Vec<Found>) -> Self {
        let total = TRIALS * (2 * integrators.len() as u32 + 1);
        Self {
            integrators,
            cancel: Arc::new(AtomicBool::new(false)),
            trials: Arc::new(AtomicU32::new(total)),
            shared: Arc::new(Mutex::new(Shared {
                found,
                failure: None,
            })),
            join: Mutex::new(None),
        }
    }

    /// The fraction of the trials done, 0 to 1.
    pub fn progress(&self) -> f64 {
        let total = TRIALS as usize * (2 * self.integrators.len() + 1);
        f64::from(self.trials.load(Ordering::Relaxed)) / total as f64
    }

    fn read<T>(&self, f: impl FnOnce(&Shared) -> T) -> T {
        match self.shared.lock() {
            Ok(g) => f(&g),
            Err(poisoned) => f(&poisoned.into_inner()),
        }
    }

    /// Each integrator's largest stable `dt` (s), `None` while not found yet.
    pub fn results(&self) -> Vec<Option<f64>> {
        self.read(|s| s.found.iter().map(|f| f.stable).collect())
    }

    /// What has been found for each integrator so far.
    pub fn found(&self) -> Vec<Found> {
        self.read(|s| s.found.clone())
    }

    /// Why the accurate `dt`s will not come (the reference failed), if so.
    pub fn failure(&self) -> Option<String> {
        self.read(|s| s.failure.clone())
    }

    /// Whether it has finished (or was cancelled, or could not start).
    pub fn finished(&self) -> bool {
        self.join
            .lock()
            .map_or(true, |j| j.as_ref().is_none_or(JoinHandle::is_finished))
    }

    /// Whether it was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Stops the search at its next check (within 64 steps) and waits for it.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
        let handle = self.join.lock().ok().and_then(|mut j| j.take());
        if let Some(j) = handle {
            let _ = j.join();
        }
    }
}

impl Drop for Search {
    fn drop(&mut self) {
        self.cancel();
    }
}
