//! `kang-mg`'s right-hand side on the GPU (`shaders/sim_rhs.wgsl`): twin of
//! [`crate::sim::integrators::kang_mg::right_hand_side`], from the spring-force pass's node
//! forces and the air pass's outputs, with the held nodes' known `Δv`.

use std::borrow::Cow;

use glam::DVec3;

use super::{AirPass, ClothBuffers, ForcePass, GpuSimError, validated, workgroups};

/// The kernels' WGSL.
pub const SIM_RHS_WGSL: &str = include_str!("../../shaders/sim_rhs.wgsl");

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
pub struct RhsPass {
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
    pub fn new(
        device: &wgpu::Device,
        cloth: &ClothBuffers,
        forces: &ForcePass,
        air: &AirPass,
    ) -> Result<Self, GpuSimError> {
        use wgpu::BufferBindingType::{Storage, Uniform};
        validated(device, "the right-hand side kernels", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sim_rhs.wgsl"),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(SIM_RHS_WGSL)),
            });
            let read = Storage { read_only: true };
            let write = Storage { read_only: false };
            // Two layouts: the kernels together read nine storage buffers, a stage binds eight.
            let layout_of = |label: &'static str, kinds: &[(u32, wgpu::BufferBindingType)]| {
                let entries: Vec<_> = kinds
                    .iter()
                    .map(|&(binding, ty)| super::forces::entry(binding, ty))
                    .collect();
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(label),
                    entries: &entries,
                })
            };
            let node_layout = layout_of(
                "gpu_sim rhs nodes",
                &[
                    (0, Uniform),
                    (1, read),
                    (2, write),
                    (3, read),
                    (4, read),
                    (5, read),
                    (6, read),
                ],
            );
            let held_layout = layout_of(
                "gpu_sim rhs held",
                &[
                    (0, Uniform),
                    (1, read),
                    (2, write),
                    (7, read),
                    (8, read),
                    (9, read),
                ],
            );
            let pipeline = |entry_point: &str, layout: &wgpu::BindGroupLayout| {
                let pipeline_layout =
                    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some(entry_point),
                        bind_group_layouts: &[Some(layout)],
                        immediate_size: 0,
                    });
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry_point),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry_point),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    cache: None,
                })
            };
            let buffer = |label: &'static str, size: u64, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            };
            let per_node = u64::from(cloth.nodes().max(1)) * 16;
            let params = buffer(
                "gpu_sim rhs params",
                std::mem::size_of::<RhsParams>() as u64,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let node = buffer(
                "gpu_sim rhs nodes",
                per_node,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let b = buffer(
                "gpu_sim rhs",
                per_node,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let bind_group = |layout: &wgpu::BindGroupLayout, entries: &[(u32, &wgpu::Buffer)]| {
                let entries: Vec<_> = entries
                    .iter()
                    .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("gpu_sim rhs"),
                    layout,
                    entries: &entries,
                })
            };
            let node_group = bind_group(
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
            let held_group = bind_group(
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
                node_terms: pipeline("node_terms", &node_layout),
                held_terms: pipeline("held_terms", &held_layout),
            }
        })
    }

    /// Sets the step `h` (s), gravity (m/s²) and whether the air pass's forces act.
    pub fn set_params(&self, queue: &wgpu::Queue, h: f64, gravity: DVec3, has_air: bool) {
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
    pub fn set_nodes(&self, queue: &wgpu::Queue, mass: &[f64], held: &[bool], known_dv: &[DVec3]) {
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
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu_sim rhs"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.node_group, &[]);
        pass.set_pipeline(&self.node_terms);
        pass.dispatch_workgroups(workgroups(self.nodes), 1, 1);
        pass.set_bind_group(0, &self.held_group, &[]);
        pass.set_pipeline(&self.held_terms);
        pass.dispatch_workgroups(workgroups(self.nodes), 1, 1);
    }

    /// The right-hand side per node, N·s (`vec4<f32>`), written by [`Self::record`]'s work.
    pub fn rhs(&self) -> &wgpu::Buffer {
        &self.b
    }
}
