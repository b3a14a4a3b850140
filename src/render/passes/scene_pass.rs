//! The scene pass: what surrounds the cloth (`shaders/scene.wgsl`).
//!
//! - a sky gradient (one full-screen triangle, drawn last where nothing else is, no depth
//!   write), or a background image in its place, scaled to cover the view,
//! - an optional ground plane: a large checkered square that follows the eye and fades into the
//!   horizon colour, so it never shows an edge or aliases,
//! - lit meshes, instanced from three unit shapes made once: a capped cylinder (the flag pole), a
//!   sphere (sphere colliders and the ball finial) and a cone (the spear finial).
//!
//! Per frame only the uniform block and the instance buffer are written; the instance buffer
//! grows to the next power of two when needed.

use std::f32::consts::{FRAC_1_SQRT_2, PI, TAU};

use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};
use wgpu::util::DeviceExt;

use crate::render::camera::globals::{UniformBinding, srgb_to_linear, with_globals};
use crate::render::device::error::RenderError;
use crate::render::device::targets::TargetFormats;
use crate::render::passes::flag_texture::{self, GpuTexture};
use crate::render::passes::fullscreen;
use crate::sim::format::setting::{Finial, Setting};

pub(crate) use crate::render::device::shaders::SCENE_WGSL;

/// The complete WGSL of this pass (globals + scene), as compiled.
pub fn shader_source() -> String {
    with_globals(SCENE_WGSL)
}

/// A vertical (or any) flag pole: a capped cylinder from `base` to `top` with a ball on top.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pole {
    /// Centre of the bottom cap (m).
    pub base: Vec3,
    /// Centre of the top cap (m).
    pub top: Vec3,
    /// Radius (m), > 0.
    pub radius: f32,
}

/// The ball finial's radius, in pole radii.
pub(crate) const BALL_RADII: f32 = 1.6;
/// The spear finial: a cone this many pole radii tall, on a base this many pole radii wide.
pub(crate) const SPEAR_RADII: [f32; 2] = [6.0, 1.3];

impl Pole {
    /// Where `finial`'s unit mesh goes on top of the pole: the unit sphere ([`unit_sphere`])
    /// scaled to [`BALL_RADII`] on the top, or the unit cone ([`unit_cone`]) standing on it
    /// along the pole's axis; `None` for no finial.
    pub(crate) fn finial_model(&self, finial: Finial) -> Option<Mat4> {
        let along = (self.top - self.base).normalize_or(Vec3::Y);
        match finial {
            Finial::Ball => Some(Mat4::from_scale_rotation_translation(
                Vec3::splat(BALL_RADII * self.radius),
                Quat::IDENTITY,
                self.top,
            )),
            Finial::Spear => {
                let [tall, wide] = SPEAR_RADII.map(|r| r * self.radius);
                Some(Mat4::from_scale_rotation_translation(
                    Vec3::new(wide, tall, wide),
                    Quat::from_rotation_arc(Vec3::Y, along),
                    self.top,
                ))
            }
            Finial::None => None,
        }
    }

    /// A box around the pole with any finial: its axis reaching [`SPEAR_RADII`]`[0]` radii past
    /// the top, grown by [`BALL_RADII`] radii on every side.
    pub(crate) fn reach(&self) -> [Vec3; 2] {
        let along = (self.top - self.base).normalize_or(Vec3::Y);
        let tip = self.top + along * (SPEAR_RADII[0] * self.radius);
        let grow = Vec3::splat(BALL_RADII.max(SPEAR_RADII[1]) * self.radius);
        [
            self.base.min(tip).min(self.top) - grow,
            self.base.max(tip).max(self.top) + grow,
        ]
    }
}

/// A sphere collider as drawn (m).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
}

/// Colours (sRGB 0..1) and sizes of the surroundings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SceneStyle {
    pub sky_zenith: [f32; 3],
    pub sky_horizon: [f32; 3],
    /// The two checker colours of the ground.
    pub ground_colors: [[f32; 3]; 2],
    /// Side of one checker square (m). Default 0.5.
    pub checker_size: f32,
    /// Half the side of the ground square around the eye (m). Default 60.
    pub ground_half_size: f32,
    /// Distance at which the ground has faded into the horizon (m). Default 40.
    pub fog_distance: f32,
    pub pole_color: [f32; 3],
    pub finial: Finial,
    pub finial_color: [f32; 3],
    pub sphere_color: [f32; 3],
}

impl Default for SceneStyle {
    fn default() -> Self {
        Self::from_setting(&Setting::default())
    }
}

impl SceneStyle {
    /// The surroundings a scene's [`Setting`] asks for (whether the ground is drawn and the
    /// background image are the frame's and the pass's: [`SceneFrame::ground_height`],
    /// [`ScenePass::set_background`]).
    pub(crate) fn from_setting(setting: &Setting) -> Self {
        Self {
            sky_zenith: setting.sky.zenith.0,
            sky_horizon: setting.sky.horizon.0,
            ground_colors: [[0.55, 0.60, 0.50], [0.50, 0.55, 0.46]],
            checker_size: 0.5,
            ground_half_size: 60.0,
            fog_distance: 40.0,
            pole_color: setting.pole_color.0,
            finial: setting.finial,
            finial_color: setting.finial_color.0,
            sphere_color: [0.82, 0.40, 0.30],
        }
    }
}

/// Another flag's pole, with its own colours (sRGB 0..1) and finial.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StyledPole {
    pub pole: Pole,
    pub color: [f32; 3],
    pub finial: Finial,
    pub finial_color: [f32; 3],
}

/// One frame's surroundings.
#[derive(Debug, Clone, Copy, Default)]
pub struct SceneFrame<'a> {
    /// The first flag's pole, in the style's colours.
    pub pole: Option<Pole>,
    /// The other flags' poles in a scene of several, each in its own colours.
    pub more_poles: &'a [StyledPole],
    pub spheres: &'a [Sphere],
    /// Height of the ground plane (m); `None` draws no ground.
    pub ground_height: Option<f32>,
    pub style: SceneStyle,
}

/// GPU mirror of `struct SceneUniforms` in `shaders/scene.wgsl`.
/// Keep in sync with shaders/scene.wgsl (field order, size 96 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct SceneUniforms {
    pub sky_zenith: [f32; 4],
    pub sky_horizon: [f32; 4],
    pub ground_a: [f32; 4],
    pub ground_b: [f32; 4],
    pub ground_height: f32,
    pub ground_half_size: f32,
    pub checker_size: f32,
    pub fog_distance: f32,
    /// x: 1 draws the background image instead of the sky (set by the pass, which holds the
    /// image: [`ScenePass::set_background`]); y, z, w unused.
    pub background: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<SceneUniforms>() == 96);

fn linear4(c: [f32; 3], w: f32) -> [f32; 4] {
    [
        srgb_to_linear(c[0]),
        srgb_to_linear(c[1]),
        srgb_to_linear(c[2]),
        w,
    ]
}

impl SceneUniforms {
    pub(crate) fn new(frame: &SceneFrame<'_>) -> Self {
        let s = &frame.style;
        Self {
            sky_zenith: linear4(s.sky_zenith, 0.0),
            sky_horizon: linear4(s.sky_horizon, 0.0),
            ground_a: linear4(s.ground_colors[0], 0.0),
            ground_b: linear4(s.ground_colors[1], 0.0),
            ground_height: frame.ground_height.unwrap_or(0.0),
            ground_half_size: s.ground_half_size.max(0.0),
            checker_size: s.checker_size.max(1e-3),
            fog_distance: s.fog_distance.max(1e-3),
            background: [0.0; 4],
        }
    }
}

/// A vertex of the unit meshes. Keep in sync with `MeshIn` in shaders/scene.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct MeshVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

const _: () = assert!(std::mem::size_of::<MeshVertex>() == 24);

/// Per-instance data. Keep in sync with `InstanceIn` in shaders/scene.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct MeshInstance {
    /// Unit mesh → world, column-major.
    pub model: [[f32; 4]; 4],
    /// Inverse-transpose of the model's 3×3 part, columns padded to vec4.
    pub normal_matrix: [[f32; 4]; 3],
    /// Linear rgb, w = specular strength.
    pub color: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<MeshInstance>() == 128);

impl MeshInstance {
    pub(crate) fn new(model: Mat4, color: [f32; 4]) -> Self {
        let n = Mat3::from_mat4(model).inverse().transpose();
        let c = |v: Vec3| [v.x, v.y, v.z, 0.0];
        Self {
            model: model.to_cols_array_2d(),
            normal_matrix: [c(n.x_axis), c(n.y_axis), c(n.z_axis)],
            color,
        }
    }
}

/// Unit capped cylinder: radius 1, from y = 0 to y = 1, `segments` around.
pub(crate) fn unit_cylinder(segments: u32) -> (Vec<MeshVertex>, Vec<u32>) {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let n = segments.max(3);
    // Side: two rings with outward normals.
    for k in 0..=n {
        let a = TAU * k as f32 / n as f32;
        let (s, c) = a.sin_cos();
        for y in [0.0, 1.0] {
            vertices.push(MeshVertex {
                position: [c, y, s],
                normal: [c, 0.0, s],
            });
        }
    }
    for k in 0..n {
        let (b0, t0, b1, t1) = (2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3);
        indices.extend_from_slice(&[b0, t0, b1, b1, t0, t1]);
    }
    // Caps: a centre vertex and a ring with the cap's normal.
    for (y, ny) in [(0.0f32, -1.0f32), (1.0, 1.0)] {
        let centre = vertices.len() as u32;
        vertices.push(MeshVertex {
            position: [0.0, y, 0.0],
            normal: [0.0, ny, 0.0],
        });
        for k in 0..=n {
            let (s, c) = (TAU * k as f32 / n as f32).sin_cos();
            vertices.push(MeshVertex {
                position: [c, y, s],
                normal: [0.0, ny, 0.0],
            });
        }
        for k in 0..n {
            indices.extend_from_slice(&[centre, centre + 1 + k, centre + 2 + k]);
        }
    }
    (vertices, indices)
}

/// Unit cone: base radius 1 at y = 0 (capped), apex at y = 1, `segments` around. The side's
/// normals are those of the smooth cone (apex vertices one per segment, so each face's top
/// takes its own direction).
pub(crate) fn unit_cone(segments: u32) -> (Vec<MeshVertex>, Vec<u32>) {
    let n = segments.max(3);
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    // Height 1 over radius 1: the side's normal is (cos, 1, sin) / √2.
    let normal = |a: f32| {
        let (s, c) = a.sin_cos();
        [c * FRAC_1_SQRT_2, FRAC_1_SQRT_2, s * FRAC_1_SQRT_2]
    };
    for k in 0..=n {
        let a = TAU * k as f32 / n as f32;
        let (s, c) = a.sin_cos();
        vertices.push(MeshVertex {
            position: [c, 0.0, s],
            normal: normal(a),
        });
        vertices.push(MeshVertex {
            position: [0.0, 1.0, 0.0],
            normal: normal(a + 0.5 * TAU / n as f32),
        });
    }
    for k in 0..n {
        let (b0, apex, b1) = (2 * k, 2 * k + 1, 2 * k + 2);
        indices.extend_from_slice(&[b0, apex, b1]);
    }
    let centre = vertices.len() as u32;
    vertices.push(MeshVertex {
        position: [0.0, 0.0, 0.0],
        normal: [0.0, -1.0, 0.0],
    });
    for k in 0..=n {
        let (s, c) = (TAU * k as f32 / n as f32).sin_cos();
        vertices.push(MeshVertex {
            position: [c, 0.0, s],
            normal: [0.0, -1.0, 0.0],
        });
    }
    for k in 0..n {
        indices.extend_from_slice(&[centre, centre + 2 + k, centre + 1 + k]);
    }
    (vertices, indices)
}

/// Unit UV sphere: radius 1 at the origin, `rings` from pole to pole, `segments` around.
pub(crate) fn unit_sphere(segments: u32, rings: u32) -> (Vec<MeshVertex>, Vec<u32>) {
    let (n, m) = (segments.max(3), rings.max(2));
    let mut vertices = Vec::new();
    for j in 0..=m {
        let (st, ct) = (PI * j as f32 / m as f32).sin_cos();
        for k in 0..=n {
            let (sp, cp) = (TAU * k as f32 / n as f32).sin_cos();
            let p = [st * cp, ct, st * sp];
            vertices.push(MeshVertex {
                position: p,
                normal: p,
            });
        }
    }
    let mut indices = Vec::new();
    for j in 0..m {
        for k in 0..n {
            let a = j * (n + 1) + k;
            let b = a + n + 1;
            indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (vertices, indices)
}

/// A unit mesh uploaded once: where its indices start in the shared index buffer. Its indices
/// already count from the start of the shared vertex buffer, so it is drawn with a base vertex
/// of 0: WebGL2 has no base vertex (`DownlevelFlags::BASE_VERTEX`).
#[derive(Debug, Clone, Copy)]
struct MeshRange {
    first_index: u32,
    index_count: u32,
}

/// The long-lived scene pass.
#[derive(Debug)]
pub(crate) struct ScenePass {
    sky_pipeline: wgpu::RenderPipeline,
    ground_pipeline: wgpu::RenderPipeline,
    mesh_pipeline: wgpu::RenderPipeline,
    uniforms: UniformBinding<SceneUniforms>,
    mesh_vertices: wgpu::Buffer,
    mesh_indices: wgpu::Buffer,
    cylinder: MeshRange,
    sphere: MeshRange,
    cone: MeshRange,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    /// Instances to draw this frame: the cylinders first, then the spheres, then the cones.
    cylinder_count: u32,
    sphere_count: u32,
    cone_count: u32,
    draw_ground: bool,
    background: Background,
}

/// The background image (group 2 of the scene's shaders) and what tells it apart.
#[derive(Debug)]
struct Background {
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    bind_group: wgpu::BindGroup,
    /// Whether an image is set (the bind group otherwise holds a 1 × 1 placeholder).
    shown: bool,
    /// A new number for every image set or removed: frames drawn over another image differ.
    generation: u64,
}

impl Background {
    fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("background bind group layout"),
            entries: &fullscreen::sampled_texture_entries(0, 1),
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("background sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let placeholder = image::RgbaImage::from_pixel(1, 1, image::Rgba([0, 0, 0, 255]));
        let texture = flag_texture::upload_rgba(device, queue, &placeholder, "no background")
            .expect("a 1 × 1 texture fits every device");
        let bind_group = Self::bind_group(device, &layout, &sampler, &texture);
        Self {
            layout,
            sampler,
            bind_group,
            shown: false,
            generation: 0,
        }
    }

    fn bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        sampler: &wgpu::Sampler,
        texture: &GpuTexture,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("background bind group"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&texture.view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(sampler),
                },
            ],
        })
    }
}

impl ScenePass {
    const INITIAL_INSTANCES: usize = 16;

    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        globals_layout: &wgpu::BindGroupLayout,
        targets: &TargetFormats,
    ) -> Self {
        let uniforms = UniformBinding::<SceneUniforms>::new(device, "scene");
        let background = Background::new(device, queue);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("scene pipeline layout"),
            bind_group_layouts: &[
                Some(globals_layout),
                Some(&uniforms.layout),
                Some(&background.layout),
            ],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("scene.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let mesh_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let instance_attributes = wgpu::vertex_attr_array![
            2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Float32x4,
            6 => Float32x4, 7 => Float32x4, 8 => Float32x4, 9 => Float32x4
        ];
        let mesh_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<MeshVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &mesh_attributes,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<MeshInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &instance_attributes,
            }),
        ];
        let pipeline = |label,
                        vs,
                        fs,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        depth: wgpu::DepthStencilState| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(depth),
                multisample: targets.multisample(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(targets.color.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // The sky is drawn after everything opaque, at the far plane, only where nothing else
        // was drawn (depth still at its clear value): no pixel is shaded twice.
        let sky_depth = wgpu::DepthStencilState {
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            ..targets.depth_state(false)
        };
        let sky_pipeline = pipeline("sky pipeline", "vs_sky", "fs_sky", &[], sky_depth);
        let ground_pipeline = pipeline(
            "ground pipeline",
            "vs_ground",
            "fs_ground",
            &[],
            targets.depth_state(true),
        );
        let mesh_pipeline = pipeline(
            "scene mesh pipeline",
            "vs_mesh",
            "fs_mesh",
            &mesh_buffers,
            targets.depth_state(true),
        );

        let (mut vertices, mut indices) = unit_cylinder(40);
        let cylinder = MeshRange {
            first_index: 0,
            index_count: indices.len() as u32,
        };
        let (sphere_vertices, sphere_indices) = unit_sphere(48, 24);
        let sphere = MeshRange {
            first_index: indices.len() as u32,
            index_count: sphere_indices.len() as u32,
        };
        let base = vertices.len() as u32;
        vertices.extend(sphere_vertices);
        indices.extend(sphere_indices.iter().map(|i| i + base));
        let (cone_vertices, cone_indices) = unit_cone(32);
        let cone = MeshRange {
            first_index: indices.len() as u32,
            index_count: cone_indices.len() as u32,
        };
        let base = vertices.len() as u32;
        vertices.extend(cone_vertices);
        indices.extend(cone_indices.iter().map(|i| i + base));
        let mesh_vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("scene mesh vertex buffer"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let mesh_indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("scene mesh index buffer"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        Self {
            sky_pipeline,
            ground_pipeline,
            mesh_pipeline,
            uniforms,
            mesh_vertices,
            mesh_indices,
            cylinder,
            sphere,
            cone,
            instances: Self::instance_buffer(device, Self::INITIAL_INSTANCES),
            instance_capacity: Self::INITIAL_INSTANCES,
            cylinder_count: 0,
            sphere_count: 0,
            cone_count: 0,
            draw_ground: false,
            background,
        }
    }

    /// Draws `image` (sRGB RGBA, at most [`flag_texture::MAX_FLAG_SIDE`] a side is plenty)
    /// behind everything instead of the sky from now on, scaled to cover the view; `None`
    /// brings the sky back. On an error the current background stays.
    pub(crate) fn set_background(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: Option<&image::RgbaImage>,
    ) -> Result<(), RenderError> {
        let b = &mut self.background;
        if let Some(image) = image {
            let texture = flag_texture::upload_rgba(device, queue, image, "background")?;
            b.bind_group = Background::bind_group(device, &b.layout, &b.sampler, &texture);
            b.shown = true;
        } else {
            b.bind_group = Background::new(device, queue).bind_group;
            b.shown = false;
        }
        b.generation += 1;
        Ok(())
    }

    /// A number that changes whenever the background image does (for caches of the sky).
    pub(crate) fn background_generation(&self) -> u64 {
        self.background.generation
    }

    fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scene instance buffer"),
            size: (capacity * std::mem::size_of::<MeshInstance>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Uploads the uniforms and the pole/sphere instances of `frame`.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &SceneFrame<'_>,
    ) {
        self.uniforms.upload(queue, &self.uniforms_of(frame));
        self.draw_ground = frame.ground_height.is_some();

        let style = &frame.style;
        let mut cylinders = Vec::new();
        let mut spheres = Vec::new();
        let mut cones = Vec::new();
        let first = frame.pole.map(|pole| StyledPole {
            pole,
            color: style.pole_color,
            finial: style.finial,
            finial_color: style.finial_color,
        });
        for styled in first.iter().chain(frame.more_poles) {
            let pole = styled.pole;
            let axis = pole.top - pole.base;
            let length = axis.length();
            if length > 0.0 && pole.radius > 0.0 {
                let rotation = Quat::from_rotation_arc(Vec3::Y, axis / length);
                let model = Mat4::from_scale_rotation_translation(
                    Vec3::new(pole.radius, length, pole.radius),
                    rotation,
                    pole.base,
                );
                cylinders.push(MeshInstance::new(model, linear4(styled.color, 0.5)));
                let color = linear4(styled.finial_color, 0.6);
                if let Some(model) = pole.finial_model(styled.finial) {
                    match styled.finial {
                        Finial::Ball => spheres.push(MeshInstance::new(model, color)),
                        Finial::Spear => cones.push(MeshInstance::new(model, color)),
                        Finial::None => {}
                    }
                }
            }
        }
        for s in frame.spheres.iter().filter(|s| s.radius > 0.0) {
            let model = Mat4::from_scale_rotation_translation(
                Vec3::splat(s.radius),
                Quat::IDENTITY,
                s.center,
            );
            spheres.push(MeshInstance::new(model, linear4(style.sphere_color, 0.3)));
        }
        self.cylinder_count = cylinders.len() as u32;
        self.sphere_count = spheres.len() as u32;
        self.cone_count = cones.len() as u32;
        cylinders.extend(spheres);
        cylinders.extend(cones);
        if cylinders.len() > self.instance_capacity {
            self.instance_capacity = cylinders.len().next_power_of_two();
            self.instances = Self::instance_buffer(device, self.instance_capacity);
        }
        if !cylinders.is_empty() {
            queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&cylinders));
        }
    }

    /// Records the ground (depth tested and written) and then the sky, each only where nothing
    /// nearer has been drawn: call after the pole, the spheres and the cloth, so the pixels they
    /// cover are never shaded twice (on a software rasteriser the ground's checkers and the
    /// sky's glow cost per pixel).
    pub(crate) fn draw_background(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        globals: &wgpu::BindGroup,
    ) {
        self.set_bind_groups(pass, globals);
        if self.draw_ground {
            pass.set_pipeline(&self.ground_pipeline);
            pass.draw(0..6, 0..1);
        }
        pass.set_pipeline(&self.sky_pipeline);
        pass.draw(0..3, 0..1);
    }

    /// Records the pole and the spheres (depth tested and written).
    pub(crate) fn draw_objects(&self, pass: &mut wgpu::RenderPass<'_>, globals: &wgpu::BindGroup) {
        self.set_bind_groups(pass, globals);
        if self.cylinder_count + self.sphere_count + self.cone_count == 0 {
            return;
        }
        pass.set_pipeline(&self.mesh_pipeline);
        pass.set_vertex_buffer(0, self.mesh_vertices.slice(..));
        pass.set_vertex_buffer(1, self.instances.slice(..));
        pass.set_index_buffer(self.mesh_indices.slice(..), wgpu::IndexFormat::Uint32);
        let draw =
            |pass: &mut wgpu::RenderPass<'_>, mesh: MeshRange, instances: std::ops::Range<u32>| {
                if !instances.is_empty() {
                    pass.draw_indexed(
                        mesh.first_index..mesh.first_index + mesh.index_count,
                        0,
                        instances,
                    );
                }
            };
        draw(pass, self.cylinder, 0..self.cylinder_count);
        let spheres = self.cylinder_count + self.sphere_count;
        draw(pass, self.sphere, self.cylinder_count..spheres);
        draw(pass, self.cone, spheres..spheres + self.cone_count);
    }

    /// The uniforms of `frame` with this pass's background.
    pub(crate) fn uniforms_of(&self, frame: &SceneFrame<'_>) -> SceneUniforms {
        SceneUniforms {
            background: [f32::from(u8::from(self.background.shown)), 0.0, 0.0, 0.0],
            ..SceneUniforms::new(frame)
        }
    }

    fn set_bind_groups(&self, pass: &mut wgpu::RenderPass<'_>, globals: &wgpu::BindGroup) {
        pass.set_bind_group(0, globals, &[]);
        pass.set_bind_group(1, &self.uniforms.bind_group, &[]);
        pass.set_bind_group(2, &self.background.bind_group, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_meshes_index_only_their_own_vertices() {
        for (v, i) in [unit_cylinder(12), unit_sphere(12, 6), unit_cone(12)] {
            assert_eq!(i.len() % 3, 0);
            assert!(i.iter().all(|&k| (k as usize) < v.len()));
        }
    }

    #[test]
    fn every_finial_stays_inside_the_poles_reach() {
        let poles = [
            Pole {
                base: Vec3::ZERO,
                top: Vec3::new(0.0, 2.4, 0.0),
                radius: 0.03,
            },
            // Tilted (a pole waved in a figure 8, or a scene's own).
            Pole {
                base: Vec3::new(1.0, 0.0, -0.5),
                top: Vec3::new(1.8, 1.5, 0.2),
                radius: 0.05,
            },
        ];
        for pole in poles {
            let [lo, hi] = pole.reach();
            let inside = |p: Vec3| p.cmpge(lo - 1e-5).all() && p.cmple(hi + 1e-5).all();
            for (finial, (vertices, _)) in [
                (Finial::Ball, unit_sphere(24, 12)),
                (Finial::Spear, unit_cone(24)),
            ] {
                let model = pole.finial_model(finial).unwrap();
                let points: Vec<Vec3> = vertices
                    .iter()
                    .map(|v| model.transform_point3(Vec3::from(v.position)))
                    .collect();
                assert!(
                    points.iter().all(|&p| inside(p)),
                    "{finial:?} leaves {pole:?}"
                );
                // The ball is centred on the top; the spear stands on it, its tip along the
                // axis 6 radii up.
                let along = (pole.top - pole.base).normalize();
                let tip = points
                    .iter()
                    .map(|p| (*p - pole.top).dot(along))
                    .fold(f32::MIN, f32::max);
                let expected = match finial {
                    Finial::Ball => BALL_RADII * pole.radius,
                    _ => SPEAR_RADII[0] * pole.radius,
                };
                assert!(
                    (tip - expected).abs() < 1e-3 * pole.radius.max(1.0),
                    "{finial:?}: {tip}"
                );
            }
            assert_eq!(pole.finial_model(Finial::None), None);
        }
    }

    #[test]
    fn the_cones_side_faces_outward_and_its_base_down() {
        let (v, i) = unit_cone(16);
        for t in i.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|k| Vec3::from(v[k as usize].position));
            let centre = (a + b + c) / 3.0;
            let normal = Vec3::from(v[t[0] as usize].normal);
            // A side's normal points away from the axis and up the slope; the base's down.
            let outward = if centre.y.abs() < 1e-6 {
                Vec3::NEG_Y
            } else {
                Vec3::new(centre.x, 0.0, centre.z).normalize() + Vec3::Y
            };
            assert!(normal.dot(outward) > 0.5, "{normal:?} at {centre:?}");
            assert!((normal.length() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn pole_normals_stay_radial_under_non_uniform_scale() {
        let model = Mat4::from_scale(Vec3::new(0.03, 2.5, 0.03));
        let inst = MeshInstance::new(model, [1.0; 4]);
        let n = Mat3::from_cols(
            Vec3::from_slice(&inst.normal_matrix[0][..3]),
            Vec3::from_slice(&inst.normal_matrix[1][..3]),
            Vec3::from_slice(&inst.normal_matrix[2][..3]),
        ) * Vec3::X;
        assert!(n.normalize().abs_diff_eq(Vec3::X, 1e-6));
    }
}
