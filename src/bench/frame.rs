//! The viewer's frame, split into its parts, without a window.

use std::time::Instant;

use serde::Serialize;

use super::{BenchConfig, Stat};
use crate::render::gpu::GpuContext;
use crate::render::view::{self, ViewSettings};
use crate::sim::scene::Scene;
use crate::sim::thread::Snapshot;

#[derive(Debug, Clone, Serialize)]
pub struct FrameSplit {
    pub width: u32,
    pub height: u32,
    pub simulation: Stat,
    pub upload: Stat,
    pub upsampling: Stat,
    pub drawing: Stat,
    /// The panels in every frame: laid out always, painted anew only when they changed (the
    /// Stats figures refresh 4 times a second), otherwise the last painted layer composited.
    pub ui: Stat,
    /// The frames among those whose panels were painted anew.
    pub ui_repaint: Stat,
    /// The live plots of a 4-copy lab over a 20 s window, laid out and tessellated, as when
    /// they refresh (4 times a second): their CPU cost, which is what they cost on a hardware
    /// GPU (the few thousand vertices they make draw in microseconds there).
    pub plots: Stat,
    pub adapter: String,
}

/// The viewer's frame without a window: simulation step, upload of the key nodes, GPU
/// upsampling, drawing at 1280 × 800 (the adapter's viewer quality; only the pixels the panels
/// leave uncovered are shaded), and the egui panels (layout, tessellation and painting into the
/// same target), each through the viewer's own
/// frame code ([`crate::app::frame`], [`crate::app::egui_glue::EguiPainter`]).
pub fn frame_split(cfg: &BenchConfig, gpu: &GpuContext) -> Option<FrameSplit> {
    use crate::app::egui_glue::{Canvas, EguiPainter};
    use crate::app::frame::{FrameView, SceneDraw, panels, uncovered};
    use crate::render::{OffscreenTarget, RenderQuality};
    let (w, h) = (1280u32, 800u32);
    let (device, queue) = (&gpu.device, &gpu.queue);
    let quality = RenderQuality::for_device_type(gpu.adapter.get_info().device_type);
    let format = OffscreenTarget::FORMAT.remove_srgb_suffix();
    let target = OffscreenTarget::with_format(device, w, h, format).ok()?;
    let mut draw = SceneDraw::new(device, queue, format, quality, [w, h]).ok()?;
    let scene = Scene::load("flag").ok()?;
    let mut sim = scene.simulation().ok()?;
    for _ in 0..60 {
        sim.step();
    }
    let view_settings = ViewSettings::default();
    let camera = view::framing_camera(&[&Snapshot::of(&sim)]);
    let egui_ctx = egui::Context::default();
    let mut painter = EguiPainter::new(device, format);
    let mut ui_state = crate::ui::UiState::new(scene.clone(), 0.12);
    let frames = if cfg.quick { 3 } else { 30 };
    let (mut t_sim, mut t_up, mut t_ups, mut t_draw, mut t_ui) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut t_repaint = Vec::new();
    let wait = || {
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
    };
    let encoder = |label| {
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    };
    for frame in 0..frames + 2 {
        let t = Instant::now();
        sim.step();
        let sim_s = t.elapsed().as_secs_f64();
        let snap = Snapshot::of(&sim);
        // The viewer's frame, in its parts: upload and record the upsampling …
        let t = Instant::now();
        let mut enc = encoder("bench upsampling");
        draw.prepare(device, queue, &mut enc, &snap, &view_settings)
            .ok()?;
        let up_s = t.elapsed().as_secs_f64();
        // … run it …
        let t = Instant::now();
        queue.submit([enc.finish()]);
        wait();
        let ups_s = t.elapsed().as_secs_f64();
        // … lay out the panels (the viewer does this first: the 3-D view shades only what they
        // leave uncovered) …
        let t = Instant::now();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w as f32, h as f32),
            )),
            ..Default::default()
        };
        let info = crate::ui::FrameInfo::default();
        let mut visible = None;
        let output = egui_ctx.run_ui(input, |root| {
            panels(root, &mut ui_state, &snap, &info);
            visible = uncovered(root, [w, h]);
        });
        let _ = painter.accept(output);
        let layout_s = t.elapsed().as_secs_f64();
        // … draw the 3-D passes …
        let t = Instant::now();
        let mut enc = encoder("bench draw");
        let view = FrameView {
            snap: &snap,
            view: &view_settings,
            camera: &camera,
            target: target.resolved_view(),
            visible,
            scaled: true,
        };
        draw.render(device, queue, &mut enc, &view).ok()?;
        queue.submit([enc.finish()]);
        wait();
        let draw_s = t.elapsed().as_secs_f64();
        // … and paint the panels over it.
        let t = Instant::now();
        let mut enc = encoder("bench ui");
        let ppp = painter.pixels_per_point();
        let repaint = painter.is_dirty();
        let extra = painter.paint_cached(
            &egui_ctx,
            device,
            queue,
            &mut enc,
            &Canvas {
                view: target.resolved_view(),
                size_px: [w, h],
                pixels_per_point: ppp,
            },
        );
        queue.submit(extra.into_iter().chain([enc.finish()]));
        wait();
        painter.after_submit();
        let ui_s = layout_s + t.elapsed().as_secs_f64();
        if frame >= 2 {
            t_sim.push(sim_s);
            t_up.push(up_s);
            t_ups.push(ups_s);
            t_draw.push(draw_s);
            t_ui.push(ui_s);
            if repaint {
                t_repaint.push(ui_s);
            }
        }
    }
    Some(FrameSplit {
        width: w,
        height: h,
        simulation: Stat::of(t_sim),
        upload: Stat::of(t_up),
        upsampling: Stat::of(t_ups),
        drawing: Stat::of(t_draw),
        ui: Stat::of(t_ui),
        ui_repaint: Stat::of(t_repaint),
        plots: plots_cost(&scene, frames),
        adapter: format!("{} (viewer quality: {:?})", gpu.adapter_report(), quality),
    })
}

/// [`FrameSplit::plots`]: `frames` refreshes of the plots panel with four copies' traces of
/// 20 s at 60 points a second, each laid out and tessellated.
fn plots_cost(scene: &Scene, frames: usize) -> Stat {
    let mut state = crate::ui::UiState::new(scene.clone(), 0.12);
    let Ok(sim) = scene.simulation() else {
        return Stat::of(Vec::new());
    };
    let mut snap = Snapshot::of(&sim);
    for step in 1..=1200u32 {
        snap.step = u64::from(step);
        snap.time = f64::from(step) / 60.0;
        snap.kinetic_energy = 0.05 + 0.03 * (f64::from(step) * 0.1).sin();
        snap.stats.max_strain = 1.03 + 0.005 * (f64::from(step) * 0.07).cos();
        snap.stats.step_seconds = 40e-6;
        for copy in 0..4 {
            state.plots.record(copy, &snap);
        }
    }
    let ctx = egui::Context::default();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    let mut times = Vec::new();
    for frame in 0..frames + 2 {
        let t = Instant::now();
        let egui::FullOutput {
            shapes,
            pixels_per_point,
            mut textures_delta,
            ..
        } = ctx.run_ui(input(), |root| {
            egui::Panel::bottom("plots")
                .default_size(190.0)
                // Paused: the plots refresh at once, every frame here.
                .show(root, |ui| crate::ui::plots::plots_ui(ui, &mut state, true));
        });
        let meshes = ctx.tessellate(shapes, pixels_per_point);
        std::hint::black_box(meshes);
        // Only the CPU side is measured: the font atlas egui asks to upload goes nowhere
        // (egui panics in debug builds on a delta dropped without being cleared).
        textures_delta.clear();
        if frame >= 2 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Stat::of(times)
}
