//! egui over the 3-D view: input from winit, panels from the caller, triangles through wgpu.
//!
//! [`EguiLayer`] bundles the egui pieces a winit + wgpu program needs: the [`egui::Context`],
//! the [`egui_winit::State`] that turns window events into egui input and applies egui's
//! platform output (cursor icon, clipboard, opened links, IME), and an [`EguiPainter`], which
//! owns the [`egui_wgpu::Renderer`] and needs no window (`flagsim bench` paints with it
//! offscreen).
//!
//! A frame goes: [`EguiLayer::on_window_event`] for every window event (its
//! [`EventResponse::consumed`] says whether the 3-D view may also have it), then
//! [`EguiLayer::run`] once per redraw, then [`EguiLayer::paint`] into the frame's colour target
//! after the 3-D passes, then [`EguiLayer::after_submit`] once the encoder has been submitted.
//!
//! Texture updates are never lost: the deltas of every run are accumulated until a paint applies
//! them all (uploads before drawing), and the textures egui frees are destroyed only after the
//! commands that may still sample them have been submitted. A frame whose surface texture could
//! not be acquired therefore simply skips `paint`.

use std::time::Duration;

use egui::ViewportId;
use egui::epaint::{ClippedPrimitive, ClippedShape, textures::TexturesDelta};
pub(crate) use egui_winit::EventResponse;
use winit::event::WindowEvent;
use winit::window::Window;

use crate::render::{PixelRect, passes::fullscreen};

/// What a finished egui frame asks of the application, besides painting.
#[derive(Debug, Default)]
pub(crate) struct EguiOutput {
    /// egui wants to be run again after this delay (`Duration::MAX`: only on input).
    pub repaint_delay: Duration,
}

/// Where the UI is painted: a view of a target, its size in physical pixels, and the scale
/// the UI was laid out at (normally [`EguiPainter::pixels_per_point`]).
#[derive(Clone, Copy)]
pub struct Canvas<'a> {
    pub view: &'a wgpu::TextureView,
    pub size_px: [u32; 2],
    pub pixels_per_point: f32,
}

/// egui's triangles through wgpu, with no window: the shapes and texture changes of finished
/// egui frames, painted over a colour target.
///
/// [`Self::paint_cached`] keeps the last painted UI in a layer texture and, while egui's
/// output does not change, only lays that layer over the new frame: on a software rasteriser
/// painting the panels costs as much as drawing the scene, and most frames' panels are the same.
/// When only some shapes change (the Stats figures, four times a second), only the rectangle
/// they cover is cleared and painted again ([`changed_area`]).
pub struct EguiPainter {
    renderer: egui_wgpu::Renderer,
    format: wgpu::TextureFormat,
    /// The last painted UI over a transparent background, and its size in pixels.
    layer: Option<(wgpu::Texture, wgpu::BindGroup, [u32; 2])>,
    /// What of the layer must be painted again since it was last painted.
    damage: Damage,
    /// Where the last frame's shapes draw, in points (the composite's scissor).
    drawn: egui::Rect,
    composite: wgpu::RenderPipeline,
    /// Empties the layer within a scissor (`fs_clear`, written without blending).
    clear: wgpu::RenderPipeline,
    composite_layout: wgpu::BindGroupLayout,
    /// Shapes of the last finished frame (taken by the first paint that tessellates them, so a
    /// copy is kept to compare the next frame's with) and the scale they were laid out at.
    shapes: Vec<ClippedShape>,
    last_shapes: Vec<ClippedShape>,
    shapes_pixels_per_point: f32,
    /// The shapes tessellated by the first paint of the frame, reused by further paints.
    primitives: Option<Vec<ClippedPrimitive>>,
    /// Texture uploads and frees not yet applied by a paint.
    pending: TexturesDelta,
    /// Textures to destroy once the paint that last used them has been submitted.
    free_after_submit: Vec<egui::TextureId>,
}

impl EguiPainter {
    /// A painter into targets of `output_format` (a gamma-space format such as `Bgra8Unorm`
    /// gives correct egui colours).
    pub fn new(device: &wgpu::Device, output_format: wgpu::TextureFormat) -> Self {
        let renderer = egui_wgpu::Renderer::new(
            device,
            output_format,
            egui_wgpu::RendererOptions {
                msaa_samples: 1,
                depth_stencil_format: None,
                ..Default::default()
            },
        );
        let composite_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("egui layer"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let composite = composite_pipeline(device, &composite_layout, output_format);
        let clear = fullscreen::pipeline_of(
            device,
            "egui layer clear",
            crate::render::device::shaders::COMPOSITE_WGSL,
            "fs_clear",
            &[],
            output_format,
            None,
        );
        Self {
            renderer,
            format: output_format,
            layer: None,
            damage: Damage::All,
            drawn: egui::Rect::NOTHING,
            composite,
            clear,
            composite_layout,
            shapes: Vec::new(),
            last_shapes: Vec::new(),
            shapes_pixels_per_point: 1.0,
            primitives: None,
            pending: TexturesDelta::default(),
            free_after_submit: Vec::new(),
        }
    }

    /// Takes a finished frame's shapes and texture changes for the next [`Self::paint`];
    /// returns the rest of the output (platform and viewport output). A frame whose shapes,
    /// scale and textures are those of the last one changes nothing.
    pub fn accept(&mut self, mut full_output: egui::FullOutput) -> egui::FullOutput {
        let textures = std::mem::take(&mut full_output.textures_delta);
        let shapes = std::mem::take(&mut full_output.shapes);
        let same = textures.is_empty()
            && full_output.pixels_per_point == self.shapes_pixels_per_point
            && shapes == self.last_shapes;
        if !same {
            let whole = !textures.is_empty()
                || full_output.pixels_per_point != self.shapes_pixels_per_point;
            self.damage = if whole {
                Damage::All
            } else {
                self.damage.and(changed_area(&self.last_shapes, &shapes))
            };
            self.pending.append(textures);
            self.drawn = shapes
                .iter()
                .fold(egui::Rect::NOTHING, |r, s| r.union(paints(s)));
            self.last_shapes.clone_from(&shapes);
            self.shapes = shapes;
            self.shapes_pixels_per_point = full_output.pixels_per_point;
            self.primitives = None;
        }
        full_output
    }

    /// Whether the next [`Self::paint_cached`] paints the UI anew, in part or whole (egui's
    /// output changed).
    pub fn is_dirty(&self) -> bool {
        self.damage != Damage::None
    }

    /// What the next [`Self::paint_cached`] paints anew.
    pub fn damage(&self) -> Damage {
        self.damage
    }

    /// Lays the last UI over `canvas`: paints it into the layer first when egui's output
    /// changed (or the size did), only within the changed area where that is known, then
    /// composites the layer within the area egui drew. Same result as [`Self::paint`]; returns
    /// the command buffers to submit before `encoder`.
    pub fn paint_cached(
        &mut self,
        ctx: &egui::Context,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        canvas: &Canvas<'_>,
    ) -> Vec<wgpu::CommandBuffer> {
        if self.layer.as_ref().is_none_or(|l| l.2 != canvas.size_px) {
            self.layer = Some(self.make_layer(device, canvas.size_px));
            self.damage = Damage::All;
        }
        let mut buffers = Vec::new();
        // A view of the layer only when something is painted into it (not every frame).
        let layer = (self.layer.as_ref())
            .filter(|_| self.damage != Damage::None)
            .map(|l| l.0.create_view(&wgpu::TextureViewDescriptor::default()));
        if let Some(layer) = layer {
            let into_layer = Canvas {
                view: &layer,
                ..*canvas
            };
            match self.damage {
                Damage::None => {}
                Damage::All => {
                    let clear = wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT);
                    buffers =
                        self.paint_into(ctx, device, queue, encoder, &into_layer, clear, None);
                }
                Damage::Area(area) => {
                    let ppp = canvas.pixels_per_point;
                    let within = PixelRect::covering(
                        [area.min.x, area.min.y],
                        [area.max.x, area.max.y],
                        ppp,
                        canvas.size_px,
                    );
                    if let Some(r) = within {
                        let mut pass =
                            color_pass(encoder, "egui layer clear", &layer, wgpu::LoadOp::Load);
                        pass.set_pipeline(&self.clear);
                        pass.set_scissor_rect(r.x, r.y, r.width, r.height);
                        pass.draw(0..3, 0..1);
                        drop(pass);
                        let load = wgpu::LoadOp::Load;
                        buffers = self.paint_into(
                            ctx,
                            device,
                            queue,
                            encoder,
                            &into_layer,
                            load,
                            Some(r),
                        );
                    }
                    // Else what changed lies off the canvas. (New textures damage it all.)
                }
            }
            self.damage = Damage::None;
        }
        // The area egui drew, in whole pixels within the target.
        let drawn = PixelRect::covering(
            [self.drawn.min.x, self.drawn.min.y],
            [self.drawn.max.x, self.drawn.max.y],
            canvas.pixels_per_point,
            canvas.size_px,
        );
        let (Some((_, bind_group, _)), Some(r)) = (&self.layer, drawn) else {
            return buffers;
        };
        let mut pass = color_pass(encoder, "egui layer", canvas.view, wgpu::LoadOp::Load);
        pass.set_pipeline(&self.composite);
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_scissor_rect(r.x, r.y, r.width, r.height);
        pass.draw(0..3, 0..1);
        drop(pass);
        buffers
    }

    fn make_layer(
        &self,
        device: &wgpu::Device,
        [w, h]: [u32; 2],
    ) -> (wgpu::Texture, wgpu::BindGroup, [u32; 2]) {
        let (texture, view) = fullscreen::layer_texture(device, "egui layer", self.format, [w, h]);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("egui layer"),
            layout: &self.composite_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        (texture, bind_group, [w, h])
    }

    /// Vertices and indices of the meshes the last paint tessellated (0 before the first).
    pub fn tessellated_size(&self) -> (usize, usize) {
        self.primitives.iter().flatten().fold((0, 0), |(v, i), p| {
            let egui::epaint::Primitive::Mesh(mesh) = &p.primitive else {
                return (v, i);
            };
            (v + mesh.vertices.len(), i + mesh.indices.len())
        })
    }

    /// The pixels-per-point the last frame was laid out at; pass it to [`Self::paint`].
    pub fn pixels_per_point(&self) -> f32 {
        self.shapes_pixels_per_point
    }

    /// Draws the last frame's UI over the existing contents of `canvas` (the colour is
    /// loaded, not cleared). Applies every pending texture upload first. Returns command
    /// buffers from paint callbacks: submit them before `encoder`, then call
    /// [`Self::after_submit`]. It may be called more than once per frame (into the window and
    /// into an offscreen capture target); the shapes are tessellated only once.
    pub fn paint(
        &mut self,
        ctx: &egui::Context,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        canvas: &Canvas<'_>,
    ) -> Vec<wgpu::CommandBuffer> {
        self.paint_into(
            ctx,
            device,
            queue,
            encoder,
            canvas,
            wgpu::LoadOp::Load,
            None,
        )
    }

    /// Paints the shapes over `canvas` (loaded or cleared as `load` says), all of them or
    /// only the pixels `within` (each mesh's clip rectangle cut down to it).
    #[allow(clippy::too_many_arguments)]
    fn paint_into(
        &mut self,
        ctx: &egui::Context,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        canvas: &Canvas<'_>,
        load: wgpu::LoadOp<wgpu::Color>,
        within: Option<PixelRect>,
    ) -> Vec<wgpu::CommandBuffer> {
        let Canvas {
            view,
            size_px,
            pixels_per_point,
        } = *canvas;
        let shapes = &mut self.shapes;
        let primitives = self
            .primitives
            .get_or_insert_with(|| ctx.tessellate(std::mem::take(shapes), pixels_per_point));
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: size_px,
            pixels_per_point,
        };

        // Uploads before drawing. Per texture the deltas are applied in the order egui made
        // them (a whole image, then patches); the order between textures does not matter.
        let mut pending = std::mem::take(&mut self.pending);
        for (id, deltas) in pending.set.drain() {
            for delta in &deltas {
                self.renderer.update_texture(device, queue, id, delta);
            }
        }
        self.free_after_submit.extend(pending.free.drain());

        let callback_buffers = self
            .renderer
            .update_buffers(device, queue, encoder, primitives, &screen);

        // Within a rectangle: every clip rectangle cut down to it for this paint (egui-wgpu
        // skips the meshes whose scissor is then empty), then given back. The rectangle is in
        // whole pixels, so the scissors are the full paint's cut by it, pixel for pixel.
        let clips: Vec<egui::Rect> = match within {
            Some(r) => {
                let (x, y) = (r.x as f32, r.y as f32);
                let (w, h) = (r.width as f32, r.height as f32);
                let cut = egui::Rect::from_min_max(
                    egui::pos2(x, y) / pixels_per_point,
                    egui::pos2(x + w, y + h) / pixels_per_point,
                );
                primitives
                    .iter_mut()
                    .map(|p| {
                        let clip = p.clip_rect;
                        p.clip_rect = clip.intersect(cut);
                        clip
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let pass = color_pass(encoder, "egui", view, load);
        // `Renderer::render` wants a `RenderPass<'static>`: `forget_lifetime` turns the
        // borrow of `encoder` into a run-time check. The pass is dropped (ended) right here,
        // before anything else touches the encoder.
        let mut pass = pass.forget_lifetime();
        self.renderer.render(&mut pass, primitives, &screen);
        drop(pass);
        for (p, clip) in primitives.iter_mut().zip(clips) {
            p.clip_rect = clip;
        }

        callback_buffers
    }

    /// Destroys the textures egui freed, once the commands of the paint that last used them
    /// have been submitted. Calling it late (or not at all) only delays the frees to the start
    /// of the next frame, by which time the last frame's commands were submitted (or dropped).
    pub fn after_submit(&mut self) {
        for id in self.free_after_submit.drain(..) {
            self.renderer.free_texture(&id);
        }
    }
}

/// What of the cached layer must be painted again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Damage {
    /// Nothing: the layer is the last UI.
    None,
    /// The pixels covering this rectangle, in points.
    Area(egui::Rect),
    /// All of it (new textures, another scale or size, the first paint).
    All,
}

impl Damage {
    /// This damage and `area` more.
    fn and(self, area: egui::Rect) -> Self {
        match self {
            Damage::None => Damage::Area(area),
            Damage::Area(a) => Damage::Area(a.union(area)),
            Damage::All => Damage::All,
        }
    }
}

/// How far a shape may paint beyond its visual bounding rectangle, points: egui feathers every
/// edge by one physical pixel for anti-aliasing (half inside, half outside), and a text's
/// glyphs may reach a little past its galley's rectangle.
const DAMAGE_MARGIN: f32 = 2.0;

/// Where two lists of shapes may paint differently, in points, grown by [`DAMAGE_MARGIN`]:
/// a pixel's colour is what the shapes over it paint, in their order, so it can change only
/// where a shape differs. The longest common start and end of `old` and `new` are the same
/// shapes in the same order; between them, in lists of one length (a refresh of figures keeps
/// their number), the shapes that differ place by place, old and new; in lists of two lengths,
/// every shape between, old and new. Each counts where its clip rectangle lets it paint.
/// `Rect::NOTHING` when the lists are equal.
pub fn changed_area(old: &[ClippedShape], new: &[ClippedShape]) -> egui::Rect {
    let start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let (old, new) = (&old[start..], &new[start..]);
    let end = (old.iter().rev())
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old, new) = (&old[..old.len() - end], &new[..new.len() - end]);
    let grow = |r: egui::Rect, s: &ClippedShape| {
        let paints = paints(s);
        if paints.is_positive() {
            r.union(paints.expand(DAMAGE_MARGIN))
        } else {
            r
        }
    };
    if old.len() == new.len() {
        (old.iter().zip(new))
            .filter(|(a, b)| a != b)
            .fold(egui::Rect::NOTHING, |r, (a, b)| grow(grow(r, a), b))
    } else {
        old.iter().chain(new).fold(egui::Rect::NOTHING, grow)
    }
}

/// Where a shape paints, in points: its bounds, moved and scaled as egui does after
/// tessellating it (a popup scaling into place), within its clip rectangle (which is in the
/// space the transform maps to).
fn paints(s: &ClippedShape) -> egui::Rect {
    (s.transform_after_tessellation * s.shape.visual_bounding_rect()).intersect(s.clip_rect)
}

/// A render pass over one colour target with no depth, loading or clearing it as `load` says.
fn color_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    view: &wgpu::TextureView,
    load: wgpu::LoadOp<wgpu::Color>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            resolve_target: None,
            depth_slice: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// The pipeline that lays the layer over a target of `format` (premultiplied "over").
fn composite_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let over = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
        operation: wgpu::BlendOperation::Add,
    };
    fullscreen::pipeline(
        device,
        "egui layer",
        crate::render::device::shaders::COMPOSITE_WGSL,
        layout,
        format,
        Some(wgpu::BlendState {
            color: over,
            alpha: over,
        }),
    )
}

impl Drop for EguiPainter {
    fn drop(&mut self) {
        // The renderer goes away with its textures; unapplied deltas are moot, and
        // `TexturesDelta` asserts in debug builds when dropped non-empty.
        self.pending.clear();
    }
}

/// The egui context, its winit input state and its painter.
pub(crate) struct EguiLayer {
    ctx: egui::Context,
    state: egui_winit::State,
    viewport_info: egui::ViewportInfo,
    painter: EguiPainter,
}

impl EguiLayer {
    /// Creates the layer for `window`, drawing into targets of `output_format` (the surface
    /// format; a gamma-space format such as `Bgra8Unorm` gives correct egui colours).
    pub(crate) fn new(
        device: &wgpu::Device,
        window: &Window,
        output_format: wgpu::TextureFormat,
    ) -> Self {
        let ctx = egui::Context::default();
        let max_texture_side = device.limits().max_texture_dimension_2d as usize;
        let state = egui_winit::State::new(
            ctx.clone(),
            ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_texture_side),
        );
        let mut viewport_info = egui::ViewportInfo::default();
        egui_winit::update_viewport_info(&mut viewport_info, &ctx, window, true);
        Self {
            ctx,
            state,
            viewport_info,
            painter: EguiPainter::new(device, output_format),
        }
    }

    /// Feeds one window event to egui. Call it before anything else looks at the event; when
    /// `consumed` is true (a click on a panel, a drag of a slider, typing into a field) the 3-D
    /// view must ignore the event. `repaint` means egui wants a redraw.
    pub(crate) fn on_window_event(
        &mut self,
        window: &Window,
        event: &WindowEvent,
    ) -> EventResponse {
        self.state.on_window_event(window, event)
    }

    /// What has the keyboard in the panels ([`super::keys::viewer_takes`] routes keys by it).
    pub(crate) fn focus(&self) -> super::keys::Focus {
        use super::keys::Focus;
        if self.ctx.text_edit_focused() {
            Focus::Text
        } else if self.ctx.egui_wants_keyboard_input() {
            Focus::Widget
        } else {
            Focus::None
        }
    }

    /// Runs one egui frame: `add_ui` receives the root [`egui::Ui`] (add `egui::Panel::left`
    /// and friends to it). Handles the platform output and keeps the shapes for [`Self::paint`].
    pub(crate) fn run(&mut self, window: &Window, add_ui: impl FnMut(&mut egui::Ui)) -> EguiOutput {
        self.painter.after_submit();
        let mut input = self.state.take_egui_input(window);
        egui_winit::update_viewport_info(&mut self.viewport_info, &self.ctx, window, false);
        input
            .viewports
            .insert(ViewportId::ROOT, self.viewport_info.clone());
        let full_output = self.painter.accept(self.ctx.run_ui(input, add_ui));
        let egui::FullOutput {
            platform_output,
            mut viewport_output,
            ..
        } = full_output;
        self.state.handle_platform_output(window, platform_output);
        viewport_output
            .remove(&ViewportId::ROOT)
            .map(|root| EguiOutput {
                repaint_delay: root.repaint_delay,
            })
            .unwrap_or_default()
    }

    /// The context and the painter, to paint the last frame's UI
    /// ([`EguiPainter::paint_cached`], [`EguiPainter::paint`]).
    pub(crate) fn painter(&mut self) -> (&egui::Context, &mut EguiPainter) {
        (&self.ctx, &mut self.painter)
    }
}
