//! The running thread as its owner holds it, and the latest-wins mailbox its snapshots go
//! through.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use web_time::Instant;

use crate::sim::format::error::SimError;
use crate::sim::format::scene::Scene;
use crate::sim::lab::copies::{CopySpec, check_count};
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::runtime::stepper::FixedStepper;

use super::Command;
use super::lab::{Checkpoints, LabMotion};
use super::worker::{GpuSide, LabCopies, Worker, fresh_copies};

/// The latest-wins mailbox between the simulation thread and its readers.
#[derive(Debug)]
pub struct SnapshotSlot {
    latest: Mutex<Arc<Snapshot>>,
    seq: AtomicU64,
}

impl SnapshotSlot {
    pub fn new(first: Snapshot) -> Self {
        Self {
            latest: Mutex::new(Arc::new(first)),
            seq: AtomicU64::new(0),
        }
    }

    pub fn publish(&self, mut snap: Snapshot) {
        let seq = self.seq.fetch_add(1, Ordering::AcqRel) + 1;
        snap.seq = seq;
        let snap = Arc::new(snap);
        match self.latest.lock() {
            Ok(mut g) => *g = snap,
            Err(poisoned) => *poisoned.into_inner() = snap,
        }
    }

    pub fn latest(&self) -> Arc<Snapshot> {
        match self.latest.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Sequence number of the latest snapshot.
    pub fn seq(&self) -> u64 {
        self.seq.load(Ordering::Acquire)
    }
}

/// The running simulation. Dropping it shuts the worker down (and joins its thread).
pub struct SimThread {
    tx: Sender<Command>,
    slot: Arc<SnapshotSlot>,
    runs: Runs,
}

/// Where the worker's loop runs: the same [`Worker::turn`] either way.
enum Runs {
    /// On a thread of its own (the desktop); `None` once joined.
    Thread(Option<JoinHandle<()>>),
    /// In its owner's frames, a turn each [`SimThread::pump`] (a page: wasm32 without atomics
    /// has no threads); `None` once shut down.
    InFrames(Option<Box<Worker>>),
}

/// How a [`SimThread`] is to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// On its own thread, stepping by the wall clock.
    Thread,
    /// In the owner's frames: nothing moves between two [`SimThread::pump`]s.
    InFrames,
}

impl Runner {
    /// A thread where the target has them, frames in a page.
    pub const NATIVE: Self = if cfg!(target_arch = "wasm32") {
        Self::InFrames
    } else {
        Self::Thread
    };
}

impl SimThread {
    /// Starts a thread running `scene`. It begins running (not paused) unless `paused`.
    pub fn spawn(scene: Scene, paused: bool) -> Result<Self, SimError> {
        Self::spawn_lab(scene, &[], paused)
    }

    /// Starts a thread running the integrator lab: a copy of `scene` per entry of `copies` (2
    /// to 4; none runs the scene alone), stepped in lock-step.
    pub fn spawn_lab(scene: Scene, copies: &[CopySpec], paused: bool) -> Result<Self, SimError> {
        Self::spawn_with(scene, copies, paused, false, Runner::NATIVE)
    }

    /// [`Self::spawn_lab`] for a caller that lends a GPU soon ([`Command::ProvideGpu`], the
    /// viewer once its window has one): until then a cloth asked onto the GPU steps on the
    /// CPU without a word, instead of being refused for want of one.
    pub fn spawn_lab_awaiting_gpu(
        scene: Scene,
        copies: &[CopySpec],
        paused: bool,
    ) -> Result<Self, SimError> {
        Self::spawn_with(scene, copies, paused, true, Runner::NATIVE)
    }

    /// [`Self::spawn_lab_awaiting_gpu`] run by `runner`: the page runs the worker in its
    /// frames, and a test may on the desktop.
    pub fn spawn_on(
        scene: Scene,
        copies: &[CopySpec],
        paused: bool,
        runner: Runner,
    ) -> Result<Self, SimError> {
        Self::spawn_with(scene, copies, paused, true, runner)
    }

    fn spawn_with(
        scene: Scene,
        copies: &[CopySpec],
        paused: bool,
        awaiting_gpu: bool,
        runner: Runner,
    ) -> Result<Self, SimError> {
        if !copies.is_empty() {
            check_count(copies.len())?;
        }
        let specs = copies.to_vec();
        let copies = fresh_copies(&scene, &specs, &scene.params)?;
        let (tx, rx) = mpsc::channel();
        let device = scene.device;
        let mut worker = Worker {
            // The first snapshot is replaced below by one with every copy in it.
            slot: Arc::new(SnapshotSlot::new(Snapshot::of(&copies[0]))),
            cloths: copies,
            lab: LabCopies {
                copies: specs,
                reference: None,
                time: 0.0,
                motion: LabMotion::default(),
                checkpoints: Checkpoints::default(),
            },
            gpu: GpuSide {
                provider: None,
                choice: device,
                steppers: Vec::new(),
                read_backs: Vec::new(),
                awaiting: awaiting_gpu,
                announced: Vec::new(),
            },
            shared: scene.params.clone(),
            scene,
            rx,
            stepper: FixedStepper::default(),
            running: !paused,
            generation: 0,
            compare: false,
            error: None,
            rate: RateMeter::default(),
            last_turn: None,
            held: VecDeque::new(),
        };
        worker.restart_motion();
        worker.restart_checkpoints();
        let slot = Arc::new(SnapshotSlot::new(worker.snapshot()));
        worker.slot = slot.clone();
        let runs = match runner {
            Runner::Thread => {
                let join = std::thread::Builder::new()
                    .name("flagsim-sim".into())
                    .spawn(move || worker.run())
                    .map_err(|e| SimError::ThreadStart {
                        reason: e.to_string(),
                    })?;
                Runs::Thread(Some(join))
            }
            Runner::InFrames => Runs::InFrames(Some(Box::new(worker))),
        };
        Ok(Self { tx, slot, runs })
    }

    /// How the worker runs.
    pub fn runner(&self) -> Runner {
        match self.runs {
            Runs::Thread(_) => Runner::Thread,
            Runs::InFrames(_) => Runner::InFrames,
        }
    }

    /// Runs the worker in frames: the commands sent since the last pump, then the steps the
    /// wall clock owes since then (up to the stepper's cap), then a snapshot. A thread's worker
    /// runs by itself, so there it does nothing.
    pub fn pump(&mut self) {
        self.pump_at(Instant::now());
    }

    /// [`Self::pump`] at wall time `now` (a test's clock).
    pub fn pump_at(&mut self, now: Instant) {
        if let Runs::InFrames(worker) = &mut self.runs
            && let Some(w) = worker
            && !w.turn(None, now)
        {
            *worker = None;
        }
    }

    /// Sends a command; returns false if the worker is gone.
    pub fn send(&self, cmd: Command) -> bool {
        self.tx.send(cmd).is_ok()
    }

    pub fn latest(&self) -> Arc<Snapshot> {
        self.slot.latest()
    }

    pub fn slot(&self) -> Arc<SnapshotSlot> {
        self.slot.clone()
    }

    /// Asks the worker to stop and waits for its thread.
    pub fn shutdown(&mut self) {
        match &mut self.runs {
            Runs::Thread(join) => {
                let _ = self.tx.send(Command::Shutdown);
                if let Some(j) = join.take() {
                    let _ = j.join();
                }
            }
            Runs::InFrames(worker) => *worker = None,
        }
    }
}

impl Drop for SimThread {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Published steps per wall second, measured over windows of at least one second (the
/// snapshot's `steps_per_second`).
#[derive(Debug, Default)]
pub struct RateMeter {
    window_start: Option<Instant>,
    count: u32,
    pub(super) rate: f64,
}

impl RateMeter {
    /// Counts `steps` done at `now`; returns the rate of the last full window (0 until the
    /// first window of a second has passed).
    pub fn add(&mut self, steps: u32, now: Instant) -> f64 {
        let start = *self.window_start.get_or_insert(now);
        self.count += steps;
        let elapsed = now.duration_since(start).as_secs_f64();
        if elapsed >= 1.0 {
            self.rate = self.count as f64 / elapsed;
            self.count = 0;
            self.window_start = Some(now);
        }
        self.rate
    }
}

/// Waits (bounded) until the slot shows a snapshot satisfying `pred`. For tests and tools.
pub fn wait_for(
    slot: &SnapshotSlot,
    timeout: Duration,
    pred: impl Fn(&Snapshot) -> bool,
) -> Option<Arc<Snapshot>> {
    let end = Instant::now() + timeout;
    loop {
        let s = slot.latest();
        if pred(&s) {
            return Some(s);
        }
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}
