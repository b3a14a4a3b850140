//! The cloth pass: draws the render mesh of the flag (`shaders/cloth.wgsl`), its nodes read
//! the way the device's [`RenderPath`] gives them: on the compute path straight from the
//! upsample pass's storage buffers (vertex pulling, `shaders/cloth_storage.wgsl`); on the
//! CPU-upsampling path (WebGL2: no compute, no storage) from a vertex buffer each flag's slot
//! fills with the CPU upsampler's mesh every frame (`shaders/cloth_vertices.wgsl`). Both share
//! the fragment shaders, the index buffers and the bindings but the node buffers.
//!
//! Long-lived: pipelines, the flag texture and sampler are made once. Per frame [`ClothPass::prepare`]
//! writes one small uniform block (and on the CPU-upsampling path the nodes), rebuilds the
//! triangle/line index buffers only when the render resolution changes and the bind group only
//! when a different node buffer is handed in; then [`ClothPass::draw`] records two draw calls at
//! most (surface, optional wireframe).
//!
//! Input contract: `R_u × R_v` render nodes, node `s * R_u + r`: positions in metres, unit
//! normals oriented as ∂S/∂u × ∂S/∂v, an optional per-node strain ([`ClothNodes`]). Texture
//! coordinates are `(r / (R_u − 1), s / (R_v − 1))`, with `(0, 0)` the top-left texel of the
//! image unless [`ClothStyle::flip_texture_v`].

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use serde::{Deserialize, Serialize};
use wgpu::util::DeviceExt;

use crate::render::camera::globals::srgb_to_linear;
use crate::render::device::error::RenderError;
use crate::render::device::path::RenderPath;
use crate::render::device::shaders::{CLOTH_PRELUDE, CLOTH_STORAGE_WGSL, CLOTH_VERTICES_WGSL};
use crate::render::device::targets::TargetFormats;
use crate::render::passes::flag_texture::{self, GpuTexture};
use crate::render::passes::fullscreen;
use crate::sim::format::outline::FlagShape;

/// The complete WGSL of this pass on `path` (globals, cloth, the path's vertices), as compiled.
pub fn shader_source(path: RenderPath) -> String {
    let vertices = match path {
        RenderPath::Compute => CLOTH_STORAGE_WGSL,
        RenderPath::CpuUpsampling => CLOTH_VERTICES_WGSL,
    };
    format!("{CLOTH_PRELUDE}\n{vertices}")
}

/// What colours the cloth surface. Values match `COLOR_MODE_*` in `shaders/cloth.wgsl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColorMode {
    /// The flag texture (default).
    #[default]
    Texture,
    /// Key, frame and internal render nodes as dots of three colours (paper Fig. 2).
    NodeType,
    /// Per-render-node strain, blue (compressed) → white → red (stretched).
    Strain,
    /// The wavelet interpolation's split (Chi 2007 Fig. 6.5): around each key node, yellow where
    /// the last step interpolated it, red where it was integrated.
    Integration,
}

impl ColorMode {
    pub const ALL: [ColorMode; 4] = [
        ColorMode::Texture,
        ColorMode::NodeType,
        ColorMode::Strain,
        ColorMode::Integration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ColorMode::Texture => "texture",
            ColorMode::NodeType => "node-type",
            ColorMode::Strain => "strain",
            ColorMode::Integration => "integration",
        }
    }

    fn gpu_value(self) -> u32 {
        match self {
            ColorMode::Texture => 0,
            ColorMode::NodeType => 1,
            ColorMode::Strain => 2,
            ColorMode::Integration => 3,
        }
    }
}

/// How the cloth looks. Colours are sRGB 0..1 as a colour picker shows them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClothStyle {
    /// Surface colouring. Default [`ColorMode::Texture`].
    pub color_mode: ColorMode,
    /// Strain values drawn fully blue and fully red (dimensionless, `|d| / l0 − 1`); the midpoint
    /// is white. Default `[-0.1, 0.1]`.
    pub strain_range: [f32; 2],
    /// Highlight strength, 0..1. Default 0.12 (cloth is mostly matte).
    pub specular: f32,
    /// Highlight exponent, 1..256. Default 24.
    pub shininess: f32,
    /// Brightening at grazing angles (fibre sheen), 0..1. Default 0.25.
    pub sheen: f32,
    /// Fraction of the sun seen through the cloth from its unlit side, 0..1. Default 0.3.
    pub translucency: f32,
    /// Key, frame and internal node colours for [`ColorMode::NodeType`].
    pub node_colors: [[f32; 3]; 3],
    /// Render-mesh wireframe over the surface, sRGB + alpha; `None` draws none. Default `None`.
    pub wireframe: Option<[f32; 4]>,
    /// Sample the texture at `v' = 1 − v`, for a grid whose `s = 0` row is the flag's bottom edge.
    /// Default `false` (`s = 0` is the image's top row).
    pub flip_texture_v: bool,
    /// The flag's outline: the surface is drawn only inside it, `u` along the render grid's
    /// `r` and `v` along `s`. Default the rectangle (everything).
    pub outline: FlagShape,
}

impl Default for ClothStyle {
    fn default() -> Self {
        Self {
            color_mode: ColorMode::Texture,
            strain_range: [-0.1, 0.1],
            specular: 0.12,
            shininess: 24.0,
            sheen: 0.25,
            translucency: 0.3,
            node_colors: [[0.86, 0.16, 0.12], [0.12, 0.42, 0.86], [0.98, 0.82, 0.20]],
            wireframe: None,
            flip_texture_v: false,
            outline: FlagShape::Rectangle,
        }
    }
}

/// One frame's cloth: its render nodes and how to draw them.
#[derive(Debug, Clone, Copy)]
pub struct ClothFrame<'a> {
    /// `[R_u, R_v]` render nodes, each ≥ 2.
    pub resolution: [u32; 2],
    /// `[nx, ny]` key nodes (for node-type colouring), each ≥ 2.
    pub key_grid: [u32; 2],
    /// The render nodes, as the renderer's [`RenderPath`] reads them.
    pub nodes: ClothNodes<'a>,
    pub style: ClothStyle,
    /// A world box `[min, max]` (m) the drawn surface stays inside, where known: where the view
    /// may have the cloth's edges (`render::drawing::edges`). `None`: anywhere.
    pub bounds: Option<[glam::Vec3; 2]>,
}

/// A cloth's `R_u × R_v` render nodes, node `(r, s)` at `s * R_u + r`.
#[derive(Debug, Clone, Copy)]
pub enum ClothNodes<'a> {
    /// The upsample pass's output buffers ([`RenderPath::Compute`]).
    Buffers {
        /// `R_u·R_v` × `vec4<f32>` positions (m) from node `first_node` on, usage `STORAGE`.
        positions: &'a wgpu::Buffer,
        /// `R_u·R_v` × `vec4<f32>` unit normals from node `first_node` on, usage `STORAGE`.
        normals: &'a wgpu::Buffer,
        /// Where this cloth's nodes start in `positions` and `normals` (several flags
        /// upsampled in one batch share the buffers); a multiple of 16 (256 bytes, what a
        /// binding's offset may need).
        first_node: u32,
        /// Optional `R_u·R_v` × `f32` strain, usage `STORAGE`; without it strain reads as 0.
        strain: Option<&'a wgpu::Buffer>,
    },
    /// The CPU upsampler's mesh ([`RenderPath::CpuUpsampling`]), uploaded by the pass.
    Mesh {
        /// `R_u·R_v` positions (m).
        positions: &'a [Vec3],
        /// `R_u·R_v` unit normals.
        normals: &'a [Vec3],
        /// Per-node strain; a node past its end reads 0, as without it.
        strain: Option<&'a [f32]>,
    },
}

/// One node of the CPU-upsampling path's vertex buffer. Keep in sync with `struct NodeVertex`
/// in `shaders/cloth_vertices.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct NodeVertex {
    /// Position (m) and, in w, the node's strain.
    position_strain: [f32; 4],
    /// Unit normal, w unused.
    normal: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<NodeVertex>() == 32);

/// The vertex buffer layout of [`NodeVertex`].
const NODE_VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4];

/// GPU mirror of `struct ClothUniforms` in `shaders/cloth.wgsl`.
/// Keep in sync with shaders/cloth.wgsl (field order, padding, size 128 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct ClothUniforms {
    pub resolution: [u32; 2],
    pub key_grid: [u32; 2],
    pub color_mode: u32,
    pub flip_v: u32,
    /// The flag's outline ([`FlagShape::gpu`]): 0 rectangle, 1 swallowtail, 2 pennant,
    /// 3 burgee.
    pub outline: u32,
    pub _pad0: u32,
    pub strain_range: [f32; 2],
    pub specular: f32,
    pub shininess: f32,
    pub sheen: f32,
    pub translucency: f32,
    /// The outline's notch, a share of the width.
    pub notch: f32,
    pub _pad1: f32,
    /// Linear rgb + alpha.
    pub wire_color: [f32; 4],
    /// Key, frame, internal; linear rgb, w unused.
    pub node_colors: [[f32; 4]; 3],
}

const _: () = assert!(std::mem::size_of::<ClothUniforms>() == 128);

impl ClothUniforms {
    pub(crate) fn new(frame: &ClothFrame<'_>) -> Self {
        let style = &frame.style;
        let linear = |c: [f32; 3], a: f32| {
            [
                srgb_to_linear(c[0]),
                srgb_to_linear(c[1]),
                srgb_to_linear(c[2]),
                a,
            ]
        };
        let wire = style.wireframe.unwrap_or([0.0; 4]);
        let (outline, notch) = style.outline.gpu();
        Self {
            resolution: frame.resolution,
            key_grid: frame.key_grid,
            color_mode: style.color_mode.gpu_value(),
            flip_v: u32::from(style.flip_texture_v),
            outline,
            _pad0: 0,
            strain_range: style.strain_range,
            specular: style.specular.clamp(0.0, 1.0),
            shininess: style.shininess.clamp(1.0, 256.0),
            sheen: style.sheen.clamp(0.0, 1.0),
            translucency: style.translucency.clamp(0.0, 1.0),
            notch,
            _pad1: 0.0,
            wire_color: linear([wire[0], wire[1], wire[2]], wire[3]),
            node_colors: style.node_colors.map(|c| linear(c, 1.0)),
        }
    }
}

/// Triangle and line index buffers of an `R_u × R_v` grid.
#[derive(Debug)]
struct GridIndices {
    resolution: [u32; 2],
    triangles: wgpu::Buffer,
    triangle_index_count: u32,
    lines: wgpu::Buffer,
    line_index_count: u32,
}

/// Triangle indices of an `R_u × R_v` node grid: two triangles per cell, each counter-clockwise
/// seen from the side ∂S/∂u × ∂S/∂v points to. `(R_u − 1)(R_v − 1) · 6` indices.
pub(crate) fn grid_triangle_indices(resolution: [u32; 2]) -> Vec<u32> {
    let [ru, rv] = resolution;
    let mut out = Vec::with_capacity(6 * (ru.saturating_sub(1) * rv.saturating_sub(1)) as usize);
    for s in 0..rv.saturating_sub(1) {
        for r in 0..ru.saturating_sub(1) {
            let i00 = s * ru + r;
            let (i10, i01, i11) = (i00 + 1, i00 + ru, i00 + ru + 1);
            out.extend_from_slice(&[i00, i10, i11, i00, i11, i01]);
        }
    }
    out
}

/// Line-list indices of every grid edge along u and along v.
pub(crate) fn grid_line_indices(resolution: [u32; 2]) -> Vec<u32> {
    let [ru, rv] = resolution;
    let mut out = Vec::new();
    for s in 0..rv {
        for r in 0..ru {
            let i = s * ru + r;
            if r + 1 < ru {
                out.extend_from_slice(&[i, i + 1]);
            }
            if s + 1 < rv {
                out.extend_from_slice(&[i, i + ru]);
            }
        }
    }
    out
}

/// Buffers the bind group was made from on the compute path; a different buffer means a new
/// bind group.
#[derive(Debug, PartialEq)]
struct BoundBuffers {
    positions: wgpu::Buffer,
    normals: wgpu::Buffer,
    /// The bound part of both, bytes: offset and size.
    range: (u64, u64),
    strain: Option<wgpu::Buffer>,
}

/// One flag's part of the pass: its uniforms, its image, its index and bind groups, and on
/// the CPU-upsampling path its nodes.
#[derive(Debug)]
struct ClothSlot {
    uniforms: wgpu::Buffer,
    /// The flag's own image; `None` draws the built-in flag.
    texture: Option<GpuTexture>,
    indices: Option<GridIndices>,
    /// The bind group and the node buffers in it (`None`: none, the CPU-upsampling path).
    bind_group: Option<(Option<BoundBuffers>, wgpu::BindGroup)>,
    /// Whether the last `prepare` asked for a wireframe.
    wireframe: bool,
    /// The CPU-upsampling path's vertex buffer ([`NodeVertex`] a node; re-made when the node
    /// count changes) and the nodes written into it (kept between frames).
    vertices: Option<wgpu::Buffer>,
    staged: Vec<NodeVertex>,
}

impl ClothSlot {
    fn new(device: &wgpu::Device) -> Self {
        Self {
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cloth uniform buffer"),
                size: std::mem::size_of::<ClothUniforms>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            texture: None,
            indices: None,
            bind_group: None,
            wireframe: false,
            vertices: None,
            staged: Vec::new(),
        }
    }

    /// Writes the CPU-upsampled nodes into the slot's vertex buffer.
    fn upload_mesh(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        positions: &[Vec3],
        normals: &[Vec3],
        strain: &[f32],
    ) {
        self.staged.clear();
        self.staged.extend(
            positions
                .iter()
                .zip(normals)
                .enumerate()
                .map(|(k, (p, n))| NodeVertex {
                    position_strain: p.extend(strain.get(k).copied().unwrap_or(0.0)).to_array(),
                    normal: n.extend(0.0).to_array(),
                }),
        );
        let bytes: &[u8] = bytemuck::cast_slice(&self.staged);
        let size = bytes.len() as u64;
        if self.vertices.as_ref().is_none_or(|b| b.size() != size) {
            self.vertices = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cloth node vertex buffer"),
                size,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(vertices) = &self.vertices {
            queue.write_buffer(vertices, 0, bytes);
        }
    }
}

/// The long-lived cloth pass: one slot per flag (slot 0 the first), each drawn with the same
/// pipelines.
#[derive(Debug)]
pub(crate) struct ClothPass {
    /// How the nodes come: storage buffers, or a mesh this pass uploads.
    path: RenderPath,
    surface_pipeline: wgpu::RenderPipeline,
    wire_pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    /// The built-in flag, which a slot without an image of its own draws.
    default_texture: GpuTexture,
    sampler: wgpu::Sampler,
    /// Bound as `render_strain` when the frame has no strain buffer (4 bytes, reads as 0); the
    /// compute path's only.
    no_strain: Option<wgpu::Buffer>,
    slots: Vec<ClothSlot>,
    /// How many slots the present frame draws (those prepared since [`ClothPass::begin`]).
    drawn: usize,
}

impl ClothPass {
    /// Builds pipelines for `targets` reading the nodes as `path` gives them, and uploads the
    /// built-in flag texture. The CPU-upsampling path binds no storage buffer.
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        globals_layout: &wgpu::BindGroupLayout,
        targets: &TargetFormats,
        anisotropy: u16,
        path: RenderPath,
    ) -> Result<Self, RenderError> {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cloth bind group layout"),
            entries: &bind_group_layout_entries(path),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("cloth pipeline layout"),
            bind_group_layouts: &[Some(globals_layout), Some(&layout)],
            immediate_size: 0,
        });
        let source = shader_source(path);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("cloth.wgsl"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let node_vertices = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<NodeVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &NODE_VERTEX_ATTRIBUTES,
        })];
        let vertex_buffers: &[Option<wgpu::VertexBufferLayout<'_>>] = match path {
            RenderPath::Compute => &[],
            RenderPath::CpuUpsampling => &node_vertices,
        };
        let pipeline = |label, vs, fs, topology, blend, depth_write| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: vertex_buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    front_face: wgpu::FrontFace::Ccw,
                    // Two-sided: both faces are drawn, the shader flips the normal for the back.
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(targets.depth_state(depth_write)),
                multisample: targets.multisample(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: targets.color,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let surface_pipeline = pipeline(
            "cloth surface pipeline",
            "vs_cloth",
            "fs_cloth",
            wgpu::PrimitiveTopology::TriangleList,
            None,
            true,
        );
        let wire_pipeline = pipeline(
            "cloth wireframe pipeline",
            "vs_wire",
            "fs_wire",
            wgpu::PrimitiveTopology::LineList,
            Some(wgpu::BlendState::ALPHA_BLENDING),
            false,
        );
        let default_texture = flag_texture::upload_rgba(
            device,
            queue,
            &flag_texture::default_flag_image()?,
            "flag texture",
        )?;
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("flag sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            anisotropy_clamp: anisotropy,
            ..Default::default()
        });
        let no_strain = path.upsamples_on_gpu().then(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("cloth placeholder strain buffer"),
                contents: bytemuck::bytes_of(&0.0f32),
                usage: wgpu::BufferUsages::STORAGE,
            })
        });
        Ok(Self {
            path,
            surface_pipeline,
            wire_pipeline,
            layout,
            default_texture,
            sampler,
            no_strain,
            slots: vec![ClothSlot::new(device)],
            drawn: 0,
        })
    }

    fn slot_mut(&mut self, device: &wgpu::Device, flag: usize) -> &mut ClothSlot {
        while self.slots.len() <= flag {
            self.slots.push(ClothSlot::new(device));
        }
        &mut self.slots[flag]
    }

    /// Replaces flag `flag`'s texture (0 is the first) by `image` (sRGB RGBA8, at most the
    /// device's texture size a side: [`flag_texture::fit_for_gpu`]), or by the built-in flag
    /// for `None`; on an error the current texture stays.
    pub(crate) fn set_texture(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        flag: usize,
        image: Option<&image::RgbaImage>,
    ) -> Result<(), RenderError> {
        let texture = match image {
            Some(image) => Some(flag_texture::upload_rgba(
                device,
                queue,
                image,
                "flag texture",
            )?),
            None => None,
        };
        let slot = self.slot_mut(device, flag);
        slot.texture = texture;
        // The bind group holds the old view: the next prepare makes a new one.
        slot.bind_group = None;
        Ok(())
    }

    /// Starts a frame: no cloth is drawn until [`ClothPass::prepare`] adds it.
    pub(crate) fn begin(&mut self) {
        self.drawn = 0;
    }

    /// Checks the frame's nodes against its resolution and the pass's path, then uploads what
    /// changed, for the next flag of the frame (the first after [`ClothPass::begin`] is flag 0,
    /// and so on).
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &ClothFrame<'_>,
    ) -> Result<(), RenderError> {
        let [ru, rv] = frame.resolution;
        let nodes = u64::from(ru) * u64::from(rv);
        if ru < 2 || rv < 2 || nodes > u64::from(u32::MAX) {
            return Err(RenderError::Resolution(frame.resolution));
        }
        if frame.key_grid[0] < 2 || frame.key_grid[1] < 2 {
            return Err(RenderError::KeyGrid(frame.key_grid));
        }
        let wanted = match (self.path, frame.nodes) {
            (
                RenderPath::Compute,
                ClothNodes::Buffers {
                    positions,
                    normals,
                    first_node,
                    strain,
                },
            ) => {
                let first = u64::from(first_node);
                if first % 16 != 0 {
                    return Err(RenderError::FirstNode(first_node));
                }
                check_node_buffer("render_positions", positions, (first + nodes) * 16)?;
                check_node_buffer("render_normals", normals, (first + nodes) * 16)?;
                if let Some(strain) = strain {
                    check_node_buffer("render_strain", strain, nodes * 4)?;
                }
                Some(BoundBuffers {
                    positions: positions.clone(),
                    normals: normals.clone(),
                    range: (first * 16, nodes * 16),
                    strain: strain.cloned(),
                })
            }
            (
                RenderPath::CpuUpsampling,
                ClothNodes::Mesh {
                    positions, normals, ..
                },
            ) if positions.len() as u64 != nodes || normals.len() as u64 != nodes => {
                return Err(RenderError::NodeCount {
                    nodes,
                    positions: positions.len(),
                    normals: normals.len(),
                });
            }
            (RenderPath::CpuUpsampling, ClothNodes::Mesh { .. }) => None,
            (path, _) => return Err(RenderError::NodesForPath(path)),
        };

        let flag = self.drawn;
        self.slot_mut(device, flag);
        let slot = &mut self.slots[flag];
        if slot
            .indices
            .as_ref()
            .is_none_or(|m| m.resolution != frame.resolution)
        {
            slot.indices = Some(build_indices(device, frame.resolution));
        }
        if let ClothNodes::Mesh {
            positions,
            normals,
            strain,
        } = frame.nodes
        {
            slot.upload_mesh(device, queue, positions, normals, strain.unwrap_or(&[]));
        }
        let slot = &self.slots[flag];
        if slot
            .bind_group
            .as_ref()
            .is_none_or(|(bound, _)| *bound != wanted)
        {
            let texture = slot.texture.as_ref().unwrap_or(&self.default_texture);
            let bind_group = self.bind_group(device, &slot.uniforms, wanted.as_ref(), texture);
            self.slots[flag].bind_group = Some((wanted, bind_group));
        }
        let slot = &mut self.slots[flag];
        queue.write_buffer(
            &slot.uniforms,
            0,
            bytemuck::bytes_of(&ClothUniforms::new(frame)),
        );
        slot.wireframe = frame.style.wireframe.is_some();
        self.drawn = flag + 1;
        Ok(())
    }

    /// A slot's bind group: its uniforms, the node buffers on the compute path (`nodes`, the
    /// placeholder strain where it has none), the flag's texture and the sampler.
    fn bind_group(
        &self,
        device: &wgpu::Device,
        uniforms: &wgpu::Buffer,
        nodes: Option<&BoundBuffers>,
        texture: &GpuTexture,
    ) -> wgpu::BindGroup {
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniforms.as_entire_binding(),
        }];
        if let Some(nodes) = nodes {
            let (offset, size) = nodes.range;
            let part = |buffer| {
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: wgpu::BufferSize::new(size),
                })
            };
            let strain = nodes.strain.as_ref().or(self.no_strain.as_ref());
            entries.push(wgpu::BindGroupEntry {
                binding: 1,
                resource: part(&nodes.positions),
            });
            entries.push(wgpu::BindGroupEntry {
                binding: 2,
                resource: part(&nodes.normals),
            });
            if let Some(strain) = strain {
                entries.push(wgpu::BindGroupEntry {
                    binding: 3,
                    resource: strain.as_entire_binding(),
                });
            }
        }
        entries.push(wgpu::BindGroupEntry {
            binding: 4,
            resource: wgpu::BindingResource::TextureView(&texture.view),
        });
        entries.push(wgpu::BindGroupEntry {
            binding: 5,
            resource: wgpu::BindingResource::Sampler(&self.sampler),
        });
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cloth bind group"),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// Records each prepared flag's surface and, if asked for, its wireframe.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, globals: &wgpu::BindGroup) {
        pass.set_bind_group(0, globals, &[]);
        for slot in &self.slots[..self.drawn] {
            let (Some(indices), Some((_, bind_group))) = (&slot.indices, &slot.bind_group) else {
                continue;
            };
            if self.path == RenderPath::CpuUpsampling {
                let Some(vertices) = &slot.vertices else {
                    continue;
                };
                pass.set_vertex_buffer(0, vertices.slice(..));
            }
            pass.set_bind_group(1, bind_group, &[]);
            pass.set_pipeline(&self.surface_pipeline);
            pass.set_index_buffer(indices.triangles.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..indices.triangle_index_count, 0, 0..1);
            if slot.wireframe {
                pass.set_pipeline(&self.wire_pipeline);
                pass.set_index_buffer(indices.lines.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..indices.line_index_count, 0, 0..1);
            }
        }
    }
}

/// The cloth's bind group layout on `path`: the uniforms (0), on the compute path the node
/// storage buffers (1 positions, 2 normals, 3 strain), the flag's texture (4) and sampler (5).
pub(crate) fn bind_group_layout_entries(path: RenderPath) -> Vec<wgpu::BindGroupLayoutEntry> {
    let storage = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let [texture, sampler] = fullscreen::sampled_texture_entries(4, 5);
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<ClothUniforms>() as u64),
        },
        count: None,
    }];
    if path.upsamples_on_gpu() {
        entries.extend([storage(1), storage(2), storage(3)]);
    }
    entries.extend([texture, sampler]);
    entries
}

fn check_node_buffer(
    name: &'static str,
    buffer: &wgpu::Buffer,
    needed: u64,
) -> Result<(), RenderError> {
    let usage = buffer.usage();
    if buffer.size() < needed || !usage.contains(wgpu::BufferUsages::STORAGE) {
        return Err(RenderError::NodeBuffer {
            name,
            needed,
            actual: buffer.size(),
            usage,
        });
    }
    Ok(())
}

fn build_indices(device: &wgpu::Device, resolution: [u32; 2]) -> GridIndices {
    let triangles = grid_triangle_indices(resolution);
    let lines = grid_line_indices(resolution);
    let buffer = |label, data: &[u32]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::INDEX,
        })
    };
    GridIndices {
        resolution,
        triangles: buffer("cloth triangle index buffer", &triangles),
        triangle_index_count: triangles.len() as u32,
        lines: buffer("cloth wireframe index buffer", &lines),
        line_index_count: lines.len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_compute_path_binds_storage_buffers() {
        let storage = |path| {
            bind_group_layout_entries(path)
                .iter()
                .filter(|e| {
                    matches!(
                        e.ty,
                        wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { .. },
                            ..
                        } | wgpu::BindingType::StorageTexture { .. }
                    )
                })
                .map(|e| e.binding)
                .collect::<Vec<_>>()
        };
        assert!(storage(RenderPath::CpuUpsampling).is_empty());
        // The three node buffers of `shaders/cloth_storage.wgsl`.
        assert_eq!(storage(RenderPath::Compute), [1, 2, 3]);
        // Both bind the uniforms, the texture and the sampler at the same numbers.
        let numbers = |path| {
            let mut n: Vec<u32> = bind_group_layout_entries(path)
                .iter()
                .map(|e| e.binding)
                .collect();
            n.retain(|b| ![1, 2, 3].contains(b));
            n
        };
        assert_eq!(numbers(RenderPath::CpuUpsampling), [0, 4, 5]);
        assert_eq!(numbers(RenderPath::Compute), [0, 4, 5]);
    }

    #[test]
    fn grid_has_two_triangles_per_cell_and_every_edge_once() {
        let res = [4, 3];
        assert_eq!(grid_triangle_indices(res).len(), 3 * 2 * 2 * 3);
        // (R_u − 1) R_v edges along u plus R_u (R_v − 1) along v.
        assert_eq!(grid_line_indices(res).len(), 2 * (3 * 3 + 4 * 2));
    }

    #[test]
    fn triangles_wind_counter_clockwise_seen_from_du_cross_dv() {
        // Grid in the xy plane with u along +x and v along +y: ∂S/∂u × ∂S/∂v = +z.
        let res = [3, 3];
        let pos = |i: u32| glam::Vec3::new((i % 3) as f32, (i / 3) as f32, 0.0);
        for tri in grid_triangle_indices(res).chunks(3) {
            let (a, b, c) = (pos(tri[0]), pos(tri[1]), pos(tri[2]));
            assert!(
                (b - a).cross(c - a).z > 0.0,
                "triangle {tri:?} is clockwise"
            );
        }
    }
}
