//! The viewer's search for the largest stable and accurate `dt` of the lab's integrators, in
//! the background (the bisections are [`crate::sim::lab::stability`]'s): on a thread of its own
//! on the desktop, in a web worker in a page (`in_page`), which has no threads. Both run
//! [`run`] and hand its [`Event`]s to the same [`Shared`] the panels read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::sim::format::params::IntegratorKind;
use crate::sim::format::scene::Scene;
use crate::sim::lab::motion::Motion;
use crate::sim::lab::stability::{
    Closeness, ITERATIONS, SECONDS, TRIALS, accuracy_reference, largest_accurate_dt,
    largest_stable_dt,
};

#[cfg(target_arch = "wasm32")]
pub(crate) mod in_page;

/// What runs the search: its thread on the desktop, its worker in a page.
#[cfg(not(target_arch = "wasm32"))]
type Runner = std::thread::JoinHandle<()>;
#[cfg(target_arch = "wasm32")]
type Runner = in_page::Worker;

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

/// What the search has learnt, one thing at a time, in the order [`run`] learns it (a page's
/// worker posts each as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Event {
    /// Trials done so far over all integrators (each reference counts as [`TRIALS`]).
    Trials(u32),
    /// Copy `copy`'s largest stable `dt`, s.
    Stable { copy: usize, dt: f64 },
    /// Copy `copy`'s largest accurate `dt`, s, and what it was judged by.
    Accurate {
        copy: usize,
        dt: f64,
        closeness: Option<Closeness>,
    },
    /// Why the accurate `dt`s will not come, or why the search stopped.
    Failure(String),
    /// The search is over (the page's worker says so; a thread's end says it on the desktop).
    Finished,
}

/// What the search's runner writes and the panels read.
#[derive(Debug, Default)]
struct Shared {
    /// The integrators searched, in order (named in the log).
    integrators: Vec<IntegratorKind>,
    found: Vec<Found>,
    /// Trials done over all integrators.
    trials: u32,
    /// Why the accurate `dt`s cannot be found (the reference itself failed).
    failure: Option<String>,
    /// Whether the runner said it is over ([`Event::Finished`]).
    finished: bool,
}

impl Shared {
    /// Takes in what the runner learnt; returns what it found as the log says it.
    fn apply(&mut self, event: Event) -> Option<String> {
        let name = |copy: usize| self.integrators.get(copy).map_or("?", |k| k.name());
        let line = match &event {
            Event::Stable { copy, dt } => Some(format!(
                "the lab's search: {}: largest stable dt {dt:.4} s",
                name(*copy)
            )),
            Event::Accurate { copy, dt, .. } => Some(format!(
                "the lab's search: {}: largest accurate dt {dt:.4} s",
                name(*copy)
            )),
            Event::Failure(why) => Some(format!("the lab's search: no accurate dt: {why}")),
            Event::Trials(_) | Event::Finished => None,
        };
        match event {
            Event::Trials(n) => self.trials = n,
            Event::Stable { copy, dt } => {
                if let Some(f) = self.found.get_mut(copy) {
                    f.stable = Some(dt);
                }
            }
            Event::Accurate {
                copy,
                dt,
                closeness,
            } => {
                if let Some(f) = self.found.get_mut(copy) {
                    f.accurate = Some(dt);
                    f.closeness = closeness;
                }
            }
            Event::Failure(why) => self.failure = Some(why),
            Event::Finished => self.finished = true,
        }
        line
    }
}

/// The panels' copy of what the runner found, written from the runner's side.
#[derive(Debug, Clone, Default)]
struct Board(Arc<Mutex<Shared>>);

impl Board {
    fn write(&self, event: Event) {
        let line = match self.0.lock() {
            Ok(mut g) => g.apply(event),
            Err(poisoned) => poisoned.into_inner().apply(event),
        };
        if let Some(line) = line {
            log::info!("{line}");
        }
    }

    fn read<T>(&self, f: impl FnOnce(&Shared) -> T) -> T {
        match self.0.lock() {
            Ok(g) => f(&g),
            Err(poisoned) => f(&poisoned.into_inner()),
        }
    }
}

/// A key grid (`None`: the scene's) and the accurate solve's motion there (`None`: it failed).
type GridReference = (Option<[usize; 2]>, Option<Motion>);

/// The trials a search of `grids` (one per integrator) takes in all: two bisections an
/// integrator and a reference a distinct grid.
fn total_trials(grids: &[Option<[usize; 2]>]) -> u32 {
    let mut distinct = grids.to_vec();
    distinct.sort();
    distinct.dedup();
    TRIALS * (2 * grids.len() + distinct.len()) as u32
}

/// The search itself: for each integrator in turn, at its key grid (`None`: the scene's), the
/// accurate solve's motion there (once per grid, when the first integrator at it comes), then
/// its largest stable `dt` and its largest accurate one. Says what it learns to `report` as it
/// learns it, and returns when done or when `cancel` is set (within 64 steps).
pub(crate) fn run(
    scene: &Scene,
    kinds: &[IntegratorKind],
    grids: &[Option<[usize; 2]>],
    cancel: &AtomicBool,
    report: &mut dyn FnMut(Event),
) {
    // Each grid's reference, once computed.
    let mut references: Vec<GridReference> = Vec::new();
    let mut done = 0;
    for (i, (&kind, &grid)) in kinds.iter().zip(grids).enumerate() {
        let scene = match grid {
            None => scene.clone(),
            Some([nx, ny]) => match scene.with_key_grid(nx, ny) {
                Ok(s) => s,
                Err(e) => return report(Event::Failure(format!("key grid {nx} × {ny}: {e}"))),
            },
        };
        if !references.iter().any(|(g, _)| *g == grid) {
            let Ok(reference) = accuracy_reference(&scene, cancel) else {
                return;
            };
            if reference.is_none() {
                report(Event::Failure(
                    "the accurate solve failed on this scene, or its cloth is not a grid (the \
                     motion is measured on a grid)"
                        .into(),
                ));
            }
            references.push((grid, reference));
            done += TRIALS;
            report(Event::Trials(done));
        }
        // Each integrator's share: its two bisections, TRIALS each at most.
        let base = done;
        let found = largest_stable_dt(&scene, kind, SECONDS, ITERATIONS, cancel, |n| {
            report(Event::Trials(base + n));
        });
        let Some(stable) = found else {
            return;
        };
        report(Event::Trials(base + TRIALS));
        report(Event::Stable {
            copy: i,
            dt: stable,
        });
        done = base + 2 * TRIALS;
        let reference = references
            .iter()
            .find(|(g, _)| *g == grid)
            .and_then(|(_, r)| r.as_ref());
        let Some(reference) = reference else {
            report(Event::Trials(done));
            continue;
        };
        let found = largest_accurate_dt(&scene, kind, ITERATIONS, stable, reference, cancel, |n| {
            report(Event::Trials(base + TRIALS + n));
        });
        let Some(accurate) = found else {
            return;
        };
        // An integrator that stops early counts its whole share.
        report(Event::Trials(done));
        report(Event::Accurate {
            copy: i,
            dt: accurate.dt,
            closeness: accurate.closeness,
        });
    }
}

/// A search for the largest stable and the largest accurate `dt` of several integrators on one
/// scene, each at its own key grid where the lab's copies have one ([`run`]), in the
/// background, so neither the frame nor the simulation waits for it.
#[derive(Debug)]
pub struct Search {
    /// The integrators searched, in order.
    pub integrators: Vec<IntegratorKind>,
    /// Each one's key grid (`None`: the scene's).
    pub grids: Vec<Option<[usize; 2]>>,
    cancel: Arc<AtomicBool>,
    /// Trials in all ([`total_trials`]).
    total: u32,
    board: Board,
    runner: Mutex<Option<Runner>>,
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
        let board = Board(Arc::new(Mutex::new(Shared {
            integrators: integrators.clone(),
            found: vec![Found::default(); integrators.len()],
            ..Shared::default()
        })));
        let cancel = Arc::new(AtomicBool::new(false));
        let runner = Self::spawn(scene, &integrators, &grids, &cancel, &board);
        Self {
            total: total_trials(&grids),
            integrators,
            grids,
            cancel,
            board,
            runner: Mutex::new(runner),
        }
    }

    /// [`run`] on a thread of its own; `None`, with the reason on the board, if none starts.
    #[cfg(not(target_arch = "wasm32"))]
    fn spawn(
        scene: Scene,
        integrators: &[IntegratorKind],
        grids: &[Option<[usize; 2]>],
        cancel: &Arc<AtomicBool>,
        board: &Board,
    ) -> Option<Runner> {
        let (kinds, at, c, b) = (
            integrators.to_vec(),
            grids.to_vec(),
            cancel.clone(),
            board.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("flagsim-stable-dt".into())
            .spawn(move || run(&scene, &kinds, &at, &c, &mut |e| b.write(e)));
        spawned
            .map_err(|e| {
                board.write(Event::Failure(format!(
                    "the search runs on a thread of its own, and none could start ({e})"
                )));
            })
            .ok()
    }

    /// [`run`] in a web worker of its own; `None`, with the reason on the board, if none starts.
    #[cfg(target_arch = "wasm32")]
    fn spawn(
        scene: Scene,
        integrators: &[IntegratorKind],
        grids: &[Option<[usize; 2]>],
        _cancel: &Arc<AtomicBool>,
        board: &Board,
    ) -> Option<Runner> {
        let b = board.clone();
        in_page::Worker::start(&scene, integrators, grids, move |e| b.write(e))
            .map_err(|why| board.write(Event::Failure(why)))
            .ok()
    }

    /// A search that is over, with these findings (one per integrator): what the panels show
    /// once a search has finished, without running one (the layout tests).
    pub fn done(integrators: Vec<IntegratorKind>, found: Vec<Found>) -> Self {
        let total = TRIALS * (2 * integrators.len() as u32 + 1);
        Self {
            grids: vec![None; integrators.len()],
            integrators: integrators.clone(),
            total,
            cancel: Arc::new(AtomicBool::new(false)),
            board: Board(Arc::new(Mutex::new(Shared {
                integrators,
                found,
                trials: total,
                failure: None,
                finished: true,
            }))),
            runner: Mutex::new(None),
        }
    }

    /// The fraction of the trials done, 0 to 1.
    pub fn progress(&self) -> f64 {
        f64::from(self.board.read(|s| s.trials)) / f64::from(self.total.max(1))
    }

    /// Each integrator's largest stable `dt` (s), `None` while not found yet.
    pub fn results(&self) -> Vec<Option<f64>> {
        self.board
            .read(|s| s.found.iter().map(|f| f.stable).collect())
    }

    /// What has been found for each integrator so far.
    pub fn found(&self) -> Vec<Found> {
        self.board.read(|s| s.found.clone())
    }

    /// Why the accurate `dt`s will not come (the reference failed), if so.
    pub fn failure(&self) -> Option<String> {
        self.board.read(|s| s.failure.clone())
    }

    /// Whether it has finished (or was cancelled, or could not start).
    pub fn finished(&self) -> bool {
        if self.board.read(|s| s.finished) {
            return true;
        }
        #[cfg(not(target_arch = "wasm32"))]
        let running = |r: &Runner| !r.is_finished();
        #[cfg(target_arch = "wasm32")]
        let running = |_: &Runner| true;
        self.runner
            .lock()
            .map_or(true, |r| r.as_ref().is_none_or(|r| !running(r)))
    }

    /// Whether it was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Stops the search (a thread at its next check, within 64 steps, and waits for it; a
    /// worker at once).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
        let runner = self.runner.lock().ok().and_then(|mut r| r.take());
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(thread) = runner {
            let _ = thread.join();
        }
        #[cfg(target_arch = "wasm32")]
        drop(runner);
    }
}

impl Drop for Search {
    fn drop(&mut self) {
        self.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page's worker posts each event as JSON; `web/search-worker.js` writes its own two
    /// (a failure, then the end) by hand, in the form serde reads.
    #[test]
    fn events_go_through_json_and_the_worker_scripts_own_are_read() {
        let events = [
            Event::Trials(7),
            Event::Stable { copy: 1, dt: 0.1 },
            Event::Accurate {
                copy: 0,
                dt: 0.026_9,
                closeness: Some(Closeness {
                    sway: Some(0.08),
                    frequency: None,
                    reach: Some(-0.01),
                }),
            },
            Event::Failure("no grid".into()),
            Event::Finished,
        ];
        for event in events {
            let text = serde_json::to_string(&event).unwrap();
            assert_eq!(
                serde_json::from_str::<Event>(&text).unwrap(),
                event,
                "{text}"
            );
        }
        let script = include_str!("../../web/search-worker.js");
        assert!(script.contains(r#"JSON.stringify({ Failure: "the search stopped: " + e })"#));
        assert!(script.contains(r#"JSON.stringify("Finished")"#));
        assert_eq!(
            serde_json::from_str::<Event>(r#"{"Failure":"the search stopped: x"}"#).unwrap(),
            Event::Failure("the search stopped: x".into())
        );
        assert_eq!(
            serde_json::from_str::<Event>(r#""Finished""#).unwrap(),
            Event::Finished
        );
    }

    #[test]
    fn the_board_keeps_what_each_event_says_for_its_copy() {
        let mut s = Shared {
            integrators: vec![IntegratorKind::Kang, IntegratorKind::Xpbd],
            found: vec![Found::default(); 2],
            ..Shared::default()
        };
        assert_eq!(s.apply(Event::Trials(3)), None);
        assert_eq!(
            s.apply(Event::Stable { copy: 1, dt: 0.25 }).as_deref(),
            Some("the lab's search: xpbd: largest stable dt 0.2500 s")
        );
        let c = Closeness {
            sway: Some(0.05),
            ..Closeness::default()
        };
        assert_eq!(
            s.apply(Event::Accurate {
                copy: 1,
                dt: 0.125,
                closeness: Some(c),
            })
            .as_deref(),
            Some("the lab's search: xpbd: largest accurate dt 0.1250 s")
        );
        // A copy that is not there changes nothing.
        s.apply(Event::Stable { copy: 2, dt: 1.0 });
        assert_eq!(s.trials, 3);
        assert_eq!(s.found[0], Found::default());
        assert_eq!(
            s.found[1],
            Found {
                stable: Some(0.25),
                accurate: Some(0.125),
                closeness: Some(c),
            }
        );
        assert!(s.failure.is_none() && !s.finished);
        assert_eq!(
            s.apply(Event::Failure("why".into())).as_deref(),
            Some("the lab's search: no accurate dt: why")
        );
        assert_eq!(s.apply(Event::Finished), None);
        assert_eq!(s.failure.as_deref(), Some("why"));
        assert!(s.finished);
    }

    /// Two bisections an integrator, and one reference a distinct grid, `TRIALS` each.
    #[test]
    fn a_search_counts_one_reference_a_grid() {
        assert_eq!(total_trials(&[None, None]), 5 * TRIALS);
        assert_eq!(total_trials(&[None, Some([32, 32]), None]), 8 * TRIALS);
        assert_eq!(total_trials(&[]), 0);
    }

    /// A search that finished says so before its thread is looked at; one just started has
    /// done nothing yet, and names its integrators in what it finds.
    #[test]
    fn a_search_starts_at_nothing_done_and_a_finished_one_says_so() {
        let search = Search::done(vec![IntegratorKind::Kang], vec![Found::default()]);
        assert!(search.finished() && !search.cancelled());
        assert!((search.progress() - 1.0).abs() < 1e-12);
        let started = Search::start(Scene::load("flag").unwrap(), vec![IntegratorKind::Xpbd]);
        // The accurate solve's 10 s come first: nothing is counted before it ends.
        assert!(started.progress() < 1.0 / 3.0, "{}", started.progress());
        let line = started
            .board
            .0
            .lock()
            .unwrap()
            .apply(Event::Stable { copy: 0, dt: 0.5 });
        assert_eq!(
            line.as_deref(),
            Some("the lab's search: xpbd: largest stable dt 0.5000 s")
        );
        started.cancel();
        assert!(started.finished() && started.cancelled());
    }

    /// The progress a search reports only grows, moves within each bisection, and ends at
    /// the trials in all; the findings come once each, in order.
    #[test]
    fn a_searchs_progress_only_grows_to_its_total() {
        let scene = Scene::load("flag").unwrap();
        let (mut trials, mut found) = (Vec::new(), Vec::new());
        run(
            &scene,
            &[IntegratorKind::Kang],
            &[None],
            &AtomicBool::new(false),
            &mut |e| match e {
                Event::Trials(n) => trials.push(n),
                other => found.push(other),
            },
        );
        assert!(trials.windows(2).all(|w| w[0] <= w[1]), "{trials:?}");
        assert_eq!(trials.last(), Some(&total_trials(&[None])), "{trials:?}");
        // The reference is one step of TRIALS; each bisection moves in steps of one.
        assert_eq!(trials.first(), Some(&TRIALS), "{trials:?}");
        for share in [1, 2] {
            let inside = (share * TRIALS + 1..(share + 1) * TRIALS).filter(|n| trials.contains(n));
            assert!(inside.count() >= 2, "bisection {share}: {trials:?}");
        }
        assert!(
            matches!(
                found[..],
                [
                    Event::Stable { copy: 0, .. },
                    Event::Accurate { copy: 0, .. }
                ]
            ),
            "{found:?}"
        );
    }
}
