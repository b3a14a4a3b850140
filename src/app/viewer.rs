//! The interactive viewer: the winit `ApplicationHandler` that wires the simulation thread, the
//! renderer, the egui panels and the 3-D view controls together (structure in `app/mod.rs`).
//!
//! Each frame: take the latest snapshot, interpolate key positions between the last two steps by
//! wall-clock time (so motion is smooth at any display rate), run egui (panels return actions),
//! upsample on the GPU, draw the scene, paint egui over it, present. The simulation runs at its
//! own fixed step on its own thread; the viewer only sends commands and reads copies.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use web_time::Instant;

use glam::Vec2;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

use super::controls::{Button, Controls, Input};
use super::dialogs::{self, Dialogs};
use super::egui_glue::{Canvas, EguiLayer};
use super::feed::SnapshotFeed;
use super::frame::{self, FrameView, SceneDraw};
use super::frame_stats::FrameStats;
use super::keys::{self, KeyAction};
use super::lab_view::{self, LabPointer};
pub use super::redraw::Redraw;

mod actions;
mod capture;
mod files;
#[cfg(target_arch = "wasm32")]
mod in_page;
use super::screenshot;
use super::settings::{self, Store};
use super::surface::{self, WindowSurface};
use crate::gpu_sim::{GpuProvider, SharedNodes};
use crate::render::device::path::RenderPath;
use crate::render::drawing::frame::PoleLook;
use crate::render::drawing::view;
use crate::render::{PixelRect, RenderQuality, RenderScale, ScaleMode};
use crate::sim::format::scene::Scene;
use crate::sim::runtime::device::ReadBacks;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::{Command, SimThread};
use crate::ui::{FrameInfo, UiState};
use capture::{Recorder, ShotRequest};
#[cfg(target_arch = "wasm32")]
pub(crate) use in_page::run_in_page;

/// How the viewer starts.
#[derive(Debug, Clone)]
pub(crate) struct ViewerOptions {
    pub scene: Scene,
    /// Window size, logical pixels.
    pub size: (u32, u32),
    /// Quit after presenting this many frames (for automated smoke runs).
    pub exit_after_frames: Option<u64>,
    /// Save the last frame (panels included) here before quitting.
    pub screenshot: Option<PathBuf>,
    /// The render scale to start with; `None`: *auto* on a software adapter, 1 otherwise.
    pub render_scale: Option<ScaleMode>,
    /// The integrator lab's copies (2 to 4), side by side; empty: the scene alone.
    pub compare: Vec<crate::sim::lab::copies::CopySpec>,
    /// Start the lab's reference copy with it (`--reference`).
    pub reference: bool,
    /// Each flag's image, decoded and checked (flag 0 first; `None`: the built-in flag); the
    /// scene is already fitted to them.
    pub flag_images: Vec<Option<image::RgbaImage>>,
    /// The scene's background image, decoded and checked (`None`: the sky).
    pub background: Option<image::RgbaImage>,
    /// Press F12 when drawing this frame (tests: a screenshot through the key's code).
    pub press_f12_at_frame: Option<u64>,
    /// Press the *Capture* panel's record / stop button when drawing these frames (tests).
    pub toggle_recording_at_frames: Vec<u64>,
    /// What recordings write, instead of the remembered choice (tests).
    pub record_format: Option<crate::ui::RecordFormat>,
    /// The settings read at start (the panels' values, the recent files), the store that
    /// writes them back, and what was wrong with them.
    pub persisted: settings::Opened,
    /// Put the camera where it was (the last scene was restored, not one named).
    pub restore_camera: bool,
}

/// What can stop the viewer, each with one message.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ViewerError {
    /// No window system to talk to (no display), or its event loop failed.
    #[error("the window system: {0}")]
    EventLoop(#[from] winit::error::EventLoopError),
    #[error("creating the window: {0}")]
    Window(#[from] winit::error::OsError),
    #[error("starting the simulation: {0}")]
    Simulation(#[from] crate::sim::format::error::SimError),
    #[error(transparent)]
    Surface(#[from] surface::SurfaceError),
    #[error("the GPU device was lost ({0})")]
    DeviceLost(String),
    #[error("opening the GPU device: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
    #[error(transparent)]
    Frame(#[from] frame::FrameError),
    #[error("saving a screenshot: {0}")]
    Screenshot(#[from] screenshot::ScreenshotError),
    #[error("the video: {0}")]
    Video(#[from] crate::video::VideoError),
}

/// Opens the window and runs until it is closed (or `exit_after_frames`).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn run(options: ViewerOptions) -> Result<(), ViewerError> {
    let event_loop = EventLoop::new()?;
    let instance = surface::create_instance(Box::new(event_loop.owned_display_handle()));
    let mut app = App::new(options, instance, &event_loop)?;
    event_loop.run_app(&mut app)?;
    if let Err(e) = app.kept.store.save(app.current_settings()) {
        log::warn!("{e}");
    }
    // GPU objects go before the window; the simulation thread is joined when `app` drops.
    drop(app.graphics.gpu.take());
    match app.failure.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl App {
    /// The viewer before its window: the simulation started, the panels given the settings
    /// read, the camera framing the first snapshot.
    fn new(
        options: ViewerOptions,
        instance: wgpu::Instance,
        event_loop: &EventLoop<()>,
    ) -> Result<Self, ViewerError> {
        // A cloth asked onto the GPU steps on the CPU until the window's GPU is lent to the
        // simulation ([`App::create_gpu`]).
        let sim =
            SimThread::spawn_lab_awaiting_gpu(options.scene.clone(), &options.compare, false)?;
        if options.reference {
            sim.send(crate::sim_thread::Command::SetReference(true));
        }
        let first = sim.latest();
        let mut ui = UiState::new(options.scene.clone(), first.total_mass);
        let remembered = &options.persisted.settings;
        remembered.give_panels(&mut ui);
        if let Some(format) = options.record_format {
            ui.capture.record_format = format;
        }
        ui.files.settings_place = (options.persisted.store.place()).map(settings::Place::describe);
        for w in &options.persisted.warnings {
            log::warn!("{w}");
            ui.notices.error(w.clone());
        }
        if ui.time_scale != crate::sim::format::params::spec::TIME_SCALE.default {
            sim.send(Command::SetTimeScale(ui.time_scale));
        }
        let mut controls = Controls::new(view::framing_camera(&[&first]), Vec2::new(1280.0, 800.0));
        if options.restore_camera
            && let Some(c) = remembered.camera
        {
            controls.camera = c.applied_to(controls.camera);
        }
        let store = options.persisted.store.clone();
        Ok(App {
            options,
            sim,
            ui,
            feed: SnapshotFeed::new(first),
            reframe: None,
            failure: None,
            dialogs: Dialogs::new(event_loop.create_proxy()),
            graphics: Graphics {
                instance,
                gpu: None,
                gpu_error: Arc::default(),
                gpu_lost: Arc::default(),
                default_quality: RenderQuality::HIGH,
            },
            input: Pointer {
                controls,
                ctrl: false,
                lab: LabPointer::default(),
                view_area: None,
            },
            clock: Clock {
                opened: Instant::now(),
                stats: FrameStats::default(),
                frames: 0,
                repainted: 0,
                cpu_ms: 0.0,
                scale: RenderScale::new(ScaleMode::Fixed(1.0)),
                redraw: Redraw::default(),
            },
            capture: Capture {
                shot: None,
                recorder: None,
            },
            kept: Kept {
                store,
                settings_seen: Instant::now(),
            },
            #[cfg(target_arch = "wasm32")]
            opening: None,
            #[cfg(target_arch = "wasm32")]
            page_wake: event_loop.create_proxy(),
            #[cfg(target_arch = "wasm32")]
            page: in_page::PageSide::default(),
        })
    }
}

/// The adapter as the Stats panel names it: the backend first (a long adapter name is cut at
/// the panel's edge), then where the render nodes are upsampled, then the adapter's name (a
/// browser's WebGPU adapter may keep its name to itself).
fn adapter_line(info: &wgpu::AdapterInfo, path: RenderPath) -> String {
    let backend = match info.backend {
        wgpu::Backend::BrowserWebGpu => "WebGPU".to_owned(),
        wgpu::Backend::Gl if cfg!(target_arch = "wasm32") => "WebGL2".to_owned(),
        other => format!("{other:?}"),
    };
    let name = if info.name.is_empty() {
        "the browser's adapter"
    } else {
        &info.name
    };
    format!("{backend}, {}: {name}", path.in_words())
}

/// An adapter and a device that can draw to a window, and the window's surface where it had to
/// be made first.
struct OpenedDevice {
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// A page's surface, made before its adapter was asked for (`None`: made with the rest).
    surface: Option<wgpu::Surface<'static>>,
}

/// Picks the adapter for `window` ([`surface::pick_adapter`]; in a page the browser's, for
/// the canvas) and opens a device on it with the adapter's own limits.
async fn open_device(
    instance: &wgpu::Instance,
    window: &Arc<Window>,
) -> Result<OpenedDevice, ViewerError> {
    #[cfg(not(target_arch = "wasm32"))]
    let (adapter, surface) = (surface::pick_adapter(instance, window).await?, None);
    #[cfg(target_arch = "wasm32")]
    let (adapter, surface) = {
        let (adapter, made) = surface::page_adapter(instance, window).await?;
        (adapter, Some(made))
    };
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("flagsim viewer device"),
            required_limits: adapter.limits(),
            ..Default::default()
        })
        .await?;
    Ok(OpenedDevice {
        adapter,
        device,
        queue,
        surface,
    })
}

struct Gpu {
    window: Arc<Window>,
    /// Kept while its device is in use: a page's browser loses a device whose adapter and
    /// instance it collected.
    _adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    surface: WindowSurface,
    egui: EguiLayer,
    scene: SceneDraw,
    /// A CPU (software) adapter such as lavapipe.
    software: bool,
    /// The node buffer the simulation thread writes while the cloth steps on this device
    /// (the GPU mode); the renderer upsamples from it.
    sim_nodes: SharedNodes,
    /// This device as lent to the simulation (again to a new thread: the lab).
    sim_provider: Arc<dyn crate::sim::runtime::device::DeviceProvider>,
    /// Whether the simulation may step its cloths on this device (not a page's WebGL2).
    steps_cloth: bool,
}

/// The window's GPU: the instance, the device once the window exists, what it reported.
struct Graphics {
    instance: wgpu::Instance,
    gpu: Option<Gpu>,
    /// The last GPU error reported by the device, shown in the panel.
    gpu_error: Arc<std::sync::Mutex<Option<String>>>,
    /// Why the GPU device was lost, when it was.
    gpu_lost: Arc<std::sync::Mutex<Option<String>>>,
    /// The adapter's anti-aliasing and filtering (*Reset to defaults* goes back to it).
    default_quality: RenderQuality,
}

/// The mouse and the keys: the camera they move, the lab cell they point at, the view's pixels.
struct Pointer {
    controls: Controls,
    /// Whether Ctrl is held (for Ctrl+Q).
    ctrl: bool,
    lab: LabPointer,
    /// The pixels the panels left free in the last frame: the 3-D view, as the camera frames
    /// it (`None`: the whole window).
    view_area: Option<PixelRect>,
}

/// The frames drawn and what they cost: the frame statistics, the render scale that follows
/// them, what the next frame waits for.
struct Clock {
    /// When the viewer started (the GPU mode's report at exit says over how long).
    opened: Instant,
    stats: FrameStats,
    frames: u64,
    /// Frames that painted the panels anew (reported with the frame rate at exit).
    repainted: u64,
    cpu_ms: f64,
    /// The render scale, and in *auto* mode the frame costs it follows.
    scale: RenderScale,
    /// What the next frame is waited for (see [`Redraw`]).
    redraw: Redraw,
}

/// A screenshot asked for and the recording under way.
struct Capture {
    shot: Option<ShotRequest>,
    recorder: Option<Recorder>,
}

/// The settings kept between runs and when they were last compared with the file.
struct Kept {
    /// Where the settings are written back.
    store: Store,
    /// When the settings in use were last compared with the file's.
    settings_seen: Instant,
}

struct App {
    options: ViewerOptions,
    sim: SimThread,
    ui: UiState,
    /// The latest snapshot taken and the one before it, for interpolation.
    feed: SnapshotFeed,
    /// A framing asked for ([`crate::ui::UiAction::ResetCamera`]) after a command that makes a
    /// new generation (a scene loaded, a flag added): done again when the snapshot of that
    /// generation arrives, if it does within a second (the generation asked from, and when).
    reframe: Option<(u64, Instant)>,
    failure: Option<ViewerError>,
    /// The native file dialog open now and its answer.
    dialogs: Dialogs,
    graphics: Graphics,
    input: Pointer,
    clock: Clock,
    capture: Capture,
    kept: Kept,
    /// In a page, the window made and the device its promises will give.
    #[cfg(target_arch = "wasm32")]
    opening: Option<(Arc<Window>, in_page::PageAnswer)>,
    /// Wakes a page's event loop when its device arrives.
    #[cfg(target_arch = "wasm32")]
    page_wake: winit::event_loop::EventLoopProxy<()>,
    /// In a page, what it hands the viewer and the link it keeps.
    #[cfg(target_arch = "wasm32")]
    page: in_page::PageSide,
}

impl App {
    /// The window, its adapter and device, then the viewer's passes on them.
    #[cfg(not(target_arch = "wasm32"))]
    fn create_gpu(&self, event_loop: &ActiveEventLoop) -> Result<Gpu, ViewerError> {
        let window = self.create_window(event_loop)?;
        let opened = pollster::block_on(open_device(&self.graphics.instance, &window))?;
        self.finish_gpu(window, opened)
    }

    fn create_window(&self, event_loop: &ActiveEventLoop) -> Result<Arc<Window>, ViewerError> {
        let attributes = Window::default_attributes()
            .with_title(format!("flagsim — {}", self.ui.scene.description));
        #[cfg(not(target_arch = "wasm32"))]
        let attributes = {
            let (w, h) = self.options.size;
            attributes.with_inner_size(winit::dpi::LogicalSize::new(w as f64, h as f64))
        };
        // In a page the window is the page's canvas, sized by its style (the whole page).
        #[cfg(target_arch = "wasm32")]
        let attributes = {
            use winit::platform::web::WindowAttributesExtWebSys;
            attributes.with_canvas(super::page::canvas())
        };
        Ok(Arc::new(event_loop.create_window(attributes)?))
    }

    /// The viewer's device on `opened` for `window`: the error handlers, the surface, the
    /// panels' layer, the scene's passes, and the device lent to the simulation.
    fn finish_gpu(&self, window: Arc<Window>, opened: OpenedDevice) -> Result<Gpu, ViewerError> {
        let OpenedDevice {
            adapter,
            device,
            queue,
            surface: made,
        } = opened;
        let info = adapter.get_info();
        // A GPU validation error must not take the viewer down: report it in the panel instead
        // (wgpu's default handler panics).
        let gpu_error = self.graphics.gpu_error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("GPU error: {e}");
            if let Ok(mut slot) = gpu_error.lock() {
                *slot = Some(e.to_string());
            }
        }));
        // A lost device cannot be drawn with again: the viewer ends with the message (exit 1).
        let gpu_lost = self.graphics.gpu_lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if reason != wgpu::DeviceLostReason::Destroyed {
                log::error!("the GPU device was lost ({reason:?}): {message}");
                if let Ok(mut slot) = gpu_lost.lock() {
                    slot.get_or_insert(format!("{reason:?}: {message}"));
                }
            }
        });
        let instance = &self.graphics.instance;
        let surface = match made {
            Some(made) => {
                WindowSurface::with_surface(made, instance, &adapter, &device, window.clone())?
            }
            None => WindowSurface::new(instance, &adapter, &device, window.clone())?,
        };
        let egui = EguiLayer::new(&device, &window, surface.format());
        let quality = RenderQuality::for_device_type(info.device_type);
        let path = RenderPath::of(&adapter, &device);
        log::info!("adapter: {}", adapter_line(&info, path));
        let mut scene = SceneDraw::with_path(
            &device,
            &queue,
            surface.format(),
            quality,
            surface.size_px(),
            path,
        )?;
        scene.set_flag_images(&device, &queue, self.options.flag_images.clone())?;
        if let Some(image) = &self.options.background {
            scene.set_background(&device, &queue, Some(image.clone()))?;
        }
        // The simulation may step on this device too (a scene's `"device"`, the panel's
        // switch): it writes a node buffer the renderer reads, nothing read back per frame.
        let provider = GpuProvider::new(device.clone(), queue.clone(), info.clone());
        let sim_nodes = provider.nodes();
        let sim_provider: Arc<dyn crate::sim::runtime::device::DeviceProvider> = Arc::new(provider);
        // The step's kernels are compute shaders: a page drawing with WebGL2 has none, and
        // its cloth steps on the CPU (the panel says why).
        let steps_cloth = !cfg!(target_arch = "wasm32") || path == RenderPath::Compute;
        if steps_cloth {
            self.sim.send(Command::ProvideGpu(sim_provider.clone()));
        }
        Ok(Gpu {
            _adapter: adapter,
            sim_nodes,
            sim_provider,
            adapter: adapter_line(&info, path),
            window,
            device,
            queue,
            surface,
            egui,
            scene,
            software: info.device_type == wgpu::DeviceType::Cpu,
            steps_cloth,
        })
    }

    /// Takes the window's GPU into use: the render scale and quality it starts with.
    fn gpu_ready(&mut self, mut gpu: Gpu) {
        let [w, h] = gpu.surface.size_px();
        self.input.controls.size = Vec2::new(w as f32, h as f32);
        self.ui.quality = gpu.scene.quality;
        let mode = self.options.render_scale.unwrap_or(if gpu.software {
            ScaleMode::Auto
        } else {
            ScaleMode::Fixed(1.0)
        });
        self.ui.render_scale = mode;
        if gpu.software && mode == ScaleMode::Auto {
            // On a software rasteriser *auto* starts at its lowest scale and climbs
            // while frames are quick, rather than open with the slowest frames.
            self.clock
                .scale
                .set_mode(ScaleMode::Fixed(crate::render::AUTO_MIN_RENDER_SCALE));
        }
        self.clock.scale.set_mode(mode);
        gpu.scene.set_scale(&gpu.device, self.clock.scale.scale());
        self.graphics.default_quality = gpu.scene.quality;
        gpu.window.request_redraw();
        self.graphics.gpu = Some(gpu);
        if let Some(q) = self.options.persisted.settings.quality
            && q != self.ui.quality
        {
            self.ui.quality = q;
            self.apply(crate::ui::UiAction::SetQuality(q));
        }
    }

    /// Stops the viewer with `e` (in a page, where nothing returns it, it goes to the log,
    /// which the page shows).
    fn fail(&mut self, e: ViewerError, event_loop: &ActiveEventLoop) {
        #[cfg(target_arch = "wasm32")]
        log::error!("{e}");
        self.failure = Some(e);
        event_loop.exit();
    }

    fn pointer(&mut self, input: Input, egui_consumed: bool) {
        let (view, current) = (self.ui.view.clone(), self.feed.current().clone());
        let (copy, input) = self.input.lab.route(input, &mut self.input.controls);
        let snap = lab_view::copy_of(&current, copy);
        // A lab cell's camera stands farther back (as the renderer draws it); zooms scale it.
        let zoom = self.input.lab.zoom();
        self.input.controls.camera.distance *= zoom;
        self.input.controls.flag = self.ui.selected_flag;
        let commands = self
            .input
            .controls
            .handle(input, egui_consumed, snap, &view);
        self.input.controls.camera.distance /= zoom;
        if self.input.controls.flag != self.ui.selected_flag {
            // A click on another flag's cloth selects it.
            self.ui.select_flag(self.input.controls.flag, &current);
        }
        for cmd in commands {
            self.sim.send(lab_view::for_copy(&current, copy, cmd));
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let started = Instant::now();
        self.take_latest();
        if self.check_gpu_errors() {
            event_loop.exit();
            return;
        }
        let snap = self.feed.display(Instant::now());
        self.scripted_input();
        let visible = self.layout_panels(started);
        let Some(gpu) = self.graphics.gpu.as_mut() else {
            return;
        };
        (self.input.lab).set_area(visible, gpu.surface.size_px(), 1 + snap.lab.len());
        self.input.view_area = visible;
        let acquiring = Instant::now();
        let Some(frame) = gpu.surface.acquire() else {
            return;
        };
        // Waiting for a free swapchain image (the display's pace) is not the frame's cost.
        let acquire = acquiring.elapsed();
        let [w, h] = gpu.surface.size_px();
        gpu.scene.fit(&gpu.device, [w, h]);
        self.input.controls.size = Vec2::new(w as f32, h as f32);
        let panels_repainted = self.draw(&frame, &snap, visible);
        self.clock.frames += 1;
        self.clock.repainted += u64::from(panels_repainted);
        self.clock.cpu_ms = started.elapsed().as_secs_f64() * 1e3;

        // Captures read the surface texture, so they happen before it is presented.
        let done = self
            .options
            .exit_after_frames
            .is_some_and(|n| self.clock.frames >= n);
        if done && let Some(path) = self.options.screenshot.clone() {
            self.capture.shot = Some(ShotRequest {
                path,
                with_panels: true,
                automated: true,
            });
        }
        let typical =
            !panels_repainted && self.capture.shot.is_none() && self.capture.recorder.is_none();
        self.take_screenshot(&frame, &snap);
        self.record_frame(&frame, &snap);
        self.present_frame(frame, typical, started, acquire);
        #[cfg(target_arch = "wasm32")]
        if self.clock.frames == 1 {
            super::page::tell_first_frame();
        }
        if done {
            self.report_at_exit([w, h]);
            event_loop.exit();
        }
    }

    /// Takes the newest snapshot (keeping the one before for interpolation), reframes the
    /// camera once an asked-for generation arrives, and brings the panels up to date with it.
    fn take_latest(&mut self) {
        let latest = self.sim.latest();
        self.feed.update(latest);
        if let Some((generation, asked)) = self.reframe {
            if self.feed.current().generation != generation {
                self.frame_camera();
                self.reframe = None;
            } else if asked.elapsed() > Duration::from_secs(1) {
                self.reframe = None;
            }
        }
        self.ui.sync(self.feed.current());
    }

    /// Reports what the GPU device said since the last frame: a lost device becomes the
    /// viewer's failure (true: stop), any other error a notice in the panel.
    fn check_gpu_errors(&mut self) -> bool {
        if let Some(e) = self
            .graphics
            .gpu_lost
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
        {
            self.failure = Some(ViewerError::DeviceLost(e));
            return true;
        }
        if let Some(e) = self
            .graphics
            .gpu_error
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
        {
            self.ui.notices.error(format!("GPU error: {e}"));
        }
        false
    }

    /// Presses F12 and the record button on the frames the tests asked for.
    fn scripted_input(&mut self) {
        if self.options.press_f12_at_frame == Some(self.clock.frames + 1) {
            let f12 = winit::keyboard::Key::Named(winit::keyboard::NamedKey::F12);
            if let Some(action) = keys::action_for(&f12) {
                self.key(action);
            }
        }
        if self
            .options
            .toggle_recording_at_frames
            .contains(&(self.clock.frames + 1))
        {
            self.apply(crate::ui::UiAction::ToggleRecording);
        }
    }

    /// Presents `frame`; a `typical` frame's cost (less the wait to `acquire` it; in a page, the
    /// time until the next frame) steers the render scale.
    fn present_frame(
        &mut self,
        frame: surface::SurfaceFrame,
        typical: bool,
        started: Instant,
        acquire: Duration,
    ) {
        if let Some(gpu) = self.graphics.gpu.as_mut() {
            gpu.window.pre_present_notify();
            gpu.surface.present(&gpu.queue, frame);
            // A frame that also captured or repainted the panels says little about the view.
            // In a page the frame's drawing is the browser's, after this returns: the time
            // between animation frames is its cost there.
            let cost = if cfg!(target_arch = "wasm32") {
                self.clock.scale.interval(started, typical)
            } else {
                typical.then(|| started.elapsed().saturating_sub(acquire).as_secs_f64() * 1e3)
            };
            if let Some(scale) = cost.and_then(|ms| self.clock.scale.observe(ms)) {
                gpu.scene.set_scale(&gpu.device, scale);
            }
        }
    }

    /// Prints the frame statistics at exit, and in the GPU mode what was read back over the
    /// run (the automated runs' report).
    fn report_at_exit(&self, [w, h]: [u32; 2]) {
        let auto = self.clock.scale.mode() == ScaleMode::Auto;
        let rate = self.feed.current().steps_per_second;
        if let Some(line) = self.clock.stats.report(
            self.clock.frames,
            [w, h],
            self.clock.scale.scale(),
            auto,
            rate,
            self.clock.repainted,
        ) {
            eprintln!("{line}");
        }
        let snap = self.feed.current();
        let device = &snap.device;
        if device.on_gpu || device.read_backs != ReadBacks::default() {
            // What the GPU mode read back over the whole run: the renderer reads nothing,
            // the simulation only its small snapshots (and a waited read-back per grab or
            // new parameters).
            let r = &device.read_backs;
            let drawn = (self.graphics.gpu.as_ref())
                .and_then(|g| g.scene.flags.scenes.first())
                .map_or(0, |s| s.device_frames);
            eprintln!(
                "simulation on the GPU ({}): {} steps, {} frames ({} drawn from its node \
                 buffer), {} snapshots and {} waited read-backs of {} key nodes, {} bytes \
                 in all, over {:.2} s",
                device.adapter.as_deref().unwrap_or("?"),
                snap.step,
                self.clock.frames,
                drawn,
                r.snapshots,
                r.waited,
                snap.x.len(),
                r.bytes,
                self.clock.opened.elapsed().as_secs_f64()
            );
        }
    }

    /// Lays out the panels for this frame and carries out what the user asked for in them.
    /// Returns the pixels the panels leave uncovered (`None`: all of them, or no GPU yet).
    fn layout_panels(&mut self, started: Instant) -> Option<PixelRect> {
        let gpu = self.graphics.gpu.as_mut()?;
        if gpu.surface.is_minimised() || self.clock.redraw.idled {
            self.clock.stats.reset();
        } else {
            self.clock.stats.tick(started);
        }
        let summary = self.clock.stats.summary();
        let info = FrameInfo {
            fps: summary.map_or(0.0, |s| s.fps),
            frame_ms: summary.map_or(0.0, |s| s.median.as_secs_f64() * 1e3),
            cpu_ms: self.clock.cpu_ms,
            frames: self.clock.frames,
            adapter: &gpu.adapter,
            render_scale: gpu.scene.scale(),
        };
        let mut actions = Vec::new();
        let ui_state = &mut self.ui;
        let curr = self.feed.current();
        let size_px = gpu.surface.size_px();
        let mut visible = None;
        let egui_out = gpu.egui.run(&gpu.window, |root| {
            actions = frame::panels(root, ui_state, curr, &info);
            visible = frame::uncovered(root, size_px);
        });
        self.clock.redraw = Redraw {
            wanted: false,
            drawn_seq: curr.seq,
            egui_at: Instant::now().checked_add(egui_out.repaint_delay),
            idled: false,
        };
        for a in actions {
            self.apply(a);
        }
        visible
    }

    /// Draws the view and the panels into `frame` and submits them. Whether the panels were
    /// painted anew (not only laid over the view from their cached layer).
    fn draw(
        &mut self,
        frame: &surface::SurfaceFrame,
        snap: &Snapshot,
        visible: Option<PixelRect>,
    ) -> bool {
        let Some(gpu) = self.graphics.gpu.as_mut() else {
            return false;
        };
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("viewer frame"),
            });
        // While a flag steps on this GPU the upsampler takes its key nodes from the
        // simulation's buffer, on the device (the snapshot's are a few steps behind); after a
        // divergence, the last good state the snapshot kept. (The lab's copies are drawn from
        // their snapshots.)
        let keys: Vec<_> = (snap.all_flags().enumerate())
            .map(|(k, flag)| {
                (gpu.sim_nodes.get(k)).filter(|_| {
                    flag.device.on_gpu && flag.divergence.is_none() && snap.lab.is_empty()
                })
            })
            .collect();
        gpu.scene.flags.set_device_keys(keys);
        if !snap.flags.is_empty() {
            let setting = &self.ui.view.render.setting;
            let looks = self.ui.scene.flags.iter();
            gpu.scene
                .set_pole_looks(looks.map(|f| PoleLook::of_flag(setting, f)));
        }
        let drew = gpu.scene.draw(
            &gpu.device,
            &gpu.queue,
            &mut encoder,
            &FrameView {
                snap,
                view: &self.ui.view,
                camera: &self.input.controls.camera,
                target: &frame.view,
                visible,
                scaled: true,
            },
        );
        if let Err(e) = drew {
            self.ui.notices.error(format!("drawing failed: {e}"));
        }
        let (egui_ctx, painter) = gpu.egui.painter();
        let ppp = painter.pixels_per_point();
        // Painting the panels anew costs as much as the view on a software rasteriser, and no
        // render scale makes it cheaper: such frames do not steer the scale.
        let panels_repainted = painter.is_dirty();
        let extra = painter.paint_cached(
            egui_ctx,
            &gpu.device,
            &gpu.queue,
            &mut encoder,
            &Canvas {
                view: &frame.view,
                size_px: gpu.surface.size_px(),
                pixels_per_point: ppp,
            },
        );
        gpu.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        painter.after_submit();
        panels_repainted
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.graphics.gpu.is_some() {
            return;
        }
        #[cfg(not(target_arch = "wasm32"))]
        match self.create_gpu(event_loop) {
            Ok(gpu) => self.gpu_ready(gpu),
            Err(e) => self.fail(e, event_loop),
        }
        #[cfg(target_arch = "wasm32")]
        self.open_in_page(event_loop);
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, id: WindowId, event: WindowEvent) {
        let Some(gpu) = self.graphics.gpu.as_mut() else {
            return;
        };
        if id != gpu.window.id() {
            return;
        }
        // The viewer's own keys never reach egui ([`keys::viewer_takes`]: Tab would move its
        // focus, Space would press a focused button); egui sees every other event first, and
        // the 3-D view only gets what egui did not consume.
        if let WindowEvent::KeyboardInput { event: key, .. } = &event
            && keys::viewer_takes(&key.logical_key, self.input.ctrl, gpu.egui.focus())
        {
            self.clock.redraw.wanted = true;
            if key.state == ElementState::Pressed
                && (!key.repeat || keys::repeats(&key.logical_key))
            {
                match keys::action_with(&key.logical_key, self.input.ctrl) {
                    Some(KeyAction::Quit) => event_loop.exit(),
                    Some(action) => self.key(action),
                    None => {}
                }
            }
            return;
        }
        let response = gpu.egui.on_window_event(&gpu.window, &event);
        // Any event but the redraw itself may change what is shown: an input, a resize, focus.
        if !matches!(event, WindowEvent::RedrawRequested) {
            self.clock.redraw.wanted = true;
        }
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(PhysicalSize { width, height }) => {
                gpu.surface.resize(width, height);
                if width > 0 && height > 0 {
                    self.input.controls.size = Vec2::new(width as f32, height as f32);
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::DroppedFile(path) => {
                let mut actions = Vec::new();
                crate::ui::panels::scene_files::drop_file(&mut self.ui, &mut actions, &path);
                for action in actions {
                    self.apply(action);
                }
            }
            WindowEvent::CursorMoved { position, .. } => self.pointer(
                Input::CursorMoved(Vec2::new(position.x as f32, position.y as f32)),
                response.consumed,
            ),
            WindowEvent::MouseInput { state, button, .. } => {
                let button = match button {
                    MouseButton::Left => Button::Left,
                    MouseButton::Right => Button::Right,
                    MouseButton::Middle => Button::Middle,
                    _ => return,
                };
                let pressed = state == ElementState::Pressed;
                self.pointer(Input::Button { button, pressed }, response.consumed);
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.pointer(Input::Wheel(lines), response.consumed);
            }
            WindowEvent::ModifiersChanged(m) => {
                self.input.ctrl = m.state().control_key();
                self.pointer(Input::Shift(m.state().shift_key()), false);
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        #[cfg(target_arch = "wasm32")]
        {
            self.take_page_device(event_loop);
            self.serve_page(Instant::now());
        }
        // In a page the simulation runs here, a turn each time the page wakes (a frame, an
        // input); on the desktop its thread runs by itself.
        self.sim.pump();
        let now = Instant::now();
        self.keep_settings(now);
        while let Some((pick, answer)) = self.dialogs.poll() {
            self.dialog_answered(pick, answer);
        }
        let Some(gpu) = &self.graphics.gpu else {
            return;
        };
        let latest = self.sim.latest();
        let moving = !latest.paused
            || self.capture.recorder.is_some()
            || self.capture.shot.is_some()
            || self.options.exit_after_frames.is_some();
        if self.clock.redraw.due(moving, latest.seq, now) {
            gpu.window.request_redraw();
            event_loop.set_control_flow(winit::event_loop::ControlFlow::Wait);
        } else {
            self.clock.redraw.idled = true;
            event_loop.set_control_flow(winit::event_loop::ControlFlow::WaitUntil(
                self.clock.redraw.next_check(now),
            ));
        }
    }
}
