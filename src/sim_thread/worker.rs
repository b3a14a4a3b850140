//! The simulation thread's loop: commands applied between steps, the cloths stepped at a
//! fixed `dt`, a snapshot published after each change.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use web_time::Instant;

use crate::sim::format::device_choice::DeviceChoice;
use crate::sim::format::error::SimError;
use crate::sim::format::params::Params;
use crate::sim::format::scene::Scene;
use crate::sim::lab::copies::{CopySpec, advance_on, advance_to};
use crate::sim::model::shape;
use crate::sim::runtime::agreement::compare_with_filter;
use crate::sim::runtime::device::{DeviceProvider, DeviceStepper, ReadBacks};
use crate::sim::runtime::flags::FlagSet;
use crate::sim::runtime::simulation::{Grab, Simulation};
use crate::sim::runtime::snapshot::{ReferenceStatus, Snapshot};
use crate::sim::runtime::stepper::FixedStepper;

use super::lab::{Checkpoints, LabMotion};
use super::{Command, RateMeter, SnapshotSlot};

/// The copies' simulations from `scene`'s initial state: one per flag with its own scene's
/// parameters outside the lab, or one per spec of the first flag with `shared` and the spec's
/// integrator, `dt` and key grid.
pub(super) fn fresh_copies(
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
        .map(|spec| {
            let cloth = spec.grid_scene(&first).map_err(|e| e.in_copy(spec))?;
            Simulation::new(cloth.build_cloth(), copy_params(shared, Some(spec)))
        })
        .collect()
}

/// `shared` with a lab copy's integrator and `dt` (unchanged outside the lab).
pub(super) fn copy_params(shared: &Params, spec: Option<&CopySpec>) -> Params {
    let mut p = shared.clone();
    if let Some(spec) = spec {
        p.integrator = spec.integrator;
        p.dt = spec.dt.unwrap_or(shared.dt);
    }
    p
}

/// The lab's side of the thread: what the copies were asked to be, the reference copy, the
/// lab's clock. Outside the lab `copies` is empty.
#[derive(Default)]
pub(super) struct LabCopies {
    /// The lab's copies as asked for (integrator, `dt`, device), copy 0 first.
    pub(super) copies: Vec<CopySpec>,
    /// The lab's reference copy while it runs ([`Command::SetReference`]).
    pub(super) reference: Option<Simulation>,
    /// The lab's simulated time, s: every copy is stepped up to it.
    pub(super) time: f64,
    /// How each copy and the reference move, over the last seconds.
    pub(super) motion: LabMotion,
    /// States of each copy kept to resume it from.
    pub(super) checkpoints: Checkpoints,
}

/// Where the cloths step: the GPU lent to the thread and each cloth's stepper on it.
pub(super) struct GpuSide {
    /// The GPU lent to the thread, if any ([`Command::ProvideGpu`]).
    pub(super) provider: Option<Arc<dyn DeviceProvider>>,
    /// Where the cloth steps outside the lab ([`Command::SetDevice`], the scene's `"device"`);
    /// in the lab each copy's own choice.
    pub(super) choice: DeviceChoice,
    /// Each cloth's step on the GPU, while it steps there (indexed as `Worker::cloths`).
    pub(super) steppers: Vec<Option<Box<dyn DeviceStepper>>>,
    /// Each cloth's read-backs by the GPU steppers that are gone.
    pub(super) read_backs: Vec<ReadBacks>,
    /// A GPU is to be lent ([`SimThread::spawn_lab_awaiting_gpu`]) and has not been yet.
    pub(super) awaiting: bool,
    /// Whether the log last said that each cloth steps on the GPU.
    pub(super) announced: Vec<bool>,
}

pub(super) struct Worker {
    /// The cloths: one per flag outside the lab (flag 0 first, [`super::flags`]), the lab's
    /// 2 to 4 copies of the first flag in it (copy 0 first, [`super::lab`]).
    pub(super) cloths: Vec<Simulation>,
    pub(super) lab: LabCopies,
    pub(super) gpu: GpuSide,
    /// The parameters every cloth shares (the panels' values).
    pub(super) shared: Params,
    pub(super) scene: Scene,
    pub(super) rx: Receiver<Command>,
    pub(super) slot: Arc<SnapshotSlot>,
    pub(super) stepper: FixedStepper,
    pub(super) running: bool,
    pub(super) generation: u64,
    pub(super) compare: bool,
    pub(super) error: Option<SimError>,
    pub(super) rate: RateMeter,
    /// When the last [`Self::turn`] was taken (none before the first).
    pub(super) last_turn: Option<Instant>,
    /// Commands that came and wait, in order, for the GPU's state of the cloths they change
    /// (a page's turn cannot wait for it: [`Self::settled`]).
    pub(super) held: VecDeque<Command>,
}

impl Worker {
    /// The step the stepper counts in: copy 0's outside the lab, the shared one in it.
    pub(super) fn dt(&self) -> f64 {
        if self.lab.copies.is_empty() {
            self.cloths[0].params().dt
        } else {
            self.shared.dt
        }
    }

    /// Whether any cloth can step (the guard pauses a diverged one).
    pub(super) fn can_step(&self) -> bool {
        self.cloths.iter().any(|c| !c.paused)
    }

    /// `n` steps of `dt()`: every flag's own outside the lab (they share `dt`), lock-step lab
    /// steps in it. Returns how many were taken (by the flag that took most). A cloth the
    /// device choice puts on the GPU steps there (outside the lab, a scene of one flag; in
    /// it, the `:gpu` copies).
    pub(super) fn step_n(&mut self, n: u32) -> u32 {
        if self.lab.copies.is_empty() {
            let mut most = 0;
            for k in 0..self.cloths.len() {
                let taken = if self.ready_on_device(k) {
                    self.step_on_device(k, n)
                } else {
                    self.cloths[k].step_n(n)
                };
                most = most.max(taken);
            }
            return most;
        }
        for k in 0..self.cloths.len() {
            self.ready_on_device(k);
        }
        for _ in 0..n {
            self.lab.time += self.shared.dt;
            if let Some(reference) = &mut self.lab.reference {
                // The reference is not dragged, but it holds the pole where copy 0 does.
                reference.pole_offset = self.cloths[0].pole_offset;
                advance_to(reference, self.lab.time);
            }
            for (sim, device) in self.cloths.iter_mut().zip(&mut self.gpu.steppers) {
                match device {
                    None => {
                        advance_to(sim, self.lab.time);
                    }
                    Some(device) => {
                        advance_on(sim, device.as_mut(), self.lab.time, false);
                    }
                }
            }
            self.sample_motion();
            self.keep_checkpoints();
        }
        n
    }

    /// The thread's loop: it waits for a command or the next step, whichever comes first,
    /// and takes a [`Self::turn`] with what came.
    pub(super) fn run(mut self) {
        self.last_turn = Some(Instant::now());
        self.publish();
        loop {
            let timeout = if self.running && self.can_step() {
                Duration::from_secs_f64(self.stepper.until_next(self.dt()).min(0.05))
            } else {
                Duration::from_millis(50)
            };
            let first = match self.rx.recv_timeout(timeout) {
                Ok(cmd) => Some(cmd),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            if !self.turn(first, Instant::now()) {
                return;
            }
        }
    }

    /// One turn of the loop at wall time `now`, on the thread or in a page's frame: `first`
    /// and every command waiting behind it applied, then the steps the wall clock owes since
    /// the last turn ([`FixedStepper`]: a late turn takes more, up to its cap), then a
    /// snapshot if anything changed. Returns false on shutdown.
    ///
    /// Where the GPU's state cannot be waited for (a page), a command that needs it waits, with
    /// those behind it, until the state came ([`Self::settled`]), and no cloth steps meanwhile
    /// (a frame or two).
    pub(super) fn turn(&mut self, first: Option<Command>, now: Instant) -> bool {
        self.held.extend(first);
        while let Ok(cmd) = self.rx.try_recv() {
            self.held.push_back(cmd);
        }
        let mut dirty = false;
        while let Some(cmd) = self.held.front() {
            if cmd.needs_the_device_state() && !self.settled() {
                break;
            }
            let Some(cmd) = self.held.pop_front() else {
                break;
            };
            if !dirty {
                // A batch's message stays until the next batch, so a command that fails is
                // reported even when another one follows it at once.
                self.error = None;
                dirty = true;
            }
            if !self.apply_between_steps(cmd) {
                return false;
            }
        }
        let wall = self.last_turn.map_or(0.0, |last| {
            now.saturating_duration_since(last).as_secs_f64()
        });
        self.last_turn = Some(now);
        if !self.held.is_empty() {
            // The wall time of a turn spent waiting is not owed.
            self.rate.add(0, now);
        } else if self.running && self.can_step() {
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
        true
    }

    /// [`Self::apply`], the GPU's state taken back to the CPU first unless the command keeps
    /// it ([`Command::keeps_the_device_step`]).
    pub(super) fn apply_between_steps(&mut self, cmd: Command) -> bool {
        if !cmd.keeps_the_device_step() {
            self.take_all_back();
        }
        self.apply(cmd)
    }

    /// Applies one command between steps. Returns false on shutdown.
    pub(super) fn apply(&mut self, cmd: Command) -> bool {
        let result: Result<(), SimError> =
            match cmd {
                Command::Shutdown => return false,
                Command::SetParams(p) => self.set_params(*p, Some(0)),
                Command::SetIntegrator(kind) => {
                    if !kind.steps_on_gpu() {
                        // The GPU steps `kang-mg` and `implicit-mg` only: the user's
                        // integrator wins.
                        if let Some(spec) = self.lab.copies.first_mut() {
                            spec.device = DeviceChoice::Cpu;
                        } else if self.gpu.choice == DeviceChoice::Gpu {
                            self.gpu.choice = DeviceChoice::Cpu;
                        }
                    }
                    if let Some(spec) = self.lab.copies.first_mut() {
                        spec.integrator = kind;
                        self.set_params(self.shared.clone(), None)
                    } else {
                        let mut p = self.shared.clone();
                        p.integrator = kind;
                        self.set_params(p, None)
                    }
                }
                Command::SetTotalMass(m) => self
                    .cloths
                    .iter_mut()
                    .chain(&mut self.lab.reference)
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
                Command::SetTimeScale(s) => crate::sim::format::params::spec::TIME_SCALE
                    .check(s)
                    .map(|()| {
                        self.stepper.time_scale = s;
                    }),
                Command::SetCompare(on) => {
                    self.compare = on;
                    Ok(())
                }
                Command::Copy(n, cmd) if n < self.cloths.len() => self.apply_to(n, *cmd),
                Command::Copy(n, _) => Err(SimError::NoCopy { copy: n }),
                Command::Flag(n, cmd) if self.lab.copies.is_empty() && n < self.cloths.len() => {
                    match *cmd {
                        Command::SetParams(p) => self.set_params(*p, Some(n)),
                        cmd => self.apply_to(n, cmd),
                    }
                }
                Command::Flag(n, _) => Err(if self.lab.copies.is_empty() {
                    SimError::NoFlag {
                        flag: n,
                        count: self.cloths.len(),
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
                    self.gpu.provider = Some(provider);
                    self.gpu.awaiting = false;
                    Ok(())
                }
                Command::SetDevice(choice)
                    if self.lab.copies.is_empty() || choice == DeviceChoice::Cpu =>
                {
                    self.gpu.choice = choice;
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
    pub(super) fn apply_to(&mut self, n: usize, cmd: Command) -> Result<(), SimError> {
        match cmd {
            Command::SetCopyDt(dt) => return self.set_copy_dt(n, dt),
            Command::TakeState(m) => return self.take_state(n, m),
            Command::ClearDivergence if !self.lab.copies.is_empty() => {
                // In the lab the copy stood still while the lab's clock ran on. It resumes at
                // the lab's time (caught up from its own, it would retake the very steps that
                // failed in one go), from a state kept before it failed: its last good state
                // may already be past saving.
                self.resume_copy(n)?;
                let sim = &mut self.cloths[n];
                sim.clear_divergence();
                sim.time = sim.time.max(self.lab.time);
                self.stepper.reset();
                return Ok(());
            }
            _ => {}
        }
        let sim = &mut self.cloths[n];
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
    pub(super) fn set_params(
        &mut self,
        p: Params,
        hoist_of: Option<usize>,
    ) -> Result<(), SimError> {
        let old: Vec<Params> = self.cloths.iter().map(|c| c.params().clone()).collect();
        let restore = |copies: &mut [Simulation], upto: usize| {
            for (sim, p) in copies[..upto].iter_mut().zip(&old) {
                let _ = sim.set_params(p.clone());
            }
        };
        for (i, before) in old.iter().enumerate() {
            let mut mine = copy_params(&p, self.lab.copies.get(i));
            if self.lab.copies.is_empty() && hoist_of != Some(i) {
                mine.hoist = before.hoist;
            }
            if let Err(e) = self.cloths[i].set_params(mine) {
                restore(&mut self.cloths, i);
                return Err(e);
            }
        }
        if let Some(reference) = &mut self.lab.reference {
            // The same springs from here on; the reference keeps its own state.
            let accurate = shape::reference_params(&p);
            if let Err(e) = reference.set_params(accurate) {
                let all = self.cloths.len();
                restore(&mut self.cloths, all);
                return Err(e.in_reference());
            }
        }
        self.shared = p;
        Ok(())
    }

    pub(super) fn reset(&mut self) -> Result<(), SimError> {
        let copies = fresh_copies(&self.scene, &self.lab.copies, &self.scene.params)?;
        self.shared = self.scene.params.clone();
        self.start(copies);
        self.restart_reference(0)
    }

    /// Replaces the scene, only if it makes a simulation: a bad one leaves the running scene,
    /// and what `Reset` goes back to, as they were.
    pub(super) fn load(&mut self, scene: Scene) -> Result<(), SimError> {
        let copies = fresh_copies(&scene, &self.lab.copies, &scene.params)?;
        self.shared = scene.params.clone();
        self.gpu.choice = scene.device;
        self.scene = scene;
        self.start(copies);
        self.restart_reference(0)
    }

    pub(super) fn start(&mut self, copies: Vec<Simulation>) {
        self.cloths = copies;
        self.lab.time = 0.0;
        self.generation += 1;
        self.stepper.reset();
        self.restart_motion();
        self.restart_checkpoints();
    }

    /// Copy `n`'s snapshot with the thread's state.
    pub(super) fn snapshot_of(&self, n: usize) -> Snapshot {
        let sim = &self.cloths[n];
        let mut snap = Snapshot::of(sim);
        snap.device = self.device_status(n);
        snap.generation = self.generation;
        snap.error.clone_from(&self.error);
        snap.paused = !self.running || sim.paused;
        snap.steps_per_second = self.rate.rate;
        snap.behind = self.stepper.behind;
        snap.time_scale = self.stepper.time_scale;
        snap.reference_distance = self
            .lab
            .reference
            .as_ref()
            .filter(|r| r.divergence.is_none())
            .map(|r| shape::cloth_distance(&sim.cloth, &sim.cloth.x, &r.cloth, &r.cloth.x));
        snap.motion = self.lab.motion.figures.get(n).copied().flatten();
        snap.resumed = self.lab.checkpoints.resumed.get(n).copied().flatten();
        snap
    }

    /// Copy 0's snapshot with the other copies' in `lab` (the other flags' in `flags`).
    pub(super) fn snapshot(&self) -> Snapshot {
        let mut snap = self.snapshot_of(0);
        let others = (1..self.cloths.len())
            .map(|n| self.snapshot_of(n))
            .collect();
        if self.lab.copies.is_empty() {
            snap.flags = others;
        } else {
            snap.lab = others;
        }
        snap.reference = self.lab.reference.as_ref().map(|r| ReferenceStatus {
            step_seconds: r.stats.step_seconds,
            diverged: r.divergence.is_some(),
            motion: self.lab.motion.reference_figures,
        });
        snap
    }

    pub(super) fn publish(&mut self) {
        let mut snap = self.snapshot();
        if self.compare {
            let active = self.cloths[0].params().integrator;
            match compare_with_filter(&mut self.cloths[0], active) {
                Ok(c) => snap.compare = Some(c),
                Err(e) => snap.error = Some(SimError::Compare(Box::new(e))),
            }
        }
        self.slot.publish(snap);
    }
}
