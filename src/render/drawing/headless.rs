//! Rendering without a window: `flagsim render`, `flagsim simulate --gpu`, tests and the README
//! pictures. Owns a headless device, the upsample pass, the renderer and one offscreen target.
//! It draws on the render path its adapter allows unless told which ([`HeadlessRenderer::with_path`]:
//! the tests draw one scene both ways on one adapter).

use image::RgbaImage;

use crate::render::camera::orbit::OrbitCamera;
use crate::render::device::error::RenderError;
use crate::render::device::gpu::GpuContext;
use crate::render::device::path::RenderPath;
use crate::render::device::targets::RenderQuality;
use crate::render::drawing::frame::{FlagScenes, PoleLook};
use crate::render::drawing::offscreen::OffscreenTarget;
use crate::render::drawing::renderer::Renderer;
use crate::render::drawing::view::ViewSettings;
use crate::sim::runtime::snapshot::Snapshot;
use crate::upsample::{KeyGrid, RenderMesh, RenderSettings, try_upsample_cpu};

pub struct HeadlessRenderer {
    pub ctx: GpuContext,
    flags: FlagScenes,
    renderer: Renderer,
    target: OffscreenTarget,
}

impl HeadlessRenderer {
    /// Opens the GPU and builds everything for `width × height` images, on the render path
    /// the adapter allows ([`RenderPath::of`]).
    pub fn new(width: u32, height: u32) -> Result<Self, RenderError> {
        let ctx = GpuContext::new_headless()?;
        let path = RenderPath::of(&ctx.adapter, &ctx.device);
        Self::on(ctx, width, height, path)
    }

    /// Opens the GPU and builds everything for `width × height` images on `path`
    /// ([`RenderPath::CpuUpsampling`] on any adapter, [`RenderPath::Compute`] where it allows).
    pub fn with_path(width: u32, height: u32, path: RenderPath) -> Result<Self, RenderError> {
        Self::on(GpuContext::new_headless()?, width, height, path)
    }

    /// Everything for `width × height` images on `ctx`'s device, on `path`.
    pub fn on(
        ctx: GpuContext,
        width: u32,
        height: u32,
        path: RenderPath,
    ) -> Result<Self, RenderError> {
        let target = OffscreenTarget::new(&ctx.device, width, height)?;
        let renderer = Renderer::with_path(
            &ctx.device,
            &ctx.queue,
            OffscreenTarget::FORMAT,
            RenderQuality::HIGH,
            path,
        )?;
        let flags = FlagScenes::with_path(&ctx.device, path)?;
        Ok(Self {
            ctx,
            flags,
            renderer,
            target,
        })
    }

    /// Draws the flag with `image` from now on; on an error the current flag stays.
    pub fn set_flag_image(&mut self, image: &RgbaImage) -> Result<(), RenderError> {
        self.renderer
            .set_flag_image(&self.ctx.device, &self.ctx.queue, image)
    }

    /// Draws flag `flag` (0 is the first) with `image` from now on (`None`: the built-in
    /// flag); on an error its image stays.
    pub fn set_flag_image_of(
        &mut self,
        flag: usize,
        image: Option<&RgbaImage>,
    ) -> Result<(), RenderError> {
        self.renderer
            .set_flag_image_of(&self.ctx.device, &self.ctx.queue, flag, image)
    }

    /// Each flag's pole colours and finial (index `k` for flag `k`).
    pub(crate) fn set_pole_looks(&mut self, looks: Vec<PoleLook>) {
        self.flags.looks = looks;
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
        self.flags
            .prepare(device, queue, &mut encoder, snap, view)?;
        queue.submit([encoder.finish()]);
        let more = self.flags.more_cloths(snap, view);
        let frame = self
            .flags
            .frame_data(snap, view, camera, self.target.aspect(), &more);
        let image = self
            .renderer
            .render_offscreen(device, queue, &self.target, &frame)?;
        self.ctx.check()?;
        Ok(image)
    }

    /// How this renderer's cloth nodes are made and read.
    pub fn path(&self) -> RenderPath {
        self.renderer.path()
    }

    /// The GPU upsampler's result for `grid`, read back (for `simulate --upsample R --gpu`);
    /// the CPU twin's on the CPU-upsampling path.
    pub(crate) fn upsample(
        &mut self,
        grid: &KeyGrid,
        settings: &RenderSettings,
    ) -> Result<RenderMesh, RenderError> {
        let Some(upsample) = self.flags.scenes[0].upsample.as_mut() else {
            return Ok(try_upsample_cpu(grid, settings)?);
        };
        let _recreated = upsample.upload_keys(&self.ctx.device, &self.ctx.queue, grid, settings)?;
        let mesh = upsample.run_and_read_back(&self.ctx)?;
        self.ctx.check()?;
        Ok(mesh)
    }
}
