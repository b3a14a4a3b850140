//! The viewer's search for the largest stable and accurate `dt` of the lab's integrators, on a
//! thread of its own (the bisections are [`crate::sim::lab::stability`]'s).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::sim::format::params::IntegratorKind;
use crate::sim::format::scene::Scene;
use crate::sim::lab::motion::Motion;
use crate::sim::lab::stability::{
    Closeness, ITERATIONS, SECONDS, TRIALS, accuracy_reference, largest_accurate_dt,
    largest_stable_dt,
};

/// What a [`Search`] has found for one integrator.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Found {
    /// The largest stable `dt`, s (`None` while not found yet).
    pub stable: Option<f64>,
    /// The largest accurate `dt`, s, at most the stable one (`None` while not found yet).
    pub accurate: Option<f64>,
    /// How its motion differed from the accurate solve's, the figures it was judged by: at
    /// the accurate `dt`, or at the smallest `dt` tried when none was accurate (`None` where
    /// that run failed).
    pub closeness: Option<Closeness>,
}

/// What the search thread writes and the panels read.
#[derive(Debug, Default)]
struct Shared {
    found: Vec<Found>,
    /// Why the accurate `dt`s cannot be found (the reference itself failed).
    failure: Option<String>,
}

/// A key grid (`None`: the scene's) and the accurate solve's motion there (`None`: it failed).
type GridReference = (Option<[usize; 2]>, Option<Motion>);

/// A search for the largest stable and the largest accurate `dt` of several integrators on one
/// scene, each at its own key grid where the lab's copies have one: first the accurate solve's
/// motion at a grid ([`accuracy_reference`], once per grid, when the first integrator at it
/// comes), then each integrator's two bisections,
/// one after the other on a thread of its own, so neither the frame nor the simulation waits
/// for it.
#[derive(Debug)]
pub struct Search {
    /// The integrators searched, in order.
    pub integrators: Vec<IntegratorKind>,
    /// Each one's key grid (`None`: the scene's).
    pub grids: Vec<Option<[usize; 2]>>,
    cancel: Arc<AtomicBool>,
    /// Trials done over all integrators (each reference counts as [`TRIALS`]).
    trials: Arc<AtomicU32>,
    /// Trials in all: two bisections an integrator and a reference a grid.
    total: u32,
    shared: Arc<Mutex<Shared>>,
    join: Mutex<Option<JoinHandle<()>>>,
}

impl Search {
    /// Starts searching `scene` (with its parameters as they are) for each of `integrators`.
    pub fn start(scene: Scene, integrators: Vec<IntegratorKind>) -> Self {
        let grids = vec![None; integrators.len()];
        Self::start_on_grids(scene, integrators, grids)
    }

    /// [`Self::start`] with integrator `i` at key grid `grids[i]` (`None`: the scene's); a grid
    /// the scene refuses ends the search with the reason.
    pub fn start_on_grids(
        scene: Scene,
        integrators: Vec<IntegratorKind>,
        grids: Vec<Option<[usize; 2]>>,
    ) -> Self {
        let grids: Vec<Option<[usize; 2]>> = (0..integrators.len())
            .map(|i| grids.get(i).copied().flatten())
            .collect();
        let mut distinct = grids.clone();
        distinct.sort();
        distinct.dedup();
        let total = TRIALS * (2 * integrators.len() + distinct.len()) as u32;
        let cancel = Arc::new(AtomicBool::new(false));
        let trials = Arc::new(AtomicU32::new(0));
        let shared = Arc::new(Mutex::new(Shared {
            found: vec![Found::default(); integrators.len()],
            failure: None,
        }));
        let (c, t, r, kinds, at) = (
            cancel.clone(),
            trials.clone(),
            shared.clone(),
            integrators.clone(),
            grids.clone(),
        );
        let write = move |f: &mut dyn FnMut(&mut Shared)| match r.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        };
        let join = std::thread::Builder::new()
            .name("flagsim-stable-dt".into())
            .spawn(move || {
                // Each grid's reference, once computed.
                let mut references: Vec<GridReference> = Vec::new();
                let mut done = 0;
                for (i, (kind, grid)) in kinds.into_iter().zip(at).enumerate() {
                    let scene = match grid {
                        None => scene.clone(),
                        Some([nx, ny]) => match scene.with_key_grid(nx, ny) {
                            Ok(s) => s,
                            Err(e) => {
                                write(&mut |s| {
                                    s.failure = Some(format!("key grid {nx} × {ny}: {e}"));
                                });
                                return;
                            }
                        },
                    };
                    if !references.iter().any(|(g, _)| *g == grid) {
                        let Ok(reference) = accuracy_reference(&scene, &c) else {
                            return;
                        };
                        if reference.is_none() {
                            write(&mut |s| {
                                s.failure = Some(
                                    "the accurate solve failed on this scene, or its cloth is \
                                     not a grid (the motion is measured on a grid)"
                                        .into(),
                                );
                            });
                        }
                        references.push((grid, reference));
                        done += TRIALS;
                        t.store(done, Ordering::Relaxed);
                    }
                    // Each integrator's share: its two bisections, TRIALS each at most.
                    let base = done;
                    let found = largest_stable_dt(&scene, kind, SECONDS, ITERATIONS, &c, |n| {
                        t.store(base + n, Ordering::Relaxed);
                    });
                    let Some(stable) = found else {
                        return;
                    };
                    t.store(base + TRIALS, Ordering::Relaxed);
                    write(&mut |s| s.found[i].stable = Some(stable));
                    done = base + 2 * TRIALS;
                    let reference = references
                        .iter()
                        .find(|(g, _)| *g == grid)
                        .and_then(|(_, r)| r.as_ref());
                    let Some(reference) = reference else {
                        t.store(done, Ordering::Relaxed);
                        continue;
                    };
                    let found =
                        largest_accurate_dt(&scene, kind, ITERATIONS, stable, reference, &c, |n| {
                            t.store(base + TRIALS + n, Ordering::Relaxed);
                        });
                    let Some(accurate) = found else {
                        return;
                    };
                    // An integrator that stops early counts its whole share.
                    t.store(done, Ordering::Relaxed);
                    write(&mut |s| {
                        s.found[i].accurate = Some(accurate.dt);
                        s.found[i].closeness = accurate.closeness;
                    });
                }
            });
        // A page has no threads: the search says so instead of never moving.
        let join = match join {
            Ok(join) => Some(join),
            Err(e) => {
                let failure = format!(
                    "the search runs on a thread of its own, and none could start ({e}); the \
                     desktop program runs it"
                );
                match shared.lock() {
                    Ok(mut g) => g.failure = Some(failure),
                    Err(poisoned) => poisoned.into_inner().failure = Some(failure),
                }
                None
            }
        };
        Self {
            integrators,
            grids,
            cancel,
            trials,
            total,
            shared,
            join: Mutex::new(join),
        }
    }

    /// A search that is over, with these findings (one per integrator): what the panels show
    /// once a search has finished, without running one (the layout tests).
    pub fn done(integrators: Vec<IntegratorKind>, found: Vec<Found>) -> Self {
        let total = TRIALS * (2 * integrators.len() as u32 + 1);
        Self {
            grids: vec![None; integrators.len()],
            integrators,
            total,
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
        f64::from(self.trials.load(Ordering::Relaxed)) / f64::from(self.total.max(1))
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
