//! The renderer: one long-lived object owning the scene, cloth and lines passes, built once for a
//! colour target format. Per frame it only uploads uniforms and buffers from a [`FrameData`] and
//! records one MSAA render pass; the same code draws into an [`OffscreenTarget`] (tests,
//! `flagsim render`) and into the viewer's swapchain.
//!
//! Colour: shading is computed in linear light. For an `*Srgb` target the hardware encodes; for
//! any other format (a `Bgra8Unorm` swapchain, say) the shaders encode sRGB themselves, selected
//! by a uniform flag derived from the target format.
//!
//! Draw order inside the pass: sky → ground, pole, spheres → cloth → lines.
//!
//! [`OffscreenTarget`]: super::offscreen::OffscreenTarget

use super::camera::OrbitCamera;
use super::cloth_pass::{ClothFrame, ClothPass};
use super::error::RenderError;
use super::globals::{CameraMatrices, GlobalUniforms, GlobalsBinding, Light};
use super::lines_pass::{LineVertex, LinesPass};
use super::scene_pass::{SceneFrame, ScenePass};
pub use super::targets::{MsaaAttachments, PixelRect, RenderQuality, TargetFormats};

/// Everything one frame draws. Built by the caller each frame; borrowed, never stored.
#[derive(Debug, Clone, Copy)]
pub struct FrameData<'a> {
    /// World → clip and the eye (m).
    pub camera: CameraMatrices,
    /// Sun and ambient light.
    pub light: Light,
    /// The cloth (upsample output buffers and how to colour them); `None` draws no cloth.
    pub cloth: Option<ClothFrame<'a>>,
    /// Line segments, two vertices each (key mesh, `Δv`, comparisons); may be empty.
    pub lines: &'a [LineVertex],
    /// Pole, sphere colliders, ground and sky.
    pub scene: SceneFrame<'a>,
    /// The pixels that will be seen; the rest (under opaque panels) is cleared but not shaded.
    /// `None`: the whole target.
    pub visible: Option<PixelRect>,
    /// Draw into this rectangle as if it were the whole image (a lab copy's cell); `None`:
    /// the whole target.
    pub viewport: Option<PixelRect>,
    /// Keep what the colour target holds instead of clearing it (a lab copy after the first).
    pub load: bool,
    /// A later pass loads this one's colour (keep the multisampled samples).
    pub more_follow: bool,
}

impl FrameData<'_> {
    /// A frame seen by `camera` on an image of `aspect = width / height`, default light, nothing
    /// but the sky; fill in the rest with struct update syntax.
    pub fn new(camera: &OrbitCamera, aspect: f32) -> Self {
        Self {
            camera: CameraMatrices::from_orbit(camera, aspect),
            light: Light::default(),
            cloth: None,
            lines: &[],
            scene: SceneFrame::default(),
            visible: None,
            viewport: None,
            load: false,
            more_follow: false,
        }
    }
}

/// The long-lived renderer.
#[derive(Debug)]
pub struct Renderer {
    targets: TargetFormats,
    globals: GlobalsBinding,
    scene: ScenePass,
    cloth: ClothPass,
    lines: LinesPass,
    draw_cloth: bool,
}

impl Renderer {
    /// Builds every pipeline for colour targets of `color_format` at [`RenderQuality::HIGH`]
    /// (4× MSAA, `Depth32Float`).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        color_format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        Self::with_quality(device, queue, color_format, RenderQuality::HIGH)
    }

    /// Builds every pipeline for colour targets of `color_format` at `quality`.
    pub fn with_quality(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        color_format: wgpu::TextureFormat,
        quality: RenderQuality,
    ) -> Result<Self, RenderError> {
        let targets = TargetFormats {
            sample_count: if quality.msaa_samples > 1 { 4 } else { 1 },
            ..TargetFormats::new(color_format)
        };
        let globals = GlobalsBinding::new(device, "globals");
        Ok(Self {
            targets,
            scene: ScenePass::new(device, &globals.layout, &targets),
            cloth: ClothPass::new(
                device,
                queue,
                &globals.layout,
                &targets,
                quality.anisotropy.clamp(1, 16),
            )?,
            lines: LinesPass::new(device, &globals.layout, &targets),
            globals,
            draw_cloth: false,
        })
    }

    /// Draws the flag with `image` from now on (see [`ClothPass::set_texture`]); on an error
    /// the current flag stays.
    pub fn set_flag_image(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: &image::RgbaImage,
    ) -> Result<(), RenderError> {
        self.cloth.set_texture(device, queue, image)
    }

    /// The formats the attachments handed to [`Renderer::render`] must have.
    pub fn targets(&self) -> TargetFormats {
        self.targets
    }

    /// Uploads `frame` and records one render pass that clears and draws the whole image.
    ///
    /// `color_view` is the multisampled colour attachment ([`TargetFormats::sample_count`]
    /// samples); `resolve_target` the single-sample view that receives the anti-aliased image
    /// (the offscreen texture or the swapchain image; `None` only with a sample count of 1);
    /// `depth_view` the multisampled depth attachment. All must match [`Renderer::targets`].
    /// Nothing is submitted: the caller owns `encoder`.
    #[allow(clippy::too_many_arguments)] // reason: the signature mirrors the attachments one to one
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        color_view: &wgpu::TextureView,
        resolve_target: Option<&wgpu::TextureView>,
        depth_view: &wgpu::TextureView,
        frame: &FrameData<'_>,
    ) -> Result<(), RenderError> {
        self.prepare(device, queue, frame)?;
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("flagsim render pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color_view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    // The sky covers every pixel; the clear value only matters if it does not.
                    load: if frame.load {
                        wgpu::LoadOp::Load
                    } else {
                        wgpu::LoadOp::Clear(wgpu::Color::BLACK)
                    },
                    // With a resolve target the samples themselves are not needed afterwards,
                    // unless another pass draws on them.
                    store: if resolve_target.is_some() && !frame.more_follow {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some(v) = frame.viewport {
            pass.set_viewport(
                v.x as f32,
                v.y as f32,
                v.width as f32,
                v.height as f32,
                0.0,
                1.0,
            );
        }
        let scissor = match (frame.visible, frame.viewport) {
            (Some(r), Some(v)) => r.intersection(&v).or(Some(PixelRect {
                width: 0,
                height: 0,
                ..v
            })),
            (r, v) => r.or(v),
        };
        if let Some(r) = scissor {
            // Fragments outside are never shaded: on a software rasteriser the panels' area
            // costs nothing but the clear.
            pass.set_scissor_rect(r.x, r.y, r.width, r.height);
        }
        let globals = &self.globals.bind_group;
        self.scene.draw_objects(&mut pass, globals);
        if self.draw_cloth {
            self.cloth.draw(&mut pass, globals);
        }
        // Last of the opaque work, so only uncovered pixels pay for the sky.
        self.scene.draw_background(&mut pass, globals);
        self.lines.draw(&mut pass, globals);
        Ok(())
    }

    /// Writes this frame's uniforms and buffers. Called by [`Renderer::render`].
    fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameData<'_>,
    ) -> Result<(), RenderError> {
        let uniforms =
            GlobalUniforms::new(&frame.camera, &frame.light, self.targets.color.is_srgb());
        self.globals.upload(queue, &uniforms);
        self.scene.prepare(device, queue, &frame.scene);
        self.draw_cloth = false;
        if let Some(cloth) = &frame.cloth {
            self.cloth.prepare(device, queue, cloth)?;
            self.draw_cloth = true;
        }
        self.lines.set_segments(device, queue, frame.lines);
        Ok(())
    }
}
