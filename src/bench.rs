//! `flagsim bench`: the paper's claims and flagsim's own costs measured side by side on this
//! machine. Every timing is the median of repeated runs, reported with its spread (min … max).
//!
//! Sections: cost per step of every integrator against grid size (and the ratios the paper
//! argues about), the log-log scaling slope of `kang`, the rayon path against the serial one,
//! the largest stable `dt` of every integrator, `kang`'s agreement with the precomputed filter
//! (Fig. 8) as `h²k/m` grows and as the grid is refined, CPU against GPU upsampling, and the
//! viewer's frame split into its parts.

use std::time::Instant;

use serde::Serialize;

use crate::render::gpu::GpuContext;
use crate::render::view::{self, ViewSettings};
use crate::sim::compare::agreement;
use crate::sim::scene::{ClothSpec, GridSpec, Scene};
use crate::sim::thread::Snapshot;
use crate::sim::{IntegratorKind, Params, Simulation};
use crate::upsample::{RenderSettings, upsample_cpu};

/// Median and spread of repeated measurements.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stat {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Stat {
    pub fn of(mut xs: Vec<f64>) -> Self {
        xs.sort_by(f64::total_cmp);
        let n = xs.len().max(1);
        Stat {
            median: xs.get(n / 2).copied().unwrap_or(f64::NAN),
            min: xs.first().copied().unwrap_or(f64::NAN),
            max: xs.last().copied().unwrap_or(f64::NAN),
            runs: xs.len(),
        }
    }
}

/// How much to measure.
#[derive(Debug, Clone, Copy)]
pub struct BenchConfig {
    pub quick: bool,
}

impl BenchConfig {
    fn repeats(self) -> usize {
        if self.quick { 2 } else { 7 }
    }
    fn grid_sizes(self) -> Vec<usize> {
        if self.quick {
            vec![10, 16]
        } else {
            vec![10, 16, 32, 64, 128, 256, 512]
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct StepCost {
    pub integrator: &'static str,
    pub n: usize,
    pub nodes: usize,
    /// Seconds per published step (all forces, Provot on).
    pub seconds_per_step: Stat,
    /// Dense inverse (desbrun), seconds, measured once per size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precompute_seconds: Option<f64>,
    /// Mean CG iterations per step (implicit-cg).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cg_iterations: Option<f64>,
    /// Whether the state was still finite after the timed steps (the guard is off here).
    pub finite: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ratio {
    pub name: String,
    pub n: usize,
    pub value: f64,
    pub target: String,
    pub met: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Scaling {
    pub from_nodes: usize,
    pub to_nodes: usize,
    /// Least-squares slope of log(time per step) against log(nodes).
    pub slope: f64,
    pub target: String,
    pub met: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Parallel {
    pub n: usize,
    pub threads: usize,
    pub serial: Stat,
    pub parallel: Stat,
    pub speedup: f64,
    pub bit_identical: bool,
    pub threshold_nodes: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Stability {
    pub preset: &'static str,
    /// Whether Provot's strain limiting was on (as in the preset) or off (the integrator alone).
    pub strain_limiting: bool,
    pub integrator: &'static str,
    /// Largest `dt` (s) that ran the whole test without the guard firing or strain running away.
    pub largest_stable_dt: f64,
    pub simulated_seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Accuracy {
    pub h2k_over_m: f64,
    pub n: usize,
    pub cosine: f64,
    pub relative_error: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Upsampling {
    pub resolution: u32,
    pub cpu_seconds: Stat,
    pub gpu_seconds: Option<Stat>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FrameSplit {
    pub width: u32,
    pub height: u32,
    pub simulation: Stat,
    pub upload: Stat,
    pub upsampling: Stat,
    pub drawing: Stat,
    pub ui: Stat,
    pub adapter: String,
}

/// The thesis's wavelet interpolation against the same integrator without it.
#[derive(Debug, Clone, Serialize)]
pub struct WaveletSaving {
    pub integrator: &'static str,
    pub n: usize,
    pub threshold: f64,
    pub plain: Stat,
    pub wavelet: Stat,
    /// `1 − wavelet / plain` of the medians.
    pub time_saved: f64,
    /// Mean fraction of nodes interpolated per physics step over the timed steps.
    pub interpolated_fraction: f64,
    /// Largest strain at the end of the timed run, without and with.
    pub plain_max_strain: f64,
    pub wavelet_max_strain: f64,
    /// Whether the guard fired during the run, without and with (the timings are then void).
    pub plain_diverged: bool,
    pub wavelet_diverged: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub machine: String,
    pub quick: bool,
    pub step_cost: Vec<StepCost>,
    pub kang_10x10_seconds: Stat,
    pub ratios: Vec<Ratio>,
    pub scaling: Scaling,
    pub parallel: Parallel,
    pub stability: Vec<Stability>,
    pub accuracy_vs_h2k_over_m: Vec<Accuracy>,
    pub accuracy_vs_resolution: Vec<Accuracy>,
    pub upsampling: Vec<Upsampling>,
    pub wavelet: Vec<WaveletSaving>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameSplit>,
    /// Why a GPU section is missing, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_note: Option<String>,
}

/// An `n × n` flag of fixed physical size (1.2 m × 0.8 m, 0.12 kg) with the default parameters:
/// all forces, Provot on (4 sweeps), the same scene at every resolution.
pub fn square_flag(n: usize, integrator: IntegratorKind) -> Scene {
    Scene {
        description: format!("{n} × {n} benchmark flag"),
        cloth: ClothSpec {
            grid: Some(GridSpec {
                nx: n,
                ny: n,
                ..GridSpec::default()
            }),
            ..ClothSpec::default()
        },
        params: Params {
            integrator,
            ..Params::default()
        },
        render: RenderSettings::default(),
    }
}

/// The benchmark flag after 10 `kang` steps (so every force path has work to do), switched to
/// `kind`. The guard is off: at the flag's `dt` the explicit schemes are unstable, and what is
/// timed here is the arithmetic of a step, not whether the scheme survives it (the stability
/// section measures that). Strain limiting keeps their state finite.
fn warmed(n: usize, kind: IntegratorKind) -> Simulation {
    let mut sim = square_flag(n, IntegratorKind::Kang)
        .simulation()
        .expect("benchmark scene is valid");
    sim.guard = false;
    for _ in 0..10 {
        sim.step();
    }
    let mut p = sim.params().clone();
    p.integrator = kind;
    let _ = sim.set_params(p);
    sim
}

/// Seconds per step: `repeats` blocks of `block` steps, from a copy of the same state each time.
fn time_steps(sim: &Simulation, block: usize, repeats: usize) -> Stat {
    let mut runs = Vec::new();
    for _ in 0..repeats {
        let mut s = sim.clone();
        let t = Instant::now();
        for _ in 0..block {
            s.step();
        }
        runs.push(t.elapsed().as_secs_f64() / block as f64);
    }
    Stat::of(runs)
}

/// Steps per timed block so a block takes roughly `budget` seconds.
fn block_for(sim: &Simulation, budget: f64) -> usize {
    let mut s = sim.clone();
    let t = Instant::now();
    s.step();
    let one = t.elapsed().as_secs_f64().max(1e-7);
    ((budget / one) as usize).clamp(1, 2000)
}

fn dense_fits(kind: IntegratorKind, n: usize, quick: bool) -> bool {
    match kind {
        IntegratorKind::Desbrun => n <= if quick { 16 } else { 32 },
        IntegratorKind::ImplicitCg | IntegratorKind::ChoiKo => n <= if quick { 32 } else { 128 },
        _ => true,
    }
}

pub fn step_costs(cfg: &BenchConfig) -> Vec<StepCost> {
    let mut out = Vec::new();
    let budget = if cfg.quick { 0.01 } else { 0.05 };
    for n in cfg.grid_sizes() {
        for kind in IntegratorKind::ALL {
            if !dense_fits(kind, n, cfg.quick) {
                continue;
            }
            let mut sim = warmed(n, kind);
            let mut precompute = None;
            if kind == IntegratorKind::Desbrun {
                // The first step builds the inverse; time it on its own.
                sim.step();
                precompute = Some(sim.stats.desbrun_precompute_seconds);
            }
            let block = block_for(&sim, budget);
            let seconds_per_step = time_steps(&sim, block, cfg.repeats());
            let finite = {
                let mut s = sim.clone();
                (0..block).for_each(|_| {
                    s.step();
                });
                s.cloth.x.iter().chain(&s.cloth.v).all(|x| x.is_finite())
            };
            let cg_iterations = matches!(kind, IntegratorKind::ImplicitCg | IntegratorKind::ChoiKo)
                .then(|| {
                    let mut s = sim.clone();
                    let steps = 5;
                    let total: u32 = (0..steps)
                        .map(|_| {
                            s.step();
                            s.stats.cg.iterations
                        })
                        .sum();
                    total as f64 / steps as f64
                });
            out.push(StepCost {
                integrator: kind.name(),
                n,
                nodes: n * n,
                seconds_per_step,
                precompute_seconds: precompute,
                cg_iterations,
                finite,
            });
        }
    }
    out
}

fn cost(costs: &[StepCost], kind: IntegratorKind, n: usize) -> Option<f64> {
    costs
        .iter()
        .find(|c| c.integrator == kind.name() && c.n == n)
        .map(|c| c.seconds_per_step.median)
}

pub fn ratios(costs: &[StepCost], quick: bool) -> Vec<Ratio> {
    let (n_large, n_dense) = if quick { (16, 16) } else { (64, 32) };
    let mut out = Vec::new();
    let mut push = |name: &str,
                    n: usize,
                    num: IntegratorKind,
                    den: IntegratorKind,
                    target: &str,
                    ok: fn(f64) -> bool| {
        if let (Some(a), Some(b)) = (cost(costs, num, n), cost(costs, den, n)) {
            let value = a / b;
            out.push(Ratio {
                name: name.into(),
                n,
                value,
                target: target.into(),
                met: ok(value),
            });
        }
    };
    push(
        "kang / symplectic-euler",
        n_large,
        IntegratorKind::Kang,
        IntegratorKind::SymplecticEuler,
        "≤ 2.5 at 64 × 64",
        |v| v <= 2.5,
    );
    push(
        "implicit-cg / kang",
        n_large,
        IntegratorKind::ImplicitCg,
        IntegratorKind::Kang,
        "≥ 20 at 64 × 64",
        |v| v >= 20.0,
    );
    push(
        "desbrun / kang",
        n_dense,
        IntegratorKind::Desbrun,
        IntegratorKind::Kang,
        "≥ 50 at 32 × 32",
        |v| v >= 50.0,
    );
    out
}

pub fn scaling(costs: &[StepCost], quick: bool) -> Scaling {
    let lo = if quick { 10 } else { 32 };
    let pts: Vec<(f64, f64)> = costs
        .iter()
        .filter(|c| c.integrator == "kang" && c.n >= lo)
        .map(|c| ((c.nodes as f64).ln(), c.seconds_per_step.median.ln()))
        .collect();
    let k = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / k, sy / k);
    let (num, den) = pts.iter().fold((0.0, 0.0), |(n, d), (x, y)| {
        (n + (x - mx) * (y - my), d + (x - mx) * (x - mx))
    });
    let slope = num / den;
    let nodes: Vec<usize> = costs
        .iter()
        .filter(|c| c.integrator == "kang" && c.n >= lo)
        .map(|c| c.nodes)
        .collect();
    Scaling {
        from_nodes: nodes.first().copied().unwrap_or(0),
        to_nodes: nodes.last().copied().unwrap_or(0),
        slope,
        target: "0.9 … 1.15 between 32 × 32 and 512 × 512".into(),
        met: (0.9..=1.15).contains(&slope),
    }
}

pub fn parallel(cfg: &BenchConfig) -> Parallel {
    let n = if cfg.quick { 32 } else { 512 };
    let base = warmed(n, IntegratorKind::Kang);
    let mut serial = base.clone();
    serial.parallel = Some(false);
    let mut par = base.clone();
    par.parallel = Some(true);
    let steps = if cfg.quick { 3 } else { 10 };
    let (mut a, mut b) = (serial.clone(), par.clone());
    for _ in 0..steps {
        a.step();
        b.step();
    }
    let bit_identical = a.cloth.x == b.cloth.x && a.cloth.v == b.cloth.v;
    let block = block_for(&serial, if cfg.quick { 0.02 } else { 0.2 });
    let serial_t = time_steps(&serial, block, cfg.repeats());
    let par_t = time_steps(&par, block, cfg.repeats());
    Parallel {
        n,
        threads: rayon::current_num_threads(),
        speedup: serial_t.median / par_t.median,
        serial: serial_t,
        parallel: par_t,
        bit_identical,
        threshold_nodes: crate::sim::simulation::PARALLEL_THRESHOLD,
    }
}

/// Strain beyond which a run counts as having run away (three times the rest length: no cloth
/// survives that, whatever the integrator's accuracy).
pub const RUNAWAY_STRAIN: f64 = 3.0;

/// Runs `scene` at `dt` for `seconds` (at least 30 steps); stable if the guard never fires (no
/// non-finite value, no spring past 10× its rest length, no thrashing) and the strain never
/// passes [`RUNAWAY_STRAIN`].
fn runs_stably(scene: &Scene, kind: IntegratorKind, dt: f64, seconds: f64) -> bool {
    let mut s = scene.clone();
    s.params.integrator = kind;
    s.params.dt = dt;
    let Ok(mut sim) = s.simulation() else {
        return false;
    };
    let steps = ((seconds / dt).ceil() as usize).max(30);
    for _ in 0..steps {
        if !sim.step() || sim.stats.max_strain > RUNAWAY_STRAIN {
            return false;
        }
    }
    true
}

pub fn stability(cfg: &BenchConfig) -> Vec<Stability> {
    let seconds = if cfg.quick { 0.2 } else { 3.0 };
    let iterations = if cfg.quick { 2 } else { 10 };
    let mut out = Vec::new();
    for (preset, strain_limiting) in [
        ("flag", true),
        ("hanging", true),
        ("flag", false),
        ("hanging", false),
    ] {
        let mut scene = Scene::load(preset).expect("built-in preset");
        scene.params.provot.enabled &= strain_limiting;
        for kind in IntegratorKind::ALL {
            // Bisection on log dt between 1e-4 s and 0.5 s.
            let (mut lo, mut hi) = (1e-4f64, 0.5f64);
            if runs_stably(&scene, kind, hi, seconds) {
                lo = hi;
            } else if !runs_stably(&scene, kind, lo, seconds) {
                lo = 0.0;
            } else {
                for _ in 0..iterations {
                    let mid = (lo * hi).sqrt();
                    if runs_stably(&scene, kind, mid, seconds) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
            }
            out.push(Stability {
                preset,
                strain_limiting,
                integrator: kind.name(),
                largest_stable_dt: lo,
                simulated_seconds: seconds,
            });
        }
    }
    out
}

fn compare_at(mut sim: Simulation) -> (f64, f64) {
    let dv_f = sim.probe_delta_v(IntegratorKind::Desbrun);
    let dv_k = sim.probe_delta_v(IntegratorKind::Kang);
    match (dv_k, dv_f) {
        (Ok(k), Ok(f)) => {
            let free: Vec<bool> = sim.cloth.pinned.iter().map(|p| !p).collect();
            agreement(&k, &f, &free)
        }
        _ => (f64::NAN, f64::NAN),
    }
}

/// Fig. 8 as `h²k/m` grows (10 × 10 flag, `dt` varied) and as the same cloth is refined at the
/// default `dt` (finer grids have lighter nodes, so `h²k/m` grows with them).
pub fn accuracy(cfg: &BenchConfig) -> (Vec<Accuracy>, Vec<Accuracy>) {
    let ratios: &[f64] = if cfg.quick {
        &[0.01, 1.0, 100.0]
    } else {
        &[0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
    };
    let mut by_ratio = Vec::new();
    for &r in ratios {
        let mut scene = square_flag(10, IntegratorKind::Kang);
        scene.params.wind.gust.strength = 0.0;
        let m = 0.12 / 100.0;
        scene.params.dt = (r * m / scene.params.stiffness.structural).sqrt();
        let mut sim = scene.simulation().expect("valid");
        // A state in motion: 0.2 s of simulated time.
        for _ in 0..((0.2 / scene.params.dt) as usize).clamp(5, 2000) {
            sim.step();
        }
        let (cosine, relative_error) = compare_at(sim.clone());
        by_ratio.push(Accuracy {
            h2k_over_m: sim.h2k_over_m(),
            n: 10,
            cosine,
            relative_error,
        });
    }
    let sizes: &[usize] = if cfg.quick {
        &[6, 10]
    } else {
        &[6, 10, 16, 24, 32]
    };
    let mut by_n = Vec::new();
    for &n in sizes {
        let mut sim = square_flag(n, IntegratorKind::Kang)
            .simulation()
            .expect("valid");
        for _ in 0..12 {
            sim.step();
        }
        let (cosine, relative_error) = compare_at(sim.clone());
        by_n.push(Accuracy {
            h2k_over_m: sim.h2k_over_m(),
            n,
            cosine,
            relative_error,
        });
    }
    (by_ratio, by_n)
}

fn flag_keys_after(seconds: f64) -> (crate::sim::GridInfo, Vec<glam::Vec3>) {
    let scene = Scene::load("flag").expect("preset");
    let mut sim = scene.simulation().expect("valid");
    for _ in 0..(seconds / scene.params.dt) as usize {
        sim.step();
    }
    let grid = sim.cloth.grid.expect("grid");
    (grid, view::key_positions(&sim.cloth.x))
}

pub fn upsampling(cfg: &BenchConfig, gpu: Option<&GpuContext>) -> Vec<Upsampling> {
    let (grid, keys) = flag_keys_after(1.0);
    let key_grid = view::key_grid(&grid, &keys);
    let mut out = Vec::new();
    let resolutions: &[u32] = if cfg.quick { &[50, 128] } else { &[50, 1024] };
    let mut pass = gpu.and_then(|g| crate::render::UpsamplePass::new(&g.device).ok());
    for &r in resolutions {
        let settings = RenderSettings {
            resolution: [r, r],
            ..RenderSettings::default()
        };
        let reps = cfg.repeats();
        let cpu = Stat::of(
            (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(upsample_cpu(&key_grid, &settings));
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        );
        let gpu_t = match (gpu, pass.as_mut()) {
            (Some(g), Some(p)) => {
                let mut runs = Vec::new();
                for i in 0..=reps {
                    let t = Instant::now();
                    let _ = p.upload_keys(&g.device, &g.queue, &key_grid, &settings);
                    let mut enc =
                        g.device
                            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                label: Some("bench upsample"),
                            });
                    p.encode(&mut enc);
                    g.queue.submit([enc.finish()]);
                    let _ = g.device.poll(wgpu::PollType::wait_indefinitely());
                    if i > 0 {
                        // The first run allocates the buffers.
                        runs.push(t.elapsed().as_secs_f64());
                    }
                }
                Some(Stat::of(runs))
            }
            _ => None,
        };
        out.push(Upsampling {
            resolution: r,
            cpu_seconds: cpu,
            gpu_seconds: gpu_t,
        });
    }
    out
}

/// The viewer's frame without a window: simulation step, upload of the key nodes, GPU
/// upsampling, drawing at 1280 × 800 (the adapter's viewer quality), and the egui panels
/// (layout, tessellation and painting into the same target).
pub fn frame_split(cfg: &BenchConfig, gpu: &GpuContext) -> Option<FrameSplit> {
    use crate::render::frame::ClothScene;
    use crate::render::{OffscreenTarget, RenderQuality, Renderer};
    let (w, h) = (1280u32, 800u32);
    let quality = RenderQuality::for_device_type(gpu.adapter.get_info().device_type);
    let format = OffscreenTarget::FORMAT.remove_srgb_suffix();
    let target = OffscreenTarget::with_format(&gpu.device, w, h, format).ok()?;
    let mut renderer = Renderer::with_quality(&gpu.device, &gpu.queue, format, quality).ok()?;
    let msaa = crate::render::MsaaAttachments::new(&gpu.device, &renderer.targets(), w, h, "bench");
    let mut cloth = ClothScene::new(&gpu.device).ok()?;
    let scene = Scene::load("flag").ok()?;
    let mut sim = scene.simulation().ok()?;
    for _ in 0..60 {
        sim.step();
    }
    let view_settings = ViewSettings::default();
    let camera = view::framing_camera(&[&Snapshot::of(&sim)]);
    let egui_ctx = egui::Context::default();
    let mut egui_renderer = egui_wgpu::Renderer::new(
        &gpu.device,
        format,
        egui_wgpu::RendererOptions {
            msaa_samples: 1,
            depth_stencil_format: None,
            ..Default::default()
        },
    );
    let mut ui_state = crate::ui::UiState::new(scene.clone(), 0.12);
    let frames = if cfg.quick { 3 } else { 30 };
    let (mut t_sim, mut t_up, mut t_ups, mut t_draw, mut t_ui) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let wait = || {
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    };
    for frame in 0..frames + 2 {
        let t = Instant::now();
        sim.step();
        let sim_s = t.elapsed().as_secs_f64();
        let snap = Snapshot::of(&sim);
        let t = Instant::now();
        let mut enc = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench"),
            });
        cloth
            .prepare(&gpu.device, &gpu.queue, &mut enc, &snap, &view_settings)
            .ok()?;
        let up_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        gpu.queue.submit([enc.finish()]);
        wait();
        let ups_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let data = cloth.frame_data(&snap, &view_settings, &camera, w as f32 / h as f32);
        let mut enc = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench draw"),
            });
        let (color, resolve) = if renderer.targets().sample_count > 1 {
            (&msaa.color_view, Some(target.resolved_view()))
        } else {
            (target.resolved_view(), None)
        };
        renderer
            .render(
                &gpu.device,
                &gpu.queue,
                &mut enc,
                color,
                resolve,
                &msaa.depth_view,
                &data,
            )
            .ok()?;
        gpu.queue.submit([enc.finish()]);
        wait();
        let draw_s = t.elapsed().as_secs_f64();
        // egui: lay out the real panels, tessellate, paint over the frame.
        let t = Instant::now();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w as f32, h as f32),
            )),
            ..Default::default()
        };
        let info = crate::ui::FrameInfo::default();
        let output = egui_ctx.run_ui(input, |root| {
            egui::Panel::left("controls")
                .default_size(320.0)
                .show(root, |ui| {
                    crate::ui::controls(ui, &mut ui_state, &snap, &info);
                });
        });
        let prims = egui_ctx.tessellate(output.shapes, output.pixels_per_point);
        // Every delta must be applied (egui checks), uploads before painting, frees after.
        let mut textures = output.textures_delta;
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                egui_renderer.update_texture(&gpu.device, &gpu.queue, id, delta);
            }
        }
        let to_free: Vec<egui::TextureId> = textures.free.drain().collect();
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [w, h],
            pixels_per_point: output.pixels_per_point,
        };
        let mut enc = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench ui"),
            });
        let extra =
            egui_renderer.update_buffers(&gpu.device, &gpu.queue, &mut enc, &prims, &screen);
        {
            let pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("bench egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target.resolved_view(),
                    resolve_target: None,
                    depth_slice: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let mut pass = pass.forget_lifetime();
            egui_renderer.render(&mut pass, &prims, &screen);
        }
        gpu.queue.submit(extra.into_iter().chain([enc.finish()]));
        wait();
        for id in &to_free {
            egui_renderer.free_texture(id);
        }
        let ui_s = t.elapsed().as_secs_f64();
        if frame >= 2 {
            t_sim.push(sim_s);
            t_up.push(up_s);
            t_ups.push(ups_s);
            t_draw.push(draw_s);
            t_ui.push(ui_s);
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
        adapter: format!("{} (viewer quality: {:?})", gpu.adapter_report(), quality),
    })
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!(
        "{cpu}, {} threads, {} build",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    )
}

/// Everything, in one run.
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> Report {
    progress("cost per step");
    let step_cost = step_costs(cfg);
    let kang_10x10_seconds = step_cost
        .iter()
        .find(|c| c.integrator == "kang" && c.n == 10)
        .map_or(Stat::of(vec![]), |c| c.seconds_per_step);
    let ratios = ratios(&step_cost, cfg.quick);
    let scaling = scaling(&step_cost, cfg.quick);
    progress("parallel kang");
    let parallel = parallel(cfg);
    progress("stability");
    let stability = stability(cfg);
    progress("accuracy against the filter");
    let (accuracy_vs_h2k_over_m, accuracy_vs_resolution) = accuracy(cfg);
    progress("wavelet interpolation");
    let wavelet = wavelet(cfg);
    progress("GPU");
    let gpu = GpuContext::new_headless();
    let gpu_note = gpu.as_ref().err().map(std::string::ToString::to_string);
    let gpu = gpu.ok();
    progress("upsampling");
    let upsampling = upsampling(cfg, gpu.as_ref());
    progress("viewer frame");
    let frame = gpu.as_ref().and_then(|g| frame_split(cfg, g));
    Report {
        machine: machine(),
        quick: cfg.quick,
        step_cost,
        kang_10x10_seconds,
        ratios,
        scaling,
        parallel,
        stability,
        accuracy_vs_h2k_over_m,
        accuracy_vs_resolution,
        upsampling,
        wavelet,
        frame,
        gpu_note,
    }
}

/// The thesis's test (Chi 2007 §6): an `n × n` cloth hung by its two top corners, k = 2000 N/m,
/// 1 kg, a light breeze, dt = 0.01 s in four substeps (h²k/m ≈ 50 at 64 × 64).
pub fn thesis_scene(n: usize, kind: IntegratorKind, wavelet: bool, threshold: f64) -> Scene {
    let json = format!(
        r#"{{
        "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1.0, "height": 1.0,
                     "origin": [0, 2, 0], "plane": "xy", "mass": 1.0, "pins": "top-corners" }} }},
        "params": {{ "integrator": "{}", "dt": 0.01, "substeps": 4,
                     "stiffness": {{ "structural": 2000, "shear": 500, "bend": 20 }},
                     "wind": {{ "velocity": [1.5, 0, 0.5] }},
                     "wavelet": {{ "enabled": {wavelet}, "threshold": {threshold} }} }}
    }}"#,
        kind.name()
    );
    Scene::from_json(&json, "thesis").expect("benchmark scene is valid")
}

/// Time per step with and without the wavelet interpolation, from the same state after the
/// cloth has fallen for 0.5 s. The two are timed in alternating blocks so that load from other
/// tenants of the machine falls on both alike. (At 128 × 128 the scene's `h²k/m` is 800 and plain
/// `kang` cannot hold the cloth, so the thesis's two sizes are used.)
pub fn wavelet(cfg: &BenchConfig) -> Vec<WaveletSaving> {
    let sizes: &[usize] = if cfg.quick { &[16] } else { &[32, 64] };
    let threshold = 0.025;
    let mut out = Vec::new();
    for &n in sizes {
        for kind in [IntegratorKind::Hybrid, IntegratorKind::Kang] {
            let mut base = thesis_scene(n, kind, false, threshold)
                .simulation()
                .expect("valid");
            for _ in 0..if cfg.quick { 10 } else { 50 } {
                base.step();
            }
            let mut on = base.clone();
            let mut p = on.params().clone();
            p.wavelet.enabled = true;
            on.set_params(p).expect("valid");
            let steps = if cfg.quick { 10 } else { 100 };
            let (mut plain_runs, mut wavelet_runs) = (Vec::new(), Vec::new());
            for _ in 0..cfg.repeats() {
                for (sim, runs) in [(&base, &mut plain_runs), (&on, &mut wavelet_runs)] {
                    let mut s = sim.clone();
                    let t = Instant::now();
                    for _ in 0..steps {
                        s.step();
                    }
                    runs.push(t.elapsed().as_secs_f64() / steps as f64);
                }
            }
            let (plain, wavelet) = (Stat::of(plain_runs), Stat::of(wavelet_runs));
            let (mut a, mut b) = (base.clone(), on.clone());
            let mut fraction = 0.0;
            for _ in 0..steps {
                a.step();
                b.step();
                fraction += b.stats.interpolated_fraction;
            }
            out.push(WaveletSaving {
                integrator: kind.name(),
                n,
                threshold,
                time_saved: 1.0 - wavelet.median / plain.median,
                plain,
                wavelet,
                interpolated_fraction: fraction / steps as f64,
                plain_max_strain: a.cloth.max_strain(),
                wavelet_max_strain: b.cloth.max_strain(),
                plain_diverged: a.divergence.is_some(),
                wavelet_diverged: b.divergence.is_some(),
            });
        }
    }
    out
}

fn us(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn stat(s: &Stat) -> String {
    format!("{} ({} … {})", us(s.median), us(s.min), us(s.max))
}

/// The report as text tables.
pub fn table(r: &Report) -> String {
    let mut o = String::new();
    let mut line = |s: String| {
        o.push_str(&s);
        o.push('\n');
    };
    line(format!(
        "flagsim bench on {}{}",
        r.machine,
        if r.quick { " (quick)" } else { "" }
    ));
    line(String::new());
    line("Cost per published step (median, min … max), all forces, Provot on".into());
    line(format!(
        "{:<18} {:>9}  {}",
        "integrator", "grid", "time per step"
    ));
    for c in &r.step_cost {
        let mut extra = String::new();
        if let Some(p) = c.precompute_seconds {
            extra += &format!("  [inverse built in {}]", us(p));
        }
        if let Some(i) = c.cg_iterations {
            extra += &format!("  [{i:.1} CG iterations]");
        }
        if !c.finite {
            extra += "  [state went non-finite]";
        }
        line(format!(
            "{:<18} {:>4}×{:<4}  {}{extra}",
            c.integrator,
            c.n,
            c.n,
            stat(&c.seconds_per_step)
        ));
    }
    line(String::new());
    line(format!(
        "kang, full step at 10 × 10: {} (target ≤ 10 µs)",
        stat(&r.kang_10x10_seconds)
    ));
    for x in &r.ratios {
        line(format!(
            "{} at {}×{}: {:.2} (target {}) {}",
            x.name,
            x.n,
            x.n,
            x.value,
            x.target,
            if x.met { "met" } else { "MISSED" }
        ));
    }
    line(format!(
        "kang scaling slope, {} → {} nodes: {:.3} (target {}) {}",
        r.scaling.from_nodes,
        r.scaling.to_nodes,
        r.scaling.slope,
        r.scaling.target,
        if r.scaling.met { "met" } else { "MISSED" }
    ));
    let p = &r.parallel;
    line(format!(
        "parallel kang at {}×{} on {} threads: serial {}, parallel {}, speed-up {:.2}×, bit-identical: {} (used from {} nodes)",
        p.n,
        p.n,
        p.threads,
        us(p.serial.median),
        us(p.parallel.median),
        p.speedup,
        p.bit_identical,
        p.threshold_nodes
    ));
    line(String::new());
    line(format!(
        "Largest stable dt, s (guard never fires, strain below {RUNAWAY_STRAIN}, {} simulated s)",
        r.stability.first().map_or(0.0, |s| s.simulated_seconds)
    ));
    let header: Vec<String> = IntegratorKind::ALL
        .iter()
        .map(|k| format!("{:>17}", k.name()))
        .collect();
    line(format!("  {:<20}{}", "", header.join("")));
    let configs = [
        ("flag", true),
        ("hanging", true),
        ("flag", false),
        ("hanging", false),
    ];
    let find = |preset: &str, limiting: bool, kind: &str| {
        r.stability
            .iter()
            .find(|s| s.preset == preset && s.strain_limiting == limiting && s.integrator == kind)
            .map(|s| s.largest_stable_dt)
    };
    for (preset, limiting) in configs {
        let row: Vec<String> = IntegratorKind::ALL
            .iter()
            .map(|k| match find(preset, limiting, k.name()) {
                Some(dt) => format!("{dt:>17.4}"),
                None => format!("{:>17}", "—"),
            })
            .collect();
        let label = format!("{preset}, Provot {}", if limiting { "on" } else { "off" });
        line(format!("  {label:<20}{}", row.join("")));
    }
    for limiting in [true, false] {
        if let (Some(k), Some(s)) = (
            find("flag", limiting, "kang"),
            find("flag", limiting, "symplectic-euler"),
        ) {
            let ratio = k / s;
            line(format!(
                "  kang / symplectic-euler on flag, Provot {}: {ratio:.1}× (target ≥ 10) {}",
                if limiting { "on" } else { "off" },
                if ratio >= 10.0 { "met" } else { "MISSED" }
            ));
        }
    }
    line(String::new());
    line("kang's Δv against the precomputed filter (Fig. 8)".into());
    for a in r
        .accuracy_vs_h2k_over_m
        .iter()
        .chain(&r.accuracy_vs_resolution)
    {
        line(format!(
            "  {:>3}×{:<3} h²k/m = {:>10.4}: cosine {:.5}, relative error {:.4}",
            a.n, a.n, a.h2k_over_m, a.cosine, a.relative_error
        ));
    }
    line(String::new());
    line("Upsampling".into());
    for u in &r.upsampling {
        line(format!(
            "  {}×{} render nodes: CPU {}, GPU {}",
            u.resolution,
            u.resolution,
            stat(&u.cpu_seconds),
            u.gpu_seconds.as_ref().map_or("—".into(), stat)
        ));
    }
    line(String::new());
    line(
        "Wavelet interpolation (Chi 2007 §6: hung by two corners, k = 2000 N/m, dt = 0.01 s / 4)"
            .into(),
    );
    for w in &r.wavelet {
        if w.plain_diverged || w.wavelet_diverged {
            line(format!(
                "  {:<7}{:>4}×{:<4} diverged (plain: {}, wavelet: {}): no timing",
                w.integrator, w.n, w.n, w.plain_diverged, w.wavelet_diverged
            ));
            continue;
        }
        line(format!(
            "  {:<7}{:>4}×{:<4} threshold {}: plain {}, wavelet {}: {:+.0} % time saved, {:.0} % of nodes interpolated, strain {:.3} / {:.3}",
            w.integrator,
            w.n,
            w.n,
            w.threshold,
            us(w.plain.median),
            us(w.wavelet.median),
            w.time_saved * 100.0,
            w.interpolated_fraction * 100.0,
            w.plain_max_strain,
            w.wavelet_max_strain
        ));
    }
    if let Some(f) = &r.frame {
        line(String::new());
        line(format!(
            "Viewer frame at {}×{} on {}",
            f.width, f.height, f.adapter
        ));
        line(format!("  simulation {}", stat(&f.simulation)));
        line(format!("  upload     {}", stat(&f.upload)));
        line(format!("  upsampling {}", stat(&f.upsampling)));
        line(format!("  drawing    {}", stat(&f.drawing)));
        line(format!("  UI (egui)  {}", stat(&f.ui)));
    }
    if let Some(n) = &r.gpu_note {
        line(format!("GPU sections skipped: {n}"));
    }
    o
}

/// A log-log plot of time per step against node count, one line per integrator, as SVG.
pub fn plot_svg(r: &Report) -> String {
    // Plot area from `m` to `w - right` (the legend sits in the right margin).
    let (w, h, m, right) = (900.0, 480.0, 70.0, 170.0);
    let pts: Vec<(f64, f64)> = r
        .step_cost
        .iter()
        .map(|c| ((c.nodes as f64).log10(), c.seconds_per_step.median.log10()))
        .collect();
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (x0, x1, y0, y1) = (x0.floor(), x1.ceil(), y0.floor(), y1.ceil());
    let sx = |x: f64| m + (x - x0) / (x1 - x0).max(1e-9) * (w - m - right);
    let sy = |y: f64| h - m - (y - y0) / (y1 - y0).max(1e-9) * (h - 2.0 * m);
    let colors = [
        "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
    ];
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>"#
    );
    let mut e = x0;
    while e <= x1 + 1e-9 {
        s += &format!(
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">1e{4}</text>"##,
            sx(e),
            m,
            h - m,
            h - m + 18.0,
            e as i32
        );
        e += 1.0;
    }
    let mut e = y0;
    while e <= y1 + 1e-9 {
        s += &format!(
            r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">1e{5} s</text>"##,
            m,
            sy(e),
            w - m,
            m - 6.0,
            sy(e) + 4.0,
            e as i32
        );
        e += 1.0;
    }
    s += &format!(
        r#"<text x="{}" y="{}" text-anchor="middle">nodes</text><text x="{}" y="24" text-anchor="middle" font-size="14">time per step against node count (log-log), {}</text>"#,
        w / 2.0,
        h - 20.0,
        w / 2.0,
        r.machine
    );
    for (k, kind) in IntegratorKind::ALL.iter().enumerate() {
        let line: Vec<(f64, f64)> = r
            .step_cost
            .iter()
            .filter(|c| c.integrator == kind.name())
            .map(|c| {
                (
                    sx((c.nodes as f64).log10()),
                    sy(c.seconds_per_step.median.log10()),
                )
            })
            .collect();
        if line.is_empty() {
            continue;
        }
        let c = colors[k % colors.len()];
        let path: Vec<String> = line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        s += &format!(
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for (x, y) in &line {
            s += &format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{c}"/>"#);
        }
        s += &format!(
            r#"<text x="{}" y="{}" fill="{c}">{}</text>"#,
            w - right + 12.0,
            m + 16.0 * k as f64,
            kind.name()
        );
    }
    // A slope-1 guide through kang's first point.
    if let Some(c) = r.step_cost.iter().find(|c| c.integrator == "kang") {
        let (lx, ly) = ((c.nodes as f64).log10(), c.seconds_per_step.median.log10());
        s += &format!(
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#999" stroke-dasharray="4 4"/>"##,
            sx(lx),
            sy(ly),
            sx(x1),
            sy(ly + (x1 - lx))
        );
    }
    s += "</svg>\n";
    s
}
