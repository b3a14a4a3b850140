//! `kang-mg`'s or `implicit-mg`'s whole physics step on the GPU: the twin of the CPU's
//! [`crate::sim::Simulation::step`] with that integrator (docs/method.md §2), every node's
//! arithmetic on the device, nothing read back between steps.
//!
//! One step records, in order: the held nodes' known `Δv` and targets (a short list from the
//! CPU, `shaders/sim_held.wgsl`), the spring forces ([`super::ForcePass`]), the normals and the
//! air ([`super::AirPass`]), the right-hand side ([`super::RhsPass`]), level 0's air diagonal
//! and [`GpuSimulation::cycles`] V-cycles from the last step's `Δv`
//! ([`super::GpuMultigrid`]), and the step's end ([`super::StepEndPass`]). The CPU's share
//! (where the held nodes go, the clock, the base wind) stays in a [`Simulation`]
//! ([`Simulation::begin_device_step`]), whose cloth is the GPU's state as of the last
//! [`GpuSimulation::read_back`].
//!
//! Why `kang-mg`: it keeps the accurate solve's shape on the peer's scenes at a fraction of the
//! peer's time (docs/performance.md), and its matrix is a scalar per spring, so a node's row is
//! a few numbers the GPU reads straight. The CPU stops its V-cycles at a tolerance, which needs
//! the residual's norm on the CPU each cycle; the GPU runs a fixed number instead (no
//! read-back), [`GpuSimulation::cycles`], two by default, about what the CPU's tolerance takes
//! a step (docs/gpu.md).
//!
//! With `implicit-mg` the right-hand side's node terms are followed by its assembly and its
//! solve ([`super::ImplicitPass`]: the true Jacobian's blocks, flexible CG with coloured block
//! sweeps around the hierarchy's two-grid correction), which stops at the CPU's tolerance on
//! the device, within `4 × multigrid.max_cycles` recorded iterations.
//!
//! Then strain limiting, where the scene has it ([`super::StrainPass`]: tethers, Provot's sweeps
//! by colours of springs).
//!
//! Then the colliders, where the scene has some ([`super::CollidePass`]).
//!
//! A held set that changes (a grab, its release) or new parameters make the kernels anew
//! ([`GpuStepper::step_n`], after a read-back). A shaped flag's cut nodes are held nodes like
//! the pins, held where they are (the CPU places them, [`Simulation::begin_device_step`]); the
//! renderer continues them past the outline itself (`render::CutFillPass`). Not on the GPU: the
//! wavelet segmentation ([`GpuStepper::new`] refuses it).
//!
//! Then, after each published step (where the simulation's guard is on), the guard
//! ([`super::GuardPass::record_commit`]): the first step that fails it trips it, and from then
//! on every step puts the last good state back, so the node buffer the renderer reads never
//! holds a blow-up; the next read-back or snapshot carries the trip to the CPU, which pauses
//! the simulation at the step that failed ([`Simulation::accept_device_divergence`]). Each
//! read-back also goes through the CPU's guard ([`Simulation::accept_device_state`]).

use std::sync::{Arc, Mutex};

use glam::DVec3;
use wgpu::util::DeviceExt;

use super::guard::{GuardTrip, REPORT_SIZE};
use super::kernel::{Access, Program, dispatch};
use super::{
    AirPass, ClothBuffers, CollidePass, ForcePass, GpuMultigrid, GpuSimError, GuardPass,
    ImplicitPass, ImplicitSettings, MAX_GPU_COLLIDERS, RhsPass, StepEndPass, StrainPass,
    read_vec3s, validated,
};
use crate::sim::format::params::{IntegratorKind, Params};
use crate::sim::runtime::device::ReadBacks;
use crate::sim::solvers::integrators::implicit_mg::{
    ITERATIONS_PER_CYCLE, free_mass_norm, tolerance_scale,
};
use crate::sim::solvers::multigrid::{COARSEST_NODES, Multigrid};
use crate::sim::{DeviceStep, Simulation};

/// The held-node kernel's WGSL.
pub(crate) const SIM_HELD_WGSL: &str = include_str!("../../shaders/sim_held.wgsl");

/// V-cycles a step by default ([`GpuSimulation::cycles`]).
pub(crate) const DEFAULT_CYCLES: u32 = 2;

/// WGSL `struct HeldParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct HeldParams {
    count: u32,
    pad: [u32; 3],
}

/// Why a simulation cannot run on the GPU, in words for the user (`None`: it can).
pub(crate) fn unsupported(sim: &Simulation) -> Option<String> {
    let p = sim.params();
    let cloth = &sim.cloth;
    if cloth.grid().is_none() {
        return Some("the GPU step takes grid cloths only".into());
    }
    if cloth.node_count() <= COARSEST_NODES {
        return Some(format!(
            "a cloth of {} nodes is solved directly on the CPU; the GPU takes more than {COARSEST_NODES}",
            cloth.node_count()
        ));
    }
    if p.colliders.len() > MAX_GPU_COLLIDERS {
        return Some(format!(
            "{} colliders: the GPU step takes at most {MAX_GPU_COLLIDERS}",
            p.colliders.len()
        ));
    }
    if p.wavelet.enabled {
        return Some("the wavelet segmentation is not on the GPU".into());
    }
    None
}

/// A simulation whose free nodes are stepped on the GPU by `kang-mg` or `implicit-mg`: a
/// [`Simulation`] (the CPU's share) with its [`GpuStepper`].
#[derive(Debug)]
pub(crate) struct GpuSimulation {
    /// The CPU's share, and the state as of the last read-back.
    pub sim: Simulation,
    /// V-cycles a step (at least one).
    pub cycles: u32,
    stepper: GpuStepper,
}

impl GpuSimulation {
    /// Uploads `sim`'s cloth and builds the step's kernels. An integrator the GPU does not step
    /// becomes `kang-mg` (the parameters otherwise as they are); a scene the GPU step cannot
    /// take yet is refused with the reason.
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mut sim: Simulation,
    ) -> Result<Self, GpuSimError> {
        let stepper = GpuStepper::new(device, queue, &mut sim)?;
        Ok(Self {
            sim,
            cycles: DEFAULT_CYCLES,
            stepper,
        })
    }

    /// Nodes of the cloth.
    #[cfg(test)]
    pub(crate) fn nodes(&self) -> u32 {
        self.stepper.nodes()
    }

    /// The node positions on the device (`vec4<f32>` a node), for a renderer to read.
    #[cfg(test)]
    pub(crate) fn positions(&self) -> &wgpu::Buffer {
        self.stepper.positions()
    }

    /// Records and submits `steps` steps of `params.substeps` physics steps each (nothing is
    /// read back, unless the held set or the parameters changed: [`GpuStepper::step_n`]).
    pub(crate) fn step_n(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        steps: u32,
    ) -> Result<(), GpuSimError> {
        self.stepper.cycles = self.cycles;
        self.stepper.step_n(device, queue, &mut self.sim, steps)
    }

    /// Reads the device's positions and velocities into [`Self::sim`]'s cloth (waiting for
    /// the submitted steps).
    pub(crate) fn read_back(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<(), GpuSimError> {
        self.stepper.read_back(device, queue, &mut self.sim)
    }

    /// The read-backs so far.
    #[cfg(test)]
    pub(crate) fn read_backs(&self) -> ReadBacks {
        self.stepper.read_backs()
    }

    /// Each stage's GPU time over `steps` more steps, s a step ([`GpuStepper::profile`]).
    pub(crate) fn profile(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        steps: u32,
    ) -> Result<Option<Vec<(Stage, f64)>>, GpuSimError> {
        self.stepper.cycles = self.cycles;
        self.stepper.profile(device, queue, &mut self.sim, steps)
    }
}

/// The step on the device (`kang-mg` or `implicit-mg`) for a [`Simulation`] the caller keeps:
/// the kernels and the buffers of one cloth, built for one held set and one set of parameters.
///
/// [`Self::step_n`] notices when the simulation's held set (a grab, its release) or its
/// parameters (or its masses) differ from those it was built for: it then reads the device's
/// state back and builds itself again from the simulation (a waited read-back, counted in
/// [`Self::read_backs`]; where it may not wait, from the state [`Self::settle`] brought). A
/// caller that replaces the simulation's state on the CPU (a reset, a new scene) drops the
/// stepper instead and makes a new one from the new state.
#[derive(Debug)]
pub(crate) struct GpuStepper {
    /// V-cycles a step (at least one).
    pub cycles: u32,
    /// Whether a read-back may wait for the device (not in a page's frame: there the state
    /// comes by [`Self::settle`]).
    pub waits: bool,
    /// What the kernels were built for.
    built: Built,
    kernels: Kernels,
    /// The asynchronous snapshot in flight, if any, and its staging buffer (kept between them).
    snapshot: Option<Arrival>,
    staging: Option<wgpu::Buffer>,
    reads: ReadBacks,
    /// The published step whose state the simulation's cloth last took from the device, and
    /// the one the snapshot in flight was taken after.
    read_step: u64,
    snapshot_step: u64,
    /// The published step and the time (s) the kernels were built at: where a trip of the
    /// guard counts its steps from.
    built_at: (u64, f64),
    /// Whether the CPU has taken a trip of the guard (the device keeps the last good state
    /// until the kernels are built again).
    tripped: bool,
}

/// Where a snapshot's mapping reports that it arrived (filled by wgpu's callback).
type Arrival = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// What a [`GpuStepper`]'s kernels were built for.
#[derive(Debug, Clone, PartialEq)]
struct Built {
    params: Params,
    /// The held nodes, in index order (the hierarchy's held set).
    held_index: Vec<u32>,
    /// The node masses, kg (a new total mass changes them).
    mass: Vec<f64>,
}

impl GpuStepper {
    /// Uploads `sim`'s cloth and builds the step's kernels. An integrator the GPU does not step
    /// becomes `kang-mg` (the parameters otherwise as they are); a scene the GPU step cannot
    /// take yet is refused with the reason, `sim` unchanged.
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &mut Simulation,
    ) -> Result<Self, GpuSimError> {
        if let Some(reason) = unsupported(sim) {
            return Err(GpuSimError::Unsupported(reason));
        }
        if !sim.params().integrator.steps_on_gpu() {
            let mut params = sim.params().clone();
            params.integrator = IntegratorKind::KangMg;
            sim.set_params(params)
                .map_err(|e| GpuSimError::Unsupported(e.to_string()))?;
        }
        let held = sim.held_now();
        let kernels = Kernels::new(device, queue, sim, &held)?;
        let held_index: Vec<u32> = (0..held.len() as u32)
            .filter(|&i| held[i as usize])
            .collect();
        Ok(Self {
            cycles: DEFAULT_CYCLES,
            waits: true,
            built: Built {
                params: sim.params().clone(),
                held_index,
                mass: sim.cloth.m.clone(),
            },
            kernels,
            snapshot: None,
            staging: None,
            reads: ReadBacks::default(),
            read_step: sim.step_index,
            snapshot_step: sim.step_index,
            built_at: (sim.step_index, sim.time),
            tripped: false,
        })
    }

    /// Nodes of the cloth.
    pub(crate) fn nodes(&self) -> u32 {
        self.kernels.buffers.nodes()
    }

    /// The node positions on the device (`vec4<f32>` a node: `xyz` in m, `w` 0),
    /// for a renderer to read.
    pub(crate) fn positions(&self) -> &wgpu::Buffer {
        &self.kernels.buffers.x
    }

    /// The read-backs so far.
    pub(crate) fn read_backs(&self) -> ReadBacks {
        self.reads
    }

    /// Whether the kernels still fit `sim` (same nodes, held set, parameters and masses).
    fn fits(&self, sim: &Simulation) -> bool {
        let held = sim.held_now();
        let b = &self.built;
        sim.cloth.node_count() == self.nodes() as usize
            && held.iter().filter(|&&h| h).count() == b.held_index.len()
            && b.held_index.iter().all(|&i| held[i as usize])
            && sim.params() == &b.params
            && sim.cloth.m == b.mass
    }

    /// Records and submits `steps` steps of `params.substeps` physics steps each for `sim`
    /// (nothing is read back). Where `sim` does not fit the kernels (a grab began or ended,
    /// the parameters or the masses changed), the device's state is read back into `sim` and
    /// the kernels are built again first.
    pub(crate) fn step_n(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &mut Simulation,
        steps: u32,
    ) -> Result<(), GpuSimError> {
        if sim.paused {
            // As the CPU's step: a paused (diverged) simulation does not step.
            return Ok(());
        }
        if self.tripped || !self.fits(sim) {
            self.rebuild(device, queue, sim)?;
        }
        let substeps = sim.params().substeps;
        for k in 0..steps * substeps {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu_sim step"),
            });
            let input = sim.begin_device_step();
            check_held(&self.built.held_index, &input)?;
            self.kernels.upload(queue, &self.built.held_index, &input);
            let published = (k + 1) % substeps == 0;
            self.kernels.record(
                &mut encoder,
                &self.built.held_index,
                self.cycles,
                published,
                |_, _| {},
            );
            queue.submit([encoder.finish()]);
            sim.end_device_step();
        }
        sim.step_index += u64::from(steps);
        Ok(())
    }

    /// The GPU time of each stage of the next `steps` steps of `sim`, s a step (their mean),
    /// from timestamp queries written between the stages: `None` where the device was opened
    /// without timestamps (`wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS`). The steps are
    /// taken (`sim` moves on as with [`Self::step_n`]).
    pub(crate) fn profile(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &mut Simulation,
        steps: u32,
    ) -> Result<Option<Vec<(Stage, f64)>>, GpuSimError> {
        let needed =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        if !device.features().contains(needed) || steps == 0 {
            return Ok(None);
        }
        if self.tripped || !self.fits(sim) {
            self.rebuild(device, queue, sim)?;
        }
        let marks = Stage::ALL.len() as u32 + 1;
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpu_sim stages"),
            ty: wgpu::QueryType::Timestamp,
            count: marks,
        });
        let bytes = u64::from(marks) * 8;
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu_sim stages resolved"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut sums = vec![0.0; Stage::ALL.len()];
        let period = f64::from(queue.get_timestamp_period()) * 1e-9;
        let substeps = sim.params().substeps;
        for k in 0..steps * substeps {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu_sim profiled step"),
            });
            let input = sim.begin_device_step();
            check_held(&self.built.held_index, &input)?;
            self.kernels.upload(queue, &self.built.held_index, &input);
            encoder.write_timestamp(&queries, 0);
            self.kernels.record(
                &mut encoder,
                &self.built.held_index,
                self.cycles,
                (k + 1) % substeps == 0,
                |encoder, stage| {
                    let at = Stage::ALL.iter().position(|&s| s == stage).unwrap_or(0);
                    encoder.write_timestamp(&queries, at as u32 + 1);
                },
            );
            encoder.resolve_query_set(&queries, 0..marks, &resolved, 0);
            queue.submit([encoder.finish()]);
            sim.end_device_step();
            let ticks = super::buffers::read_u32s(device, queue, &resolved, 2 * u64::from(marks))?;
            let stamp = |k: usize| u64::from(ticks[2 * k]) | (u64::from(ticks[2 * k + 1]) << 32);
            for (k, sum) in sums.iter_mut().enumerate() {
                *sum += stamp(k + 1).wrapping_sub(stamp(k)) as f64 * period;
            }
        }
        sim.step_index += u64::from(steps);
        let per_step = f64::from(steps);
        Ok(Some(
            Stage::ALL
                .into_iter()
                .zip(sums)
                .map(|(stage, sum)| (stage, sum / per_step))
                .collect(),
        ))
    }

    /// Reads the device's state into `sim` (when it has this cloth's nodes, and unless the
    /// guard tripped: `sim` took the last good state then) and builds the kernels again for
    /// `sim` as it is now. A stepper that may not wait builds them from `sim`'s state as it
    /// is (the one [`Self::settle`] brought: a page settles its cloths before a command that
    /// changes them).
    fn rebuild(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &mut Simulation,
    ) -> Result<(), GpuSimError> {
        if self.waits && !self.tripped && sim.cloth.node_count() == self.nodes() as usize {
            self.read_back(device, queue, sim)?;
        }
        let (cycles, waits, reads) = (self.cycles, self.waits, self.reads);
        *self = Self::new(device, queue, sim)?;
        (self.cycles, self.waits, self.reads) = (cycles, waits, reads);
        Ok(())
    }

    /// Whether `sim` holds the device's state after every step submitted to it (or the last
    /// good one, after a trip of the guard, or it is a cloth of another size now); if not,
    /// collects a snapshot that arrived, asks for one after the last step if none is in flight
    /// (never waits), and says whether `sim` holds it now.
    pub(crate) fn settle(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &mut Simulation,
    ) -> Result<bool, GpuSimError> {
        let settled = |s: &Self, sim: &Simulation| {
            s.tripped
                || s.read_step == sim.step_index
                || sim.cloth.node_count() != s.nodes() as usize
        };
        if settled(self, sim) {
            return Ok(true);
        }
        self.take_snapshot(device, sim)?;
        if settled(self, sim) {
            return Ok(true);
        }
        self.request_snapshot(device, queue, sim);
        Ok(false)
    }

    /// Reads the device's positions and velocities into `sim`'s cloth (waiting for the
    /// submitted steps), through the guards: where the GPU's tripped, `sim` takes the last
    /// good state and pauses at the step that failed ([`Self::take_trip`]); otherwise through
    /// the CPU's ([`Simulation::accept_device_state`]: a diverged state is not taken, `sim`
    /// pauses with the divergence). Nothing is taken after a trip `sim` already took.
    pub(crate) fn read_back(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &mut Simulation,
    ) -> Result<(), GpuSimError> {
        let n = self.nodes();
        let x = read_vec3s(device, queue, &self.kernels.buffers.x, n)?;
        let v = read_vec3s(device, queue, &self.kernels.buffers.v, n)?;
        let trip = match &self.kernels.guard {
            Some(guard) => {
                self.reads.bytes += REPORT_SIZE;
                guard.read_trip(device, queue)?
            }
            None => None,
        };
        self.reads.waited += 1;
        self.reads.bytes += 2 * u64::from(n) * 16;
        if trip.is_some() || self.tripped {
            self.take_trip(sim, trip, x, v);
        } else {
            let steps = sim.step_index - self.read_step;
            self.read_step = sim.step_index;
            sim.accept_device_state(x, v, steps);
        }
        Ok(())
    }

    /// Where the GPU's guard tripped (`trip`) and `sim` has not taken it yet: `sim` takes the
    /// last good state the device kept (`x`, `v`, every node) and pauses at the step that failed
    /// ([`Simulation::accept_device_divergence`]). Once taken, the device's state (the same
    /// last good one) is not taken again.
    fn take_trip(
        &mut self,
        sim: &mut Simulation,
        trip: Option<GuardTrip>,
        x: Vec<DVec3>,
        v: Vec<DVec3>,
    ) {
        if let Some(trip) = trip
            && !self.tripped
        {
            self.tripped = true;
            let (step, time) = self.built_at;
            let p = sim.params();
            let substeps = u64::from(trip.after) * u64::from(p.substeps);
            let reason = trip.reason(&sim.cloth, p);
            let good_step = step + u64::from(trip.after);
            let good_time = time + substeps as f64 * p.h();
            self.read_step = good_step;
            sim.accept_device_divergence(x, v, good_step, good_time, reason);
        }
    }

    /// Starts an asynchronous copy of the positions and velocities after the steps submitted
    /// so far for `sim`, unless one is in flight (then false). [`Self::take_snapshot`] collects it.
    pub(crate) fn request_snapshot(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &Simulation,
    ) -> bool {
        if self.snapshot.is_some() {
            return false;
        }
        self.snapshot_step = sim.step_index;
        let bytes = u64::from(self.nodes()) * 16;
        let staging = self.staging.get_or_insert_with(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu_sim snapshot"),
                size: 2 * bytes + REPORT_SIZE,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpu_sim snapshot"),
        });
        encoder.copy_buffer_to_buffer(&self.kernels.buffers.x, 0, staging, 0, bytes);
        encoder.copy_buffer_to_buffer(&self.kernels.buffers.v, 0, staging, bytes, bytes);
        if let Some(guard) = &self.kernels.guard {
            encoder.copy_buffer_to_buffer(guard.report(), 0, staging, 2 * bytes, REPORT_SIZE);
        }
        queue.submit([encoder.finish()]);
        let arrived = Arc::new(Mutex::new(None));
        let slot = arrived.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            if let Ok(mut s) = slot.lock() {
                *s = Some(result);
            }
        });
        self.snapshot = Some(arrived);
        true
    }

    /// Whether a snapshot is in flight.
    #[cfg(test)]
    pub(crate) fn snapshot_pending(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Collects the snapshot [`Self::request_snapshot`] started, if it has arrived (polls the
    /// device once, never waits): the free nodes' positions and velocities go into `sim`'s
    /// cloth (the held ones are the CPU's own, newer) through the guard
    /// ([`Simulation::accept_device_state`]: a diverged state is not taken, `sim` pauses).
    /// Returns whether one arrived.
    pub(crate) fn take_snapshot(
        &mut self,
        device: &wgpu::Device,
        sim: &mut Simulation,
    ) -> Result<bool, GpuSimError> {
        let Some(arrived) = &self.snapshot else {
            return Ok(false);
        };
        device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| GpuSimError::ReadBack(e.to_string()))?;
        let result = match arrived.lock() {
            Ok(mut s) => s.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        let Some(result) = result else {
            return Ok(false);
        };
        self.snapshot = None;
        result.map_err(|e| GpuSimError::ReadBack(e.to_string()))?;
        let Some(staging) = self.staging.clone() else {
            return Ok(false);
        };
        let n = self.nodes() as usize;
        {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| GpuSimError::ReadBack(e.to_string()))?;
            let state = 2 * n * 16;
            let values: &[[f32; 4]] = bytemuck::cast_slice(&view[..state]);
            let vec = |v: [f32; 4]| DVec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
            let trip = match &self.kernels.guard {
                Some(_) => GuardTrip::from_words(bytemuck::cast_slice(&view[state..])),
                None => None,
            };
            let held = sim.held_now();
            if sim.cloth.node_count() != n {
                // A cloth of another size (the step is built again before the next).
            } else if trip.is_some() || self.tripped {
                // The last good state, every node: the held ones went back with it.
                let x = (0..n).map(|i| vec(values[i])).collect();
                let v = (0..n).map(|i| vec(values[n + i])).collect();
                self.take_trip(sim, trip, x, v);
            } else {
                let mut x = sim.cloth.x.clone();
                let mut v = sim.cloth.v.clone();
                for i in (0..n).filter(|&i| !held[i]) {
                    x[i] = vec(values[i]);
                    v[i] = vec(values[n + i]);
                }
                let steps = self.snapshot_step - self.read_step;
                self.read_step = self.snapshot_step;
                sim.accept_device_state(x, v, steps);
            }
        }
        staging.unmap();
        self.reads.snapshots += 1;
        self.reads.bytes += 2 * n as u64 * 16;
        if self.kernels.guard.is_some() {
            self.reads.bytes += REPORT_SIZE;
        }
        Ok(true)
    }
}

/// The held set must be the one the hierarchy was built for (a grab or a new pin changes
/// it: not on the GPU yet).
fn check_held(held_index: &[u32], input: &DeviceStep) -> Result<(), GpuSimError> {
    let count = input.kinematic.iter().filter(|&&k| k).count();
    let same = count == held_index.len() && held_index.iter().all(|&i| input.kinematic[i as usize]);
    if same {
        Ok(())
    } else {
        Err(GpuSimError::Unsupported(
            "the held nodes changed (a grab or a new pin): not on the GPU yet".into(),
        ))
    }
}

/// The held-node kernel's `Δv` and target buffers, its bind group and its pipeline.
type HeldKernel = (
    wgpu::Buffer,
    wgpu::Buffer,
    wgpu::BindGroup,
    wgpu::ComputePipeline,
);

/// The step's passes and buffers on the device.
#[derive(Debug)]
struct Kernels {
    buffers: ClothBuffers,
    forces: ForcePass,
    air: AirPass,
    rhs: RhsPass,
    solve: GpuMultigrid,
    /// `implicit-mg`'s assembly and solve, where the integrator is `implicit-mg` (else the
    /// V-cycles solve `kang-mg`'s system).
    implicit: Option<ImplicitPass>,
    /// `implicit-mg`'s iterations a step at most.
    iterations: u32,
    end: StepEndPass,
    /// Strain limiting, where the scene has it.
    strain: Option<StrainPass>,
    /// The colliders, where the scene has some.
    collide: Option<CollidePass>,
    /// The guard inside the step, where the simulation's guard is on.
    guard: Option<GuardPass>,
    has_air: bool,
    held_dv: wgpu::Buffer,
    held_target: wgpu::Buffer,
    held_group: wgpu::BindGroup,
    scatter: wgpu::ComputePipeline,
}

impl Kernels {
    /// The step's passes for `sim`'s cloth and parameters with the nodes `held` held, the
    /// cloth's state uploaded.
    fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sim: &Simulation,
        held: &[bool],
    ) -> Result<Self, GpuSimError> {
        let cloth = &sim.cloth;
        let n = cloth.node_count();
        let buffers = ClothBuffers::new(device, cloth)?;
        let forces = ForcePass::new(device, &buffers)?;
        let air = AirPass::new(device, &buffers)?;
        let rhs = RhsPass::new(device, &buffers, &forces, &air)?;
        let end = StepEndPass::new(device, &buffers)?;
        let p = sim.params();
        let h = p.h();
        let mut mg = Multigrid::default();
        mg.prepare(cloth, held, h);
        let solve = GpuMultigrid::new(device, &mg, air.coefficients())?;
        let has_air = p.wind.drag != 0.0 || p.wind.lift != 0.0 || p.wind.linear != 0.0;
        let implicit = if p.integrator == IntegratorKind::ImplicitMg {
            let grid = cloth.grid().expect("the GPU steps grid cloths only");
            let pass = ImplicitPass::new(
                device,
                &buffers,
                (grid.nx, grid.ny),
                mg.level_matrix(0).reach,
                &rhs,
                &air,
                &solve,
            )?;
            pass.set_params(
                queue,
                &ImplicitSettings {
                    h,
                    damping: p.damping,
                    has_air,
                    weight: h
                        * DVec3::from_array(p.gravity).length()
                        * free_mass_norm(&cloth.m, held),
                    tolerance: p.multigrid.tolerance * tolerance_scale(n),
                },
            );
            Some(pass)
        } else {
            None
        };
        let strain = if p.provot.enabled {
            Some(StrainPass::new(
                device, &buffers, cloth, held, &p.provot, h,
            )?)
        } else {
            None
        };
        let collide = if p.colliders.is_empty() {
            None
        } else {
            Some(CollidePass::new(
                device,
                queue,
                &buffers,
                end.target(),
                &p.colliders,
            )?)
        };
        let guard = if sim.guard {
            let guard = GuardPass::new(device, &buffers, cloth)?;
            guard.set_params(queue, p, held);
            Some(guard)
        } else {
            None
        };
        let held_index: Vec<u32> = (0..n as u32).filter(|&i| held[i as usize]).collect();
        buffers.write_state(queue, cloth);
        if let Some(guard) = &guard {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu_sim the first good state"),
            });
            guard.record_keep(&mut encoder);
            queue.submit([encoder.finish()]);
        }
        // Eq. 4's viscosity is in the forces of the integrators that filter with it (`kang-mg`),
        // not in `implicit-mg`'s (its spring damping is in the matrix).
        let viscosity = p.viscosity && p.integrator.uses_filter_system();
        forces.set_params(queue, p.damping, viscosity.then_some(h));
        rhs.set_params(queue, h, DVec3::from_array(p.gravity), has_air);
        rhs.set_nodes(queue, &cloth.m, held, &vec![DVec3::ZERO; n]);
        end.set_params(queue, h);
        end.set_targets(queue, held, &cloth.x);
        solve.set_air(queue, h, has_air);
        let (held_dv, held_target, held_group, scatter) =
            Self::held_kernel(device, &held_index, rhs.node(), end.target())?;
        Ok(Self {
            buffers,
            forces,
            air,
            rhs,
            solve,
            implicit,
            iterations: ITERATIONS_PER_CYCLE * p.multigrid.max_cycles,
            end,
            strain,
            collide,
            guard,
            has_air,
            held_dv,
            held_target,
            held_group,
            scatter,
        })
    }

    /// The kernel that writes the held nodes' `Δv` into the right-hand side's node buffer
    /// `node` and their targets into the step's end `target`, with its two upload buffers.
    fn held_kernel(
        device: &wgpu::Device,
        held_index: &[u32],
        node: &wgpu::Buffer,
        target: &wgpu::Buffer,
    ) -> Result<HeldKernel, GpuSimError> {
        validated(device, "the held-node kernel", || {
            use Access::{Read, Uniform, Write};
            let program = Program::new(device, "sim_held.wgsl", SIM_HELD_WGSL);
            let layout = program.layout(
                "gpu_sim held",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Read),
                    (3, Read),
                    (4, Write),
                    (5, Write),
                ],
            );
            let count = held_index.len().max(1) as u64;
            let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim held params"),
                contents: bytemuck::bytes_of(&HeldParams {
                    count: held_index.len() as u32,
                    pad: [0; 3],
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let index = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim held nodes"),
                contents: bytemuck::cast_slice(if held_index.is_empty() {
                    &[0]
                } else {
                    held_index
                }),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let input = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let dv = program.buffer("gpu_sim held dv", count * 16, input);
            let targets = program.buffer("gpu_sim held targets", count * 16, input);
            let group = program.bind_group(
                "gpu_sim held",
                &layout,
                &[
                    (0, &params),
                    (1, &index),
                    (2, &dv),
                    (3, &targets),
                    (4, node),
                    (5, target),
                ],
            );
            let kernel = program.kernel("scatter_held", &layout);
            (dv, targets, group, kernel)
        })
    }

    /// The step's small uploads: the air's time and wind, the held nodes' `Δv` and targets.
    fn upload(&self, queue: &wgpu::Queue, held_index: &[u32], input: &DeviceStep) {
        self.air
            .set_params(queue, input.params, input.t, input.base_wind);
        if held_index.is_empty() {
            return;
        }
        let rows = |values: &[DVec3]| -> Vec<[f32; 4]> {
            held_index
                .iter()
                .map(|&i| {
                    let v = values[i as usize];
                    [v.x as f32, v.y as f32, v.z as f32, 0.0]
                })
                .collect()
        };
        queue.write_buffer(
            &self.held_dv,
            0,
            bytemuck::cast_slice(&rows(input.known_dv)),
        );
        queue.write_buffer(
            &self.held_target,
            0,
            bytemuck::cast_slice(&rows(input.target_x)),
        );
    }

    /// Records one step's kernels (see the module's comment); the guard's too where
    /// `published` (the last physics step of a published one).
    fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        held_index: &[u32],
        cycles: u32,
        published: bool,
        mut mark: impl FnMut(&mut wgpu::CommandEncoder, Stage),
    ) {
        if !held_index.is_empty() {
            dispatch(
                encoder,
                "gpu_sim held",
                &[(&self.held_group, &self.scatter, held_index.len() as u32)],
            );
        }
        mark(encoder, Stage::Held);
        self.forces.record(encoder);
        mark(encoder, Stage::Forces);
        if self.has_air {
            self.air.record(encoder);
        }
        mark(encoder, Stage::Air);
        let size = u64::from(self.buffers.nodes()) * 16;
        if let Some(implicit) = &self.implicit {
            self.rhs.record_node_terms(encoder);
            implicit.record_assembly(encoder);
            mark(encoder, Stage::Rhs);
            implicit.record_solve(encoder, &self.solve, self.iterations);
            encoder.copy_buffer_to_buffer(implicit.dv(), 0, self.end.dv(), 0, size);
        } else {
            self.rhs.record(encoder);
            let level = self.solve.level(0);
            encoder.copy_buffer_to_buffer(self.rhs.rhs(), 0, &level.b, 0, size);
            mark(encoder, Stage::Rhs);
            self.solve.record_air_diagonal(encoder);
            for _ in 0..cycles.max(1) {
                self.solve.record_cycle(encoder);
            }
            encoder.copy_buffer_to_buffer(&level.x, 0, self.end.dv(), 0, size);
        }
        mark(encoder, Stage::Solve);
        if let Some(strain) = &self.strain {
            strain.record_keep_start(encoder);
        }
        self.end.record(encoder);
        mark(encoder, Stage::End);
        if let Some(strain) = &self.strain {
            strain.record(encoder);
        }
        mark(encoder, Stage::Strain);
        if let Some(collide) = &self.collide {
            collide.record(encoder);
        }
        mark(encoder, Stage::Colliders);
        if let Some(guard) = self.guard.as_ref().filter(|_| published) {
            guard.record_commit(encoder);
        }
        mark(encoder, Stage::Guard);
    }
}

/// The stages of a GPU step, in order, as [`GpuStepper::profile`] times them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Stage {
    /// The held nodes' values scattered (`sim_held.wgsl`).
    Held,
    /// The spring forces and their derivatives' scalars (`sim_forces.wgsl`).
    Forces,
    /// The normals and the air (`sim_air.wgsl`).
    Air,
    /// The right-hand side (`sim_rhs.wgsl`; with `implicit-mg` its assembly too,
    /// `sim_implicit.wgsl`).
    Rhs,
    /// Level 0's air diagonal and the V-cycles (`sim_solve.wgsl`, `sim_transfer.wgsl`), or
    /// `implicit-mg`'s iterations (`sim_implicit.wgsl` around the two-grid correction).
    Solve,
    /// The step's end (`sim_step_end.wgsl`).
    End,
    /// Tethers and Provot's sweeps (`sim_strain.wgsl`).
    Strain,
    /// The colliders (`sim_collide.wgsl`).
    Colliders,
    /// The guard's checks and the last good state kept or put back (`sim_guard.wgsl`).
    Guard,
}

impl Stage {
    /// Every stage, in the step's order.
    pub(crate) const ALL: [Self; 9] = [
        Self::Held,
        Self::Forces,
        Self::Air,
        Self::Rhs,
        Self::Solve,
        Self::End,
        Self::Strain,
        Self::Colliders,
        Self::Guard,
    ];

    /// Its name in tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::Forces => "forces",
            Self::Air => "air",
            Self::Rhs => "rhs",
            Self::Solve => "solve",
            Self::End => "end",
            Self::Strain => "strain",
            Self::Colliders => "colliders",
            Self::Guard => "guard",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::format::params::spec;

    /// The panel's *V-cycles* help tells a user what the GPU does with it: the count it runs.
    #[test]
    fn the_v_cycles_help_names_the_gpus_fixed_count() {
        let says = format!("On the GPU kang-mg runs a fixed {DEFAULT_CYCLES} a step");
        assert!(
            spec::MG_MAX_CYCLES.help.contains(&says),
            "{}",
            spec::MG_MAX_CYCLES.help
        );
    }
}
