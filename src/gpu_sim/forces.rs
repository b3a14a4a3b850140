//! The spring forces on the GPU (`shaders/sim_forces.wgsl`): twin of
//! [`crate::sim::model::forces::spring_forces`]'s parallel path, a term per spring then a gather per
//! node over its links in spring order.

use super::kernel::{Access, Program, dispatch};
use super::{ClothBuffers, GpuSimError, validated};

/// The kernels' WGSL.
pub(crate) const SIM_FORCES_WGSL: &str = include_str!("../../shaders/sim_forces.wgsl");

/// WGSL `struct ForceParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct ForceParams {
    nodes: u32,
    springs: u32,
    damping: f32,
    /// `h` when the viscosity term is added, negative when not.
    viscosity_h: f32,
}

/// The spring-force pass of one cloth: its pipelines, its output buffers and the bind group
/// over the cloth's buffers.
#[derive(Debug)]
pub(crate) struct ForcePass {
    nodes: u32,
    springs: u32,
    params: wgpu::Buffer,
    force: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    spring_terms: wgpu::ComputePipeline,
    gather: wgpu::ComputePipeline,
}

impl ForcePass {
    /// Compiles the kernels and makes the output buffers for `cloth`.
    pub(crate) fn new(device: &wgpu::Device, cloth: &ClothBuffers) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        validated(device, "the spring-force kernels", || {
            let program = Program::new(device, "sim_forces.wgsl", SIM_FORCES_WGSL);
            let layout = program.layout(
                "gpu_sim forces",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Read),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (7, Write),
                ],
            );
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let params = program.uniform::<ForceParams>("gpu_sim force params");
            let spring_f = program.buffer(
                "gpu_sim spring forces",
                u64::from(cloth.springs().max(1)) * 16,
                storage,
            );
            let force = program.buffer(
                "gpu_sim node forces",
                u64::from(cloth.nodes().max(1)) * 16,
                storage,
            );
            let bind_group = program.bind_group(
                "gpu_sim forces",
                &layout,
                &[
                    (0, &params),
                    (1, &cloth.x),
                    (2, &cloth.v),
                    (3, &cloth.spring_list),
                    (4, &cloth.link_start),
                    (5, &cloth.links),
                    (6, &spring_f),
                    (7, &force),
                ],
            );
            Self {
                nodes: cloth.nodes(),
                springs: cloth.springs(),
                params,
                force,
                bind_group,
                spring_terms: program.kernel("spring_terms", &layout),
                gather: program.kernel("gather_forces", &layout),
            }
        })
    }

    /// Sets the spring damping `c` (N·s/m) and, with `viscosity = Some(h)`, adds eq. 4's
    /// viscosity term `h Σ k (v_j − v_i)`, as `spring_forces` takes them.
    pub(crate) fn set_params(&self, queue: &wgpu::Queue, damping: f64, viscosity: Option<f64>) {
        let params = ForceParams {
            nodes: self.nodes,
            springs: self.springs,
            damping: damping as f32,
            viscosity_h: viscosity.map_or(-1.0, |h| h as f32),
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// Records the two kernels: each spring's term, then each node's sum.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim forces",
            &[
                (&self.bind_group, &self.spring_terms, self.springs),
                (&self.bind_group, &self.gather, self.nodes),
            ],
        );
    }

    /// The node forces, N (`vec4<f32>` per node), written by [`Self::record`]'s work.
    pub(crate) fn force(&self) -> &wgpu::Buffer {
        &self.force
    }
}
