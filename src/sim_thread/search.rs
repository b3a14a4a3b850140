//! The viewer's search for the largest stable and accurate `dt` of the lab's integrators, on a
//! thread of its own (the bisections are [`crate::sim::lab::stability`]'s).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::sim::format::params::IntegratorKind;
use crate::sim::format::scene::Scene;
use crate::sim::lab::stability::{
    ITERATIONS, SECONDS, TRIALS, largest_accurate_dt, largest_stable_dt, reference_positions,
};

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
