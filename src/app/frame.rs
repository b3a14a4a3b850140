//! One frame of the viewer, shared by the window ([`super::viewer`]) and by `flagsim bench`'s
//! frame split, so the benchmark times the code the viewer runs: [`SceneDraw`] (upload and GPU
//! upsampling, then the 3-D passes into multisampled targets resolved into the frame) and
//! [`panels`] (the egui layout over it).

use crate::render::camera::orbit::OrbitCamera;
use crate::render::device::gpu::GpuError;
use crate::render::drawing::edges::{self, WorldBox};
use crate::render::drawing::frame::{ClothScene, FlagScenes, PoleLook};
use crate::render::drawing::renderer;
use crate::render::drawing::view::ViewSettings;
use crate::render::passes::fullscreen;
use crate::render::passes::upscale_pass::Fxaa;
use crate::render::{
    FrameData, MIN_RENDER_SCALE, MsaaAttachments, PixelRect, RenderError, RenderPath,
    RenderQuality, Renderer, UpscalePass, lab_cells, lab_zoom,
};
use crate::sim::runtime::snapshot::Snapshot;
use crate::ui::{self, FrameInfo, UiAction, UiState};
use crate::upsample::UpsampleError;

use super::keys;

/// Why a frame could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Upsample(#[from] UpsampleError),
}

/// The 3-D side of a frame: the upsampler and its buffers, the drawing passes, the multisampled
/// attachments they draw into, and the images the view is drawn into first where it is
/// anti-aliased afterwards (FXAA) or stretched over the frame (a render scale below 1).
pub struct SceneDraw {
    pub quality: RenderQuality,
    format: wgpu::TextureFormat,
    pub renderer: Renderer,
    /// Every flag's upsampler and buffers (flag 0's is the lab's copy 0).
    pub flags: FlagScenes,
    /// The lab's other copies' upsamplers and buffers (copy 1 first; empty outside the lab).
    lab: Vec<ClothScene>,
    /// The part of the frame the lab's cells divide, as the window last showed it: a capture
    /// (drawn with every pixel shaded) puts the copies where the window has them.
    lab_area: Option<PixelRect>,
    /// Full-size attachments (at scale 1, and for captures).
    pub msaa: MsaaAttachments,
    scale: f32,
    upscale: UpscalePass,
    /// The image at the render scale, below 1.
    scaled: Option<ViewImage>,
    /// A full-size image, with FXAA (the view at scale 1, and captures).
    full: Option<ViewImage>,
    /// Each flag's image in use (`None`: the built-in flag), re-uploaded when the renderer is
    /// rebuilt.
    flag_images: Vec<Option<image::RgbaImage>>,
    /// The background image, for the same reason.
    background: Option<image::RgbaImage>,
    /// This frame's rectangles of the image where there can be edges, for FXAA, and the world
    /// boxes they come from (kept between frames to reuse their memory).
    edges: Vec<PixelRect>,
    boxes: Vec<WorldBox>,
    /// The renderer's backdrop stretched over the frame, copied into each frame drawn over it
    /// before the parts with the cloth, the pole and the lines are stretched.
    stretched: Option<Stretched>,
    /// Whether the last frame was made so.
    stretched_last: bool,
}

/// The backdrop (sky and ground) stretched to the frame's size, and what it was made from.
struct Stretched {
    texture: wgpu::Texture,
    /// The backdrop's generation, the seen rectangle, the scale's bits and the frame's size.
    key: (u64, Option<PixelRect>, u32, [u32; 2]),
}

/// What [`SceneDraw::finish`] reads of the [`SceneDraw`].
struct FinishParts<'a> {
    up: &'a UpscalePass,
    post_aa: bool,
    renderer: &'a Renderer,
    edges: &'a [PixelRect],
    stretched: &'a mut Option<Stretched>,
}

/// How far outside the projection of what is drawn FXAA may still change a pixel, pixels: it
/// changes only pixels whose four neighbours differ, so one pixel beyond the geometry's own,
/// and one more for rounding.
const EDGE_MARGIN: f32 = 2.0;

/// An image the view is drawn into before it reaches the frame: smaller than the frame at a
/// render scale below 1, or the frame's size when it is anti-aliased by FXAA afterwards.
struct ViewImage {
    size: [u32; 2],
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    msaa: MsaaAttachments,
    /// Reads `view` in the FXAA or upscale pass.
    image: wgpu::BindGroup,
    /// FXAA's output at this size, which the upscale pass then stretches over the frame: with
    /// FXAA below scale 1. (At scale 1 FXAA writes into the frame itself.)
    smoothed: Option<Smoothed>,
}

/// FXAA's output image: the view image copied, then smoothed where there are edges.
struct Smoothed {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// Reads `view` in the upscale pass.
    image: wgpu::BindGroup,
}

impl ViewImage {
    fn new(
        device: &wgpu::Device,
        renderer: &Renderer,
        upscale: &UpscalePass,
        format: wgpu::TextureFormat,
        size: [u32; 2],
        smoothed: bool,
    ) -> Self {
        let (texture, view) = fullscreen::layer_texture(device, "view image", format, size);
        let smoothed = smoothed.then(|| {
            let (texture, view) =
                fullscreen::layer_texture(device, "view image (FXAA)", format, size);
            let image = upscale.bind(device, &view);
            Smoothed {
                texture,
                view,
                image,
            }
        });
        Self {
            size,
            msaa: MsaaAttachments::new(device, &renderer.targets(), size[0], size[1], "view image"),
            image: upscale.bind(device, &view),
            texture,
            view,
            smoothed,
        }
    }

    /// The colour attachment to draw into and the resolve target, for `multisampled` targets.
    fn color(&self, multisampled: bool) -> (&wgpu::TextureView, Option<&wgpu::TextureView>) {
        if multisampled {
            (&self.msaa.color_view, Some(&self.view))
        } else {
            (&self.view, None)
        }
    }

    /// The whole image as a rectangle.
    fn whole(&self) -> PixelRect {
        PixelRect {
            x: 0,
            y: 0,
            width: self.size[0],
            height: self.size[1],
        }
    }
}

impl SceneDraw {
    /// Everything for frames of `size` pixels in `format` at `quality`, render scale 1, on the
    /// render path the device's limits allow ([`RenderPath::of_device`]).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        quality: RenderQuality,
        size: [u32; 2],
    ) -> Result<Self, FrameError> {
        let path = RenderPath::of_device(device);
        Self::with_path(device, queue, format, quality, size, path)
    }

    /// [`Self::new`] on `path` (the adapter's: [`RenderPath::of`]).
    pub fn with_path(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        quality: RenderQuality,
        [w, h]: [u32; 2],
        path: RenderPath,
    ) -> Result<Self, FrameError> {
        let renderer = Renderer::with_path(device, queue, format, quality, path)?;
        let msaa = MsaaAttachments::new(device, &renderer.targets(), w, h, "frame");
        Ok(Self {
            quality,
            format,
            renderer,
            flags: FlagScenes::with_path(device, path)?,
            lab: Vec::new(),
            lab_area: None,
            msaa,
            scale: 1.0,
            upscale: UpscalePass::new(device, format),
            scaled: None,
            full: None,
            flag_images: Vec::new(),
            background: None,
            edges: Vec::new(),
            boxes: Vec::new(),
            stretched: None,
            stretched_last: false,
        }
        .with_images(device))
    }

    fn with_images(mut self, device: &wgpu::Device) -> Self {
        self.rebuild_images(device);
        self
    }

    /// Rebuilds the passes and attachments at another anti-aliasing / filtering quality.
    pub fn set_quality(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        quality: RenderQuality,
    ) -> Result<(), FrameError> {
        let path = self.renderer.path();
        let mut renderer = Renderer::with_path(device, queue, self.format, quality, path)?;
        for (k, image) in self.flag_images.iter().enumerate() {
            if image.is_some() {
                renderer.set_flag_image_of(device, queue, k, image.as_ref())?;
            }
        }
        if self.background.is_some() {
            renderer.set_background(device, queue, self.background.as_ref())?;
        }
        let (w, h) = (self.msaa.width, self.msaa.height);
        self.msaa = MsaaAttachments::new(device, &renderer.targets(), w, h, "frame");
        self.renderer = renderer;
        self.quality = quality;
        self.rebuild_images(device);
        Ok(())
    }

    /// Draws flag `flag` (0 is the first) with `image` (`None`: the built-in flag) from now
    /// on; on an error its image stays.
    pub(crate) fn set_flag_image_of(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        flag: usize,
        image: Option<image::RgbaImage>,
    ) -> Result<(), FrameError> {
        self.renderer
            .set_flag_image_of(device, queue, flag, image.as_ref())?;
        if self.flag_images.len() <= flag {
            self.flag_images.resize(flag + 1, None);
        }
        self.flag_images[flag] = image;
        Ok(())
    }

    /// Each flag's image from now on (index `k` for flag `k`; flags past the end draw the
    /// built-in flag), replacing all of them; on an error the images stay as they were.
    pub(crate) fn set_flag_images(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        images: Vec<Option<image::RgbaImage>>,
    ) -> Result<(), FrameError> {
        let count = images.len().max(self.flag_images.len());
        for k in 0..count {
            let image = images.get(k).cloned().flatten();
            self.renderer
                .set_flag_image_of(device, queue, k, image.as_ref())?;
        }
        self.flag_images = images;
        Ok(())
    }

    /// Flag `k`'s image is gone with it: the flags after it move up one, with their images.
    pub(crate) fn remove_flag_image(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        k: usize,
    ) -> Result<(), FrameError> {
        let mut images = self.flag_images.clone();
        if k < images.len() {
            images.remove(k);
        }
        self.set_flag_images(device, queue, images)
    }

    /// Each flag's pole colours and finial (index `k` for flag `k`).
    /// (Called every frame by the viewer: the list's memory is kept.)
    pub(crate) fn set_pole_looks(&mut self, looks: impl IntoIterator<Item = PoleLook>) {
        self.flags.looks.clear();
        self.flags.looks.extend(looks);
    }

    /// Draws `image` behind everything instead of the sky from now on (`None`: the sky; kept
    /// across [`SceneDraw::set_quality`]); on an error the current background stays.
    pub fn set_background(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: Option<image::RgbaImage>,
    ) -> Result<(), FrameError> {
        self.renderer
            .set_background(device, queue, image.as_ref())?;
        self.background = image;
        Ok(())
    }

    /// Makes the attachments `w × h` pixels (a resized window).
    pub(crate) fn fit(&mut self, device: &wgpu::Device, [w, h]: [u32; 2]) {
        if self.msaa.width != w || self.msaa.height != h {
            self.msaa = MsaaAttachments::new(device, &self.renderer.targets(), w, h, "frame");
            self.rebuild_images(device);
        }
    }

    /// The fraction of the frame's width and height the 3-D view is drawn at.
    pub(crate) fn scale(&self) -> f32 {
        self.scale
    }

    /// Draws the view at `scale` × the frame's width and height from the next frame on, and
    /// stretches it over the frame: below 1 the fragment work falls with the square of the
    /// scale, the image gets softer. Clamped to [`MIN_RENDER_SCALE`]..=1; not finite means 1.
    pub fn set_scale(&mut self, device: &wgpu::Device, scale: f32) {
        let scale = if scale.is_finite() {
            scale.clamp(MIN_RENDER_SCALE, 1.0)
        } else {
            1.0
        };
        if scale != self.scale {
            self.scale = scale;
            self.rebuild_images(device);
        }
    }

    /// The scaled image's size for a frame of `[w, h]` (each at least 1 pixel).
    pub(crate) fn scaled_size(&self, [w, h]: [u32; 2]) -> [u32; 2] {
        let side = |n: u32| ((n as f32 * self.scale).ceil() as u32).clamp(1, n.max(1));
        [side(w), side(h)]
    }

    /// Makes the images the view is drawn into for the current size, scale and quality.
    fn rebuild_images(&mut self, device: &wgpu::Device) {
        let full = [self.msaa.width, self.msaa.height];
        let fxaa = self.quality.post_aa();
        let image = |size, smoothed| {
            ViewImage::new(
                device,
                &self.renderer,
                &self.upscale,
                self.format,
                size,
                smoothed,
            )
        };
        self.scaled = (self.scale < 1.0).then(|| image(self.scaled_size(full), fxaa));
        self.full = fxaa.then(|| image(full, false));
    }

    /// How far beyond the pixels that will be seen the view must be drawn in an image at
    /// `factor` of the frame's size, image pixels: the stretch's bilinear reach, and FXAA's.
    fn margin(&self) -> f32 {
        if self.quality.post_aa() {
            1.0 + Fxaa::REACH
        } else {
            1.0
        }
    }

    /// Records what takes `image` (drawn at `factor` of the frame's size) into the frame's
    /// `target` within `visible`: FXAA then the stretch, FXAA alone at full size, or the
    /// stretch alone.
    ///
    /// Below scale 1, FXAA runs only within the image's pixels where the frame can have edges
    /// (`self.edges`, [`edges::edge_rects`]) when they are well under the seen part: the image
    /// is copied into FXAA's and smoothed there. And when the frame was drawn over the
    /// renderer's backdrop, only those parts are stretched, over a copy of the backdrop
    /// stretched once ([`stretch_within_edges`]).
    fn finish(
        parts: FinishParts<'_>,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        (image, factor): (&ViewImage, f32),
        target: &wgpu::TextureView,
        visible: Option<PixelRect>,
    ) -> bool {
        let up = parts.up;
        let seen_edges = |seen: PixelRect| -> Vec<PixelRect> {
            parts
                .edges
                .iter()
                .filter_map(|r| r.intersection(&seen))
                .collect()
        };
        // The seen pixels in the image, a texel wider on every side for the stretch.
        let small = visible.and_then(|r| r.scaled(factor, 1.0, image.size));
        let seen = small.unwrap_or(image.whole());
        let source = match (&image.smoothed, parts.post_aa) {
            (Some(smoothed), true) => {
                let within = seen_edges(seen);
                if area(&within) * 4 < area(&[seen]) * 3 {
                    renderer::copy_rect(encoder, &image.texture, &smoothed.texture, seen);
                    up.record_fxaa_within(encoder, &image.image, &smoothed.view, &within);
                } else {
                    up.record_fxaa(encoder, &image.image, &smoothed.view, small);
                }
                &smoothed.image
            }
            (None, true) => {
                up.record_fxaa(encoder, &image.image, target, visible);
                return false;
            }
            (_, false) => &image.image,
        };
        let backdrop = parts.renderer.backdrop().filter(|_| factor < 1.0);
        let within = backdrop.and_then(|backdrop| {
            stretch_within_edges(
                device,
                encoder,
                up,
                parts.stretched,
                backdrop,
                (&seen_edges(seen), factor),
                target,
                visible,
            )
        });
        match &within {
            Some(rects) => up.record_within(encoder, source, target, rects),
            None => up.record(encoder, source, target, visible),
        }
        within.is_some()
    }

    /// Whether the last frame was stretched only where it has edges, over the stretched
    /// backdrop (frames made either way are the same).
    pub fn used_stretched_backdrop(&self) -> bool {
        self.stretched_last
    }

    /// Uploads `snap`'s key nodes and records the GPU upsampling.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        snap: &Snapshot,
        view: &ViewSettings,
    ) -> Result<(), FrameError> {
        if snap.lab.is_empty() {
            self.flags.prepare(device, queue, encoder, snap, view)?;
        } else {
            self.flags.scenes[0].prepare(device, queue, encoder, snap, view)?;
        }
        Ok(())
    }

    /// Records the 3-D passes of `frame`, resolved into its target (drawn straight into it
    /// without multisampling), or, at a render scale below 1 and `frame.scaled`, into the smaller
    /// image and then stretched over the target. Call [`Self::prepare`] first in the same frame.
    pub(crate) fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameView<'_>,
    ) -> Result<(), FrameError> {
        if !frame.snap.lab.is_empty() {
            return self.render_lab(device, queue, encoder, frame);
        }
        let size = [self.msaa.width, self.msaa.height];
        // Clipped to the attachments: a rectangle from before a resize never reaches wgpu.
        let visible = frame
            .visible
            .filter(|r| !r.is_whole(size))
            .and_then(|r| r.scaled(1.0, 0.0, size));
        // The camera frames the part of the window the panels leave free (drawn there as into
        // an image of its own, as a lab copy into its cell), not the whole window behind them.
        let framed = visible.map_or(size, |r| [r.width, r.height]);
        let aspect = framed[0] as f32 / framed[1].max(1) as f32;
        let more = self.flags.more_cloths(frame.snap, frame.view);
        let data = self
            .flags
            .frame_data(frame.snap, frame.view, frame.camera, aspect, &more);
        let multisampled = self.renderer.targets().sample_count > 1;
        let margin = self.margin();
        let post_aa = self.quality.post_aa();
        if let Some((image, factor)) = image_for(
            self.scaled.as_ref(),
            self.full.as_ref(),
            self.scale,
            frame.scaled,
        ) {
            // The same rectangle in the image, wider on every side for what reads it next.
            let drawn = visible.and_then(|r| r.scaled(factor, margin, image.size));
            let (color, resolve) = image.color(multisampled);
            let data = FrameData {
                visible: drawn,
                viewport: visible.and_then(|r| r.scaled(factor, 0.0, image.size)),
                ..data
            };
            let depth = &image.msaa.depth_view;
            self.renderer
                .render(device, queue, encoder, color, resolve, depth, &data)?;
            self.edges.clear();
            let (boxes, rects) = (&mut self.boxes, &mut self.edges);
            edges::edge_rects(&data, image.size, EDGE_MARGIN, boxes, rects);
            let parts = FinishParts {
                up: &self.upscale,
                post_aa,
                renderer: &self.renderer,
                edges: &self.edges,
                stretched: &mut self.stretched,
            };
            self.stretched_last = Self::finish(
                parts,
                device,
                encoder,
                (image, factor),
                frame.target,
                visible,
            );
        } else {
            let (color, resolve) = if multisampled {
                (&self.msaa.color_view, Some(frame.target))
            } else {
                (frame.target, None)
            };
            let data = FrameData {
                visible,
                viewport: visible,
                ..data
            };
            let depth = &self.msaa.depth_view;
            self.renderer
                .render(device, queue, encoder, color, resolve, depth, &data)?;
        }
        Ok(())
    }

    /// The lab: every copy in its cell of the view ([`lab_cells`]), seen by the same camera.
    /// Each pass writes the renderer's shared uniforms, so the copies after the first are
    /// drawn and submitted one by one before copy 0, which goes last into `encoder` (prepared
    /// there by [`Self::prepare`]) with the stretch at a render scale below 1.
    fn render_lab(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameView<'_>,
    ) -> Result<(), FrameError> {
        let size = [self.msaa.width, self.msaa.height];
        let visible = frame.visible.and_then(|r| r.scaled(1.0, 0.0, size));
        if visible.is_some() {
            self.lab_area = visible;
        }
        while self.lab.len() < frame.snap.lab.len() {
            self.lab
                .push(ClothScene::with_path(device, self.renderer.path())?);
        }
        let post_aa = self.quality.post_aa();
        let drawn_into = image_for(
            self.scaled.as_ref(),
            self.full.as_ref(),
            self.scale,
            frame.scaled,
        );
        let (factor, image) = drawn_into.map_or((1.0, size), |(i, f)| (f, i.size));
        let whole = PixelRect {
            x: 0,
            y: 0,
            width: size[0],
            height: size[1],
        };
        let area = visible.or(self.lab_area).unwrap_or(whole);
        let Some(area) = area.scaled(factor, 0.0, image) else {
            return Ok(());
        };
        let n = 1 + frame.snap.lab.len();
        let cells = lab_cells(
            [area.x as f32, area.y as f32],
            [(area.x + area.width) as f32, (area.y + area.height) as f32],
            n,
        );
        let multisampled = self.renderer.targets().sample_count > 1;
        let (color, resolve, depth) = match (drawn_into, multisampled) {
            (Some((i, _)), _) => {
                let (color, resolve) = i.color(multisampled);
                (color, resolve, &i.msaa.depth_view)
            }
            (None, true) => (
                &self.msaa.color_view,
                Some(frame.target),
                &self.msaa.depth_view,
            ),
            (None, false) => (frame.target, None, &self.msaa.depth_view),
        };
        self.edges.clear();
        for i in (1..n).chain([0]) {
            let (snap, cloth) = if i == 0 {
                (frame.snap, &mut self.flags.scenes[0])
            } else {
                (&frame.snap.lab[i - 1], &mut self.lab[i - 1])
            };
            let mut own = (i != 0).then(|| {
                device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("lab copy"),
                })
            });
            let enc = match own.as_mut() {
                Some(e) => e,
                None => &mut *encoder,
            };
            if i != 0 {
                cloth.prepare(device, queue, enc, snap, frame.view)?;
            }
            let (lo, hi) = cells[i];
            if let Some(cell) = PixelRect::covering(lo, hi, 1.0, image) {
                let cell_size = [cell.width as f32, cell.height as f32];
                let aspect = cell_size[0] / cell_size[1].max(1.0);
                let mut camera = *frame.camera;
                camera.distance *= lab_zoom([area.width as f32, area.height as f32], cell_size);
                let data = FrameData {
                    visible: Some(cell),
                    viewport: Some(cell),
                    load: i != 1,
                    more_follow: i != 0,
                    ..cloth.frame_data(snap, frame.view, &camera, aspect)
                };
                self.renderer
                    .render(device, queue, enc, color, resolve, depth, &data)?;
                let (boxes, rects) = (&mut self.boxes, &mut self.edges);
                edges::edge_rects(&data, image, EDGE_MARGIN, boxes, rects);
            }
            if let Some(e) = own {
                queue.submit([e.finish()]);
            }
        }
        if let Some(image) = drawn_into {
            let parts = FinishParts {
                up: &self.upscale,
                post_aa,
                renderer: &self.renderer,
                edges: &self.edges,
                stretched: &mut self.stretched,
            };
            self.stretched_last =
                Self::finish(parts, device, encoder, image, frame.target, visible);
        }
        Ok(())
    }

    /// [`Self::prepare`] then [`Self::render`].
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameView<'_>,
    ) -> Result<(), FrameError> {
        self.prepare(device, queue, encoder, frame.snap, frame.view)?;
        self.render(device, queue, encoder, frame)
    }
}

/// The image a frame is drawn into first and its scale against the frame: `scaled` (at
/// `scale`) for a frame at the render scale, else `full` (there with FXAA); `None`: straight
/// into the frame.
fn image_for<'a>(
    scaled: Option<&'a ViewImage>,
    full: Option<&'a ViewImage>,
    scale: f32,
    at_render_scale: bool,
) -> Option<(&'a ViewImage, f32)> {
    match scaled {
        Some(image) if at_render_scale => Some((image, scale)),
        _ => full.map(|image| (image, 1.0)),
    }
}

/// What one frame shows and where it goes.
#[derive(Clone, Copy)]
pub struct FrameView<'a> {
    pub snap: &'a Snapshot,
    pub view: &'a ViewSettings,
    pub camera: &'a OrbitCamera,
    /// The image the frame ends in (the swapchain's, or a capture target).
    pub target: &'a wgpu::TextureView,
    /// The pixels the panels leave uncovered ([`uncovered`]); only they are shaded. `None`:
    /// all of them (no panels over the image, or a capture without the panels).
    pub visible: Option<PixelRect>,
    /// Draw at the render scale ([`SceneDraw::set_scale`]); `false` draws every pixel of the
    /// target (captures).
    pub scaled: bool,
}

/// The pixels of a `size_px` image left uncovered by the panels `panels` laid out in `root`:
/// what is still free of the root after them. Panels are opaque, so nothing under them needs
/// shading. Call it after [`panels`] in the same egui pass.
pub fn uncovered(root: &egui::Ui, size_px: [u32; 2]) -> Option<PixelRect> {
    let free = root.available_rect_before_wrap();
    PixelRect::covering(
        [free.min.x, free.min.y],
        [free.max.x, free.max.y],
        root.ctx().pixels_per_point(),
        size_px,
    )
}

/// The control panel's width when the viewer opens, points.
pub(crate) const CONTROLS_DEFAULT_WIDTH: f32 = 320.0;

/// The control panel's narrowest and widest, points, in a window `window_width` points wide:
/// 240 to 40 % of the window (at least 240). Dragging its edge stays within them, and nothing
/// in it can widen it further: what does not fit wraps or is cut at the edge.
pub fn controls_width(window_width: f32) -> std::ops::RangeInclusive<f32> {
    const NARROWEST: f32 = 240.0;
    NARROWEST..=(0.4 * window_width).max(NARROWEST)
}

/// The viewer's egui layer over the 3-D view: the guard's banner, the side panel and the help
/// window. Returns what the user asked for.
pub fn panels(
    root: &mut egui::Ui,
    state: &mut UiState,
    snap: &Snapshot,
    info: &FrameInfo<'_>,
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    // In the lab each copy's label carries its own divergence; of several flags, the first
    // flag the guard stopped has the banner.
    let stopped: Vec<usize> = (snap.all_flags().enumerate())
        .filter(|(_, f)| f.divergence.is_some())
        .map(|(k, _)| k)
        .collect();
    if let (Some(&k), true) = (stopped.first(), snap.lab.is_empty()) {
        let flag = snap.flag(k).unwrap_or(snap);
        let several = if snap.flags.is_empty() {
            &[][..]
        } else {
            &stopped[..]
        };
        egui::Panel::top("guard").show(root, |ui| {
            actions.extend(ui::divergence_banner(ui, state, flag, several));
        });
    }
    if state.show_panels {
        let width = controls_width(root.available_rect_before_wrap().width());
        egui::Panel::left("controls")
            .resizable(true)
            .default_size(CONTROLS_DEFAULT_WIDTH.clamp(*width.start(), *width.end()))
            .size_range(width)
            .show(root, |ui| {
                actions.extend(ui::controls(ui, state, snap, info));
            });
    }
    if state.show_panels && state.plots.shown {
        egui::Panel::bottom("plots")
            .resizable(true)
            .default_size(190.0)
            .show(root, |ui| {
                let now = web_time::Instant::now();
                ui::plots::plots_ui(ui, state, snap.paused, now);
            });
    }
    if !snap.lab.is_empty() {
        let area = root.available_rect_before_wrap();
        let stable = ui::panels::lab::stable_dt(state, snap);
        let figures = ui::panels::lab::figures(state, snap);
        let labels = super::lab_view::labels(root.ctx(), area, snap, &figures, &stable);
        actions.extend(labels);
    }
    // Over the part of the window left to the 3-D view, where the user looks.
    let view_area = root.available_rect_before_wrap();
    ui::notices::overlay(
        root.ctx(),
        view_area,
        &mut state.notices,
        web_time::Instant::now(),
    );
    if state.show_help {
        egui::Window::new("keys and mouse")
            .collapsible(false)
            .resizable(false)
            .show(root.ctx(), |ui| {
                // One line per key: never wrapped, the window fits the text.
                ui.add(
                    egui::Label::new(egui::RichText::new(keys::help_text()).monospace()).extend(),
                );
                if ui.button("close (h)").clicked() {
                    state.show_help = false;
                }
            });
    }
    actions
}

/// Pixels in `rects`, overlaps counted twice.
fn area(rects: &[PixelRect]) -> u64 {
    rects
        .iter()
        .map(|r| u64::from(r.width) * u64::from(r.height))
        .sum()
}

/// Makes the frame's `target` the renderer's `backdrop` (at `factor` of the frame's size)
/// stretched within `visible` (black elsewhere, as the stretch leaves it), from a copy kept
/// while the backdrop, `visible`, the scale and the size stay the same, and returns the frame's
/// rectangles the image must still be stretched over: those whose stretch reads a texel of the
/// image's `edges` (its pixels that differ from the backdrop, drawn over it). `None`, with
/// nothing recorded, when the target cannot be copied into, or the rectangles are most of it.
#[allow(clippy::too_many_arguments)] // reason: the pass, the copy kept, and the frame's parts
fn stretch_within_edges(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    up: &UpscalePass,
    stretched: &mut Option<Stretched>,
    (backdrop, generation): (&wgpu::Texture, u64),
    (edges, factor): (&[PixelRect], f32),
    target: &wgpu::TextureView,
    visible: Option<PixelRect>,
) -> Option<Vec<PixelRect>> {
    let out = target.texture();
    if !out.usage().contains(wgpu::TextureUsages::COPY_DST) || out.sample_count() != 1 {
        return None;
    }
    let size = [out.width(), out.height()];
    let whole = PixelRect {
        x: 0,
        y: 0,
        width: size[0],
        height: size[1],
    };
    let seen = visible.unwrap_or(whole);
    // A frame pixel's bilinear sample reads the two image texels around it on each axis: a
    // texel is 1/factor frame pixels, so a rectangle of texels reaches one texel (and a pixel
    // for rounding) further in the frame.
    let reach = 1.0 / factor + 1.0;
    let mut rects: Vec<PixelRect> = edges
        .iter()
        .filter_map(|r| r.scaled(1.0 / factor, reach, size))
        .filter_map(|r| r.intersection(&seen))
        .collect();
    edges::merge(&mut rects);
    if area(&rects) * 4 >= area(&[seen]) * 3 {
        return None;
    }
    let key = (generation, visible, factor.to_bits(), size);
    if stretched.as_ref().is_none_or(|s| s.key != key) {
        let fits = stretched.as_ref().is_some_and(|s| {
            [s.texture.width(), s.texture.height()] == size && s.texture.format() == out.format()
        });
        let texture = match stretched.take() {
            Some(s) if fits => s.texture,
            _ => fullscreen::layer_texture(device, "stretched backdrop", out.format(), size).0,
        };
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let from = backdrop.create_view(&wgpu::TextureViewDescriptor::default());
        up.record(encoder, &up.bind(device, &from), &view, visible);
        *stretched = Some(Stretched { texture, key });
    }
    let s = stretched.as_ref()?;
    renderer::copy_rect(encoder, &s.texture, out, whole);
    Some(rects)
}
