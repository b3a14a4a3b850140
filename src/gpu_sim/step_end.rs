//! The end of a step on the GPU (`shaders/sim_step_end.wgsl`): twin of
//! [`crate::sim::solvers::integrators::symplectic_next`] on every node, in place on the cloth's `x` and
//! `v`: free nodes `v' = v + Δv`, `x' = x + h v'`; held nodes to their targets.

use glam::DVec3;

use super::kernel::{Access, Program, dispatch};
use super::{ClothBuffers, GpuSimError, validated};

/// The kernel's WGSL.
pub(crate) const SIM_STEP_END_WGSL: &str = include_str!("../../shaders/sim_step_end.wgsl");

/// WGSL `struct StepEndParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct StepEndParams {
    nodes: u32,
    h: f32,
    pad: [f32; 2],
}

/// The step's end for one cloth: its kernel, the `Δv` it adds (written by a solver, or from
/// the CPU with [`Self::write_dv`]) and the held nodes' targets.
#[derive(Debug)]
pub(crate) struct StepEndPass {
    nodes: u32,
    params: wgpu::Buffer,
    dv: wgpu::Buffer,
    target: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    pipeline: wgpu::ComputePipeline,
}

fn vec4s(values: impl Iterator<Item = (DVec3, f32)>) -> Vec<[f32; 4]> {
    values
        .map(|(p, w)| [p.x as f32, p.y as f32, p.z as f32, w])
        .collect()
}

impl StepEndPass {
    /// Compiles the kernel over `cloth`'s node state.
    pub(crate) fn new(device: &wgpu::Device, cloth: &ClothBuffers) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        validated(device, "the step's end kernel", || {
            let program = Program::new(device, "sim_step_end.wgsl", SIM_STEP_END_WGSL);
            let layout = program.layout(
                "gpu_sim step end",
                &[(0, Uniform), (1, Write), (2, Write), (3, Read), (4, Read)],
            );
            let per_node = u64::from(cloth.nodes().max(1)) * 16;
            let params = program.uniform::<StepEndParams>("gpu_sim step end params");
            let input = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let dv = program.buffer("gpu_sim dv", per_node, input);
            let target = program.buffer("gpu_sim targets", per_node, input);
            let bind_group = program.bind_group(
                "gpu_sim step end",
                &layout,
                &[
                    (0, &params),
                    (1, &cloth.x),
                    (2, &cloth.v),
                    (3, &dv),
                    (4, &target),
                ],
            );
            Self {
                nodes: cloth.nodes(),
                params,
                dv,
                target,
                bind_group,
                pipeline: program.kernel("step_end", &layout),
            }
        })
    }

    /// Sets the step `h`, s.
    pub(crate) fn set_params(&self, queue: &wgpu::Queue, h: f64) {
        let params = StepEndParams {
            nodes: self.nodes,
            h: h as f32,
            pad: [0.0; 2],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// Sets which nodes are held and where each must be at the end of the step, m (entries of
    /// free nodes are not read). Both slices have one entry a node.
    pub(crate) fn set_targets(&self, queue: &wgpu::Queue, held: &[bool], target: &[DVec3]) {
        let rows = vec4s(
            target
                .iter()
                .zip(held)
                .map(|(&t, &held)| (t, f32::from(u8::from(held)))),
        );
        queue.write_buffer(&self.target, 0, bytemuck::cast_slice(&rows));
    }

    /// Writes the step's `Δv` from the CPU, m/s (one a node).
    #[cfg(test)]
    pub(crate) fn write_dv(&self, queue: &wgpu::Queue, dv: &[DVec3]) {
        let rows = vec4s(dv.iter().map(|&d| (d, 0.0)));
        queue.write_buffer(&self.dv, 0, bytemuck::cast_slice(&rows));
    }

    /// The `Δv` the kernel adds (`vec4<f32>` a node), for a solver on the GPU to write.
    pub(crate) fn dv(&self) -> &wgpu::Buffer {
        &self.dv
    }

    /// Per node the target (xyz, m) and 1 where held (w): what [`Self::set_targets`] writes,
    /// for a kernel to update the held nodes' targets.
    pub(crate) fn target(&self) -> &wgpu::Buffer {
        &self.target
    }

    /// Records the kernel; the cloth's `x` and `v` then hold the state at the step's end.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim step end",
            &[(&self.bind_group, &self.pipeline, self.nodes)],
        );
    }
}
