//! The colliders on the GPU (`shaders/sim_collide.wgsl`): twin of
//! [`crate::sim::constraints::limit::colliders::collide`] on every free node, in place on the cloth's `x` and `v`,
//! after strain limiting (docs/method.md §6).

use super::kernel::{Access, Program, dispatch};
use super::{ClothBuffers, GpuSimError, validated};
use crate::sim::format::params::Collider;

/// The kernel's WGSL.
pub(crate) const SIM_COLLIDE_WGSL: &str = include_str!("../../shaders/sim_collide.wgsl");

/// Colliders the GPU step takes (a scene has a ground and a few spheres).
pub(crate) const MAX_GPU_COLLIDERS: usize = 16;

/// WGSL `struct Collider`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuCollider {
    a: [f32; 4],
    b: [f32; 4],
}

/// WGSL `struct CollideParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct CollideParams {
    nodes: u32,
    count: u32,
    pad: [u32; 2],
    colliders: [GpuCollider; MAX_GPU_COLLIDERS],
}

impl GpuCollider {
    fn of(c: &Collider) -> Self {
        match c {
            Collider::Sphere(s) => {
                let [x, y, z] = s.center.map(|v| v as f32);
                Self {
                    a: [x, y, z, (s.radius + s.margin) as f32],
                    b: [s.friction as f32, 0.0, 0.0, 0.0],
                }
            }
            Collider::Ground(g) => Self {
                a: [0.0, 0.0, 0.0, (g.height + g.margin) as f32],
                b: [g.friction as f32, 1.0, 0.0, 0.0],
            },
        }
    }
}

/// The colliders of one cloth: the kernel and their parameters.
#[derive(Debug)]
pub(crate) struct CollidePass {
    nodes: u32,
    bind_group: wgpu::BindGroup,
    pipeline: wgpu::ComputePipeline,
}

impl CollidePass {
    /// Compiles the kernel over `cloth`'s node state with `colliders` (at most
    /// [`MAX_GPU_COLLIDERS`]); `held` is the step end's target buffer, whose `w` marks the held
    /// nodes ([`super::StepEndPass::target`]).
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cloth: &ClothBuffers,
        held: &wgpu::Buffer,
        colliders: &[Collider],
    ) -> Result<Self, GpuSimError> {
        if colliders.len() > MAX_GPU_COLLIDERS {
            return Err(GpuSimError::Unsupported(format!(
                "{} colliders: the GPU step takes at most {MAX_GPU_COLLIDERS}",
                colliders.len()
            )));
        }
        use Access::{Read, Uniform, Write};
        let pass = validated(device, "the colliders' kernel", || {
            let program = Program::new(device, "sim_collide.wgsl", SIM_COLLIDE_WGSL);
            let layout = program.layout(
                "gpu_sim collide",
                &[(0, Uniform), (1, Write), (2, Write), (3, Read)],
            );
            let params = program.uniform::<CollideParams>("gpu_sim collide params");
            let mut uniform = CollideParams {
                nodes: cloth.nodes(),
                count: colliders.len() as u32,
                pad: [0; 2],
                colliders: [GpuCollider::default(); MAX_GPU_COLLIDERS],
            };
            for (slot, c) in uniform.colliders.iter_mut().zip(colliders) {
                *slot = GpuCollider::of(c);
            }
            queue.write_buffer(&params, 0, bytemuck::bytes_of(&uniform));
            let bind_group = program.bind_group(
                "gpu_sim collide",
                &layout,
                &[(0, &params), (1, &cloth.x), (2, &cloth.v), (3, held)],
            );
            Self {
                nodes: cloth.nodes(),
                bind_group,
                pipeline: program.kernel("collide", &layout),
            }
        })?;
        Ok(pass)
    }

    /// Records the kernel.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim colliders",
            &[(&self.bind_group, &self.pipeline, self.nodes)],
        );
    }
}
