//! The spring forces on the GPU (`shaders/sim_forces.wgsl`): twin of
//! [`crate::sim::forces::spring_forces`]'s parallel path, a term per spring then a gather per
//! node over its links in spring order.

use std::borrow::Cow;

use super::{ClothBuffers, GpuSimError, validated, workgroups};

/// The kernels' WGSL.
pub const SIM_FORCES_WGSL: &str = include_str!("../../shaders/sim_forces.wgsl");

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
pub struct ForcePass {
    nodes: u32,
    springs: u32,
    params: wgpu::Buffer,
    spring_f: wgpu::Buffer,
    force: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    spring_terms: wgpu::ComputePipeline,
    gather: wgpu::ComputePipeline,
}

/// A compute-visible buffer binding of any size.
pub(super) fn entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            // Checked at draw time against each binding's WGSL type.
            min_binding_size: None,
        },
        count: None,
    }
}

impl ForcePass {
    /// Compiles the kernels and makes the output buffers for `cloth`.
    pub fn new(device: &wgpu::Device, cloth: &ClothBuffers) -> Result<Self, GpuSimError> {
        use wgpu::BufferBindingType::{Storage, Uniform};
        validated(device, "the spring-force kernels", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sim_forces.wgsl"),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(SIM_FORCES_WGSL)),
            });
            let read = Storage { read_only: true };
            let write = Storage { read_only: false };
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("gpu_sim forces"),
                entries: &[
                    entry(0, Uniform),
                    entry(1, read),
                    entry(2, read),
                    entry(3, read),
                    entry(4, read),
                    entry(5, read),
                    entry(6, write),
                    entry(7, write),
                ],
            });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("gpu_sim forces"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let pipeline = |entry_point: &str| {
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
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let params = buffer(
                "gpu_sim force params",
                std::mem::size_of::<ForceParams>() as u64,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let spring_f = buffer(
                "gpu_sim spring forces",
                u64::from(cloth.springs().max(1)) * 16,
                storage,
            );
            let force = buffer(
                "gpu_sim node forces",
                u64::from(cloth.nodes().max(1)) * 16,
                storage,
            );
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpu_sim forces"),
                layout: &layout,
                entries: &[
                    (0, &params),
                    (1, &cloth.x),
                    (2, &cloth.v),
                    (3, &cloth.spring_list),
                    (4, &cloth.link_start),
                    (5, &cloth.links),
                    (6, &spring_f),
                    (7, &force),
                ]
                .map(|(binding, buffer)| wgpu::BindGroupEntry {
                    binding,
                    resource: buffer.as_entire_binding(),
                }),
            });
            Self {
                nodes: cloth.nodes(),
                springs: cloth.springs(),
                params,
                spring_f,
                force,
                bind_group,
                spring_terms: pipeline("spring_terms"),
                gather: pipeline("gather_forces"),
            }
        })
    }

    /// Sets the spring damping `c` (N·s/m) and, with `viscosity = Some(h)`, adds eq. 4's
    /// viscosity term `h Σ k (v_j − v_i)`, as `spring_forces` takes them.
    pub fn set_params(&self, queue: &wgpu::Queue, damping: f64, viscosity: Option<f64>) {
        let params = ForceParams {
            nodes: self.nodes,
            springs: self.springs,
            damping: damping as f32,
            viscosity_h: viscosity.map_or(-1.0, |h| h as f32),
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// Records the two kernels: each spring's term, then each node's sum.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu_sim forces"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_pipeline(&self.spring_terms);
        pass.dispatch_workgroups(workgroups(self.springs), 1, 1);
        pass.set_pipeline(&self.gather);
        pass.dispatch_workgroups(workgroups(self.nodes), 1, 1);
    }

    /// The node forces, N (`vec4<f32>` per node), written by [`Self::record`]'s work.
    pub fn force(&self) -> &wgpu::Buffer {
        &self.force
    }

    /// Each spring's force on its end `a`, N (`vec4<f32>` per spring).
    pub fn spring_force(&self) -> &wgpu::Buffer {
        &self.spring_f
    }
}
