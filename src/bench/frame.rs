//! The viewer's frame, split into its parts, without a window.

use std::time::Instant;

use serde::Serialize;

use super::{BenchConfig, Stat};
use crate::app::egui_glue::{Canvas, EguiPainter};
use crate::app::frame::{FrameView, SceneDraw, panels, uncovered};
use crate::gpu_sim::GpuProvider;
use crate::render::device::gpu::GpuContext;
use crate::render::drawing::view::{self, ViewSettings};
use crate::render::{AUTO_MIN_RENDER_SCALE, GpuTimer, OffscreenTarget, OrbitCamera, RenderQuality};
use crate::sim::DeviceChoice;
use crate::sim::format::scene::Scene;
use crate::sim::runtime::device::{DeviceProvider, DeviceStepper, ReadBacks};
use crate::sim::runtime::flags::FlagSet;
use crate::sim::runtime::snapshot::Snapshot;

/// Width and height of the frame, pixels (the viewer's default window).
const SIZE: [u32; 2] = [1280, 800];

/// The control panel's default width, points ([`crate::app::frame::panels`]).
const CONTROLS_WIDTH: f32 = 320.0;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FrameSplit {
    pub width: u32,
    pub height: u32,
    /// The scene drawn (`flag` unless `--scene` named another) and how many flags it flies.
    pub scene: String,
    pub flags: usize,
    /// The simulation's time step, s: the simulation keeps real time while `simulation`
    /// (every flag's step) stays under it.
    pub dt: f64,
    /// Where the flags stepped: `"cpu"`, or `"gpu"` (in f32 on the adapter: `implicit-mg`
    /// where the scene has it, else `kang-mg`; through
    /// the simulation thread's own stepper: the renderer draws the GPU's node buffer and the
    /// state comes back in asynchronous snapshots, as in the viewer's GPU mode).
    pub device: &'static str,
    /// Every flag's step. On the GPU: recording and submitting the step, then waiting for the
    /// GPU to finish it (the viewer does not wait there; the wait puts the step's GPU time in
    /// this part and not in the next one's).
    pub simulation: Stat,
    /// With flags on the GPU: what came back of them over the measured frames (snapshots,
    /// never waited for; waited read-backs, none unless the step was rebuilt).
    pub read_backs: Option<ReadBacks>,
    pub upload: Stat,
    /// Wall clock from submitting the upsampling to its end (the GPU's work and the wait).
    pub upsampling: Stat,
    /// Wall clock of recording, submitting and waiting for the 3-D passes.
    pub drawing: Stat,
    /// The panels in every frame: laid out always, painted anew only when they changed (the
    /// Stats figures refresh 4 times a second), otherwise the last painted layer composited.
    pub ui: Stat,
    /// The frames among those whose panels were painted anew.
    pub ui_repaint: Stat,
    /// Each frame's parts added up (simulation to panels): the viewer's frame before it is
    /// presented, and so its frame rate on this adapter without the window system's share.
    pub frame: Stat,
    /// The live plots of a 4-copy lab over a 20 s window.
    pub plots: PlotsCost,
    /// How long a flag added to the scene, and a flag given another shape, take from the
    /// command's sending to the simulation thread's first snapshot with them (the thread
    /// running the scene, as in the viewer).
    pub flag_changes: Option<FlagChanges>,
    /// The GPU's own time for the same parts, from timestamp queries; absent where the
    /// adapter has none.
    pub gpu: Option<GpuShare>,
    pub adapter: String,
    /// The render scale the view was drawn at: the lowest the viewer's *auto* mode takes on a
    /// software adapter ([`AUTO_MIN_RENDER_SCALE`]), 1 on any other.
    pub render_scale: f32,
}

/// [`FrameSplit::flag_changes`]: wall clock from a command to its snapshot.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FlagChanges {
    pub add: Stat,
    pub shape: Stat,
}

/// Sends `AddFlag` (then takes it down again) and `SetFlag` with another shape to a thread
/// running `scene`, `runs` times each, and times each from its sending to the first snapshot of
/// the new generation.
fn flag_changes(scene: &Scene, runs: usize) -> Option<FlagChanges> {
    use crate::sim::format::outline::FlagShape;
    use crate::sim_thread::{Command, SimThread, wait_for};
    use std::time::Duration;
    let sim = SimThread::spawn(scene.clone(), false).ok()?;
    let slot = sim.slot();
    let wait = |cmd: Command| {
        let before = slot.latest().generation;
        let t = Instant::now();
        sim.send(cmd);
        wait_for(&slot, Duration::from_secs(10), |s| s.generation != before)?;
        Some(t.elapsed().as_secs_f64())
    };
    let (mut add, mut shape) = (Vec::new(), Vec::new());
    for k in 0..runs {
        let mut placed = scene.clone();
        placed.place_flags();
        add.push(wait(Command::AddFlag(Box::new(placed.next_flag())))?);
        let count = slot.latest().flag_count();
        wait(Command::RemoveFlag(count - 1))?;
        let mut flag = placed.flags[0].clone();
        flag.shape = Some(if k % 2 == 0 {
            FlagShape::Swallowtail { notch: 0.3 }
        } else {
            FlagShape::Rectangle
        });
        shape.push(wait(Command::SetFlag(0, Box::new(flag)))?);
    }
    Some(FlagChanges {
        add: Stat::of(add),
        shape: Stat::of(shape),
    })
}

/// What the live plots cost in a frame: laid out in every frame, tessellated and painted
/// anew in the frames that refresh them (4 a second while the cloth runs).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlotsCost {
    /// A frame that refreshes them: new points, decimated, laid out, tessellated, painted
    /// into the panels' layer, and the layer laid over the frame.
    pub refresh: PlotsFrame,
    /// A frame between refreshes: the same points laid out again, found unchanged, and the
    /// cached layer laid over the frame.
    pub between: PlotsFrame,
    /// The plots panel's width and height, pixels, where it was laid out.
    pub strip: [u32; 2],
    /// Vertices and indices the plots tessellate into.
    pub vertices: usize,
    pub indices: usize,
}

/// One kind of frame of [`PlotsCost`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlotsFrame {
    /// CPU: egui's layout, and where the plots changed their tessellation, the vertex upload
    /// and the recording of the paint (everything before the submit).
    pub cpu: Stat,
    /// GPU: the paint and the composite, from timestamps; absent where the adapter has none.
    pub gpu: Option<Stat>,
    /// Wall clock: the CPU part, the submit and the wait for the GPU. On a hardware GPU this
    /// counts the round trip of waiting too.
    pub whole: Stat,
}

/// GPU time of each part of the frame, from timestamps written around its commands.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GpuShare {
    pub upsampling: Stat,
    pub drawing: Stat,
    pub ui: Stat,
}

/// Wall-clock and GPU times of one part of the frame over the measured frames.
#[derive(Default, Clone)]
struct Part {
    wall: Vec<f64>,
    gpu: Vec<f64>,
}

impl Part {
    fn push(&mut self, wall: f64, gpu: Option<f64>) {
        self.wall.push(wall);
        self.gpu.extend(gpu);
    }

    /// The GPU times' statistics, when every frame had one.
    fn gpu(&self) -> Option<Stat> {
        (!self.gpu.is_empty() && self.gpu.len() == self.wall.len())
            .then(|| Stat::of(self.gpu.clone()))
    }
}

/// The device, the queue and the optional timer every part is measured with.
struct Bench<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    timer: Option<GpuTimer>,
}

impl Bench<'_> {
    fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    /// An encoder whose commands from here on are timed (when there is a timer).
    fn timed_encoder(&self, label: &str) -> wgpu::CommandEncoder {
        let mut enc = self.encoder(label);
        if let Some(t) = &self.timer {
            t.start(&mut enc);
        }
        enc
    }

    /// Ends the timing in `enc`, submits `extra` then `enc`, and waits for the GPU. Returns the
    /// wall-clock seconds from `since` to the GPU's end, and the GPU's own seconds.
    fn submit(
        &self,
        since: Instant,
        extra: Vec<wgpu::CommandBuffer>,
        mut enc: wgpu::CommandEncoder,
    ) -> (f64, Option<f64>) {
        if let Some(t) = &self.timer {
            t.stop(&mut enc);
        }
        self.queue.submit(extra.into_iter().chain([enc.finish()]));
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let wall = since.elapsed().as_secs_f64();
        let gpu = self.timer.as_ref().and_then(|t| t.read(self.device).ok());
        (wall, gpu)
    }
}

/// The viewer's frame without a window: simulation step, upload of the key nodes, GPU
/// upsampling, drawing at 1280 × 800 (the adapter's viewer quality; only the pixels the panels
/// leave uncovered are shaded), and the egui panels (layout, tessellation and painting into the
/// same target), each through the viewer's own
/// frame code ([`crate::app::frame`], [`crate::app::egui_glue::EguiPainter`]); then the live
/// plots of a 4-copy lab on their own. Where the adapter has timestamp queries, each GPU part
/// is also timed on the GPU.
pub(crate) fn frame_split(cfg: BenchConfig, gpu: &GpuContext) -> Option<FrameSplit> {
    let scene = Scene::load("flag").ok()?;
    frame_split_of(cfg, gpu, "flag", &scene, DeviceChoice::Cpu).ok()
}

/// [`frame_split`] of `scene` (named `name` in the report), every flag of it stepped and drawn
/// in each frame, with each flag's image; each flag steps where `device` puts it (by the
/// simulation thread's rule: `gpu` every flag, `auto` large `kang-mg` cloths on a hardware
/// GPU). The error says why a flag cannot step there, or what could not be set up.
pub(crate) fn frame_split_of(
    cfg: BenchConfig,
    gpu: &GpuContext,
    name: &str,
    scene: &Scene,
    device: DeviceChoice,
) -> Result<FrameSplit, String> {
    let [w, h] = SIZE;
    let bench = Bench {
        device: &gpu.device,
        queue: &gpu.queue,
        timer: GpuTimer::new(&gpu.device, &gpu.queue),
    };
    let mut rig = FrameRig::new(&bench, gpu, scene, device)?;
    let frames = if cfg.quick { 3 } else { 30 };
    let screen = input(egui::Rect::from_min_size(
        egui::Pos2::ZERO,
        egui::vec2(w as f32, h as f32),
    ));
    let mut times = Timings::default();
    let mut read_before = ReadBacks::default();
    for frame in 0..frames + 2 {
        let parts = rig.measure(&bench, &screen)?;
        if frame == 1 {
            read_before = rig.read_backs();
        }
        if frame >= 2 {
            times.push(&parts);
        }
    }
    let read_after = rig.read_backs();
    let on_gpu = rig.steppers.iter().any(Option::is_some);
    let plots = plots_cost(&bench, &rig.target, &rig.scene, frames).ok_or(NO_SETUP)?;
    let flag_changes = flag_changes(&rig.scene, if cfg.quick { 3 } else { 20 });
    let Timings {
        sim: t_sim,
        upload: t_up,
        repaint: t_repaint,
        frame: t_frame,
        upsampling: ups,
        drawing,
        ui,
    } = times;
    let gpu_share = ups.gpu().zip(drawing.gpu()).zip(ui.gpu());
    Ok(FrameSplit {
        width: w,
        height: h,
        scene: name.to_string(),
        flags: rig.sim.flags.len(),
        dt: rig.scene.params.dt,
        device: if on_gpu { "gpu" } else { "cpu" },
        simulation: Stat::of(t_sim),
        read_backs: on_gpu.then(|| read_after - read_before),
        upload: Stat::of(t_up),
        upsampling: Stat::of(ups.wall),
        drawing: Stat::of(drawing.wall),
        ui: Stat::of(ui.wall),
        ui_repaint: Stat::of(t_repaint),
        frame: Stat::of(t_frame),
        plots,
        flag_changes,
        gpu: gpu_share.map(|((upsampling, drawing), ui)| GpuShare {
            upsampling,
            drawing,
            ui,
        }),
        adapter: format!(
            "{} (viewer quality: {:?}, render scale {:.0} %)",
            gpu.adapter_report(),
            rig.quality,
            rig.render_scale * 100.0
        ),
        render_scale: rig.render_scale,
    })
}

/// Why [`frame_split_of`] found no figures where nothing more precise is known.
const NO_SETUP: &str = "the viewer's frame could not be set up on the GPU";

/// Everything the measured frames draw with: the scene and its flags' simulation, the
/// offscreen target, the viewer's 3-D drawing and its panels.
struct FrameRig {
    scene: Scene,
    sim: FlagSet,
    /// Each flag's stepper on the GPU (the simulation thread's), `None` for a flag on the CPU.
    steppers: Vec<Option<Box<dyn DeviceStepper>>>,
    /// The GPU the steppers step on, its node buffers read by the drawing.
    provider: Option<GpuProvider>,
    target: OffscreenTarget,
    draw: SceneDraw,
    view_settings: ViewSettings,
    camera: OrbitCamera,
    egui_ctx: egui::Context,
    painter: EguiPainter,
    ui_state: crate::ui::UiState,
    quality: RenderQuality,
    render_scale: f32,
}

/// What the parts of one frame took, seconds: wall clock, and the GPU's own where timed.
struct FrameTimes {
    sim: f64,
    upload: f64,
    upsampling: (f64, Option<f64>),
    drawing: (f64, Option<f64>),
    /// The panels' layout and paint.
    ui: f64,
    ui_gpu: Option<f64>,
    /// Whether the panels were painted anew (not only their cached layer composited).
    repaint: bool,
}

/// The measured frames' times, part by part.
#[derive(Default)]
struct Timings {
    sim: Vec<f64>,
    upload: Vec<f64>,
    repaint: Vec<f64>,
    frame: Vec<f64>,
    upsampling: Part,
    drawing: Part,
    ui: Part,
}

impl Timings {
    /// Adds one measured frame's parts, and their sum as the frame's own time.
    fn push(&mut self, f: &FrameTimes) {
        self.sim.push(f.sim);
        self.upload.push(f.upload);
        self.upsampling.push(f.upsampling.0, f.upsampling.1);
        self.drawing.push(f.drawing.0, f.drawing.1);
        self.ui.push(f.ui, f.ui_gpu);
        if f.repaint {
            self.repaint.push(f.ui);
        }
        self.frame
            .push(f.sim + f.upload + f.upsampling.0 + f.drawing.0 + f.ui);
    }
}

impl FrameRig {
    /// Sets up the viewer's drawing of `scene` at [`SIZE`] with the quality and render scale
    /// the viewer picks on this adapter, its flags stepped 60 times so the cloth has moved.
    fn new(
        bench: &Bench<'_>,
        gpu: &GpuContext,
        scene: &Scene,
        device: DeviceChoice,
    ) -> Result<Self, String> {
        let [w, h] = SIZE;
        let (gpu_device, queue) = (bench.device, bench.queue);
        let device_type = gpu.adapter.get_info().device_type;
        let quality = RenderQuality::for_device_type(device_type);
        let render_scale = if device_type == wgpu::DeviceType::Cpu {
            AUTO_MIN_RENDER_SCALE
        } else {
            1.0
        };
        let format = OffscreenTarget::FORMAT.remove_srgb_suffix();
        let text = |e: &dyn std::fmt::Display| e.to_string();
        let target =
            OffscreenTarget::with_format(gpu_device, w, h, format).map_err(|e| text(&e))?;
        let mut draw =
            SceneDraw::new(gpu_device, queue, format, quality, [w, h]).map_err(|e| text(&e))?;
        draw.set_scale(gpu_device, render_scale);
        let mut scene = scene.clone();
        let images = crate::render::passes::flag_texture::flag_images(&mut scene, None)
            .map_err(|e| text(&e))?;
        draw.set_flag_images(gpu_device, queue, images)
            .map_err(|e| text(&e))?;
        let mut sim = FlagSet::new(&scene).map_err(|e| text(&e))?;
        for _ in 0..60 {
            sim.step();
        }
        let provider = GpuProvider::new(gpu_device.clone(), queue.clone(), gpu.adapter.get_info());
        let mut steppers = Vec::new();
        for (k, flag) in sim.flags.iter_mut().enumerate() {
            let on_gpu = device
                .wants_gpu(Some(&provider), flag)
                .map_err(|e| format!("flag {}: {e}", k + 1))?;
            steppers.push(if on_gpu {
                Some((provider.stepper(flag, k)).map_err(|e| format!("flag {}: {e}", k + 1))?)
            } else {
                None
            });
        }
        let provider = steppers.iter().any(Option::is_some).then_some(provider);
        let view_settings = ViewSettings {
            render: scene.render.clone(),
            ..ViewSettings::default()
        };
        let camera = view::framing_camera(&[&sim.snapshot()]);
        let egui_ctx = egui::Context::default();
        let painter = EguiPainter::new(gpu_device, format);
        let ui_state = crate::ui::UiState::new(scene.clone(), 0.12);
        Ok(FrameRig {
            scene,
            sim,
            steppers,
            provider,
            target,
            draw,
            view_settings,
            camera,
            egui_ctx,
            painter,
            ui_state,
            quality,
            render_scale,
        })
    }

    /// Steps the flags and times the viewer's frame in its parts, the panels laid out over
    /// `screen`.
    fn measure(
        &mut self,
        bench: &Bench<'_>,
        screen: &egui::RawInput,
    ) -> Result<FrameTimes, String> {
        let (device, queue) = (bench.device, bench.queue);
        let t = Instant::now();
        self.step()?;
        let sim_s = t.elapsed().as_secs_f64();
        let snap = self.sim.snapshot();
        // The viewer's frame, in its parts: upload and record the upsampling (of a flag on
        // the GPU, from the GPU's node buffer, as the viewer does) …
        let t = Instant::now();
        let mut enc = bench.timed_encoder("bench upsampling");
        if let Some(provider) = &self.provider {
            let nodes = provider.nodes();
            let keys = (self.steppers.iter().enumerate())
                .map(|(k, s)| s.as_ref().and_then(|_| nodes.get(k)))
                .collect();
            self.draw.flags.set_device_keys(keys);
        }
        (self.draw)
            .prepare(device, queue, &mut enc, &snap, &self.view_settings)
            .map_err(|e| e.to_string())?;
        let up_s = t.elapsed().as_secs_f64();
        // … run it …
        let ups_s = bench.submit(Instant::now(), Vec::new(), enc);
        // … lay out the panels (the viewer does this first: the 3-D view shades only what they
        // leave uncovered) …
        let t = Instant::now();
        let info = crate::ui::FrameInfo::default();
        let mut visible = None;
        let ui_state = &mut self.ui_state;
        let output = self.egui_ctx.run_ui(screen.clone(), |root| {
            panels(root, ui_state, &snap, &info);
            visible = uncovered(root, SIZE);
        });
        let _ = self.painter.accept(output);
        let layout_s = t.elapsed().as_secs_f64();
        // … draw the 3-D passes …
        let t = Instant::now();
        let mut enc = bench.timed_encoder("bench draw");
        let view = FrameView {
            snap: &snap,
            view: &self.view_settings,
            camera: &self.camera,
            target: self.target.resolved_view(),
            visible,
            scaled: true,
        };
        (self.draw)
            .render(device, queue, &mut enc, &view)
            .map_err(|e| e.to_string())?;
        let draw_s = bench.submit(t, Vec::new(), enc);
        // … and paint the panels over it.
        let t = Instant::now();
        let repaint = self.painter.is_dirty();
        let mut enc = bench.timed_encoder("bench ui");
        let extra = paint(
            &mut self.painter,
            &self.egui_ctx,
            bench,
            &mut enc,
            &self.target,
        );
        let (paint_s, ui_gpu) = bench.submit(t, extra, enc);
        self.painter.after_submit();
        Ok(FrameTimes {
            sim: sim_s,
            upload: up_s,
            upsampling: ups_s,
            drawing: draw_s,
            ui: layout_s + paint_s,
            ui_gpu,
            repaint,
        })
    }

    /// One step of every flag that has not diverged, where it steps: on the CPU, or through
    /// its GPU stepper, which then collects a snapshot that arrived and asks for the next (the
    /// simulation thread's tick), and the GPU's end of the step is waited for.
    fn step(&mut self) -> Result<(), String> {
        let mut on_gpu = false;
        for (flag, stepper) in self.sim.flags.iter_mut().zip(&mut self.steppers) {
            if flag.divergence.is_some() {
                continue;
            }
            match stepper {
                Some(stepper) => {
                    stepper.step_n(flag, 1).map_err(|e| e.to_string())?;
                    stepper.poll(flag).map_err(|e| e.to_string())?;
                    on_gpu = true;
                }
                None => {
                    flag.step();
                }
            }
        }
        if on_gpu && let Some(provider) = &self.provider {
            provider.wait();
        }
        Ok(())
    }

    /// What the GPU steppers have read back so far, added over the flags.
    fn read_backs(&self) -> ReadBacks {
        let mut all = ReadBacks::default();
        for stepper in self.steppers.iter().flatten() {
            all += stepper.read_backs();
        }
        all
    }
}

/// egui's input for a frame laid out over `rect` (points), with no events.
fn input(rect: egui::Rect) -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(rect),
        ..Default::default()
    }
}

/// egui's input for the plots alone: the part of the frame right of the control panel (its
/// default width, [`CONTROLS_WIDTH`] points), where the viewer lays the plots out.
fn plots_input() -> egui::RawInput {
    let [w, h] = SIZE;
    input(egui::Rect::from_min_max(
        egui::pos2(CONTROLS_WIDTH, 0.0),
        egui::pos2(w as f32, h as f32),
    ))
}

/// The viewer's paint of the last accepted UI over `target` (into the layer when it changed,
/// then composited); returns the command buffers to submit before `enc`.
fn paint(
    painter: &mut EguiPainter,
    ctx: &egui::Context,
    bench: &Bench<'_>,
    enc: &mut wgpu::CommandEncoder,
    target: &OffscreenTarget,
) -> Vec<wgpu::CommandBuffer> {
    let canvas = Canvas {
        view: target.resolved_view(),
        size_px: SIZE,
        pixels_per_point: painter.pixels_per_point(),
    };
    painter.paint_cached(ctx, bench.device, bench.queue, enc, &canvas)
}

/// [`FrameSplit::plots`]: the plots panel of a running 4-copy lab, its traces 20 s of 60
/// points a second, laid out where the viewer puts it and painted through the viewer's cached
/// painter over `target`: `frames` frames that refresh the plots (each a refresh later than the
/// last, with a new point per copy), then `frames` frames between two refreshes.
fn plots_cost(
    bench: &Bench<'_>,
    target: &OffscreenTarget,
    scene: &Scene,
    frames: usize,
) -> Option<PlotsCost> {
    use crate::ui::REFRESH;
    use crate::ui::plots::plots_ui;
    let mut state = crate::ui::UiState::new(scene.clone(), 0.12);
    let mut snap = Snapshot::of(&scene.simulation().ok()?);
    let mut step = 0u32;
    let mut record = |state: &mut crate::ui::UiState| {
        step += 1;
        snap.step = u64::from(step);
        snap.time = f64::from(step) / 60.0;
        snap.kinetic_energy = 0.05 + 0.03 * (f64::from(step) * 0.1).sin();
        snap.stats.max_strain = 1.03 + 0.005 * (f64::from(step) * 0.07).cos();
        snap.stats.step_seconds = 40e-6 * (1.0 + 0.2 * (f64::from(step) * 0.13).sin());
        for copy in 0..4 {
            state.plots.record(copy, &snap);
        }
    };
    for _ in 0..1200 {
        record(&mut state);
    }
    let ctx = egui::Context::default();
    let mut painter = EguiPainter::new(bench.device, target.resolved_view().texture().format());
    let mut now = Instant::now();
    let mut strip = egui::Rect::NOTHING;
    let mut measure = |refresh: bool| {
        let (mut cpu, mut whole) = (Vec::new(), Part::default());
        for frame in 0..frames + 2 {
            record(&mut state);
            if refresh {
                now += REFRESH;
            }
            let t = Instant::now();
            let output = ctx.run_ui(plots_input(), |root| {
                strip = egui::Panel::bottom("plots")
                    .default_size(190.0)
                    .show(root, |ui| plots_ui(ui, &mut state, false, now))
                    .response
                    .rect;
            });
            let _ = painter.accept(output);
            let mut enc = bench.timed_encoder("bench plots");
            let extra = paint(&mut painter, &ctx, bench, &mut enc, target);
            let cpu_s = t.elapsed().as_secs_f64();
            let (whole_s, gpu_s) = bench.submit(t, extra, enc);
            painter.after_submit();
            if frame >= 2 {
                cpu.push(cpu_s);
                whole.push(whole_s, gpu_s);
            }
        }
        PlotsFrame {
            cpu: Stat::of(cpu),
            gpu: whole.gpu(),
            whole: Stat::of(whole.wall),
        }
    };
    let refresh = measure(true);
    let between = measure(false);
    let (vertices, indices) = painter.tessellated_size();
    let ppp = painter.pixels_per_point();
    Some(PlotsCost {
        refresh,
        between,
        strip: [
            (strip.width() * ppp).round() as u32,
            (strip.height() * ppp).round() as u32,
        ],
        vertices,
        indices,
    })
}

#[cfg(test)]
mod tests {
    use super::Part;

    #[test]
    fn a_parts_gpu_time_is_there_only_when_every_frame_has_one() {
        let mut timed = Part::default();
        timed.push(3.0, Some(1.0));
        timed.push(5.0, Some(2.0));
        timed.push(4.0, Some(3.0));
        let gpu = timed.gpu().expect("every frame timed");
        assert_eq!((gpu.median, gpu.min, gpu.max, gpu.runs), (2.0, 1.0, 3.0, 3));
        // A frame whose timestamps could not be read: no GPU figure rather than a partial one.
        let mut partly = timed.clone();
        partly.push(4.0, None);
        assert!(partly.gpu().is_none());
        // No timer, and no frames at all.
        let mut untimed = Part::default();
        untimed.push(3.0, None);
        assert!(untimed.gpu().is_none());
        assert!(Part::default().gpu().is_none());
    }
}
