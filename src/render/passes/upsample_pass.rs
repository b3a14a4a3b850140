//! The wrinkled-spline upsampler on the GPU (`shaders/upsample.wgsl`, CPU twin in
//! `crate::upsample`).
//!
//! [`UpsamplePass`] is built once (shader, bind group layout, four compute pipelines). Each
//! frame the caller uploads the key grid with [`UpsamplePass::upload_keys`], or the key grids of
//! several cloths (a scene's flags) with [`UpsamplePass::upload_batch`], and records the kernels
//! with [`UpsamplePass::encode`]: one dispatch of each kernel for the whole batch (workgroup z
//! is the cloth), since on a software adapter each dispatch costs about as much as a flag's
//! nodes. Buffers are only re-created when a key count or render resolution changes, which the
//! upload reports so draw passes can rebuild their bind groups. The output stays on the GPU in
//! two `array<vec4<f32>>` storage buffers ([`UpsamplePass::render_positions_buffer`],
//! [`UpsamplePass::render_normals_buffer`]), cloth `k`'s nodes from
//! [`UpsamplePass::placement`]`(k).first_node` on, for vertex pulling;
//! [`UpsamplePass::read_back`] copies one cloth's to a [`RenderMesh`] for tests and the
//! headless lab.

use std::borrow::Cow;
use std::num::NonZeroU64;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::render::device::gpu::{GpuContext, GpuError};
use crate::render::device::shaders::UPSAMPLE_WGSL;
use crate::upsample::{
    DisplayMode, KeyGrid, RenderMesh, RenderSettings, UpsampleError, UpsampleParams,
};

/// Invocations per workgroup along x and y of every kernel.
/// Keep in sync with `WORKGROUP_SIZE_X/Y` in `shaders/upsample.wgsl` (checked by
/// `tests/shaders.rs`).
pub const WORKGROUP_SIZE: [u32; 2] = [8, 8];

/// `UpsampleUniforms::mode` values. Keep in sync with `MODE_*` in `shaders/upsample.wgsl`.
pub(crate) const MODE_KEY_ONLY: u32 = 0;
pub(crate) const MODE_SMOOTH: u32 = 1;
pub(crate) const MODE_WRINKLED: u32 = 2;

/// Bytes per node in every storage buffer: one `vec4<f32>` (xyz used, w padding).
const NODE_SIZE: u64 = 16;

/// Each cloth's render nodes start at a multiple of this many nodes (256 bytes: the largest
/// `min_storage_buffer_offset_alignment` any adapter may ask), so a draw pass can bind its part
/// of the output buffers alone.
pub(crate) const RENDER_ALIGNMENT_NODES: u32 = 16;

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
    /// Where this cloth's nodes start in the batch's key positions, row-first frame nodes,
    /// column-first frame nodes and outputs (nodes).
    pub key_base: u32,
    pub row_frame_base: u32,
    pub column_frame_base: u32,
    pub render_base: u32,
    /// Rounds the block up to a multiple of 16 bytes.
    pub _padding: [u32; 2],
}

const _: () = assert!(std::mem::size_of::<UpsampleUniforms>() == 64);

impl UpsampleUniforms {
    /// The uniforms for validated parameters (the same numbers the CPU reference uses), the
    /// cloth's nodes first in every buffer.
    pub(crate) fn from_params(params: &UpsampleParams) -> Self {
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
            key_base: 0,
            row_frame_base: 0,
            column_frame_base: 0,
            render_base: 0,
            _padding: [0; 2],
        }
    }

    /// The same, with the cloth's nodes at `bases` in the batch's buffers.
    fn placed(self, bases: &Bases) -> Self {
        Self {
            key_base: bases.key,
            row_frame_base: bases.row_frame,
            column_frame_base: bases.column_frame,
            render_base: bases.render,
            ..self
        }
    }
}

/// Where one cloth of a batch starts in each buffer, nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Bases {
    key: u32,
    row_frame: u32,
    column_frame: u32,
    render: u32,
}

/// Where [`UpsamplePass::encode`] puts cloth `k` of the batch in the output buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// `[R_u, R_v]` render nodes.
    pub resolution: [u32; 2],
    /// Its first render node in both output buffers (a multiple of
    /// [`RENDER_ALIGNMENT_NODES`]); node `(r, s)` at `first_node + s · R_u + r`.
    pub first_node: u32,
}

impl Placement {
    /// Its part of an output buffer, bytes: offset and size.
    pub(crate) fn byte_range(&self) -> (u64, u64) {
        let [ru, rv] = self.resolution.map(u64::from);
        (u64::from(self.first_node) * NODE_SIZE, ru * rv * NODE_SIZE)
    }
}

/// Each cloth's bases for key counts and resolutions `layout`, and the buffers' lengths in
/// nodes: keys, row-first frame nodes and column-first frame nodes packed one after another,
/// render nodes each from a multiple of [`RENDER_ALIGNMENT_NODES`].
fn bases_of(layout: &[([u32; 2], [u32; 2])]) -> (Vec<Bases>, Bases) {
    let mut next = Bases::default();
    let bases = layout
        .iter()
        .map(|&([nx, ny], [ru, rv])| {
            let here = next;
            next.key += nx * ny;
            next.row_frame += ny * ru;
            next.column_frame += rv * nx;
            next.render = (here.render + ru * rv).next_multiple_of(RENDER_ALIGNMENT_NODES);
            here
        })
        .collect();
    (bases, next)
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

/// Per-size resources: re-created only when a key count or a resolution changes.
#[derive(Debug)]
struct SizedBuffers {
    /// Each cloth's key count and resolution.
    layout: Vec<([u32; 2], [u32; 2])>,
    bases: Vec<Bases>,
    /// Each cloth's [`UpsampleUniforms`].
    batch: wgpu::Buffer,
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
    /// Each cloth's parameters of the last upload (none before the first).
    params: Vec<UpsampleParams>,
    buffers: Option<SizedBuffers>,
    /// The key positions of the last upload, every cloth's (reused between frames).
    keys: Vec<[f32; 4]>,
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
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
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
        crate::render::device::gpu::validated(scope, "building the upsample pipelines")?;
        Ok(Self {
            bind_group_layout,
            frame_nodes,
            column_frame_nodes,
            internal_nodes,
            normals,
            params: Vec::new(),
            buffers: None,
            keys: Vec::new(),
        })
    }

    /// Uploads this frame's key grid and settings (a batch of one cloth). Re-creates the
    /// buffers (and reports it) only when the key count or the effective render resolution
    /// differs from the last upload. Invalid input is rejected with the same checks as the CPU
    /// reference, before any GPU work.
    pub fn upload_keys(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        grid: &KeyGrid,
        settings: &RenderSettings,
    ) -> Result<OutputBuffers, UpsampleError> {
        self.upload_batch(device, queue, &[(*grid, settings)])
    }

    /// Uploads this frame's key grids and settings of several cloths, upsampled together by
    /// the next [`Self::encode`] (cloth `k` placed by [`Self::placement`]). Re-creates the
    /// buffers (and reports it) only when the number of cloths, a key count or an effective
    /// render resolution differs from the last upload. Invalid input is rejected with the same
    /// checks as the CPU reference, before any GPU work; nothing is uploaded then.
    pub fn upload_batch(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cloths: &[(KeyGrid<'_>, &RenderSettings)],
    ) -> Result<OutputBuffers, UpsampleError> {
        let params = cloths
            .iter()
            .map(|(grid, settings)| UpsampleParams::new(grid, settings))
            .collect::<Result<Vec<_>, _>>()?;
        let layout: Vec<_> = params.iter().map(|p| (p.key_count, p.resolution)).collect();
        let reuse = self.buffers.as_ref().is_some_and(|b| b.layout == layout);
        let change = if reuse || layout.is_empty() {
            OutputBuffers::Unchanged
        } else {
            self.buffers = Some(self.create_buffers(device, layout));
            OutputBuffers::Recreated
        };
        self.params = params;
        let Some(buffers) = self.buffers.as_ref().filter(|_| !self.params.is_empty()) else {
            return Ok(change);
        };
        self.keys.clear();
        for (grid, _) in cloths {
            self.keys
                .extend(grid.positions.iter().map(|p| p.extend(1.0).to_array()));
        }
        queue.write_buffer(&buffers.key_positions, 0, bytemuck::cast_slice(&self.keys));
        let uniforms: Vec<UpsampleUniforms> = (self.params.iter())
            .zip(&buffers.bases)
            .map(|(p, bases)| UpsampleUniforms::from_params(p).placed(bases))
            .collect();
        queue.write_buffer(&buffers.batch, 0, bytemuck::cast_slice(&uniforms));
        Ok(change)
    }

    fn create_buffers(
        &self,
        device: &wgpu::Device,
        layout: Vec<([u32; 2], [u32; 2])>,
    ) -> SizedBuffers {
        let (bases, total) = bases_of(&layout);
        let storage = |label: &str, nodes: u32, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                // At least one node: a binding is never empty.
                size: u64::from(nodes.max(1)) * NODE_SIZE,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let batch = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("upsample batch uniforms"),
            size: (layout.len().max(1) * std::mem::size_of::<UpsampleUniforms>()) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let output = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::VERTEX;
        let key_positions = storage(
            "upsample key positions",
            total.key,
            wgpu::BufferUsages::COPY_DST,
        );
        let row_frame_nodes = storage(
            "upsample frame nodes",
            total.row_frame,
            wgpu::BufferUsages::empty(),
        );
        let column_frame_nodes = storage(
            "upsample column-first frame nodes",
            total.column_frame,
            wgpu::BufferUsages::empty(),
        );
        let render_positions = storage("render positions", total.render, output);
        let render_normals = storage("render normals", total.render, output);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("upsample bind group"),
            layout: &self.bind_group_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: batch.as_entire_binding(),
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
            layout,
            bases,
            batch,
            key_positions,
            render_positions,
            render_normals,
            bind_group,
        }
    }

    /// Records the kernels for the last upload into `encoder`, one dispatch of each for every
    /// cloth of it; nothing before the first upload. The frame-node passes are skipped when no
    /// cloth's mode reads them (and each cloth whose mode does not returns at once).
    pub(crate) fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let Some(buffers) = &self.buffers else {
            return;
        };
        let params = &self.params;
        if params.is_empty() {
            return;
        }
        let largest = |size: fn(&UpsampleParams) -> u32| params.iter().map(size).max().unwrap_or(0);
        let [nx, ny] = [largest(|p| p.key_count[0]), largest(|p| p.key_count[1])];
        let [ru, rv] = [largest(|p| p.resolution[0]), largest(|p| p.resolution[1])];
        let cloths = params.len() as u32;
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
            pass.dispatch_workgroups(x, y, cloths);
        };
        if params.iter().any(|p| p.mode != DisplayMode::KeyOnly) {
            dispatch(&self.frame_nodes, groups(ru, ny));
        }
        if params.iter().any(|p| p.symmetric) {
            dispatch(&self.column_frame_nodes, groups(nx, rv));
        }
        dispatch(&self.internal_nodes, groups(ru, rv));
        dispatch(&self.normals, groups(ru, rv));
    }

    /// Records a copy of `nodes` key positions (`vec4<f32>`, a `COPY_SRC` buffer: the GPU
    /// simulation's) over cloth `k`'s uploaded ones, to go before [`Self::encode`]: the cloth
    /// is then upsampled from the device's nodes, nothing read back. Returns false (nothing
    /// recorded) when cloth `k` does not have `nodes` key nodes or the source is too short.
    pub(crate) fn copy_keys(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        k: usize,
        source: &wgpu::Buffer,
        nodes: u32,
    ) -> bool {
        let (Some(params), Some(buffers)) = (self.params.get(k), self.buffers.as_ref()) else {
            return false;
        };
        let Some(bases) = buffers.bases.get(k) else {
            return false;
        };
        let bytes = u64::from(nodes) * NODE_SIZE;
        if params.key_count[0] * params.key_count[1] != nodes || source.size() < bytes {
            return false;
        }
        let to = u64::from(bases.key) * NODE_SIZE;
        encoder.copy_buffer_to_buffer(source, 0, &buffers.key_positions, to, bytes);
        true
    }

    /// The key positions buffer (`vec4<f32>` a node) and cloth `k`'s first node in it, as
    /// the last upload placed them.
    pub(crate) fn key_nodes(&self, k: usize) -> Option<(&wgpu::Buffer, u32)> {
        let buffers = self.buffers.as_ref()?;
        Some((&buffers.key_positions, buffers.bases.get(k)?.key))
    }

    /// How many cloths the last upload holds.
    pub fn cloth_count(&self) -> usize {
        self.params.len()
    }

    /// Where cloth `k` of the last upload lies in the output buffers; `None` past the last.
    pub fn placement(&self, k: usize) -> Option<Placement> {
        let (params, buffers) = (self.params.get(k)?, self.buffers.as_ref()?);
        Some(Placement {
            resolution: params.resolution,
            first_node: buffers.bases.get(k)?.render,
        })
    }

    /// The render positions of every cloth, `array<vec4<f32>>` (w = 1), cloth `k`'s node
    /// `(r, s)` at `placement(k).first_node + s * R_u + r` (the first's from 0).
    /// Usage `STORAGE | COPY_SRC | VERTEX`. `None` before the first upload.
    pub fn render_positions_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers.as_ref().map(|b| &b.render_positions)
    }

    /// The unit render normals, `array<vec4<f32>>` (w = 0), same layout and usage.
    pub(crate) fn render_normals_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers.as_ref().map(|b| &b.render_normals)
    }

    /// `[R_u, R_v]` of the first cloth of the last upload.
    pub fn resolution(&self) -> Option<[u32; 2]> {
        self.placement(0).map(|p| p.resolution)
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

    /// Copies the first cloth's output to the CPU (blocking) and waits for all submitted work
    /// before reading, so it sees the last submitted [`Self::encode`].
    pub fn read_back(&self, ctx: &GpuContext) -> Result<RenderMesh, GpuError> {
        self.read_back_cloth(ctx, 0)
    }

    /// [`Self::read_back`] of cloth `k` of the batch.
    pub fn read_back_cloth(&self, ctx: &GpuContext, k: usize) -> Result<RenderMesh, GpuError> {
        let buffers = self.buffers.as_ref().ok_or(GpuError::NotUploaded)?;
        let placement = self.placement(k).ok_or(GpuError::NotUploaded)?;
        let (offset, size) = placement.byte_range();
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
        let (positions, normals) = (&buffers.render_positions, &buffers.render_normals);
        encoder.copy_buffer_to_buffer(positions, offset, &positions_staging, 0, size);
        encoder.copy_buffer_to_buffer(normals, offset, &normals_staging, 0, size);
        ctx.queue.submit([encoder.finish()]);
        crate::render::device::gpu::validated(scope, "reading the render mesh back")?;
        let positions = read_vec4_buffer(ctx, &positions_staging)?;
        let normals = read_vec4_buffer(ctx, &normals_staging)?;
        Ok(RenderMesh {
            resolution: placement.resolution,
            positions,
            normals,
        })
    }
}

/// Maps a `MAP_READ` buffer of `vec4<f32>`, waits, and returns the xyz parts.
fn read_vec4_buffer(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<Vec3>, GpuError> {
    crate::render::device::gpu::map_for_reading(&ctx.device, buffer).map_err(GpuError::ReadBack)?;
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
