//! Per-frame values every drawing pass reads: camera, sun light, ambient light and whether the
//! shader must encode sRGB itself. They live in one uniform buffer bound at `@group(0)` of every
//! pipeline, and `shaders/globals.wgsl` (prepended to each pass's WGSL by
//! [`with_globals`]) declares the matching struct and the shared colour helpers.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

use crate::render::camera::orbit::OrbitCamera;

pub use crate::render::device::shaders::GLOBALS_WGSL;
pub(crate) use crate::render::device::shaders::with_globals;

/// The camera as the GPU needs it: world → clip and the eye position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraMatrices {
    /// World (m) → clip transform, wgpu depth 0..1.
    pub view_proj: Mat4,
    /// Eye position (m), for specular highlights and the sky.
    pub eye: Vec3,
}

impl CameraMatrices {
    /// The matrices of an orbit camera for an image of `aspect = width / height`.
    pub fn from_orbit(camera: &OrbitCamera, aspect: f32) -> Self {
        Self {
            view_proj: camera.view_proj(aspect),
            eye: camera.eye(),
        }
    }
}

/// A directional "sun" plus hemisphere ambient light. Colours are linear RGB; 1.0 is a full-white
/// surface at normal incidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// Direction from the scene towards the sun (normalised on upload; zero means straight up).
    pub direction: Vec3,
    /// Colour × intensity of the sun, linear RGB.
    pub color: Vec3,
    /// Ambient light arriving from the sky (surfaces facing up), linear RGB.
    pub ambient_sky: Vec3,
    /// Ambient light bounced from the ground (surfaces facing down), linear RGB.
    pub ambient_ground: Vec3,
}

impl Default for Light {
    /// Afternoon sun from the upper front-right, a cool sky and a warm ground bounce.
    fn default() -> Self {
        Self {
            direction: Vec3::new(0.5, 0.55, 0.65).normalize(),
            color: Vec3::new(1.0, 0.96, 0.88) * 1.05,
            ambient_sky: Vec3::new(0.22, 0.27, 0.34),
            ambient_ground: Vec3::new(0.13, 0.12, 0.10),
        }
    }
}

/// GPU mirror of `struct Globals` in `shaders/globals.wgsl`.
/// Keep in sync with shaders/globals.wgsl (field order, padding, size 224 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct GlobalUniforms {
    /// World → clip, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// Clip → world, column-major.
    pub inv_view_proj: [[f32; 4]; 4],
    /// xyz eye (m), w unused.
    pub camera_pos: [f32; 4],
    /// xyz unit vector towards the sun, w unused.
    pub light_dir: [f32; 4],
    /// rgb sun colour, w unused.
    pub light_color: [f32; 4],
    /// rgb ambient from above, w unused.
    pub ambient_sky: [f32; 4],
    /// rgb ambient from below, w unused.
    pub ambient_ground: [f32; 4],
    /// 1 when the colour target is not an `*Srgb` format and the shader must encode.
    pub encode_srgb: u32,
    pub _pad: [u32; 3],
}

const _: () = assert!(std::mem::size_of::<GlobalUniforms>() == 224);

impl GlobalUniforms {
    /// Packs the camera and light for a target whose format does (`target_is_srgb`) or does not
    /// encode sRGB in hardware.
    pub(crate) fn new(camera: &CameraMatrices, light: &Light, target_is_srgb: bool) -> Self {
        let v4 = |v: Vec3| [v.x, v.y, v.z, 0.0];
        Self {
            view_proj: camera.view_proj.to_cols_array_2d(),
            inv_view_proj: camera.view_proj.inverse().to_cols_array_2d(),
            camera_pos: [camera.eye.x, camera.eye.y, camera.eye.z, 1.0],
            light_dir: v4(light.direction.normalize_or(Vec3::Y)),
            light_color: v4(light.color),
            ambient_sky: v4(light.ambient_sky),
            ambient_ground: v4(light.ambient_ground),
            encode_srgb: u32::from(!target_is_srgb),
            _pad: [0; 3],
        }
    }
}

/// One uniform buffer of `T` at binding 0 with its layout and bind group: the globals
/// (`@group(0)` of every pass) and the scene pass's own uniforms.
#[derive(Debug)]
pub(crate) struct UniformBinding<T> {
    pub layout: wgpu::BindGroupLayout,
    pub buffer: wgpu::Buffer,
    pub bind_group: wgpu::BindGroup,
    _uniforms: std::marker::PhantomData<T>,
}

impl<T: bytemuck::Pod> UniformBinding<T> {
    /// `label` names the layout, buffer and bind group ("globals" → "globals uniform buffer").
    pub(crate) fn new(device: &wgpu::Device, label: &str) -> Self {
        let size = std::mem::size_of::<T>() as u64;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(&format!("{label} bind group layout")),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(size),
                },
                count: None,
            }],
        });
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&format!("{label} uniform buffer")),
            size,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("{label} bind group")),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        Self {
            layout,
            buffer,
            bind_group,
            _uniforms: std::marker::PhantomData,
        }
    }

    pub(crate) fn upload(&self, queue: &wgpu::Queue, uniforms: &T) {
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(uniforms));
    }
}

/// The globals uniform buffer, its layout and bind group (`@group(0)` of every pass).
pub(crate) type GlobalsBinding = UniformBinding<GlobalUniforms>;

/// One sRGB-encoded channel (0..1, as a colour picker shows it) → linear light.
pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
