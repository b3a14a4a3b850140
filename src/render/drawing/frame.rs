//! Per-frame GPU work shared by the viewer and `flagsim render`: upload a snapshot's key nodes,
//! encode the upsampling kernels, gather overlays, and hand the renderer a [`FrameData`].
//!
//! [`ClothScene`] is long-lived (built once with the device); each frame only uploads and
//! encodes. Scratch vectors are reused between frames. On the CPU-upsampling path
//! ([`RenderPath::CpuUpsampling`], a device without compute shaders) the key nodes are
//! upsampled here by the CPU twin instead, and the cut key nodes are those the snapshot's got
//! from `view::fill_cut_keys`, the twin of the cut-fill kernel; the cloth pass uploads the mesh.

use glam::Vec3;

use crate::render::camera::globals::{CameraMatrices, Light};
use crate::render::camera::orbit::OrbitCamera;
use crate::render::device::error::RenderError;
use crate::render::device::gpu::GpuError;
use crate::render::device::path::RenderPath;
use crate::render::drawing::edges::{self, WorldBox};
use crate::render::drawing::renderer::FrameData;
use crate::render::drawing::view::{self, ViewSettings};
use crate::render::passes::cloth_pass::{ClothFrame, ClothNodes, ClothStyle, ColorMode};
use crate::render::passes::cut_fill::CutFillPass;
use crate::render::passes::lines_pass::LineVertex;
use crate::render::passes::scene_pass::{SceneFrame, SceneStyle, Sphere, StyledPole};
use crate::render::passes::upsample_pass::{Placement, UpsamplePass};
use crate::sim::format::flag_spec::FlagSpec;
use crate::sim::format::outline::FlagShape;
use crate::sim::format::setting::{Finial, Setting};
use crate::sim::model::cloth::GridInfo;
use crate::sim::runtime::snapshot::Snapshot;
use crate::upsample::{DisplayMode, KeyGrid, RenderMesh, UpsampleError, try_upsample_cpu};

/// GPU resources for drawing snapshots.
#[derive(Debug)]
pub struct ClothScene {
    /// How its render nodes are made: by its upsampler's kernels, or on the CPU into `mesh`.
    path: RenderPath,
    /// Its own upsampler (a single flag, the lab's copies); `None` for a flag upsampled with
    /// the others of its scene in one batch ([`FlagScenes`]), and on the CPU-upsampling path.
    pub upsample: Option<UpsamplePass>,
    /// The render mesh of the last snapshot on the CPU-upsampling path.
    mesh: RenderMesh,
    /// A shaped flag's cut key nodes continued on the device, after the copy from
    /// [`Self::device_keys`] (with its own upsampler only).
    cut_fill: Option<CutFillPass>,
    strain: Option<wgpu::Buffer>,
    strain_nodes: usize,
    keys: Vec<Vec3>,
    strain_values: Vec<f32>,
    pub lines: Vec<LineVertex>,
    pub spheres: Vec<Sphere>,
    /// The grid of this frame's cloth, when it has a surface (grid cloths only).
    grid: Option<GridInfo>,
    key_grid: [u32; 2],
    /// The box the upsampled surface stays in ([`surface_bounds`]).
    bounds: Option<WorldBox>,
    /// The GPU simulation's node buffer and node count while the cloth steps there: the
    /// upsampler reads these key nodes (copied on the device) instead of the snapshot's.
    pub device_keys: Option<(wgpu::Buffer, u32)>,
    /// Frames whose key nodes were copied from [`Self::device_keys`] (the viewer reports it).
    /// The CPU-upsampling path upsamples the snapshot's keys and never copies these.
    pub device_frames: u64,
}

impl ClothScene {
    /// A scene with its own upsampler, on the path the device's limits allow
    /// ([`RenderPath::of_device`]).
    pub fn new(device: &wgpu::Device) -> Result<Self, GpuError> {
        Self::with_path(device, RenderPath::of_device(device))
    }

    /// A scene with its own upsampler on `path` (the CPU-upsampling path builds no pipeline).
    pub fn with_path(device: &wgpu::Device, path: RenderPath) -> Result<Self, GpuError> {
        Ok(match path {
            RenderPath::Compute => Self {
                upsample: Some(UpsamplePass::new(device)?),
                cut_fill: Some(CutFillPass::new(device)?),
                ..Self::in_batch(path)
            },
            RenderPath::CpuUpsampling => Self::in_batch(path),
        })
    }

    /// A scene whose cloth is upsampled in a batch it does not own (no pipelines to build), or
    /// on the CPU.
    fn in_batch(path: RenderPath) -> Self {
        Self {
            path,
            mesh: RenderMesh::default(),
            upsample: None,
            cut_fill: None,
            strain: None,
            strain_nodes: 0,
            keys: Vec::new(),
            strain_values: Vec::new(),
            lines: Vec::new(),
            spheres: Vec::new(),
            grid: None,
            key_grid: [0, 0],
            bounds: None,
            device_keys: None,
            device_frames: 0,
        }
    }

    /// Uploads `snap`'s key nodes (the viewer passes a snapshot whose positions are already
    /// interpolated between the last two steps) and records the upsampling kernels, with its
    /// own upsampler (a scene without one only takes the snapshot).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        snap: &Snapshot,
        view_settings: &ViewSettings,
    ) -> Result<(), UpsampleError> {
        self.take(device, queue, snap, view_settings);
        if self.path == RenderPath::CpuUpsampling {
            return self.upsample_on_cpu(view_settings);
        }
        if let (Some(grid), Some(upsample)) = (&self.grid, &mut self.upsample) {
            let key_grid = view::key_grid(grid, &self.keys);
            // The cloth pass compares buffer identities itself and rebinds when they were
            // re-created.
            let _recreated =
                upsample.upload_keys(device, queue, &key_grid, &view_settings.render)?;
            if let Some((nodes, count)) = &self.device_keys {
                // A count that does not fit (the scene changed under a stale buffer) keeps
                // the snapshot's keys.
                if upsample.copy_keys(encoder, 0, nodes, *count) {
                    self.device_frames += 1;
                    // The copied cut nodes are where the shape left them: continued as the
                    // snapshot's were on the CPU (`view::fill_cut_keys`).
                    if let (Some(fill), Some((keys, base))) =
                        (&mut self.cut_fill, upsample.key_nodes(0))
                    {
                        let size = [grid.nx as u32, grid.ny as u32];
                        fill.record(device, queue, encoder, keys, base, &snap.mesh.cut, size);
                    }
                }
            }
            upsample.encode(encoder);
        }
        Ok(())
    }

    /// Upsamples the last snapshot taken with the CPU twin of the kernels (the
    /// CPU-upsampling path); no mesh without a surface.
    fn upsample_on_cpu(&mut self, view_settings: &ViewSettings) -> Result<(), UpsampleError> {
        self.mesh = match self.key_grid() {
            Some(grid) => try_upsample_cpu(&grid, &view_settings.render)?,
            None => RenderMesh::default(),
        };
        Ok(())
    }

    /// The key grid the last snapshot taken gives the upsampler; `None` without a surface.
    fn key_grid(&self) -> Option<KeyGrid<'_>> {
        self.grid.as_ref().map(|g| view::key_grid(g, &self.keys))
    }

    /// Takes `snap`'s key nodes, overlays and colours (uploading the strain colours).
    fn take(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        snap: &Snapshot,
        view_settings: &ViewSettings,
    ) {
        self.keys.clear();
        self.keys.extend(snap.x.iter().map(glam::DVec3::as_vec3));
        self.lines.clear();
        view::overlay_lines(snap, view_settings, &mut self.lines);
        self.spheres = view::spheres(&snap.params);
        self.grid = None;
        let Some(grid) = snap.grid else {
            return;
        };
        view::fill_cut_keys(&mut self.keys, &snap.mesh.cut, grid.nx, grid.ny);
        self.key_grid = [grid.nx as u32, grid.ny as u32];
        self.bounds = surface_bounds(&view::key_grid(&grid, &self.keys));
        self.grid = Some(grid);
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
            if self.path == RenderPath::CpuUpsampling {
                // The cloth pass takes the values with the mesh.
                return;
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
    }

    /// What the renderer draws this frame, seen by `camera` on an image of `aspect`.
    pub fn frame_data<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
        camera: &OrbitCamera,
        aspect: f32,
    ) -> FrameData<'a> {
        let cloth = self.cloth_frame(snap, view_settings);
        self.frame_data_with(snap, view_settings, camera, aspect, cloth)
    }

    /// [`Self::frame_data`] with the cloth `cloth`.
    fn frame_data_with<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
        camera: &OrbitCamera,
        aspect: f32,
        cloth: Option<ClothFrame<'a>>,
    ) -> FrameData<'a> {
        let setting = &view_settings.render.setting;
        FrameData {
            camera: CameraMatrices::from_orbit(camera, aspect),
            light: Light::default(),
            cloth,
            more_cloths: &[],
            lines: &self.lines,
            scene: SceneFrame {
                pole: view::pole(snap),
                more_poles: &[],
                spheres: &self.spheres,
                ground_height: setting.ground.then(|| view::ground_height(&snap.params)),
                style: SceneStyle::from_setting(setting),
            },
            visible: None,
            viewport: None,
            load: false,
            more_follow: false,
        }
    }

    /// The cloth this scene uploaded for `snap` with its own upsampler (or upsampled on the
    /// CPU), as the renderer draws it; `None` before the first upload of a grid cloth.
    pub(crate) fn cloth_frame<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
    ) -> Option<ClothFrame<'a>> {
        if self.path == RenderPath::CpuUpsampling {
            if self.grid.is_none() || self.mesh.positions.is_empty() {
                return None;
            }
            let strain = shows_strain(view_settings).then_some(self.strain_values.as_slice());
            let nodes = ClothNodes::Mesh {
                positions: &self.mesh.positions,
                normals: &self.mesh.normals,
                strain,
            };
            return Some(self.cloth_frame_of(snap, view_settings, self.mesh.resolution, nodes));
        }
        self.cloth_frame_in(snap, view_settings, self.upsample.as_ref()?, 0)
    }

    /// The cloth as cloth `k` of `upsample`'s last upload.
    fn cloth_frame_in<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
        upsample: &'a UpsamplePass,
        k: usize,
    ) -> Option<ClothFrame<'a>> {
        match (
            self.grid.is_some(),
            upsample.render_positions_buffer(),
            upsample.render_normals_buffer(),
            upsample.placement(k),
        ) {
            (
                true,
                Some(positions),
                Some(normals),
                Some(Placement {
                    resolution,
                    first_node,
                }),
            ) => {
                let nodes = ClothNodes::Buffers {
                    positions,
                    normals,
                    first_node,
                    strain: shows_strain(view_settings)
                        .then_some(self.strain.as_ref())
                        .flatten(),
                };
                Some(self.cloth_frame_of(snap, view_settings, resolution, nodes))
            }
            _ => None,
        }
    }

    /// The cloth of `resolution` render nodes `nodes`, styled as `view_settings` asks.
    fn cloth_frame_of<'a>(
        &self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
        resolution: [u32; 2],
        nodes: ClothNodes<'a>,
    ) -> ClothFrame<'a> {
        ClothFrame {
            resolution,
            key_grid: self.key_grid,
            nodes,
            style: ClothStyle {
                color_mode: view_settings.color_mode,
                wireframe: view_settings
                    .render_wireframe
                    .then_some(view::RENDER_MESH_COLOR),
                // Grid row j = 0 is the flag's bottom edge; the image's top row is its top.
                flip_texture_v: true,
                outline: snap.grid.map_or(FlagShape::Rectangle, |g| g.shape),
                // The key mesh is flat-faceted: shade it without sheen so facets read.
                sheen: if view_settings.render.effective_mode() == DisplayMode::KeyOnly {
                    0.1
                } else {
                    ClothStyle::default().sheen
                },
                ..ClothStyle::default()
            },
            bounds: self.bounds,
        }
    }
}

/// Whether the view colours the cloth by its per-node values (strain or integration).
fn shows_strain(view_settings: &ViewSettings) -> bool {
    matches!(
        view_settings.color_mode,
        ColorMode::Strain | ColorMode::Integration
    )
}

/// A flag's pole colours and finial (sRGB 0..1), from its scene's setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoleLook {
    pub color: [f32; 3],
    pub finial: Finial,
    pub finial_color: [f32; 3],
}

impl PoleLook {
    pub(crate) fn of(setting: &Setting) -> Self {
        Self {
            color: setting.pole_color.0,
            finial: setting.finial,
            finial_color: setting.finial_color.0,
        }
    }

    /// A flag's pole: what its entry gives, the scene's `setting` for the rest.
    pub(crate) fn of_flag(setting: &Setting, flag: &FlagSpec) -> Self {
        let pole = &flag.pole;
        Self {
            color: pole.color.unwrap_or(setting.pole_color).0,
            finial: pole.finial.unwrap_or(setting.finial),
            finial_color: pole.finial_color.unwrap_or(setting.finial_color).0,
        }
    }
}

/// Every flag of a scene of several: one [`ClothScene`] per flag (flag 0 first), and what the
/// other flags add to flag 0's frame (their cloths, poles and overlay lines).
#[derive(Debug)]
pub struct FlagScenes {
    /// How the render nodes are made (on the CPU-upsampling path each flag on its own, no
    /// batch).
    path: RenderPath,
    /// Flag 0's has its own upsampler (the lab's copy 0 and a single flag use it).
    pub scenes: Vec<ClothScene>,
    /// Of several flags, every flag's upsampling in one batch (made when first needed), and
    /// which of its cloths each flag is (`None`: no surface).
    batch: Option<UpsamplePass>,
    in_batch: Vec<Option<usize>>,
    /// Each flag's node buffer on the GPU and its node count, while the flag steps there
    /// ([`Self::set_device_keys`]).
    device_keys: Vec<Option<(wgpu::Buffer, u32)>>,
    /// Of several flags, each shaped one's cut nodes continued after the copy from its
    /// device keys (made when first needed; flag 0 alone uses its scene's own).
    fills: Vec<Option<CutFillPass>>,
    /// Each flag's pole colours (index `k` for flag `k`; flag 0's come from the frame's
    /// setting). A flag past the end takes flag 0's.
    pub looks: Vec<PoleLook>,
    poles: Vec<StyledPole>,
    lines: Vec<LineVertex>,
}

impl FlagScenes {
    /// The scenes on `path`.
    pub(crate) fn with_path(device: &wgpu::Device, path: RenderPath) -> Result<Self, GpuError> {
        Ok(Self {
            path,
            scenes: vec![ClothScene::with_path(device, path)?],
            batch: None,
            in_batch: Vec::new(),
            device_keys: Vec::new(),
            fills: Vec::new(),
            looks: Vec::new(),
            poles: Vec::new(),
            lines: Vec::new(),
        })
    }

    /// The node buffer and node count of each flag stepping on the GPU (index `k` for flag
    /// `k`; `None` for a flag on the CPU): the next [`Self::prepare`] upsamples those flags
    /// from these key nodes, copied on the device, instead of from the snapshot's.
    pub(crate) fn set_device_keys(&mut self, keys: Vec<Option<(wgpu::Buffer, u32)>>) {
        self.device_keys = keys;
    }

    /// Uploads every flag of `snap` (one scene per flag, made as needed) and records their
    /// upsampling: a single flag's with its own upsampler, several in one batch. A flag with
    /// device keys ([`Self::set_device_keys`]) is upsampled from them.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        snap: &Snapshot,
        view_settings: &ViewSettings,
    ) -> Result<(), RenderError> {
        while self.scenes.len() < snap.flag_count() {
            self.scenes.push(ClothScene::in_batch(self.path));
        }
        self.scenes.truncate(snap.flag_count().max(1));
        for (k, scene) in self.scenes.iter_mut().enumerate() {
            scene.device_keys = self.device_keys.get(k).cloned().flatten();
        }
        self.in_batch.clear();
        if snap.flags.is_empty() {
            self.scenes[0].prepare(device, queue, encoder, snap, view_settings)?;
        } else if self.path == RenderPath::CpuUpsampling {
            for (scene, flag) in self.scenes.iter_mut().zip(snap.all_flags()) {
                scene.prepare(device, queue, encoder, flag, view_settings)?;
            }
        } else {
            for (scene, flag) in self.scenes.iter_mut().zip(snap.all_flags()) {
                scene.take(device, queue, flag, view_settings);
            }
            let mut grids = Vec::with_capacity(self.scenes.len());
            for scene in &self.scenes {
                let grid = scene.key_grid();
                self.in_batch.push(grid.is_some().then_some(grids.len()));
                grids.extend(grid.map(|g| (g, &view_settings.render)));
            }
            if self.batch.is_none() {
                self.batch = Some(UpsamplePass::new(device)?);
            }
            if let Some(batch) = &mut self.batch {
                let _recreated = batch.upload_batch(device, queue, &grids)?;
                // The flags stepping on the GPU: their key nodes from the device, the cut ones
                // continued there.
                let flags = self.scenes.iter_mut().zip(snap.all_flags()).enumerate();
                for (k, (scene, flag)) in flags {
                    let (Some((nodes, count)), Some(Some(cloth))) =
                        (&scene.device_keys, self.in_batch.get(k))
                    else {
                        continue;
                    };
                    if !batch.copy_keys(encoder, *cloth, nodes, *count) {
                        continue;
                    }
                    scene.device_frames += 1;
                    let (Some(grid), Some((keys, base))) = (flag.grid, batch.key_nodes(*cloth))
                    else {
                        continue;
                    };
                    if !flag.mesh.cut.iter().any(|&c| c) {
                        continue;
                    }
                    if self.fills.len() <= k {
                        self.fills.resize_with(k + 1, || None);
                    }
                    if self.fills[k].is_none() {
                        self.fills[k] = Some(CutFillPass::new(device)?);
                    }
                    if let Some(fill) = &mut self.fills[k] {
                        let size = [grid.nx as u32, grid.ny as u32];
                        fill.record(device, queue, encoder, keys, base, &flag.mesh.cut, size);
                    }
                }
                batch.encode(encoder);
            }
        }
        self.poles.clear();
        self.lines.clear();
        for (k, flag) in snap.flags.iter().enumerate() {
            let look = self
                .looks
                .get(k + 1)
                .copied()
                .unwrap_or_else(|| PoleLook::of(&view_settings.render.setting));
            if let Some(pole) = view::pole(flag) {
                self.poles.push(StyledPole {
                    pole,
                    color: look.color,
                    finial: look.finial,
                    finial_color: look.finial_color,
                });
            }
        }
        for scene in &self.scenes {
            self.lines.extend_from_slice(&scene.lines);
        }
        Ok(())
    }

    /// Flag `k`'s cloth as the last [`Self::prepare`] upsampled it.
    fn cloth_of<'a>(
        &'a self,
        k: usize,
        flag: &Snapshot,
        view_settings: &ViewSettings,
    ) -> Option<ClothFrame<'a>> {
        let scene = self.scenes.get(k)?;
        match (&self.batch, self.in_batch.get(k)) {
            (Some(batch), Some(cloth)) => {
                scene.cloth_frame_in(flag, view_settings, batch, (*cloth)?)
            }
            _ => scene.cloth_frame(flag, view_settings),
        }
    }

    /// The other flags' cloths (flag 1 first), for [`FrameData::more_cloths`].
    pub(crate) fn more_cloths<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
    ) -> Vec<ClothFrame<'a>> {
        (snap.flags.iter().enumerate())
            .filter_map(|(k, flag)| self.cloth_of(k + 1, flag, view_settings))
            .collect()
    }

    /// Every flag's frame, seen by `camera` on an image of `aspect`: flag 0's with the other
    /// flags' cloths (`more`, from [`FlagScenes::more_cloths`]), poles and lines.
    pub(crate) fn frame_data<'a>(
        &'a self,
        snap: &Snapshot,
        view_settings: &ViewSettings,
        camera: &OrbitCamera,
        aspect: f32,
        more: &'a [ClothFrame<'a>],
    ) -> FrameData<'a> {
        let cloth = self.cloth_of(0, snap, view_settings);
        let mut data = self.scenes[0].frame_data_with(snap, view_settings, camera, aspect, cloth);
        if !snap.flags.is_empty() {
            data.more_cloths = more;
            data.scene.more_poles = &self.poles;
            data.lines = &self.lines;
        }
        data
    }
}

/// Added to [`surface_bounds`]'s padding for the rounding of the spline's evaluation in `f32`
/// (m): a millimetre, under a pixel at any distance the viewer frames a flag from.
pub(crate) const SURFACE_SLACK: f32 = 1e-3;

/// A box the upsampled surface of the key grid `grid` stays inside: the keys' box grown by
/// `½ S + C`, `S` the longest second difference of the keys along u or v and `C` the most a key
/// segment is shorter than its rest length (0 when none is).
///
/// Why: the Catmull–Rom surface leaves the keys' hull by at most `4/27 (|m₁ − d| + |m₂ − d|)` a
/// segment (Hermite basis; `m − d` is half a second difference), about `0.19 S` in each of the
/// two passes with the second pass's weights (their absolute sum is at most 1.25); a wrinkle
/// (eq. 14) moves it at most `½ · (l0 − d)/2` along the normal, in each pass. The factors round
/// these up for the second pass, whose control points are frame nodes, not keys. The box is
/// checked against the CPU upsampler on bent, crumpled and compressed grids (the tests below:
/// they need 0.26 S and 0.34 C at most).
/// `None` for no keys or a non-finite one. [`SURFACE_SLACK`] is added for rounding.
pub(crate) fn surface_bounds(grid: &KeyGrid<'_>) -> Option<WorldBox> {
    let keys = grid.positions;
    let b = edges::bounding_box(keys.iter().copied())?;
    let (nx, ny) = (grid.nx, grid.ny);
    let at = |i: usize, j: usize| keys[j * nx + i];
    let (mut s, mut c) = (0.0f32, 0.0f32);
    for j in 0..ny {
        for i in 0..nx {
            let p = at(i, j);
            if i + 1 < nx {
                c = c.max(grid.l0_u - p.distance(at(i + 1, j)));
                if i > 0 {
                    s = s.max((at(i + 1, j) - 2.0 * p + at(i - 1, j)).length());
                }
            }
            if j + 1 < ny {
                c = c.max(grid.l0_v - p.distance(at(i, j + 1)));
                if j > 0 {
                    s = s.max((at(i, j + 1) - 2.0 * p + at(i, j - 1)).length());
                }
            }
        }
    }
    Some(edges::padded(b, 0.5 * s + c + SURFACE_SLACK))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::{SURFACE_SLACK, surface_bounds};
    use crate::upsample::{DisplayMode, KeyGrid, RenderSettings, upsample_cpu};

    /// How a test sheet is bent out of a flat `n × n` grid of spacing `l0`.
    #[derive(Debug, Clone, Copy)]
    struct Bend {
        /// Share of the rest length taken off every segment along u and along v.
        squeeze: [f32; 2],
        /// Height of sinusoidal folds (m).
        fold: f32,
        /// Height of a 2 × 2 plateau of keys in the middle (m): the spline overshoots it.
        plateau: f32,
        /// Random displacement of each key, up to this (m).
        noise: f32,
    }

    fn bent(n: usize, l0: f32, b: Bend, seed: u64) -> Vec<Vec3> {
        let mut state = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
        };
        let mid = n / 2;
        (0..n * n)
            .map(|k| {
                let (i, j) = (k % n, k / n);
                let (x, y) = (i as f32, j as f32);
                let on_plateau = (mid - 1..=mid).contains(&i) && (mid - 1..=mid).contains(&j);
                let z = b.fold * (x * 1.3).sin() * (y * 0.7).cos()
                    + if on_plateau { b.plateau } else { 0.0 };
                let p = Vec3::new(
                    x * l0 * (1.0 - b.squeeze[0]),
                    y * l0 * (1.0 - b.squeeze[1]),
                    z,
                );
                p + b.noise * Vec3::new(next(), next(), next())
            })
            .collect()
    }

    /// Every node the CPU upsampler makes (every display mode, wrinkles at their strongest,
    /// the symmetric option on and off) lies in the box, on sheets at rest, squeezed by up to a
    /// half along u, v or both (wrinkles in both passes), folded, with a plateau the splines
    /// overshoot, and shaken. The plateau needs 0.26 S of padding and the sheet squeezed both
    /// ways 0.34 C (a padding of ¼ S + ½ C or ½ S + 0.3 C fails here); the box has ½ S + C.
    #[test]
    fn the_upsampled_surface_stays_in_its_box() {
        let l0 = 0.1;
        let flat = Bend {
            squeeze: [0.0, 0.0],
            fold: 0.0,
            plateau: 0.0,
            noise: 0.0,
        };
        for bend in [
            flat,
            Bend {
                squeeze: [0.3, 0.0],
                ..flat
            },
            Bend {
                squeeze: [0.0, 0.5],
                ..flat
            },
            Bend {
                squeeze: [0.4, 0.4],
                ..flat
            },
            Bend {
                plateau: 0.2,
                ..flat
            },
            Bend {
                squeeze: [0.5, 0.0],
                fold: 0.05,
                ..flat
            },
            Bend {
                squeeze: [0.2, 0.3],
                fold: 0.1,
                noise: 0.02,
                ..flat
            },
            Bend {
                noise: 0.05,
                ..flat
            },
            Bend {
                squeeze: [0.4, 0.1],
                fold: 0.2,
                plateau: 0.1,
                noise: 0.04,
            },
        ] {
            for seed in 0..3 {
                let keys = bent(10, l0, bend, seed);
                let grid = KeyGrid {
                    nx: 10,
                    ny: 10,
                    positions: &keys,
                    l0_u: l0,
                    l0_v: l0,
                };
                let [lo, hi] = surface_bounds(&grid).unwrap();
                for mode in [
                    DisplayMode::KeyOnly,
                    DisplayMode::Smooth,
                    DisplayMode::Wrinkled,
                ] {
                    for symmetric in [false, true] {
                        let settings = RenderSettings {
                            mode,
                            symmetric,
                            wrinkle_c: 500.0,
                            ..RenderSettings::default()
                        };
                        let mesh = upsample_cpu(&grid, &settings);
                        assert!(!mesh.positions.is_empty());
                        for p in &mesh.positions {
                            assert!(
                                p.cmpge(lo).all() && p.cmple(hi).all(),
                                "{p} outside {lo} … {hi} ({bend:?}, seed {seed}, {mode:?}, \
                                 symmetric {symmetric})"
                            );
                        }
                    }
                }
            }
        }
        // At rest and flat: no second difference, no compression, so only the slack.
        let keys = bent(4, l0, flat, 0);
        let grid = KeyGrid {
            nx: 4,
            ny: 4,
            positions: &keys,
            l0_u: l0,
            l0_v: l0,
        };
        let [lo, hi] = surface_bounds(&grid).unwrap();
        let e = SURFACE_SLACK;
        assert!(lo.abs_diff_eq(Vec3::splat(-e), 1e-6), "{lo}");
        assert!(hi.abs_diff_eq(Vec3::new(0.3 + e, 0.3 + e, e), 1e-6), "{hi}");
    }

    /// The padding is ½ S + C, by hand: one key of a flat 3 × 3 sheet of spacing 1 lifted by
    /// 0.4 makes second differences of 0.8 at it (0.4 − 2·0 … around the lifted middle) and
    /// stretches its segments (no compression): pad 0.4; squeezing a row by 0.3 adds C = 0.3.
    #[test]
    fn the_padding_follows_the_second_differences_and_the_compression() {
        let mut keys: Vec<Vec3> = (0..9)
            .map(|k| Vec3::new((k % 3) as f32, (k / 3) as f32, 0.0))
            .collect();
        keys[4].z = 0.4;
        let grid = |keys: &[Vec3]| {
            let g = KeyGrid {
                nx: 3,
                ny: 3,
                positions: keys,
                l0_u: 1.0,
                l0_v: 1.0,
            };
            surface_bounds(&g).unwrap()
        };
        let [lo, hi] = grid(&keys);
        // The middle key's second difference: (0,0,0) − 2 (1,1,0.4) + (2,1,0) along u: 0.8.
        let e = SURFACE_SLACK;
        assert!(lo.abs_diff_eq(Vec3::splat(-0.4 - e), 1e-6), "{lo}");
        assert!(
            hi.abs_diff_eq(Vec3::new(2.4 + e, 2.4 + e, 0.8 + e), 1e-6),
            "{hi}"
        );
        keys[4].z = 0.0;
        keys[2].x = 1.7; // the bottom row's second segment: 0.7 long, 0.3 short
        let [lo, _] = grid(&keys);
        // Second difference at key 1 along u: (0,0) − 2 (1,0) + (1.7,0) = 0.3: pad 0.15 + 0.3.
        assert!(lo.abs_diff_eq(Vec3::splat(-0.45 - e), 1e-6), "{lo}");
        assert!(
            surface_bounds(&KeyGrid {
                nx: 0,
                ny: 0,
                positions: &[],
                l0_u: 1.0,
                l0_v: 1.0
            })
            .is_none()
        );
    }
}
