//! The guard's checks on the GPU as one small report (`shaders/sim_guard.wgsl`): twins of
//! [`crate::sim::cloth::Cloth::strain_maxima`] and [`crate::sim::guard::check`]'s tests.

use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch};
use super::{ClothBuffers, GpuSimError, validated};
use crate::sim::cloth::Cloth;
use crate::sim::guard::{BLOWUP_STRETCH, speed_limit};
use crate::sim::params::Params;

/// The kernels' WGSL.
pub const SIM_GUARD_WGSL: &str = include_str!("../../shaders/sim_guard.wgsl");

/// WGSL `struct GuardParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct GuardParams {
    nodes: u32,
    springs: u32,
    check_speed: u32,
    pad: u32,
    limit2: f32,
    stretch2: f32,
    pad1: [f32; 2],
}

/// Bytes of WGSL `struct Report`.
const REPORT_SIZE: u64 = 16;

/// What the guard's kernels found after a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuardReport {
    /// The largest `|x_ab| / L` over every spring with `L > 0` (non-finite ones left out).
    pub strain_all: f64,
    /// The same over the springs Provot limits.
    pub strain_limited: f64,
    /// The first node with a non-finite position or velocity, or (with strain limiting on) a
    /// free node faster than [`speed_limit`].
    pub first_bad_node: Option<u32>,
    /// The first spring longer than [`BLOWUP_STRETCH`] times its rest length.
    pub first_stretched_spring: Option<u32>,
}

impl GuardReport {
    /// Whether the step blew up, as [`crate::sim::guard::check`] decides it.
    pub fn blew_up(&self) -> bool {
        self.first_bad_node.is_some() || self.first_stretched_spring.is_some()
    }
}

/// The guard's pass of one cloth.
#[derive(Debug)]
pub struct GuardPass {
    nodes: u32,
    springs: u32,
    params: wgpu::Buffer,
    kinematic: wgpu::Buffer,
    report: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    clear: wgpu::ComputePipeline,
    spring_strains: wgpu::ComputePipeline,
    node_checks: wgpu::ComputePipeline,
}

impl GuardPass {
    /// Compiles the kernels and uploads what the strain test reads of `cloth`'s springs.
    pub fn new(
        device: &wgpu::Device,
        buffers: &ClothBuffers,
        cloth: &Cloth,
    ) -> Result<Self, GpuSimError> {
        let topology = &*cloth.topology;
        let strain_data: Vec<[f32; 2]> = topology
            .inv_rest2
            .iter()
            .zip(&topology.limited)
            .map(|(&inv, &limited)| [inv as f32, limited as f32])
            .chain(std::iter::once([0.0; 2]))
            .collect();
        validated(device, "the guard's kernels", || {
            use Access::{Read, Uniform, Write};
            let program = Program::new(device, "sim_guard.wgsl", SIM_GUARD_WGSL);
            let layout = program.layout(
                "gpu_sim guard",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Read),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                ],
            );
            let params = program.uniform::<GuardParams>("gpu_sim guard params");
            let strain = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim strain data"),
                contents: bytemuck::cast_slice(&strain_data),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let kinematic = program.buffer(
                "gpu_sim kinematic",
                u64::from(buffers.nodes().max(1)) * 4,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let report = program.buffer(
                "gpu_sim guard report",
                REPORT_SIZE,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let bind_group = program.bind_group(
                "gpu_sim guard",
                &layout,
                &[
                    (0, &params),
                    (1, &buffers.x),
                    (2, &buffers.v),
                    (3, &buffers.spring_list),
                    (4, &strain),
                    (5, &kinematic),
                    (6, &report),
                ],
            );
            Self {
                nodes: buffers.nodes(),
                springs: buffers.springs(),
                params,
                kinematic,
                report,
                bind_group,
                clear: program.kernel("clear_report", &layout),
                spring_strains: program.kernel("spring_strains", &layout),
                node_checks: program.kernel("node_checks", &layout),
            }
        })
    }

    /// Sets the speed limit and whether it is tested (strain limiting on), as `params` give
    /// them, and which nodes are held (`kinematic`, one per node).
    pub fn set_params(&self, queue: &wgpu::Queue, params: &Params, kinematic: &[bool]) {
        let limit = speed_limit(params);
        let uniforms = GuardParams {
            nodes: self.nodes,
            springs: self.springs,
            check_speed: u32::from(params.provot.enabled),
            pad: 0,
            limit2: (limit * limit) as f32,
            stretch2: (BLOWUP_STRETCH * BLOWUP_STRETCH) as f32,
            pad1: [0.0; 2],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&uniforms));
        let held: Vec<u32> = kinematic.iter().map(|&k| u32::from(k)).collect();
        if !held.is_empty() {
            queue.write_buffer(&self.kinematic, 0, bytemuck::cast_slice(&held));
        }
    }

    /// Records the three kernels: clear the report, the springs' strains, the nodes' checks.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim guard",
            &[
                // One invocation clears the report.
                (&self.bind_group, &self.clear, 1),
                (&self.bind_group, &self.spring_strains, self.springs),
                (&self.bind_group, &self.node_checks, self.nodes),
            ],
        );
    }

    /// Reads the report of the last recorded work back (16 bytes), waiting for it.
    pub fn read_report(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<GuardReport, GpuSimError> {
        let words = super::buffers::read_u32s(device, queue, &self.report, 4)?;
        let some = |w: u32| (w != u32::MAX).then_some(w);
        Ok(GuardReport {
            strain_all: f64::from(f32::from_bits(words[0])).sqrt(),
            strain_limited: f64::from(f32::from_bits(words[1])).sqrt(),
            first_bad_node: some(words[2]),
            first_stretched_spring: some(words[3]),
        })
    }
}
