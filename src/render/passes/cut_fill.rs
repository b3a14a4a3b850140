//! A shaped flag's cut key nodes continued on the device (`shaders/fill_cut.wgsl`, CPU twin
//! [`crate::render::drawing::view::fill_cut_keys`]): where the upsampler's key nodes come straight from the GPU
//! simulation's node buffer ([`crate::render::UpsamplePass::copy_keys`]), the cut nodes there are where
//! the shape left them (held, still), so this pass gives them positions that continue the cloth
//! before the splines are built through them, as the snapshot's keys get on the CPU.

use std::borrow::Cow;
use std::num::NonZeroU64;

use wgpu::util::DeviceExt;

use crate::render::device::gpu::GpuError;
use crate::render::device::shaders::FILL_CUT_WGSL;

/// WGSL `struct FillParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct FillParams {
    nx: u32,
    ny: u32,
    base: u32,
    pad: u32,
}

/// Invocations per workgroup (`@workgroup_size(64)`): one a row.
const WORKGROUP: u32 = 64;

/// The pass, built once; [`Self::record`] keeps the cut mask and the bind group of the last
/// cloth and key buffer it was given.
#[derive(Debug)]
pub struct CutFillPass {
    layout: wgpu::BindGroupLayout,
    fill_rows: wgpu::ComputePipeline,
    fill_other_rows: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    /// The cut mask uploaded, and the key buffer and bind group it was bound with.
    bound: Option<Bound>,
}

#[derive(Debug)]
struct Bound {
    cut: Vec<bool>,
    keys: wgpu::Buffer,
    group: wgpu::BindGroup,
}

fn entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            // The uniform block, a `u32` of the mask, a `vec4<f32>` of the keys.
            min_binding_size: NonZeroU64::new([16, 4, 16][binding as usize]),
        },
        count: None,
    }
}

impl CutFillPass {
    /// Compiles the kernels; fails (instead of panicking in wgpu's default error handler) if
    /// the device rejects them.
    pub fn new(device: &wgpu::Device) -> Result<Self, GpuError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("fill_cut.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(FILL_CUT_WGSL)),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("fill cut keys"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, wgpu::BufferBindingType::Storage { read_only: true }),
                entry(2, wgpu::BufferBindingType::Storage { read_only: false }),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("fill cut keys"),
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
        let fill_rows = pipeline("fill_rows");
        let fill_other_rows = pipeline("fill_other_rows");
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("fill cut keys params"),
            size: std::mem::size_of::<FillParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        crate::render::device::gpu::validated(scope, "building the cut-node pipelines")?;
        Ok(Self {
            layout,
            fill_rows,
            fill_other_rows,
            params,
            bound: None,
        })
    }

    /// Records the two kernels over the `nx × ny` key nodes of one cloth in `keys`
    /// (`vec4<f32>` a node, a `STORAGE` buffer), its first at node `base`, with the nodes
    /// `cut` marks (grid order). Nothing is recorded (false) where nothing is cut or the
    /// sizes disagree: the keys are then left as they are, as the CPU twin leaves them.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        keys: &wgpu::Buffer,
        base: u32,
        cut: &[bool],
        [nx, ny]: [u32; 2],
    ) -> bool {
        let nodes = nx as usize * ny as usize;
        let fits = u64::from(base) * 16 + nodes as u64 * 16 <= keys.size();
        if cut.len() != nodes || !fits || !cut.iter().any(|&c| c) {
            return false;
        }
        let stale = self
            .bound
            .as_ref()
            .is_none_or(|b| b.cut != cut || &b.keys != keys);
        if stale {
            let mask: Vec<u32> = cut.iter().map(|&c| u32::from(c)).collect();
            let cut_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("fill cut keys mask"),
                contents: bytemuck::cast_slice(&mask),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("fill cut keys"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: cut_buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: keys.as_entire_binding(),
                    },
                ],
            });
            self.bound = Some(Bound {
                cut: cut.to_vec(),
                keys: keys.clone(),
                group,
            });
        }
        let Some(bound) = &self.bound else {
            return false;
        };
        let params = FillParams {
            nx,
            ny,
            base,
            pad: 0,
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let groups = ny.div_ceil(WORKGROUP);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("fill cut keys"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &bound.group, &[]);
        pass.set_pipeline(&self.fill_rows);
        pass.dispatch_workgroups(groups, 1, 1);
        pass.set_pipeline(&self.fill_other_rows);
        pass.dispatch_workgroups(groups, 1, 1);
        true
    }
}
