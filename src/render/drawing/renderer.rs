//! The renderer: one long-lived object owning the scene, cloth and lines passes, built once for a
//! colour target format. Per frame it only uploads uniforms and buffers from a [`FrameData`] and
//! records one MSAA render pass; the same code draws into an [`OffscreenTarget`] (tests,
//! `flagsim render`) and into the viewer's swapchain.
//!
//! Colour: shading is computed in linear light. For an `*Srgb` target the hardware encodes; for
//! any other format (a `Bgra8Unorm` swapchain, say) the shaders encode sRGB themselves, selected
//! by a uniform flag derived from the target format.
//!
//! Draw order inside the pass: pole, spheres → cloth → ground → sky → lines (the opaque
//! surroundings last, so only the pixels nothing nearer covers pay for them).
//!
//! [`OffscreenTarget`]: crate::render::drawing::offscreen::OffscreenTarget

use crate::render::camera::globals::{CameraMatrices, GlobalUniforms, GlobalsBinding, Light};
use crate::render::camera::orbit::OrbitCamera;
use crate::render::device::error::RenderError;
use crate::render::device::path::RenderPath;
pub(crate) use crate::render::device::targets::TargetFormats;
pub(crate) use crate::render::device::targets::{PixelRect, RenderQuality};
use crate::render::passes::cloth_pass::{ClothFrame, ClothPass};
use crate::render::passes::lines_pass::{LineVertex, LinesPass};
use crate::render::passes::scene_pass::{SceneFrame, ScenePass, SceneUniforms};

/// Everything one frame draws. Built by the caller each frame; borrowed, never stored.
#[derive(Debug, Clone, Copy)]
pub struct FrameData<'a> {
    /// World → clip and the eye (m).
    pub camera: CameraMatrices,
    /// Sun and ambient light.
    pub light: Light,
    /// The cloth (upsample output buffers and how to colour them); `None` draws no cloth.
    pub cloth: Option<ClothFrame<'a>>,
    /// The other flags' cloths in a scene of several (flag 1 first; drawn with flag `k`'s
    /// image, [`Renderer::set_flag_image_of`]); may be empty.
    pub more_cloths: &'a [ClothFrame<'a>],
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
            more_cloths: &[],
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
    /// How the cloth's nodes are made and read.
    path: RenderPath,
    targets: TargetFormats,
    globals: GlobalsBinding,
    scene: ScenePass,
    cloth: ClothPass,
    lines: LinesPass,
    backdrop: Backdrop,
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

    /// Builds every pipeline for colour targets of `color_format` at `quality`, on the path
    /// the device's limits allow ([`RenderPath::of_device`]).
    pub fn with_quality(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        color_format: wgpu::TextureFormat,
        quality: RenderQuality,
    ) -> Result<Self, RenderError> {
        let path = RenderPath::of_device(device);
        Self::with_path(device, queue, color_format, quality, path)
    }

    /// Builds every pipeline for colour targets of `color_format` at `quality`, drawing the
    /// cloth's nodes as `path` gives them: [`RenderPath::CpuUpsampling`] works on any device,
    /// [`RenderPath::Compute`] where [`RenderPath::of`] allows it.
    pub fn with_path(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        color_format: wgpu::TextureFormat,
        quality: RenderQuality,
        path: RenderPath,
    ) -> Result<Self, RenderError> {
        let targets = TargetFormats {
            sample_count: if quality.msaa_samples > 1 { 4 } else { 1 },
            ..TargetFormats::new(color_format)
        };
        let globals = GlobalsBinding::new(device, "globals");
        Ok(Self {
            targets,
            scene: ScenePass::new(device, queue, &globals.layout, &targets),
            cloth: ClothPass::new(
                device,
                queue,
                &globals.layout,
                &targets,
                quality.anisotropy.clamp(1, 16),
                path,
            )?,
            lines: LinesPass::new(device, &globals.layout, &targets),
            globals,
            backdrop: Backdrop {
                // wgpu's GL backend copies between textures through a framebuffer, which cannot
                // take a depth texture as its colour: there the frames draw the sky and ground.
                copies_depth: device.adapter_info().backend != wgpu::Backend::Gl,
                ..Backdrop::default()
            },
            path,
        })
    }

    /// How this renderer's cloth nodes are made and read: upsampled on the GPU
    /// ([`RenderPath::Compute`]) or on the CPU ([`RenderPath::CpuUpsampling`]).
    pub fn path(&self) -> RenderPath {
        self.path
    }

    /// Whether the render nodes are upsampled on the GPU (the compute path).
    pub fn upsampling_on_gpu(&self) -> bool {
        self.path.upsamples_on_gpu()
    }

    /// Draws the flag with `image` from now on (see [`ClothPass::set_texture`]); on an error
    /// the current flag stays.
    pub(crate) fn set_flag_image(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: &image::RgbaImage,
    ) -> Result<(), RenderError> {
        self.cloth.set_texture(device, queue, 0, Some(image))
    }

    /// Draws flag `flag` (0 is the first) with `image` from now on, or with the built-in flag
    /// for `None`; on an error its image stays.
    pub(crate) fn set_flag_image_of(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        flag: usize,
        image: Option<&image::RgbaImage>,
    ) -> Result<(), RenderError> {
        self.cloth.set_texture(device, queue, flag, image)
    }

    /// Draws `image` behind everything instead of the sky from now on (`None`: the sky again;
    /// [`ScenePass::set_background`]); on an error the current background stays.
    pub(crate) fn set_background(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: Option<&image::RgbaImage>,
    ) -> Result<(), RenderError> {
        self.scene.set_background(device, queue, image)
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
        let uniforms = self.prepare(device, queue, frame)?;
        let scissor = match (frame.visible, frame.viewport) {
            (Some(r), Some(v)) => r.intersection(&v).or(Some(PixelRect {
                width: 0,
                height: 0,
                ..v
            })),
            (r, v) => r.or(v),
        };
        // The sky and the ground from the backdrop, when this frame's are the last one's.
        let key = BackdropKey::of(
            frame,
            (uniforms, &self.scene),
            scissor,
            color_view,
            resolve_target,
            depth_view,
        );
        self.backdrop.used = false;
        let from_backdrop = key.as_ref().is_some_and(|key| {
            self.backdrop.restore(
                device,
                encoder,
                &self.scene,
                &self.globals,
                key,
                color_view,
                depth_view,
            )
        });
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("flagsim render pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color_view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    // The sky covers every pixel; the clear value only matters if it does not.
                    load: if frame.load || from_backdrop {
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
                    load: if from_backdrop {
                        wgpu::LoadOp::Load
                    } else {
                        wgpu::LoadOp::Clear(1.0)
                    },
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        set_view(&mut pass, frame.viewport, scissor);
        let globals = &self.globals.bind_group;
        self.scene.draw_objects(&mut pass, globals);
        self.cloth.draw(&mut pass, globals);
        if !from_backdrop {
            // Last of the opaque work, so only uncovered pixels pay for the ground and the sky.
            self.scene.draw_background(&mut pass, globals);
        }
        self.lines.draw(&mut pass, globals);
        Ok(())
    }

    /// Whether the last frame's sky and ground were copied from the backdrop (frames drawn
    /// either way are the same).
    pub fn used_backdrop(&self) -> bool {
        self.backdrop.used
    }

    /// The backdrop the last frame was drawn over, if it was, and its generation (a new number
    /// each time the backdrop is drawn): the viewer keeps it stretched to the window's size.
    pub(crate) fn backdrop(&self) -> Option<(&wgpu::Texture, u64)> {
        match (&self.backdrop.images, self.backdrop.used) {
            (Some((color, _)), true) => Some((color, self.backdrop.generation)),
            _ => None,
        }
    }

    /// Writes this frame's uniforms and buffers. Called by [`Renderer::render`].
    fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameData<'_>,
    ) -> Result<GlobalUniforms, RenderError> {
        let uniforms =
            GlobalUniforms::new(&frame.camera, &frame.light, self.targets.color.is_srgb());
        self.globals.upload(queue, &uniforms);
        self.scene.prepare(device, queue, &frame.scene);
        self.cloth.begin();
        for cloth in frame.cloth.iter().chain(frame.more_cloths) {
            self.cloth.prepare(device, queue, cloth)?;
        }
        self.lines.set_segments(device, queue, frame.lines);
        Ok(uniforms)
    }
}

/// Sets the viewport (`None`: the whole target) and the scissor (`None`: none).
fn set_view(
    pass: &mut wgpu::RenderPass<'_>,
    viewport: Option<PixelRect>,
    scissor: Option<PixelRect>,
) {
    if let Some(v) = viewport {
        pass.set_viewport(
            v.x as f32,
            v.y as f32,
            v.width as f32,
            v.height as f32,
            0.0,
            1.0,
        );
    }
    if let Some(r) = scissor {
        // Fragments outside are never shaded: on a software rasteriser the panels' area
        // costs nothing but the clear.
        pass.set_scissor_rect(r.x, r.y, r.width, r.height);
    }
}

/// What the sky and the ground of a frame depend on: equal keys, equal pixels.
#[derive(Debug, Clone, Copy)]
struct BackdropKey {
    globals: GlobalUniforms,
    scene: SceneUniforms,
    /// [`ScenePass::background_generation`].
    background: u64,
    ground: bool,
    viewport: Option<PixelRect>,
    scissor: Option<PixelRect>,
    size: [u32; 2],
    color: wgpu::TextureFormat,
    depth: wgpu::TextureFormat,
}

impl PartialEq for BackdropKey {
    fn eq(&self, other: &Self) -> bool {
        bytemuck::bytes_of(&self.globals) == bytemuck::bytes_of(&other.globals)
            && bytemuck::bytes_of(&self.scene) == bytemuck::bytes_of(&other.scene)
            && (self.background, self.ground, self.viewport)
                == (other.background, other.ground, other.viewport)
            && (self.scissor, self.size) == (other.scissor, other.size)
            && (self.color, self.depth) == (other.color, other.depth)
    }
}

impl BackdropKey {
    /// The key of `frame`'s sky and ground, when they can come from a backdrop: a whole frame
    /// (not a lab copy drawn over another), without multisampling, into attachments that can
    /// be copied into.
    fn of(
        frame: &FrameData<'_>,
        (globals, scene): (GlobalUniforms, &ScenePass),
        scissor: Option<PixelRect>,
        color: &wgpu::TextureView,
        resolve_target: Option<&wgpu::TextureView>,
        depth: &wgpu::TextureView,
    ) -> Option<Self> {
        let (color, depth) = (color.texture(), depth.texture());
        let copyable = |t: &wgpu::Texture| {
            t.sample_count() == 1 && t.usage().contains(wgpu::TextureUsages::COPY_DST)
        };
        let usable = !frame.load
            && resolve_target.is_none()
            && copyable(color)
            && copyable(depth)
            && (color.width(), color.height()) == (depth.width(), depth.height());
        usable.then(|| Self {
            globals,
            scene: scene.uniforms_of(&frame.scene),
            background: scene.background_generation(),
            ground: frame.scene.ground_height.is_some(),
            viewport: frame.viewport,
            scissor,
            size: [color.width(), color.height()],
            color: color.format(),
            depth: depth.format(),
        })
    }
}

/// The sky and the ground drawn once into images of their own (colour and depth) while the
/// camera, the light, the surroundings and the view's rectangle stay the same, and copied into
/// each frame before its cloth, pole and lines are drawn over them: on a software rasteriser
/// that is two copies instead of two shaded passes, a large share of its frame (the frame's
/// parts: docs/performance.md). A frame whose key differs from the last one's (the camera
/// moving) draws them directly and costs nothing more; the second frame alike fills the
/// backdrop.
#[derive(Default)]
struct Backdrop {
    /// Whether the device copies depth textures (else the backdrop is never used).
    copies_depth: bool,
    images: Option<(wgpu::Texture, wgpu::Texture)>,
    /// What `images` hold.
    held: Option<BackdropKey>,
    /// The last frame's key.
    last: Option<BackdropKey>,
    /// Whether the last frame came from the backdrop.
    used: bool,
    /// Counts the fills.
    generation: u64,
}

impl std::fmt::Debug for Backdrop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backdrop")
            .field("held", &self.held.is_some())
            .field("used", &self.used)
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

impl Backdrop {
    /// Records the copy of the sky and the ground of a frame of `key` into `color` and `depth`
    /// (drawing them into the backdrop first when the last frame had the same key) and returns
    /// true; false when the frame must draw them itself.
    #[allow(clippy::too_many_arguments)] // reason: the passes and attachments the copy needs
    fn restore(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &ScenePass,
        globals: &GlobalsBinding,
        key: &BackdropKey,
        color: &wgpu::TextureView,
        depth: &wgpu::TextureView,
    ) -> bool {
        if !self.copies_depth {
            return false;
        }
        let stable = self.last.as_ref() == Some(key);
        self.last = Some(*key);
        let held = self.held.as_ref() == Some(key);
        self.used = held || stable;
        if !self.used {
            return false;
        }
        if !held {
            self.fill(device, encoder, scene, globals, key);
        }
        let Some((from_color, from_depth)) = &self.images else {
            self.used = false;
            return false;
        };
        let whole = PixelRect {
            x: 0,
            y: 0,
            width: key.size[0],
            height: key.size[1],
        };
        // Whole: outside the scissor the backdrop is black, as a cleared frame is there (and
        // copies of depth must be whole).
        copy_rect(encoder, from_color, color.texture(), whole);
        copy_rect(encoder, from_depth, depth.texture(), whole);
        true
    }

    /// Draws the sky and the ground of `key` into the backdrop's images.
    fn fill(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &ScenePass,
        globals: &GlobalsBinding,
        key: &BackdropKey,
    ) {
        let fits = self
            .held
            .as_ref()
            .is_some_and(|h| (h.size, h.color, h.depth) == (key.size, key.color, key.depth));
        if !fits || self.images.is_none() {
            // The images full-screen passes use: copied from, and the colour also stretched
            // over the window by the viewer (`app::frame`).
            let image = |label, format| {
                crate::render::passes::fullscreen::layer_texture(device, label, format, key.size).0
            };
            self.images = Some((
                image("backdrop colour", key.color),
                image("backdrop depth", key.depth),
            ));
        }
        let Some((color, depth)) = &self.images else {
            return;
        };
        let color_view = color.create_view(&wgpu::TextureViewDescriptor::default());
        let depth_view = depth.create_view(&wgpu::TextureViewDescriptor::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("backdrop"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        set_view(&mut pass, key.viewport, key.scissor);
        scene.draw_background(&mut pass, &globals.bind_group);
        drop(pass);
        self.held = Some(*key);
        self.generation += 1;
    }
}

/// Records a copy of `rect` of `from` into the same place in `to` (same size and format).
pub(crate) fn copy_rect(
    encoder: &mut wgpu::CommandEncoder,
    from: &wgpu::Texture,
    to: &wgpu::Texture,
    rect: PixelRect,
) {
    let at = |texture| wgpu::TexelCopyTextureInfo {
        texture,
        mip_level: 0,
        origin: wgpu::Origin3d {
            x: rect.x,
            y: rect.y,
            z: 0,
        },
        aspect: wgpu::TextureAspect::All,
    };
    encoder.copy_texture_to_texture(
        at(from),
        at(to),
        wgpu::Extent3d {
            width: rect.width,
            height: rect.height,
            depth_or_array_layers: 1,
        },
    );
}
