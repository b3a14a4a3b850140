//! `kang-mg`'s right-hand side on the GPU (`shaders/sim_rhs.wgsl`): twin of
//! [`crate::sim::solvers::integrators::kang_mg::right_hand_side`], from the spring-force pass's node
//! forces and the air pass's outputs, with the held nodes' known `Δv`.

use glam::DVec3;

use super::kernel::{Access, Program, dispatch};
use super::{AirPass, ClothBuffers, ForcePass, GpuSimError, validated};

/// The kernels' WGSL.
pub(crate) const SIM_RHS_WGSL: &str = include_str!("../../shaders/sim_rhs.wgsl");

/// WGSL `struct RhsParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct RhsParams {
    nodes: u32,
    has_air: u32,
    h: f32,
    pad: f32,
    gravity: [f32; 4],
}

/// The right-hand side pass of one cloth: its two kernels (the node terms, then the held
/// neighbours' terms), the node buffer it reads and the `b` it writes.
#[derive(Debug)]
pub(crate) struct RhsPass {
    nodes: u32,
    params: wgpu::Buffer,
    node: wgpu::Buffer,
    b: wgpu::Buffer,
    node_group: wgpu::BindGroup,
    held_group: wgpu::BindGroup,
    node_terms: wgpu::ComputePipeline,
    held_terms: wgpu::ComputePipeline,
}

impl RhsPass {
    /// Compiles the kernels over `cloth`'s topology, `forces`' node forces and `air`'s outputs.
    pub(crate) fn new(
        device: &wgpu::Device,
        cloth: &ClothBuffers,
        forces: &ForcePass,
        air: &AirPass,
    ) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        validated(device, "the right-hand side kernels", || {
            let program = Program::new(device, "sim_rhs.wgsl", SIM_RHS_WGSL);
            // Two layouts: the kernels together read nine storage buffers, a stage binds eight.
            let node_layout = program.layout(
                "gpu_sim rhs nodes",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Write),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Read),
                ],
            );
            let held_layout = program.layout(
                "gpu_sim rhs held",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Write),
                    (7, Read),
                    (8, Read),
                    (9, Read),
                ],
            );
            let per_node = u64::from(cloth.nodes().max(1)) * 16;
            let params = program.uniform::<RhsParams>("gpu_sim rhs params");
            let node = program.buffer(
                "gpu_sim rhs nodes",
                per_node,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let b = program.buffer(
                "gpu_sim rhs",
                per_node,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let node_group = program.bind_group(
                "gpu_sim rhs nodes",
                &node_layout,
                &[
                    (0, &params),
                    (1, &node),
                    (2, &b),
                    (3, forces.force()),
                    (4, air.air()),
                    (5, air.v_rel()),
                    (6, air.coefficients()),
                ],
            );
            let held_group = program.bind_group(
                "gpu_sim rhs held",
                &held_layout,
                &[
                    (0, &params),
                    (1, &node),
                    (2, &b),
                    (7, &cloth.spring_list),
                    (8, &cloth.link_start),
                    (9, &cloth.links),
                ],
            );
            Self {
                nodes: cloth.nodes(),
                params,
                node,
                b,
                node_group,
                held_group,
                node_terms: program.kernel("node_terms", &node_layout),
                held_terms: program.kernel("held_terms", &held_layout),
            }
        })
    }

    /// Sets the step `h` (s), gravity (m/s²) and whether the air pass's forces act.
    pub(crate) fn set_params(&self, queue: &wgpu::Queue, h: f64, gravity: DVec3, has_air: bool) {
        let params = RhsParams {
            nodes: self.nodes,
            has_air: u32::from(has_air),
            h: h as f32,
            pad: 0.0,
            gravity: [gravity.x as f32, gravity.y as f32, gravity.z as f32, 0.0],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// Sets each node's mass (kg) and which nodes are held, with their known `Δv` (m/s).
    /// All three slices have one entry a node.
    pub(crate) fn set_nodes(
        &self,
        queue: &wgpu::Queue,
        mass: &[f64],
        held: &[bool],
        known_dv: &[DVec3],
    ) {
        let node: Vec<[f32; 4]> = mass
            .iter()
            .zip(held)
            .zip(known_dv)
            .map(|((&m, &held), dv)| {
                let w = if held { -1.0 } else { m as f32 };
                [dv.x as f32, dv.y as f32, dv.z as f32, w]
            })
            .collect();
        queue.write_buffer(&self.node, 0, bytemuck::cast_slice(&node));
    }

    /// Records the two kernels, after the force and air passes' work.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim rhs",
            &[
                (&self.node_group, &self.node_terms, self.nodes),
                (&self.held_group, &self.held_terms, self.nodes),
            ],
        );
    }

    /// Records the node terms alone (`implicit-mg`'s spring terms follow in
    /// [`super::ImplicitPass::record_assembly`]).
    pub(crate) fn record_node_terms(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim rhs nodes",
            &[(&self.node_group, &self.node_terms, self.nodes)],
        );
    }

    /// Per node the known `Δv` (xyz, m/s) and the mass (w, kg; −1 where held): what
    /// [`Self::set_nodes`] writes, for a kernel to update the held nodes' `Δv`.
    pub(crate) fn node(&self) -> &wgpu::Buffer {
        &self.node
    }

    /// The right-hand side per node, N·s (`vec4<f32>`), written by [`Self::record`]'s work.
    pub(crate) fn rhs(&self) -> &wgpu::Buffer {
        &self.b
    }
}
