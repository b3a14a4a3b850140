//! The largest stable `dt` of an integrator on a scene, by bisection: what `flagsim bench`
//! reports per preset, and what the viewer's lab finds for its copies in the background
//! ([`Search`]).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::params::IntegratorKind;
use super::scene::Scene;

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

/// Trials one search makes at most: the two bounds, then the halvings.
pub const TRIALS: u32 = ITERATIONS + 2;

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
    mut trial: impl FnMut(u32),
) -> Option<f64> {
    let mut done = 0;
    let mut run = |dt: f64| {
        let stable = runs_stably(scene, kind, dt, seconds, cancel);
        done += 1;
        trial(done);
        stable
    };
    let (mut lo, mut hi) = (DT_MIN, DT_MAX);
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

/// A search for the largest stable `dt` of several integrators on one scene, one after the
/// other on a thread of its own, so neither the frame nor the simulation waits for it.
#[derive(Debug)]
pub struct Search {
    /// The integrators searched, in order.
    pub integrators: Vec<IntegratorKind>,
    cancel: Arc<AtomicBool>,
    /// Trials done over all integrators.
    trials: Arc<AtomicU32>,
    /// Each integrator's result once found.
    results: Arc<Mutex<Vec<Option<f64>>>>,
    join: Mutex<Option<JoinHandle<()>>>,
}

impl Search {
    /// Starts searching `scene` (with its parameters as they are) for each of `integrators`.
    pub fn start(scene: Scene, integrators: Vec<IntegratorKind>) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        let trials = Arc::new(AtomicU32::new(0));
        let results = Arc::new(Mutex::new(vec![None; integrators.len()]));
        let (c, t, r, kinds) = (
            cancel.clone(),
            trials.clone(),
            results.clone(),
            integrators.clone(),
        );
        let join = std::thread::Builder::new()
            .name("flagsim-stable-dt".into())
            .spawn(move || {
                for (i, kind) in kinds.into_iter().enumerate() {
                    let before = t.load(Ordering::Relaxed);
                    let found = largest_stable_dt(&scene, kind, SECONDS, ITERATIONS, &c, |n| {
                        t.store(before + n, Ordering::Relaxed);
                    });
                    let Some(dt) = found else {
                        return;
                    };
                    // An integrator that stops early (stable at DT_MAX) counts its whole share.
                    t.store(TRIALS * (i as u32 + 1), Ordering::Relaxed);
                    if let Ok(mut r) = r.lock() {
                        r[i] = Some(dt);
                    }
                }
            })
            .ok();
        Self {
            integrators,
            cancel,
            trials,
            results,
            join: Mutex::new(join),
        }
    }

    /// The fraction of the trials done, 0 to 1.
    pub fn progress(&self) -> f64 {
        let total = TRIALS as usize * self.integrators.len().max(1);
        f64::from(self.trials.load(Ordering::Relaxed)) / total as f64
    }

    /// Each integrator's largest stable `dt` (s), `None` while not found yet.
    pub fn results(&self) -> Vec<Option<f64>> {
        match self.results.lock() {
            Ok(r) => r.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
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
