//! Rendering without a window: `flagsim render`, `flagsim simulate --gpu`, tests and the README
//! pictures. Owns a headless device, the upsample pass, the renderer and one offscreen target.

use image::RgbaImage;

use super::camera::OrbitCamera;
use super::error::RenderError;
use super::frame::ClothScene;
use super::gpu::GpuContext;
use super::offscreen::OffscreenTarget;
use super::renderer::Renderer;
use super::view::ViewSettings;
use crate::sim::snapshot::Snapshot;
use crate::upsample::{KeyGrid, RenderMesh, RenderSettings};

pub struct HeadlessRenderer {
    pub ctx: GpuContext,
    scene: ClothScene,
    renderer: Renderer,
    target: OffscreenTarget,
}

impl HeadlessRenderer {
    /// Opens the GPU and builds everything for `width × height` images.
    pub fn new(width: u32, height: u32) -> Result<Self, RenderError> {
        let ctx = GpuContext::new_headless()?;
        let target = OffscreenTarget::new(&ctx.device, width, height)?;
        let renderer = Renderer::new(&ctx.device, &ctx.queue, OffscreenTarget::FORMAT)?;
        let scene = ClothScene::new(&ctx.device)?;
        Ok(Self {
            ctx,
            scene,
            renderer,
            target,
        })
    }

    /// Draws the flag with `image` from now on; on an error the current flag stays.
    pub fn set_flag_image(&mut self, image: &RgbaImage) -> Result<(), RenderError> {
        self.renderer
            .set_flag_image(&self.ctx.device, &self.ctx.queue, image)
    }

    /// Draws `image` behind everything instead of the sky (`None`: the sky); on an error the
    /// current background stays.
    pub fn set_background(&mut self, image: Option<&RgbaImage>) -> Result<(), RenderError> {
        self.renderer
            .set_background(&self.ctx.device, &self.ctx.queue, image)
    }

    /// One image of `snap` as `view` asks, seen by `camera`.
    pub fn render(
        &mut self,
        snap: &Snapshot,
        view: &ViewSettings,
        camera: &OrbitCamera,
    ) -> Result<RgbaImage, RenderError> {
        let device = &self.ctx.device;
        let queue = &self.ctx.queue;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("headless upsample encoder"),
        });
        self.scene
            .prepare(device, queue, &mut encoder, snap, view)?;
        queue.submit([encoder.finish()]);
        let frame = self
            .scene
            .frame_data(snap, view, camera, self.target.aspect());
        let image = self
            .renderer
            .render_offscreen(device, queue, &self.target, &frame)?;
        self.ctx.check()?;
        Ok(image)
    }

    /// The GPU upsampler's result for `grid`, read back (for `simulate --upsample R --gpu`).
    pub fn upsample(
        &mut self,
        grid: &KeyGrid,
        settings: &RenderSettings,
    ) -> Result<RenderMesh, RenderError> {
        let upsample = &mut self.scene.upsample;
        let _recreated = upsample.upload_keys(&self.ctx.device, &self.ctx.queue, grid, settings)?;
        let mesh = upsample.run_and_read_back(&self.ctx)?;
        self.ctx.check()?;
        Ok(mesh)
    }
}
