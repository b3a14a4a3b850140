//! Demo of the window, surface and egui glue in `flagsim::app`, without simulation or 3-D passes.
//!
//! Opens a 1280×800 window titled "flagsim", clears it to a sky colour in a wgpu render pass and
//! draws an egui side panel over it (sliders, checkboxes, buttons, an fps read-out, and counters
//! showing which pointer events egui consumed and which would reach the 3-D view). Resizing,
//! minimising and closing are handled; closing exits with code 0.
//!
//! `--exit-after-frames N --screenshot PATH` renders N frames, saves the last one (panel
//! included) as a PNG, prints the path and exits.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use clap::Parser;
use flagsim::app::egui_glue::EguiLayer;
use flagsim::app::frame_stats::FrameStats;
use flagsim::app::screenshot;
use flagsim::app::surface::{self, WindowSurface};
use winit::application::ApplicationHandler;
use winit::dpi::LogicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// Window + surface + egui demo for flagsim.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Exit after presenting this many frames.
    #[arg(long, value_name = "N")]
    exit_after_frames: Option<u64>,
    /// Save the last frame (egui panel included) as a PNG here before exiting; needs
    /// --exit-after-frames.
    #[arg(long, value_name = "PATH", requires = "exit_after_frames")]
    screenshot: Option<PathBuf>,
    /// Present without waiting for vertical sync (to measure the raw frame rate).
    #[arg(long)]
    no_vsync: bool,
}

/// Panel state; in the real viewer these would be simulation parameters sent as commands.
struct Controls {
    sky_srgb: [u8; 3],
    wind_speed: f32,
    stiffness: f32,
    paused: bool,
    wireframe: bool,
    screenshot_requested: bool,
    message: String,
}

impl Default for Controls {
    fn default() -> Self {
        Self {
            sky_srgb: [135, 196, 235],
            wind_speed: 6.0,
            stiffness: 1.0e3,
            paused: false,
            wireframe: false,
            screenshot_requested: false,
            message: String::new(),
        }
    }
}

/// Where the pointer events went: to egui (consumed) or to the 3-D view.
#[derive(Default)]
struct PointerRouting {
    consumed_by_egui: u64,
    for_scene: u64,
    last_scene_click: Option<(f64, f64)>,
    cursor: (f64, f64),
}

/// GPU objects and per-window state, created in `resumed`.
struct Viewer {
    window: Arc<Window>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_info: wgpu::AdapterInfo,
    surface: WindowSurface,
    egui: EguiLayer,
}

struct DemoApp {
    args: Args,
    instance: wgpu::Instance,
    viewer: Option<Viewer>,
    controls: Controls,
    routing: PointerRouting,
    stats: FrameStats,
    frames_presented: u64,
    failure: Option<anyhow::Error>,
}

impl DemoApp {
    fn create_viewer(&self, event_loop: &ActiveEventLoop) -> anyhow::Result<Viewer> {
        let attributes = Window::default_attributes()
            .with_title("flagsim")
            .with_inner_size(LogicalSize::new(1280.0, 800.0));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .context("creating the window")?,
        );
        let adapter = pollster::block_on(surface::pick_adapter(&self.instance, &window))?;
        let adapter_info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("viewer demo device"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .context("requesting a device")?;
        let mut surface = WindowSurface::new(&self.instance, &adapter, &device, window.clone())?;
        if self.args.no_vsync {
            surface.set_present_mode(wgpu::PresentMode::AutoNoVsync);
        }
        let egui = EguiLayer::new(&device, &window, surface.format());
        Ok(Viewer {
            window,
            device,
            queue,
            adapter_info,
            surface,
            egui,
        })
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Self {
            viewer: Some(viewer),
            controls,
            routing,
            stats,
            ..
        } = self
        else {
            return;
        };
        if viewer.surface.is_minimised() {
            stats.reset();
        } else {
            stats.tick(Instant::now());
        }

        let info = format!(
            "{} ({:?}), {:?}, {:?}",
            viewer.adapter_info.name,
            viewer.adapter_info.backend,
            viewer.surface.format(),
            viewer.surface.config().present_mode
        );
        viewer.egui.run(&viewer.window, |ui| {
            control_panel(ui, controls, routing, stats, &info);
        });

        let Some(frame) = viewer.surface.acquire() else {
            return;
        };
        let mut encoder = viewer
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("demo frame"),
            });
        let callback_buffers = record_frame(viewer, controls.sky_srgb, &mut encoder, &frame.view);
        viewer
            .queue
            .submit(callback_buffers.into_iter().chain([encoder.finish()]));
        viewer.egui.after_submit();
        self.frames_presented += 1;

        // Screenshots read the surface texture, so they happen before it is presented.
        let done = self
            .args
            .exit_after_frames
            .is_some_and(|n| self.frames_presented >= n);
        if done && let Some(path) = &self.args.screenshot {
            match save_frame(viewer, controls.sky_srgb, &frame.texture.texture, path) {
                Ok(()) => println!("{}", path.display()),
                Err(err) => self.failure = Some(err),
            }
        }
        if std::mem::take(&mut controls.screenshot_requested) {
            let path = screenshot::timestamped_path(Path::new("screenshots"));
            controls.message =
                match save_frame(viewer, controls.sky_srgb, &frame.texture.texture, &path) {
                    Ok(()) => format!("saved {}", path.display()),
                    Err(err) => format!("{err:#}"),
                };
        }
        viewer.surface.present(&viewer.queue, frame);
        if done {
            let size_px = viewer.surface.size_px();
            if let Some(summary) = stats.summary() {
                eprintln!(
                    "{} frames at {}x{}: {:.1} fps (median {:.2} ms, mean {:.2} ms)",
                    self.frames_presented,
                    size_px[0],
                    size_px[1],
                    summary.fps,
                    summary.median.as_secs_f64() * 1e3,
                    summary.mean.as_secs_f64() * 1e3,
                );
            }
            event_loop.exit();
        }
    }
}

/// Records one frame into `view`: the sky clear (standing in for the 3-D passes) and egui on
/// top. Returns egui's callback command buffers, to be submitted before `encoder`.
fn record_frame(
    viewer: &mut Viewer,
    sky_srgb: [u8; 3],
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
) -> Vec<wgpu::CommandBuffer> {
    {
        let _scene = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("sky clear"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                resolve_target: None,
                depth_slice: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(clear_colour(sky_srgb, viewer.surface.format())),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: viewer.surface.depth_view(),
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
    }
    let size_px = viewer.surface.size_px();
    let pixels_per_point = viewer.egui.pixels_per_point();
    viewer.egui.paint(
        &viewer.device,
        &viewer.queue,
        encoder,
        view,
        size_px,
        pixels_per_point,
    )
}

/// Saves the frame just submitted. The surface texture is copied directly when the platform
/// allows it; otherwise (GL) the frame is rendered again into a copyable offscreen target.
fn save_frame(
    viewer: &mut Viewer,
    sky_srgb: [u8; 3],
    surface_texture: &wgpu::Texture,
    path: &Path,
) -> anyhow::Result<()> {
    let context = || format!("saving the screenshot {}", path.display());
    if viewer.surface.supports_copy_src() {
        return screenshot::save_texture_png(&viewer.device, &viewer.queue, surface_texture, path)
            .with_context(context);
    }
    let target = screenshot::create_capture_target(
        &viewer.device,
        viewer.surface.format(),
        viewer.surface.size_px(),
    );
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = viewer
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("screenshot frame"),
        });
    let callback_buffers = record_frame(viewer, sky_srgb, &mut encoder, &view);
    viewer
        .queue
        .submit(callback_buffers.into_iter().chain([encoder.finish()]));
    screenshot::save_texture_png(&viewer.device, &viewer.queue, &target, path).with_context(context)
}

/// The clear value for an sRGB-encoded colour: written as is into a gamma-space target,
/// linearised for an sRGB target (which encodes again on store).
fn clear_colour(srgb: [u8; 3], format: wgpu::TextureFormat) -> wgpu::Color {
    let channel = |c: u8| {
        let v = f64::from(c) / 255.0;
        if !format.is_srgb() {
            v
        } else if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    wgpu::Color {
        r: channel(srgb[0]),
        g: channel(srgb[1]),
        b: channel(srgb[2]),
        a: 1.0,
    }
}

fn control_panel(
    ui: &mut egui::Ui,
    controls: &mut Controls,
    routing: &PointerRouting,
    stats: &FrameStats,
    info: &str,
) {
    egui::Panel::left("controls")
        .resizable(true)
        .default_size(280.0)
        .show(ui, |ui| {
            ui.heading("flagsim");
            match stats.summary() {
                Some(s) => ui.label(format!(
                    "{:.1} fps — median {:.2} ms, mean {:.2} ms",
                    s.fps,
                    s.median.as_secs_f64() * 1e3,
                    s.mean.as_secs_f64() * 1e3
                )),
                None => ui.label("fps: measuring…"),
            };
            ui.small(info);
            ui.separator();

            ui.add(
                egui::Slider::new(&mut controls.wind_speed, 0.0..=30.0)
                    .text("wind speed")
                    .suffix(" m/s"),
            );
            ui.add(
                egui::Slider::new(&mut controls.stiffness, 10.0..=1.0e5)
                    .logarithmic(true)
                    .text("stiffness")
                    .suffix(" N/m"),
            );
            ui.checkbox(&mut controls.paused, "Pause simulation");
            ui.checkbox(&mut controls.wireframe, "Show wireframe");
            ui.horizontal(|ui| {
                ui.label("Sky colour");
                ui.color_edit_button_srgb(&mut controls.sky_srgb);
            });
            ui.horizontal(|ui| {
                if ui.button("Reset").clicked() {
                    *controls = Controls::default();
                }
                if ui.button("Screenshot").clicked() {
                    controls.screenshot_requested = true;
                }
            });
            if !controls.message.is_empty() {
                ui.label(&controls.message);
            }
            ui.separator();

            ui.label("Pointer events");
            ui.monospace(format!("consumed by egui: {}", routing.consumed_by_egui));
            ui.monospace(format!("for the 3-D view: {}", routing.for_scene));
            if let Some((x, y)) = routing.last_scene_click {
                ui.monospace(format!("last 3-D button event: ({x:.0}, {y:.0})"));
            }
        });
}

impl ApplicationHandler for DemoApp {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.viewer.is_some() {
            return;
        }
        match self.create_viewer(event_loop) {
            Ok(viewer) => self.viewer = Some(viewer),
            Err(err) => {
                self.failure = Some(err);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, id: WindowId, event: WindowEvent) {
        let Some(viewer) = self.viewer.as_mut() else {
            return;
        };
        if id != viewer.window.id() {
            return;
        }
        // egui sees every event first; the 3-D view only gets what egui did not consume.
        let response = viewer.egui.on_window_event(&viewer.window, &event);
        if response.repaint {
            viewer.window.request_redraw();
        }
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => viewer.surface.resize(size.width, size.height),
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::CursorMoved { position, .. } => {
                self.routing.cursor = (position.x, position.y);
                self.route_pointer(response.consumed, false);
            }
            WindowEvent::MouseInput { .. } => self.route_pointer(response.consumed, true),
            WindowEvent::MouseWheel { .. } | WindowEvent::Touch(_) => {
                self.route_pointer(response.consumed, false);
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        // Continuous redraw, as the real viewer animates the cloth every frame.
        if let Some(viewer) = &self.viewer {
            viewer.window.request_redraw();
        }
    }
}

impl DemoApp {
    fn route_pointer(&mut self, consumed: bool, is_click: bool) {
        if consumed {
            self.routing.consumed_by_egui += 1;
        } else {
            self.routing.for_scene += 1;
            if is_click {
                self.routing.last_scene_click = Some(self.routing.cursor);
            }
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let event_loop = EventLoop::new().context("creating the event loop")?;
    let instance = surface::create_instance(Box::new(event_loop.owned_display_handle()));
    let mut app = DemoApp {
        args,
        instance,
        viewer: None,
        controls: Controls::default(),
        routing: PointerRouting::default(),
        stats: FrameStats::default(),
        frames_presented: 0,
        failure: None,
    };
    event_loop
        .run_app(&mut app)
        .context("running the event loop")?;
    // Drop GPU objects (surface before window) before reporting.
    drop(app.viewer.take());
    match app.failure {
        Some(err) => Err(err),
        None => Ok(()),
    }
}
