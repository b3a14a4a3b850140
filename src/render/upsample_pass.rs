//! The wrinkled-spline upsampler on the GPU (`shaders/upsample.wgsl`, CPU twin in
//! `crate::upsample`).
//!
//! [`UpsamplePass`] is built once (shader, bind group layout, four compute pipelines). Each
//! frame the caller uploads the key grid with [`UpsamplePass::upload_keys`] and records the
//! kernels with [`UpsamplePass::encode`]; buffers are only re-created when the key count or the
//! render resolution changes, which `upload_keys` reports so draw passes can rebuild their bind
//! groups. The output stays on the GPU in two `array<vec4<f32>>` storage buffers
//! ([`UpsamplePass::render_positions_buffer`], [`UpsamplePass::render_normals_buffer`]) for
//! vertex pulling; [`UpsamplePass::read_back`] copies it to a [`RenderMesh`] for tests and the
//! headless lab.

use std::borrow::Cow;
use std::num::NonZeroU64;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use super::gpu::{GpuContext, GpuError};
use super::shaders::UPSAMPLE_WGSL;
use crate::upsample::{
    DisplayMode, KeyGrid, RenderMesh, RenderSettings, UpsampleError, UpsampleParams,
};

/// Invocations per workgroup along x and y of every kernel.
/// Keep in sync with `WORKGROUP_SIZE_X/Y` in `shaders/upsample.wgsl` (checked by
/// `tests/shaders.rs`).
pub const WORKGROUP_SIZE: [u32; 2] = [8, 8];

/// `UpsampleUniforms::mode` values. Keep in sync with `MODE_*` in `shaders/upsample.wgsl`.
pub const MODE_KEY_ONLY: u32 = 0;
pub const MODE_SMOOTH: u32 = 1;
pub const MODE_WRINKLED: u32 = 2;

/// Bytes per node in every storage buffer: one `vec4<f32>` (xyz used, w padding).
const NODE_SIZE: u64 = 16;

/// The shader's uniform block. Keep in sync with `struct UpsampleUniforms` in
/// `shaders/upsample.wgsl`; `tests/shaders.rs` checks the sizes match.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct UpsampleUniforms {
    /// `[nx, ny]` key nodes.
    pub key_count: [u32; 2],
    /// `[R_u, R_v]` render nodes.
    pub resolution: [u32; 2],
    /// `[l0_u, l0_v]`, metres.
    pub rest_length: [f32; 2],
    /// Eq. 14 frequency constant `c`, radians per unit relative compression.
    pub wrinkle_c: f32,
    /// One of `MODE_KEY_ONLY`, `MODE_SMOOTH`, `MODE_WRINKLED`.
    pub mode: u32,
    /// 1: average row-first and column-first results.
    pub symmetric: u32,
    /// 1: round `f` to a multiple of π.
    pub c1_seam: u32,
    /// Rounds the block up to WGSL's 16-byte uniform struct alignment.
    pub _padding: [u32; 2],
}

const _: () = assert!(std::mem::size_of::<UpsampleUniforms>() == 48);

impl UpsampleUniforms {
    /// The uniforms for validated parameters (the same numbers the CPU reference uses).
    pub fn from_params(params: &UpsampleParams) -> Self {
        Self {
            key_count: params.key_count,
            resolution: params.resolution,
            rest_length: params.rest_length,
            wrinkle_c: params.wrinkle.c,
            mode: match params.mode {
                DisplayMode::KeyOnly => MODE_KEY_ONLY,
                DisplayMode::Smooth => MODE_SMOOTH,
                DisplayMode::Wrinkled => MODE_WRINKLED,
            },
            symmetric: params.symmetric.into(),
            c1_seam: params.wrinkle.c1_seam.into(),
            _padding: [0; 2],
        }
    }
}

/// What [`UpsamplePass::upload_keys`] did to the output buffers.
#[must_use = "draw passes must rebuild their bind groups when the output buffers are re-created"]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputBuffers {
    /// Same buffers as before; existing bind groups stay valid.
    Unchanged,
    /// New buffers (first upload, or key count / resolution changed).
    Recreated,
}

/// Per-size resources: re-created only when the key count or the resolution changes.
#[derive(Debug)]
struct SizedBuffers {
    key_count: [u32; 2],
    resolution: [u32; 2],
    key_positions: wgpu::Buffer,
    render_positions: wgpu::Buffer,
    render_normals: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

/// The long-lived upsampling pass (see the module docs).
#[derive(Debug)]
pub struct UpsamplePass {
    bind_group_layout: wgpu::BindGroupLayout,
    frame_nodes: wgpu::ComputePipeline,
    column_frame_nodes: wgpu::ComputePipeline,
    internal_nodes: wgpu::ComputePipeline,
    normals: wgpu::ComputePipeline,
    uniform_buffer: wgpu::Buffer,
    params: Option<UpsampleParams>,
    buffers: Option<SizedBuffers>,
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(NODE_SIZE),
        },
        count: None,
    }
}

impl UpsamplePass {
    /// Compiles the shader and builds the pipelines. Fails (instead of panicking in wgpu's
    /// default error handler) if the device rejects any of it.
    pub fn new(device: &wgpu::Device) -> Result<Self, GpuError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("upsample.wgsl"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(UPSAMPLE_WGSL)),
        });
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("upsample bind group layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: NonZeroU64::new(
                            std::mem::size_of::<UpsampleUniforms>() as u64
                        ),
                    },
                    count: None,
                },
                storage_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
                storage_entry(4, false),
                storage_entry(5, false),
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("upsample pipeline layout"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        let pipeline = |entry_point: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        };
        let frame_nodes = pipeline("frame_nodes_pass");
        let column_frame_nodes = pipeline("column_frame_nodes_pass");
        let internal_nodes = pipeline("internal_nodes_pass");
        let normals = pipeline("normals_pass");
        let uniform_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("upsample uniforms"),
            size: std::mem::size_of::<UpsampleUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Validation {
                context: "building the upsample pipelines",
                message: error.to_string(),
            });
        }
        Ok(Self {
            bind_group_layout,
            frame_nodes,
            column_frame_nodes,
            internal_nodes,
            normals,
            uniform_buffer,
            params: None,
            buffers: None,
        })
    }

    /// Uploads this frame's key grid and settings. Re-creates the buffers (and reports it) only
    /// when the key count or the effective render resolution differs from the last upload.
    /// Invalid input is rejected with the same checks as the CPU reference, before any GPU work.
    pub fn upload_keys(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        grid: &KeyGrid,
        settings: &RenderSettings,
    ) -> Result<OutputBuffers, UpsampleError> {
        let params = UpsampleParams::new(grid, settings)?;
        let reuse = self
            .buffers
            .as_ref()
            .is_some_and(|b| b.key_count == params.key_count && b.resolution == params.resolution);
        let change = if reuse {
            OutputBuffers::Unchanged
        } else {
            self.buffers = Some(self.create_buffers(device, &params));
            OutputBuffers::Recreated
        };
        let keys: Vec<[f32; 4]> = grid
            .positions
            .iter()
            .map(|p| p.extend(1.0).to_array())
            .collect();
        if let Some(buffers) = &self.buffers {
            queue.write_buffer(&buffers.key_positions, 0, bytemuck::cast_slice(&keys));
        }
        let uniforms = UpsampleUniforms::from_params(&params);
        queue.write_buffer(&self.uniform_buffer, 0, bytemuck::bytes_of(&uniforms));
        self.params = Some(params);
        Ok(change)
    }

    fn create_buffers(&self, device: &wgpu::Device, params: &UpsampleParams) -> SizedBuffers {
        let [nx, ny] = params.key_count.map(u64::from);
        let [ru, rv] = params.resolution.map(u64::from);
        let storage = |label: &str, nodes: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: nodes * NODE_SIZE,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let output = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::VERTEX;
        let key_positions = storage(
            "upsample key positions",
            nx * ny,
            wgpu::BufferUsages::COPY_DST,
        );
        let row_frame_nodes = storage("upsample frame nodes", ny * ru, wgpu::BufferUsages::empty());
        let column_frame_nodes = storage(
            "upsample column-first frame nodes",
            rv * nx,
            wgpu::BufferUsages::empty(),
        );
        let render_positions = storage("render positions", ru * rv, output);
        let render_normals = storage("render normals", ru * rv, output);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("upsample bind group"),
            layout: &self.bind_group_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.uniform_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: key_positions.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: row_frame_nodes.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: column_frame_nodes.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: render_positions.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: render_normals.as_entire_binding(),
                },
            ],
        });
        SizedBuffers {
            key_count: params.key_count,
            resolution: params.resolution,
            key_positions,
            render_positions,
            render_normals,
            bind_group,
        }
    }

    /// Records the kernels for the last upload into `encoder`; nothing before the first upload.
    /// The frame-node passes are skipped when the mode does not read them.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let (Some(params), Some(buffers)) = (&self.params, &self.buffers) else {
            return;
        };
        let [nx, ny] = params.key_count;
        let [ru, rv] = params.resolution;
        let groups =
            |x: u32, y: u32| (x.div_ceil(WORKGROUP_SIZE[0]), y.div_ceil(WORKGROUP_SIZE[1]));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("upsample"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &buffers.bind_group, &[]);
        // Each dispatch is its own usage scope, so wgpu orders the passes with barriers.
        let mut dispatch = |pipeline: &wgpu::ComputePipeline, (x, y): (u32, u32)| {
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(x, y, 1);
        };
        if params.mode != DisplayMode::KeyOnly {
            dispatch(&self.frame_nodes, groups(ru, ny));
        }
        if params.symmetric {
            dispatch(&self.column_frame_nodes, groups(nx, rv));
        }
        dispatch(&self.internal_nodes, groups(ru, rv));
        dispatch(&self.normals, groups(ru, rv));
    }

    /// `R_u · R_v` render positions, `array<vec4<f32>>` (w = 1), index `s * R_u + r`.
    /// Usage `STORAGE | COPY_SRC | VERTEX`. `None` before the first upload.
    pub fn render_positions_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers.as_ref().map(|b| &b.render_positions)
    }

    /// `R_u · R_v` unit render normals, `array<vec4<f32>>` (w = 0), same layout and usage.
    pub fn render_normals_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers.as_ref().map(|b| &b.render_normals)
    }

    /// `[R_u, R_v]` of the current output buffers.
    pub fn resolution(&self) -> Option<[u32; 2]> {
        self.buffers.as_ref().map(|b| b.resolution)
    }

    /// Encodes, submits and waits for the kernels, then copies the output to the CPU. Blocking;
    /// for tests and the headless lab, never for the frame loop.
    pub fn run_and_read_back(&self, ctx: &GpuContext) -> Result<RenderMesh, GpuError> {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("upsample"),
            });
        self.encode(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        self.read_back(ctx)
    }

    /// Copies the current output buffers to the CPU (blocking) and waits for all submitted work
    /// before reading, so it sees the last submitted [`Self::encode`].
    pub fn read_back(&self, ctx: &GpuContext) -> Result<RenderMesh, GpuError> {
        let buffers = self.buffers.as_ref().ok_or(GpuError::NotUploaded)?;
        let size = buffers.render_positions.size();
        let staging = |label: &str| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let positions_staging = staging("render positions read-back");
        let normals_staging = staging("render normals read-back");
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("upsample read-back"),
            });
        encoder.copy_buffer_to_buffer(&buffers.render_positions, 0, &positions_staging, 0, size);
        encoder.copy_buffer_to_buffer(&buffers.render_normals, 0, &normals_staging, 0, size);
        ctx.queue.submit([encoder.finish()]);
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Validation {
                context: "reading the render mesh back",
                message: error.to_string(),
            });
        }
        let positions = read_vec4_buffer(ctx, &positions_staging)?;
        let normals = read_vec4_buffer(ctx, &normals_staging)?;
        Ok(RenderMesh {
            resolution: buffers.resolution,
            positions,
            normals,
        })
    }
}

/// Maps a `MAP_READ` buffer of `vec4<f32>`, waits, and returns the xyz parts.
fn read_vec4_buffer(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<Vec3>, GpuError> {
    super::gpu::map_for_reading(&ctx.device, buffer).map_err(GpuError::ReadBack)?;
    let nodes = {
        let view = buffer
            .get_mapped_range(..)
            .map_err(|e| GpuError::ReadBack(e.to_string()))?;
        bytemuck::pod_collect_to_vec::<u8, [f32; 4]>(&view)
            .into_iter()
            .map(|[x, y, z, _]| Vec3::new(x, y, z))
            .collect()
    };
    buffer.unmap();
    Ok(nodes)
}
