//! One frame of the viewer, shared by the window ([`super::viewer`]) and by `flagsim bench`'s
//! frame split, so the benchmark times the code the viewer runs: [`SceneDraw`] (upload and GPU
//! upsampling, then the 3-D passes into multisampled targets resolved into the frame) and
//! [`panels`] (the egui layout over it).

use crate::render::camera::OrbitCamera;
use crate::render::frame::ClothScene;
use crate::render::gpu::GpuError;
use crate::render::view::ViewSettings;
use crate::render::{FrameData, MsaaAttachments, PixelRect, RenderError, RenderQuality, Renderer};
use crate::sim::thread::Snapshot;
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

/// The 3-D side of a frame: the upsampler and its buffers, the drawing passes, and the
/// multisampled attachments they draw into.
pub struct SceneDraw {
    pub quality: RenderQuality,
    format: wgpu::TextureFormat,
    pub renderer: Renderer,
    pub cloth: ClothScene,
    pub msaa: MsaaAttachments,
}

impl SceneDraw {
    /// Everything for frames of `size` pixels in `format` at `quality`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        quality: RenderQuality,
        [w, h]: [u32; 2],
    ) -> Result<Self, FrameError> {
        let renderer = Renderer::with_quality(device, queue, format, quality)?;
        let msaa = MsaaAttachments::new(device, &renderer.targets(), w, h, "frame");
        Ok(Self {
            quality,
            format,
            renderer,
            cloth: ClothScene::new(device)?,
            msaa,
        })
    }

    /// Rebuilds the passes and attachments at another anti-aliasing / filtering quality.
    pub fn set_quality(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        quality: RenderQuality,
    ) -> Result<(), FrameError> {
        let renderer = Renderer::with_quality(device, queue, self.format, quality)?;
        let (w, h) = (self.msaa.width, self.msaa.height);
        self.msaa = MsaaAttachments::new(device, &renderer.targets(), w, h, "frame");
        self.renderer = renderer;
        self.quality = quality;
        Ok(())
    }

    /// Makes the attachments `w × h` pixels (a resized window).
    pub fn fit(&mut self, device: &wgpu::Device, [w, h]: [u32; 2]) {
        if self.msaa.width != w || self.msaa.height != h {
            self.msaa = MsaaAttachments::new(device, &self.renderer.targets(), w, h, "frame");
        }
    }

    /// Uploads `snap`'s key nodes and records the GPU upsampling.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        snap: &Snapshot,
        view: &ViewSettings,
    ) -> Result<(), FrameError> {
        self.cloth.prepare(device, queue, encoder, snap, view)?;
        Ok(())
    }

    /// Records the 3-D passes of `frame`, resolved into its target (drawn straight into it
    /// without multisampling). Call [`Self::prepare`] first in the same frame.
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameView<'_>,
    ) -> Result<(), FrameError> {
        let size = [self.msaa.width, self.msaa.height];
        let aspect = size[0] as f32 / size[1].max(1) as f32;
        let data = FrameData {
            // Clipped to the attachments: a rectangle from before a resize never reaches wgpu.
            visible: frame.visible.filter(|r| !r.is_whole(size)).and_then(|r| {
                PixelRect::covering(
                    [r.x as f32, r.y as f32],
                    [(r.x + r.width) as f32, (r.y + r.height) as f32],
                    1.0,
                    size,
                )
            }),
            ..self
                .cloth
                .frame_data(frame.snap, frame.view, frame.camera, aspect)
        };
        let (color, resolve) = if self.renderer.targets().sample_count > 1 {
            (&self.msaa.color_view, Some(frame.target))
        } else {
            (frame.target, None)
        };
        self.renderer.render(
            device,
            queue,
            encoder,
            color,
            resolve,
            &self.msaa.depth_view,
            &data,
        )?;
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

/// The viewer's egui layer over the 3-D view: the guard's banner, the side panel and the help
/// window. Returns what the user asked for.
pub fn panels(
    root: &mut egui::Ui,
    state: &mut UiState,
    snap: &Snapshot,
    info: &FrameInfo<'_>,
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    if snap.divergence.is_some() {
        egui::Panel::top("guard").show(root, |ui| {
            actions.extend(ui::divergence_banner(ui, state, snap));
        });
    }
    if state.show_panels {
        egui::Panel::left("controls")
            .resizable(true)
            .default_size(320.0)
            .show(root, |ui| {
                actions.extend(ui::controls(ui, state, snap, info));
            });
    }
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
