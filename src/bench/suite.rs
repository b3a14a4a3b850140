//! What `flagsim bench` times on the CPU: the cost per step of every integrator against grid
//! size, the ratios and the scaling slope the paper argues about, the parallel path, `kang`'s
//! agreement with the precomputed filter (Fig. 8), the upsampling, and the thesis's wavelet
//! interpolation.

use std::time::Instant;

use serde::Serialize;

use super::{BenchConfig, Stat};
use crate::render::device::gpu::GpuContext;
use crate::render::drawing::view;
use crate::sim::format::scene::{ClothSpec, GridSpec, Scene};
use crate::sim::runtime::agreement::agreement;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::solvers::integrators::SolverReport;
use crate::sim::{IntegratorKind, Params, Simulation};
use crate::upsample::{RenderSettings, upsample_cpu};

/// The invariant behind every `expect` here: the benchmark scenes are written in this file
/// within every parameter range, and the presets they start from load (tests/cli.rs runs each).
const VALID: &str = "benchmark scenes and presets are valid by construction";

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

/// What one publish costs: a [`Snapshot`] of the benchmark flag, which the simulation thread
/// makes after every step it publishes. It copies the state (positions, velocities, `Δv`,
/// pins) and shares the key mesh.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PublishCost {
    pub n: usize,
    pub nodes: usize,
    /// Seconds per snapshot.
    pub seconds: Stat,
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
#[allow(
    clippy::struct_field_names,
    reason = "the fields are the JSON report's keys, which scripts/figures reads"
)]
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
        flags: Vec::new(),
        device: crate::sim::DeviceChoice::Cpu,
    }
}

/// The benchmark flag after 10 `kang` steps (so every force path has work to do), switched to
/// `kind`. The guard is off: at the flag's `dt` the explicit schemes are unstable, and what is
/// timed here is the arithmetic of a step, not whether the scheme survives it (the stability
/// section measures that). Strain limiting keeps their state finite.
fn warmed(n: usize, kind: IntegratorKind) -> Simulation {
    let mut sim = square_flag(n, IntegratorKind::Kang)
        .simulation()
        .expect(VALID);
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

pub(crate) fn step_costs(cfg: BenchConfig) -> Vec<StepCost> {
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
                precompute = match sim.stats.solver {
                    SolverReport::Filter {
                        precompute_seconds, ..
                    } => Some(precompute_seconds),
                    _ => None,
                };
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
                            s.stats.solver.iterations()
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

/// The cost of a publish ([`PublishCost`]) at every benchmark size, on the default integrator.
pub(crate) fn publish_costs(cfg: BenchConfig) -> Vec<PublishCost> {
    cfg.grid_sizes()
        .into_iter()
        .map(|n| {
            let sim = warmed(n, IntegratorKind::default());
            let block = {
                let t = Instant::now();
                std::hint::black_box(Snapshot::of(&sim));
                let one = t.elapsed().as_secs_f64().max(1e-8);
                ((if cfg.quick { 0.002 } else { 0.02 } / one) as usize).clamp(1, 10_000)
            };
            let runs = (0..cfg.repeats())
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..block {
                        std::hint::black_box(Snapshot::of(&sim));
                    }
                    t.elapsed().as_secs_f64() / block as f64
                })
                .collect();
            PublishCost {
                n,
                nodes: n * n,
                seconds: Stat::of(runs),
            }
        })
        .collect()
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
        threshold_nodes: crate::sim::runtime::simulation::PARALLEL_THRESHOLD,
    }
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
        let mut sim = scene.simulation().expect(VALID);
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
            .expect(VALID);
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
    let scene = Scene::load("flag").expect(VALID);
    let mut sim = scene.simulation().expect(VALID);
    for _ in 0..(seconds / scene.params.dt) as usize {
        sim.step();
    }
    let grid = sim.cloth.grid().expect("the flag preset is a grid cloth");
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
    Scene::from_json(&json, "thesis").expect(VALID)
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
                .expect(VALID);
            for _ in 0..if cfg.quick { 10 } else { 50 } {
                base.step();
            }
            let mut on = base.clone();
            let mut p = on.params().clone();
            p.wavelet.enabled = true;
            on.set_params(p).expect(VALID);
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
