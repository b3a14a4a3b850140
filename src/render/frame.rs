//! Per-frame GPU work shared by the viewer and `flagsim render`: upload a snapshot's key nodes,
//! encode the upsampling kernels, gather overlays, and hand the renderer a [`FrameData`].
//!
//! [`ClothScene`] is long-lived (built once with the device); each frame only uploads and
//! encodes. Scratch vectors are reused between frames.

use glam::Vec3;

use super::camera::OrbitCamera;
use super::cloth_pass::{ClothFrame, ClothStyle, ColorMode};
use super::globals::{CameraMatrices, Light};
use super::gpu::GpuError;
use super::lines_pass::LineVertex;
use super::renderer::FrameData;
use super::scene_pass::{SceneFrame, Sphere};
use super::upsample_pass::UpsamplePass;
use super::view::{self, ViewSettings};
use crate::sim::snapshot::Snapshot;
use crate::upsample::{DisplayMode, UpsampleError};

/// GPU resources for drawing snapshots.
#[derive(Debug)]
pub struct ClothScene {
    pub upsample: UpsamplePass,
    strain: Option<wgpu::Buffer>,
    strain_nodes: usize,
    keys: Vec<Vec3>,
    strain_values: Vec<f32>,
    pub lines: Vec<LineVertex>,
    pub spheres: Vec<Sphere>,
    /// Whether this frame has a cloth surface (grid cloths only).
    has_surface: bool,
    key_grid: [u32; 2],
}

impl ClothScene {
    pub fn new(device: &wgpu::Device) -> Result<Self, GpuError> {
        Ok(Self {
            upsample: UpsamplePass::new(device)?,
            strain: None,
            strain_nodes: 0,
            keys: Vec::new(),
            strain_values: Vec::new(),
            lines: Vec::new(),
            spheres: Vec::new(),
            has_surface: false,
            key_grid: [0, 0],
        })
    }

    /// Uploads `snap`'s key nodes (the viewer passes a snapshot whose positions are already
    /// interpolated between the last two steps) and records the upsampling kernels.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        snap: &Snapshot,
        view_settings: &ViewSettings,
    ) -> Result<(), UpsampleError> {
        self.keys.clear();
        self.keys.extend(snap.x.iter().map(glam::DVec3::as_vec3));
        self.lines.clear();
        view::overlay_lines(snap, view_settings, &mut self.lines);
        self.spheres = view::spheres(&snap.params);
        self.has_surface = false;
        let Some(grid) = snap.grid else {
            return Ok(());
        };
        let key_grid = view::key_grid(&grid, &self.keys);
        // The cloth pass compares buffer identities itself and rebinds when they were re-created.
        let _recreated =
            self.upsample
                .upload_keys(device, queue, &key_grid, &view_settings.render)?;
        self.upsample.encode(encoder);
        self.key_grid = [grid.nx as u32, grid.ny as u32];
        self.has_surface = true;
        if matches!(
            view_settings.color_mode,
            ColorMode::Strain | ColorMode::Integration
        ) {
            let res = view_settings.render.effective_resolution(grid.nx, grid.ny);
            if view_settings.color_mode == ColorMode::Strain {
                view::render_strain(snap, res, &mut self.strain_values);
            } else {
                view::render_interpolated(snap, res, &mut self.strain_values);
            }
            let n = self.strain_values.len();
            if self.strain.is_none() || self.strain_nodes != n {
                self.strain = Some(device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("render strain"),
                    size: (n.max(1) * 4) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }));
                self.strain_nodes = n;
            }
            if let Some(b) = &self.strain {
                queue.write_buffer(b, 0, bytemuck::cast_slice(&self.strain_values));
            }
        }
        Ok(())
    }

    /// What the renderer draws this frame, seen by `camera` on an image of `aspect`.
    pub fn frame_data<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
        camera: &OrbitCamera,
        aspect: f32,
    ) -> FrameData<'a> {
        let cloth = match (
            self.has_surface,
            self.upsample.render_positions_buffer(),
            self.upsample.render_normals_buffer(),
            self.upsample.resolution(),
        ) {
            (true, Some(positions), Some(normals), Some(resolution)) => Some(ClothFrame {
                resolution,
                key_grid: self.key_grid,
                positions,
                normals,
                strain: if matches!(
                    view_settings.color_mode,
                    ColorMode::Strain | ColorMode::Integration
                ) {
                    self.strain.as_ref()
                } else {
                    None
                },
                style: ClothStyle {
                    color_mode: view_settings.color_mode,
                    wireframe: view_settings
                        .render_wireframe
                        .then_some(view::RENDER_MESH_COLOR),
                    // Grid row j = 0 is the flag's bottom edge; the image's top row is its top.
                    flip_texture_v: true,
                    // The key mesh is flat-faceted: shade it without sheen so facets read.
                    sheen: if view_settings.render.effective_mode() == DisplayMode::KeyOnly {
                        0.1
                    } else {
                        ClothStyle::default().sheen
                    },
                    ..ClothStyle::default()
                },
            }),
            _ => None,
        };
        FrameData {
            camera: CameraMatrices::from_orbit(camera, aspect),
            light: Light::default(),
            cloth,
            lines: &self.lines,
            scene: SceneFrame {
                pole: view::pole(snap),
                spheres: &self.spheres,
                ground_height: Some(view::ground_height(&snap.params)),
                ..SceneFrame::default()
            },
            visible: None,
            viewport: None,
            load: false,
            more_follow: false,
        }
    }
}
