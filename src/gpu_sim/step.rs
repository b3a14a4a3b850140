//! `kang-mg`'s whole physics step on the GPU: the twin of the CPU's
//! [`crate::sim::Simulation::step`] with `kang-mg` (docs/method.md §2), every node's
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
//! Why `kang-mg`: it is the step that met the shape issue's bar (0.00 cm from the accurate
//! solve on the peer's scenes, at 75–105 × the peer's speed), and its matrix is a scalar per
//! spring, so a node's row is a few numbers the GPU reads straight. The CPU stops its V-cycles at
//! a tolerance, which needs the residual's norm on the CPU each cycle; the GPU runs a fixed
//! number instead (no read-back), [`GpuSimulation::cycles`], two by default (the CPU needs
//! 1.2 a step on the default flag, and at most three on the peer's sheets).
//!
//! Then strain limiting, where the scene has it ([`super::StrainPass`]: tethers, Provot's sweeps
//! by colours of springs).
//!
//! Not on the GPU yet: colliders, a held set that changes (a grab), shaped flags, and the guard
//! inside the step; [`GpuSimulation::new`] refuses a scene that needs them.

use glam::DVec3;
use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch};
use super::{
    AirPass, ClothBuffers, ForcePass, GpuMultigrid, GpuSimError, RhsPass, StepEndPass, StrainPass,
    read_vec3s, validated,
};
use crate::sim::multigrid::{COARSEST_NODES, Multigrid};
use crate::sim::params::IntegratorKind;
use crate::sim::{DeviceStep, Simulation};

/// The held-node kernel's WGSL.
pub const SIM_HELD_WGSL: &str = include_str!("../../shaders/sim_held.wgsl");

/// V-cycles a step by default ([`GpuSimulation::cycles`]).
pub const DEFAULT_CYCLES: u32 = 2;

/// WGSL `struct HeldParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct HeldParams {
    count: u32,
    pad: [u32; 3],
}

/// Why a simulation cannot run on the GPU, in words for the user.
fn unsupported(sim: &Simulation) -> Option<String> {
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
    if cloth.topology.mesh.cut.iter().any(|&c| c) {
        return Some("a shaped flag (cut nodes) is not on the GPU yet".into());
    }
    if !p.colliders.is_empty() {
        return Some("colliders are not on the GPU yet: remove \"colliders\"".into());
    }
    if p.wavelet.enabled {
        return Some("the wavelet segmentation is not on the GPU".into());
    }
    None
}

/// A simulation whose free nodes are stepped on the GPU by `kang-mg`.
#[derive(Debug)]
pub struct GpuSimulation {
    /// The CPU's share, and the state as of the last read-back.
    pub sim: Simulation,
    /// V-cycles a step (at least one).
    pub cycles: u32,
    /// The held nodes, in index order (the hierarchy's held set).
    held_index: Vec<u32>,
    kernels: Kernels,
}

/// The step's passes and buffers on the device.
#[derive(Debug)]
struct Kernels {
    buffers: ClothBuffers,
    forces: ForcePass,
    air: AirPass,
    rhs: RhsPass,
    solve: GpuMultigrid,
    end: StepEndPass,
    /// Strain limiting, where the scene has it.
    strain: Option<StrainPass>,
    has_air: bool,
    held_dv: wgpu::Buffer,
    held_target: wgpu::Buffer,
    held_group: wgpu::BindGroup,
    scatter: wgpu::ComputePipeline,
}

impl GpuSimulation {
    /// Uploads `sim`'s cloth and builds the step's kernels. `sim`'s integrator becomes
    /// `kang-mg` (its parameters otherwise as they are); a scene the GPU step cannot take yet
    /// is refused with the reason.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mut sim: Simulation,
    ) -> Result<Self, GpuSimError> {
        if let Some(reason) = unsupported(&sim) {
            return Err(GpuSimError::Unsupported(reason));
        }
        if sim.params().integrator != IntegratorKind::KangMg {
            let mut params = sim.params().clone();
            params.integrator = IntegratorKind::KangMg;
            sim.set_params(params)
                .map_err(|e| GpuSimError::Unsupported(e.to_string()))?;
        }
        let cloth = &sim.cloth;
        let n = cloth.node_count();
        let buffers = ClothBuffers::new(device, cloth)?;
        let forces = ForcePass::new(device, &buffers)?;
        let air = AirPass::new(device, &buffers)?;
        let rhs = RhsPass::new(device, &buffers, &forces, &air)?;
        let end = StepEndPass::new(device, &buffers)?;
        // The hierarchy of the held set the first step will have (pins, the pole).
        let held = sim.cloth.pinned.clone();
        let h = sim.params().h();
        let mut mg = Multigrid::default();
        mg.prepare(cloth, &held, h);
        let solve = GpuMultigrid::new(device, &mg, air.coefficients())?;
        let strain = if sim.params().provot.enabled {
            Some(StrainPass::new(
                device,
                &buffers,
                cloth,
                &held,
                &sim.params().provot,
                h,
            )?)
        } else {
            None
        };
        let held_index: Vec<u32> = (0..n as u32).filter(|&i| held[i as usize]).collect();
        let p = sim.params();
        let has_air = p.wind.drag != 0.0 || p.wind.lift != 0.0 || p.wind.linear != 0.0;
        buffers.write_state(queue, cloth);
        forces.set_params(queue, p.damping, p.viscosity.then_some(h));
        rhs.set_params(queue, h, DVec3::from_array(p.gravity), has_air);
        rhs.set_nodes(queue, &cloth.m, &held, &vec![DVec3::ZERO; n]);
        end.set_params(queue, h);
        end.set_targets(queue, &held, &cloth.x);
        solve.set_air(queue, h, has_air);
        let (held_dv, held_target, held_group, scatter) =
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
                        &held_index
                    }),
                    usage: wgpu::BufferUsages::STORAGE,
                });
                let input = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
                let dv = program.buffer("gpu_sim held dv", count * 16, input);
                let target = program.buffer("gpu_sim held targets", count * 16, input);
                let group = program.bind_group(
                    "gpu_sim held",
                    &layout,
                    &[
                        (0, &params),
                        (1, &index),
                        (2, &dv),
                        (3, &target),
                        (4, rhs.node()),
                        (5, end.target()),
                    ],
                );
                let kernel = program.kernel("scatter_held", &layout);
                (dv, target, group, kernel)
            })?;
        Ok(Self {
            sim,
            cycles: DEFAULT_CYCLES,
            held_index,
            kernels: Kernels {
                buffers,
                forces,
                air,
                rhs,
                solve,
                end,
                strain,
                has_air,
                held_dv,
                held_target,
                held_group,
                scatter,
            },
        })
    }

    /// Nodes of the cloth.
    pub fn nodes(&self) -> u32 {
        self.kernels.buffers.nodes()
    }

    /// The node positions on the device (`vec4<f32>` a node), for a renderer to read.
    pub fn positions(&self) -> &wgpu::Buffer {
        &self.kernels.buffers.x
    }

    /// Records and submits `steps` steps of `params.substeps` physics steps each (nothing is
    /// read back).
    pub fn step_n(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        steps: u32,
    ) -> Result<(), GpuSimError> {
        for _ in 0..steps * self.sim.params().substeps {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu_sim step"),
            });
            let input = self.sim.begin_device_step();
            check_held(&self.held_index, &input)?;
            self.kernels.upload(queue, &self.held_index, &input);
            self.kernels
                .record(&mut encoder, &self.held_index, self.cycles);
            queue.submit([encoder.finish()]);
            self.sim.end_device_step();
        }
        self.sim.step_index += u64::from(steps);
        Ok(())
    }

    /// Reads the device's positions and velocities into [`Self::sim`]'s cloth (waiting for
    /// the submitted steps).
    pub fn read_back(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<(), GpuSimError> {
        let n = self.nodes();
        let x = read_vec3s(device, queue, &self.kernels.buffers.x, n)?;
        let v = read_vec3s(device, queue, &self.kernels.buffers.v, n)?;
        self.sim.cloth.x = x;
        self.sim.cloth.v = v;
        Ok(())
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

impl Kernels {
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

    /// Records one step's kernels (see the module's comment).
    fn record(&self, encoder: &mut wgpu::CommandEncoder, held_index: &[u32], cycles: u32) {
        if !held_index.is_empty() {
            dispatch(
                encoder,
                "gpu_sim held",
                &[(&self.held_group, &self.scatter, held_index.len() as u32)],
            );
        }
        self.forces.record(encoder);
        if self.has_air {
            self.air.record(encoder);
        }
        self.rhs.record(encoder);
        let level = self.solve.level(0);
        let size = u64::from(self.buffers.nodes()) * 16;
        encoder.copy_buffer_to_buffer(self.rhs.rhs(), 0, &level.b, 0, size);
        self.solve.record_air_diagonal(encoder);
        for _ in 0..cycles.max(1) {
            self.solve.record_cycle(encoder);
        }
        encoder.copy_buffer_to_buffer(&level.x, 0, self.end.dv(), 0, size);
        if let Some(strain) = &self.strain {
            strain.record_keep_start(encoder);
        }
        self.end.record(encoder);
        if let Some(strain) = &self.strain {
            strain.record(encoder);
        }
    }
}
