//! The simulation thread: commands in, snapshots out (latest wins).
//!
//! ```text
//! UI ──Command──▶ channel ──▶ [sim thread: apply commands between steps, FixedStepper, step]
//!                                        │
//!                                        ▼ publish Arc<Snapshot> (copies, never shared state)
//! renderer ◀── SnapshotSlot::latest() ───┘
//! ```
//!
//! Commands are applied only between steps. The renderer never sees the simulation, only copies.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use glam::DVec3;

use super::agreement::compare_with_filter;
use super::device::{DeviceChoice, DeviceProvider, DeviceStepper, ReadBacks};
use super::error::SimError;
use super::flags::{FlagSet, FlagSpec, MAX_FLAGS};
use super::lab::{CopySpec, advance_on, advance_to, check_count};
use super::params::{IntegratorKind, Params};
use super::scene::Scene;
use super::shape;
use super::simulation::{Grab, Simulation};
use super::snapshot::{DeviceStatus, ReferenceStatus, Snapshot};
use super::stepper::FixedStepper;

/// What the UI (or a test) can ask of the simulation.
#[derive(Debug, Clone)]
pub enum Command {
    /// Replace every parameter (validated; a bad value is reported in the snapshot and ignored).
    SetParams(Box<Params>),
    /// Switch integrator, keeping the state.
    SetIntegrator(IntegratorKind),
    /// Rescale masses so the cloth weighs this many kg.
    SetTotalMass(f64),
    /// Back to the loaded scene's initial state and parameters.
    Reset,
    /// Replace the scene (and reset to it).
    LoadScene(Box<Scene>),
    Pause(bool),
    TogglePause,
    /// One published step, while paused.
    Step,
    /// Grab key node `node`, which then follows `target` (m).
    Grab {
        node: usize,
        target: DVec3,
    },
    /// Move the grab target, m.
    MoveGrab(DVec3),
    /// Let go; the node keeps its velocity.
    Release,
    /// Displace the pole (all pinned nodes) by this offset from where the scene put it, m.
    SetPoleOffset(DVec3),
    /// Simulated seconds per wall second.
    SetTimeScale(f64),
    /// Compute the Fig. 8 comparison with the precomputed filter after every step.
    SetCompare(bool),
    /// Clear a divergence and resume from the last good state.
    ClearDivergence,
    /// In the lab, inside [`Command::Copy`]: the copy's own `dt`, s (checked against the
    /// shared `dt`'s range); the other copies keep theirs.
    SetCopyDt(f64),
    /// In the lab, inside [`Command::Copy`]: the copy takes copy `m`'s state (positions,
    /// velocities, time; its divergence cleared) and keeps its integrator and `dt`: how a
    /// diverged copy starts again from a healthy one.
    TakeState(usize),
    /// In the lab: apply `Grab`, `MoveGrab`, `Release`, `SetPoleOffset`, `ClearDivergence`,
    /// `SetCopyDt` or `TakeState` to copy `n` (0 is the first; unwrapped, they go to copy 0).
    Copy(usize, Box<Command>),
    /// In a scene of several flags: apply `SetParams` (the flag takes its hoist from them, the
    /// others keep theirs), `Grab`, `MoveGrab`, `Release`, `SetPoleOffset` or
    /// `ClearDivergence` to flag `n` (0 is the first; unwrapped, they go to flag 0).
    Flag(usize, Box<Command>),
    /// Adds a flag at the end of the scene's list (a scene of one flag becomes a list of two),
    /// starting at the flags' present time with the shared parameters; the others go on.
    AddFlag(Box<FlagSpec>),
    /// Removes flag `n`; the others go on. A scene keeps at least one.
    RemoveFlag(usize),
    /// Flag `n` becomes this entry (its image, size, shape, pole, hoist), starting afresh; the
    /// others go on.
    SetFlag(usize, Box<FlagSpec>),
    /// In the lab: give every other copy copy `n`'s state (positions, velocities, time), each
    /// keeping its integrator and `dt`.
    Sync(usize),
    /// In the lab: run (or stop) a reference copy beside the others, an accurate solve of the
    /// same springs ([`shape::reference_params`]) from copy 0's present state, every copy
    /// synced to that state too; each copy's distance from it is then published every step.
    SetReference(bool),
    /// Lends the thread a GPU (the viewer's device) for [`Command::SetDevice`] and scenes'
    /// `"device"`.
    ProvideGpu(Arc<dyn DeviceProvider>),
    /// Where the cloth steps from now on ([`DeviceChoice`]); the state goes along.
    SetDevice(DeviceChoice),
    Shutdown,
}

impl Command {
    /// Whether the command leaves a cloth stepping on the GPU as it is: the others take the
    /// device's state back to the CPU first (a waited read-back), and the cloth goes back to
    /// the device with the next step, built again for what they changed.
    fn keeps_the_device_step(&self) -> bool {
        match self {
            Self::Pause(_)
            | Self::TogglePause
            | Self::Step
            | Self::SetTimeScale(_)
            | Self::SetCompare(_)
            | Self::MoveGrab(_)
            | Self::SetPoleOffset(_)
            | Self::ProvideGpu(_)
            | Self::SetDevice(_) => true,
            Self::Copy(_, cmd) | Self::Flag(_, cmd) => cmd.keeps_the_device_step(),
            _ => false,
        }
    }
}

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

/// The running thread. Dropping it shuts the thread down and joins it.
pub struct SimThread {
    tx: Sender<Command>,
    slot: Arc<SnapshotSlot>,
    join: Option<JoinHandle<()>>,
}

impl SimThread {
    /// Starts a thread running `scene`. It begins running (not paused) unless `paused`.
    pub fn spawn(scene: Scene, paused: bool) -> Result<Self, SimError> {
        Self::spawn_lab(scene, &[], paused)
    }

    /// Starts a thread running the integrator lab: a copy of `scene` per entry of `copies` (2
    /// to 4; none runs the scene alone), stepped in lock-step.
    pub fn spawn_lab(scene: Scene, copies: &[CopySpec], paused: bool) -> Result<Self, SimError> {
        Self::spawn_with(scene, copies, paused, false)
    }

    /// [`Self::spawn_lab`] for a caller that lends a GPU soon ([`Command::ProvideGpu`], the
    /// viewer once its window has one): until then a cloth asked onto the GPU steps on the
    /// CPU without a word, instead of being refused for want of one.
    pub fn spawn_lab_awaiting_gpu(
        scene: Scene,
        copies: &[CopySpec],
        paused: bool,
    ) -> Result<Self, SimError> {
        Self::spawn_with(scene, copies, paused, true)
    }

    fn spawn_with(
        scene: Scene,
        copies: &[CopySpec],
        paused: bool,
        awaiting_gpu: bool,
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
            copies,
            specs,
            reference: None,
            shared: scene.params.clone(),
            lab_time: 0.0,
            scene,
            rx,
            stepper: FixedStepper::default(),
            running: !paused,
            generation: 0,
            compare: false,
            error: None,
            rate: RateMeter::default(),
            provider: None,
            device,
            on_device: Vec::new(),
            read_backs: Vec::new(),
            awaiting_gpu,
        };
        let slot = Arc::new(SnapshotSlot::new(worker.snapshot()));
        worker.slot = slot.clone();
        let join = std::thread::Builder::new()
            .name("flagsim-sim".into())
            .spawn(move || worker.run())
            .map_err(|e| SimError::ThreadStart {
                reason: e.to_string(),
            })?;
        Ok(Self {
            tx,
            slot,
            join: Some(join),
        })
    }

    /// Sends a command; returns false if the thread is gone.
    pub fn send(&self, cmd: Command) -> bool {
        self.tx.send(cmd).is_ok()
    }

    pub fn sender(&self) -> Sender<Command> {
        self.tx.clone()
    }

    pub fn latest(&self) -> Arc<Snapshot> {
        self.slot.latest()
    }

    pub fn slot(&self) -> Arc<SnapshotSlot> {
        self.slot.clone()
    }

    /// Asks the thread to stop and waits for it.
    pub fn shutdown(&mut self) {
        let _ = self.tx.send(Command::Shutdown);
        if let Some(j) = self.join.take() {
            let _ = j.join();
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
    rate: f64,
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

/// The copies' simulations from `scene`'s initial state: one per flag with its own scene's
/// parameters outside the lab, or one per spec of the first flag with `shared` and the spec's
/// integrator and `dt`.
fn fresh_copies(
    scene: &Scene,
    specs: &[CopySpec],
    shared: &Params,
) -> Result<Vec<Simulation>, SimError> {
    if specs.is_empty() {
        return Ok(FlagSet::new(scene)?.flags);
    }
    let first = scene.flag_scene(0);
    specs
        .iter()
        .map(|spec| Simulation::new(first.build_cloth(), copy_params(shared, Some(spec))))
        .collect()
}

/// `shared` with a lab copy's integrator and `dt` (unchanged outside the lab).
fn copy_params(shared: &Params, spec: Option<&CopySpec>) -> Params {
    let mut p = shared.clone();
    if let Some(spec) = spec {
        p.integrator = spec.integrator;
        p.dt = spec.dt.unwrap_or(shared.dt);
    }
    p
}

struct Worker {
    /// The cloths: one per flag outside the lab (flag 0 first), 2 to 4 copies of the first
    /// flag in it (copy 0 first).
    copies: Vec<Simulation>,
    /// The lab's copies as asked for; empty outside the lab.
    specs: Vec<CopySpec>,
    /// The lab's reference copy while it runs ([`Command::SetReference`]).
    reference: Option<Simulation>,
    /// The parameters every copy shares (the panels' values).
    shared: Params,
    /// The lab's simulated time, s: every copy is stepped up to it.
    lab_time: f64,
    scene: Scene,
    rx: Receiver<Command>,
    slot: Arc<SnapshotSlot>,
    stepper: FixedStepper,
    running: bool,
    generation: u64,
    compare: bool,
    error: Option<SimError>,
    rate: RateMeter,
    /// The GPU lent to the thread, if any ([`Command::ProvideGpu`]).
    provider: Option<Arc<dyn DeviceProvider>>,
    /// Where the cloth steps ([`Command::SetDevice`], the scene's `"device"`).
    device: DeviceChoice,
    /// Each cloth's step on the GPU, while it steps there (indexed as `copies`).
    on_device: Vec<Option<Box<dyn DeviceStepper>>>,
    /// Each cloth's read-backs by the GPU steppers that are gone.
    read_backs: Vec<ReadBacks>,
    /// A GPU is to be lent ([`SimThread::spawn_lab_awaiting_gpu`]) and has not been yet.
    awaiting_gpu: bool,
}

impl Worker {
    /// The step the stepper counts in: copy 0's outside the lab, the shared one in it.
    fn dt(&self) -> f64 {
        if self.specs.is_empty() {
            self.copies[0].params().dt
        } else {
            self.shared.dt
        }
    }

    /// Whether any cloth can step (the guard pauses a diverged one).
    fn can_step(&self) -> bool {
        self.copies.iter().any(|c| !c.paused)
    }

    /// `n` steps of `dt()`: every flag's own outside the lab (they share `dt`), lock-step lab
    /// steps in it. Returns how many were taken (by the flag that took most). A cloth the
    /// device choice puts on the GPU steps there (outside the lab, a scene of one flag; in
    /// it, the `:gpu` copies).
    fn step_n(&mut self, n: u32) -> u32 {
        if self.specs.is_empty() {
            let mut most = 0;
            for k in 0..self.copies.len() {
                let taken = if self.ready_on_device(k) {
                    self.step_on_device(k, n)
                } else {
                    self.copies[k].step_n(n)
                };
                most = most.max(taken);
            }
            return most;
        }
        for k in 0..self.copies.len() {
            self.ready_on_device(k);
        }
        for _ in 0..n {
            self.lab_time += self.shared.dt;
            if let Some(reference) = &mut self.reference {
                // The reference is not dragged, but it holds the pole where copy 0 does.
                reference.pole_offset = self.copies[0].pole_offset;
                advance_to(reference, self.lab_time);
            }
            for (sim, device) in self.copies.iter_mut().zip(&mut self.on_device) {
                match device {
                    None => {
                        advance_to(sim, self.lab_time);
                    }
                    Some(device) => {
                        advance_on(sim, device.as_mut(), self.lab_time, false);
                    }
                }
            }
        }
        n
    }

    /// The device cloth `k` is asked to step on: the panel's choice outside the lab, the
    /// copy's own in it.
    fn choice_of(&self, k: usize) -> DeviceChoice {
        self.specs.get(k).map_or(self.device, |spec| spec.device)
    }

    /// Cloth `k` back to the CPU for good (after a refusal or a failure, reported).
    fn fall_back(&mut self, k: usize, e: SimError) {
        self.error = Some(match self.specs.get(k) {
            Some(spec) => e.in_copy(spec),
            None => e,
        });
        match self.specs.get_mut(k) {
            Some(spec) => spec.device = DeviceChoice::Cpu,
            None => self.device = DeviceChoice::Cpu,
        }
    }

    /// Makes cloth `k` step where its choice says: on the GPU (its stepper made, `true`), or
    /// on the CPU (the GPU's state taken back first, if it had it). A GPU that refuses the
    /// cloth is reported and the choice falls back to `cpu`.
    fn ready_on_device(&mut self, k: usize) -> bool {
        self.on_device.resize_with(self.copies.len(), || None);
        self.read_backs
            .resize(self.copies.len(), ReadBacks::default());
        let choice = self.choice_of(k);
        let wants = if choice == DeviceChoice::Cpu || (self.awaiting_gpu && self.provider.is_none())
        {
            Ok(false)
        } else {
            choice.wants_gpu(self.provider.as_deref(), &self.copies[k])
        };
        let wants = wants.unwrap_or_else(|e| {
            self.fall_back(k, e);
            false
        });
        if !wants {
            self.take_back(k);
            return false;
        }
        if self.on_device[k].is_none() {
            let Some(provider) = self.provider.clone() else {
                return false;
            };
            match provider.stepper(&mut self.copies[k], k) {
                Ok(stepper) => self.on_device[k] = Some(stepper),
                Err(e) => {
                    self.fall_back(k, e);
                    return false;
                }
            }
        }
        true
    }

    /// `n` steps of flag `k` on the GPU (outside the lab). A failure drops the device's state
    /// (not trusted): the CPU goes on from the last snapshot taken.
    fn step_on_device(&mut self, k: usize, n: u32) -> u32 {
        let Some(Some(stepper)) = self.on_device.get_mut(k) else {
            return 0;
        };
        match stepper.step_n(&mut self.copies[k], n) {
            Ok(()) => n,
            Err(e) => {
                self.drop_device(k);
                self.fall_back(k, e);
                0
            }
        }
    }

    /// Takes cloth `k`'s state back from the GPU (a waited read-back) and ends its GPU
    /// stepping; nothing when it steps on the CPU.
    fn take_back(&mut self, k: usize) {
        if let Some(Some(stepper)) = self.on_device.get_mut(k)
            && let Err(e) = stepper.sync(&mut self.copies[k])
        {
            self.error = Some(e);
        }
        self.drop_device(k);
    }

    /// [`Self::take_back`] for every cloth (before a command that changes them).
    fn take_all_back(&mut self) {
        for k in 0..self.on_device.len().min(self.copies.len()) {
            self.take_back(k);
        }
        self.on_device.clear();
    }

    fn drop_device(&mut self, k: usize) {
        if let Some(stepper) = self.on_device.get_mut(k).and_then(Option::take) {
            let r = stepper.read_backs();
            if let Some(total) = self.read_backs.get_mut(k) {
                total.waited += r.waited;
                total.snapshots += r.snapshots;
                total.bytes += r.bytes;
            }
        }
    }

    /// Collects the GPU's snapshots that arrived (and asks for the next ones): whether a cloth
    /// changed.
    fn poll_device(&mut self) -> bool {
        let mut changed = false;
        for k in 0..self.on_device.len().min(self.copies.len()) {
            let Some(stepper) = &mut self.on_device[k] else {
                continue;
            };
            match stepper.poll(&mut self.copies[k]) {
                Ok(arrived) => changed |= arrived,
                Err(e) => {
                    self.drop_device(k);
                    self.fall_back(k, e);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Where cloth `k` steps, for the panel.
    fn device_status(&self, k: usize) -> DeviceStatus {
        let mut read_backs = self.read_backs.get(k).copied().unwrap_or_default();
        let stepper = self.on_device.get(k).and_then(Option::as_ref);
        if let Some(stepper) = stepper {
            let r = stepper.read_backs();
            read_backs.waited += r.waited;
            read_backs.snapshots += r.snapshots;
            read_backs.bytes += r.bytes;
        }
        DeviceStatus {
            choice: self.choice_of(k),
            on_gpu: stepper.is_some(),
            adapter: self.provider.as_ref().map(|p| p.adapter()),
            read_backs,
        }
    }

    fn run(mut self) {
        let mut last = Instant::now();
        self.publish();
        loop {
            let timeout = if self.running && self.can_step() {
                Duration::from_secs_f64(self.stepper.until_next(self.dt()).min(0.05))
            } else {
                Duration::from_millis(50)
            };
            let mut dirty = false;
            match self.rx.recv_timeout(timeout) {
                Ok(cmd) => {
                    // A batch's message stays until the next batch, so a command that fails is
                    // reported even when another one follows it at once.
                    self.error = None;
                    if !self.apply_between_steps(cmd) {
                        return;
                    }
                    dirty = true;
                    while let Ok(cmd) = self.rx.try_recv() {
                        if !self.apply_between_steps(cmd) {
                            return;
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            let now = Instant::now();
            let wall = now.duration_since(last).as_secs_f64();
            last = now;
            if self.running && self.can_step() {
                let steps = self.stepper.advance(wall, self.dt());
                let done = self.step_n(steps);
                self.rate.add(done, now);
                dirty |= done > 0;
            } else {
                self.stepper.reset();
                self.rate.add(0, now);
            }
            dirty |= self.poll_device();
            if dirty {
                self.publish();
            }
        }
    }

    /// [`Self::apply`], the GPU's state taken back to the CPU first unless the command keeps
    /// it ([`Command::keeps_the_device_step`]).
    fn apply_between_steps(&mut self, cmd: Command) -> bool {
        if !cmd.keeps_the_device_step() {
            self.take_all_back();
        }
        self.apply(cmd)
    }

    /// Applies one command between steps. Returns false on shutdown.
    fn apply(&mut self, cmd: Command) -> bool {
        let result: Result<(), SimError> = match cmd {
            Command::Shutdown => return false,
            Command::SetParams(p) => self.set_params(*p, Some(0)),
            Command::SetIntegrator(kind) => {
                if kind != IntegratorKind::KangMg {
                    // The GPU steps `kang-mg` only: the user's integrator wins.
                    if let Some(spec) = self.specs.first_mut() {
                        spec.device = DeviceChoice::Cpu;
                    } else if self.device == DeviceChoice::Gpu {
                        self.device = DeviceChoice::Cpu;
                    }
                }
                if let Some(spec) = self.specs.first_mut() {
                    spec.integrator = kind;
                    self.set_params(self.shared.clone(), None)
                } else {
                    let mut p = self.shared.clone();
                    p.integrator = kind;
                    self.set_params(p, None)
                }
            }
            Command::SetTotalMass(m) => self
                .copies
                .iter_mut()
                .chain(&mut self.reference)
                .try_for_each(|c| c.set_total_mass(m)),
            Command::Reset => self.reset(),
            Command::LoadScene(scene) => self.load(*scene),
            Command::Pause(p) => {
                self.running = !p;
                Ok(())
            }
            Command::TogglePause => {
                self.running = !self.running;
                Ok(())
            }
            Command::Step => {
                self.running = false;
                self.step_n(1);
                Ok(())
            }
            Command::SetTimeScale(s) => super::params::spec::TIME_SCALE.check(s).map(|()| {
                self.stepper.time_scale = s;
            }),
            Command::SetCompare(on) => {
                self.compare = on;
                Ok(())
            }
            Command::Copy(n, cmd) if n < self.copies.len() => self.apply_to(n, *cmd),
            Command::Copy(n, _) => Err(SimError::NoCopy { copy: n }),
            Command::Flag(n, cmd) if self.specs.is_empty() && n < self.copies.len() => match *cmd {
                Command::SetParams(p) => self.set_params(*p, Some(n)),
                cmd => self.apply_to(n, cmd),
            },
            Command::Flag(n, _) => Err(if self.specs.is_empty() {
                SimError::NoFlag {
                    flag: n,
                    count: self.copies.len(),
                }
            } else {
                SimError::FlagsInLab
            }),
            Command::AddFlag(flag) => self.add_flag(*flag),
            Command::RemoveFlag(n) => self.remove_flag(n),
            Command::SetFlag(n, flag) => self.set_flag(n, *flag),
            Command::Sync(n) => self.sync(n),
            Command::SetReference(on) => self.set_reference(on),
            Command::ProvideGpu(provider) => {
                self.provider = Some(provider);
                self.awaiting_gpu = false;
                Ok(())
            }
            Command::SetDevice(choice) if self.specs.is_empty() || choice == DeviceChoice::Cpu => {
                self.device = choice;
                Ok(())
            }
            Command::SetDevice(_) => Err(SimError::GpuInLab),
            cmd => self.apply_to(0, cmd),
        };
        if let Err(e) = result {
            self.error = Some(e);
        }
        true
    }

    /// A command for one cloth: the grab, the pole and the guard.
    fn apply_to(&mut self, n: usize, cmd: Command) -> Result<(), SimError> {
        match cmd {
            Command::SetCopyDt(dt) => return self.set_copy_dt(n, dt),
            Command::TakeState(m) => return self.take_state(n, m),
            _ => {}
        }
        let sim = &mut self.copies[n];
        match cmd {
            Command::Grab { node, target } => {
                if node < sim.cloth.node_count() && target.is_finite() {
                    sim.grab = Some(Grab { node, target });
                    Ok(())
                } else {
                    Err(SimError::InvalidGrab { node, target })
                }
            }
            Command::MoveGrab(target) => {
                if let Some(g) = &mut sim.grab
                    && target.is_finite()
                {
                    g.target = target;
                }
                Ok(())
            }
            Command::Release => {
                sim.grab = None;
                Ok(())
            }
            Command::SetPoleOffset(offset) => {
                if offset.is_finite() {
                    sim.pole_offset = offset;
                    Ok(())
                } else {
                    Err(SimError::PoleOffsetNotFinite)
                }
            }
            Command::ClearDivergence => {
                sim.clear_divergence();
                if !self.specs.is_empty() {
                    // In the lab the copy stood still at its last good state while the lab's
                    // clock ran on. It resumes from that state at the lab's time: caught up
                    // from its own, it would retake the very steps that failed (the same
                    // divergence, at the same step) in one go.
                    sim.time = sim.time.max(self.lab_time);
                }
                self.stepper.reset();
                Ok(())
            }
            other => Err(SimError::NotACopyCommand {
                command: format!("{other:?}"),
            }),
        }
    }

    /// The shared parameters, each copy keeping its own integrator and `dt` in the lab, each
    /// flag its own hoist but flag `hoist_of` (which takes `p`'s). A value a copy refuses
    /// leaves every copy as it was.
    fn set_params(&mut self, p: Params, hoist_of: Option<usize>) -> Result<(), SimError> {
        let old: Vec<Params> = self.copies.iter().map(|c| c.params().clone()).collect();
        let restore = |copies: &mut [Simulation], upto: usize| {
            for (sim, p) in copies[..upto].iter_mut().zip(&old) {
                let _ = sim.set_params(p.clone());
            }
        };
        for (i, before) in old.iter().enumerate() {
            let mut mine = copy_params(&p, self.specs.get(i));
            if self.specs.is_empty() && hoist_of != Some(i) {
                mine.hoist = before.hoist;
            }
            if let Err(e) = self.copies[i].set_params(mine) {
                restore(&mut self.copies, i);
                return Err(e);
            }
        }
        if let Some(reference) = &mut self.reference {
            // The same springs from here on; the reference keeps its own state.
            let accurate = shape::reference_params(&p);
            if let Err(e) = reference.set_params(accurate) {
                let all = self.copies.len();
                restore(&mut self.copies, all);
                return Err(e.in_reference());
            }
        }
        self.shared = p;
        Ok(())
    }

    /// The scene's flags as a list whose every pole stands where it stands now (so that
    /// adding or removing one moves none of the others when the scene is reset).
    fn placed_flags(&self) -> Result<Scene, SimError> {
        if !self.specs.is_empty() {
            return Err(SimError::FlagsInLab);
        }
        let mut scene = self.scene.clone();
        scene.place_flags();
        Ok(scene)
    }

    /// Flag `k` of `scene` as a simulation with the shared parameters and its own hoist, at
    /// the flags' present time.
    fn flag_simulation(&self, scene: &Scene, k: usize) -> Result<Simulation, SimError> {
        let alone = scene.flag_scene(k);
        let mut params = self.shared.clone();
        params.hoist = alone.params.hoist;
        let mut sim = Simulation::new(alone.build_cloth(), params)?;
        sim.time = self.copies.first().map_or(0.0, |c| c.time);
        Ok(sim)
    }

    fn add_flag(&mut self, flag: FlagSpec) -> Result<(), SimError> {
        if self.copies.len() >= MAX_FLAGS {
            return Err(SimError::TooManyFlags { limit: MAX_FLAGS });
        }
        let mut scene = self.placed_flags()?;
        scene.flags.push(flag);
        scene.validate()?;
        let sim = self.flag_simulation(&scene, scene.flags.len() - 1)?;
        self.scene = scene;
        self.copies.push(sim);
        self.generation += 1;
        Ok(())
    }

    fn remove_flag(&mut self, n: usize) -> Result<(), SimError> {
        let count = self.copies.len();
        if n >= count {
            return Err(SimError::NoFlag { flag: n, count });
        }
        if count == 1 {
            return Err(SimError::LastFlag);
        }
        let mut scene = self.placed_flags()?;
        scene.flags.remove(n);
        self.scene = scene;
        self.copies.remove(n);
        self.generation += 1;
        Ok(())
    }

    fn set_flag(&mut self, n: usize, flag: FlagSpec) -> Result<(), SimError> {
        let count = self.copies.len();
        if n >= count {
            return Err(SimError::NoFlag { flag: n, count });
        }
        let mut scene = self.placed_flags()?;
        scene.flags[n] = flag;
        scene.validate()?;
        let sim = self.flag_simulation(&scene, n)?;
        self.scene = scene;
        self.copies[n] = sim;
        self.generation += 1;
        Ok(())
    }

    /// Starts the reference copy from copy 0's state, every other copy synced to it, or stops
    /// it. Only in the lab.
    fn set_reference(&mut self, on: bool) -> Result<(), SimError> {
        if !on {
            self.reference = None;
            return Ok(());
        }
        if self.specs.is_empty() {
            return Err(SimError::ReferenceOutsideLab);
        }
        self.sync(0)?;
        self.reference = Some(self.reference_from(0)?);
        Ok(())
    }

    /// A reference copy with copy `n`'s state: the shared parameters made accurate.
    fn reference_from(&self, n: usize) -> Result<Simulation, SimError> {
        let mut sim = self.copies[n].clone();
        sim.grab = None;
        sim.clear_divergence();
        sim.set_params(shape::reference_params(&self.shared))
            .map_err(SimError::in_reference)?;
        Ok(sim)
    }

    /// Restarts a running reference from copy `n`'s state (after a sync, a reset or a new
    /// scene), so that it starts where the copies start. New parameters do not restart it: it
    /// takes them and keeps its state, as the copies do.
    fn restart_reference(&mut self, n: usize) -> Result<(), SimError> {
        if self.reference.is_some() {
            self.reference = Some(self.reference_from(n)?);
        }
        Ok(())
    }

    /// Every other copy takes copy `n`'s state and keeps its integrator and `dt`.
    fn sync(&mut self, n: usize) -> Result<(), SimError> {
        if n >= self.copies.len() {
            return Err(SimError::NoCopy { copy: n });
        }
        for i in 0..self.copies.len() {
            if i != n {
                self.take_state(i, n)?;
            }
        }
        self.restart_reference(n)
    }

    /// Copy `n` takes copy `m`'s state (its divergence and grab dropped) and keeps its own
    /// integrator and `dt`.
    fn take_state(&mut self, n: usize, m: usize) -> Result<(), SimError> {
        let Some(source) = self.copies.get(m) else {
            return Err(SimError::NoCopy { copy: m });
        };
        let mut copy = source.clone();
        copy.grab = None;
        copy.clear_divergence();
        copy.set_params(copy_params(&self.shared, self.specs.get(n)))?;
        self.copies[n] = copy;
        Ok(())
    }

    /// Copy `n`'s own `dt` in the lab.
    fn set_copy_dt(&mut self, n: usize, dt: f64) -> Result<(), SimError> {
        if self.specs.is_empty() {
            return Err(SimError::NotInLab {
                command: "a copy's own dt".into(),
            });
        }
        super::params::spec::DT.check(dt)?;
        let mut spec = self.specs[n];
        spec.dt = Some(dt);
        self.copies[n].set_params(copy_params(&self.shared, Some(&spec)))?;
        self.specs[n] = spec;
        Ok(())
    }

    fn reset(&mut self) -> Result<(), SimError> {
        let copies = fresh_copies(&self.scene, &self.specs, &self.scene.params)?;
        self.shared = self.scene.params.clone();
        self.start(copies);
        self.restart_reference(0)
    }

    /// Replaces the scene, only if it makes a simulation: a bad one leaves the running scene,
    /// and what `Reset` goes back to, as they were.
    fn load(&mut self, scene: Scene) -> Result<(), SimError> {
        let copies = fresh_copies(&scene, &self.specs, &scene.params)?;
        self.shared = scene.params.clone();
        self.device = scene.device;
        self.scene = scene;
        self.start(copies);
        self.restart_reference(0)
    }

    fn start(&mut self, copies: Vec<Simulation>) {
        self.copies = copies;
        self.lab_time = 0.0;
        self.generation += 1;
        self.stepper.reset();
    }

    /// Copy `n`'s snapshot with the thread's state.
    fn snapshot_of(&self, n: usize) -> Snapshot {
        let sim = &self.copies[n];
        let mut snap = Snapshot::of(sim);
        snap.device = self.device_status(n);
        snap.generation = self.generation;
        snap.error.clone_from(&self.error);
        snap.paused = !self.running || sim.paused;
        snap.steps_per_second = self.rate.rate;
        snap.behind = self.stepper.behind;
        snap.time_scale = self.stepper.time_scale;
        snap.reference_distance = self
            .reference
            .as_ref()
            .filter(|r| r.divergence.is_none())
            .map(|r| shape::distance(&sim.cloth.x, &r.cloth.x));
        snap
    }

    /// Copy 0's snapshot with the other copies' in `lab` (the other flags' in `flags`).
    fn snapshot(&self) -> Snapshot {
        let mut snap = self.snapshot_of(0);
        let others = (1..self.copies.len())
            .map(|n| self.snapshot_of(n))
            .collect();
        if self.specs.is_empty() {
            snap.flags = others;
        } else {
            snap.lab = others;
        }
        snap.reference = self.reference.as_ref().map(|r| ReferenceStatus {
            step_seconds: r.stats.step_seconds,
            diverged: r.divergence.is_some(),
        });
        snap
    }

    fn publish(&mut self) {
        let mut snap = self.snapshot();
        if self.compare {
            let active = self.copies[0].params().integrator;
            match compare_with_filter(&mut self.copies[0], active) {
                Ok(c) => snap.compare = Some(c),
                Err(e) => snap.error = Some(SimError::Compare(Box::new(e))),
            }
        }
        self.slot.publish(snap);
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
