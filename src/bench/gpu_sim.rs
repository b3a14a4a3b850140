//! `flagsim bench --gpu-sim`: the same cloth stepped by `kang-mg` (or `implicit-mg`) on the
//! CPU and on the GPU ([`crate::gpu_sim::GpuSimulation`]), side by side in one run, at sizes
//! from 64² up: node-steps a second, real time, and the shape each leaves (stretch, shortest
//! edge) and, where the CPU runs too, how far apart the two are.

use std::time::Instant;

use serde::Serialize;

use crate::gpu_sim::{DEFAULT_CYCLES, GpuSimulation, Stage};
use crate::render::GpuContext;
use crate::sim::{IntegratorKind, Scene, Simulation, model::shape};

/// The scene: the peer's hanging sheet (1 m, 0.2 kg, k = 2000 / 500 / 50 N/m, two corners
/// pinned, still air), stepped by `integrator`, strain limited within 5 % both ways (Provot's
/// 5 % and a shortest length of 0.95 × rest) on every coarse level the grid has
/// ([`crate::sim::constraints::strain_levels`]): the sweeps alone leave a large sheet stretched
/// by its pins, and pull the springs beside them short.
pub(crate) fn hanging_sheet(n: usize, integrator: IntegratorKind) -> String {
    let name = integrator.name();
    format!(
        r#"{{ "description": "hanging {n}² sheet, {name}",
        "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1.0, "height": 1.0,
            "origin": [0.0, 0.0, 0.0], "plane": "xy", "mass": 0.2, "pins": "top-corners" }} }},
        "params": {{ "integrator": "{name}", "dt": 0.016666666666666666,
            "stiffness": {{ "structural": 2000.0, "shear": 500.0, "bend": 50.0 }},
            "wind": {{ "velocity": [0.0, 0.0, 0.0], "drag": 0.0, "lift": 0.0, "linear": 0.0,
                      "gust": {{ "strength": 0.0 }} }},
            "provot": {{ "enabled": true, "max_stretch": 0.05, "max_compression": 0.05,
                         "levels": 12 }} }} }}"#
    )
}

/// One size on one device.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GpuSimRow {
    /// Nodes along each side.
    pub side: usize,
    pub nodes: usize,
    /// `cpu` or `gpu`.
    pub device: &'static str,
    /// Steps timed (after the warm-up).
    pub steps: u32,
    /// Wall time a step, s (the GPU's: submitted steps to the device's idle, over the steps).
    pub seconds_per_step: f64,
    pub node_steps_per_second: f64,
    /// Simulated over wall time (1 = real time).
    pub real_time: f64,
    /// At the end: the longest and shortest structural edge over rest length.
    pub stretch: f64,
    pub shortest_edge: f64,
    /// The largest distance of a node from the CPU's copy after the same steps, m (GPU rows
    /// of sizes the CPU ran). The CPU sweeps Provot's springs by bands, the GPU by colours:
    /// where the sweeps correct much, the two leave different cloths, limited alike.
    pub distance_from_cpu: Option<f64>,
    /// GPU rows: each stage's GPU time, ms a step (the mean of [`STAGE_STEPS`] more steps),
    /// from timestamp queries; `None` where the adapter has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stages: Option<Vec<StageTime>>,
}

/// One stage of a GPU step and its GPU time.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StageTime {
    pub stage: Stage,
    /// GPU time a step, ms.
    pub ms: f64,
}

/// Steps whose stages are timed after the timed steps (each waits for its timestamps).
pub(crate) const STAGE_STEPS: u32 = 5;

/// What `bench --gpu-sim` measured.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GpuSimReport {
    pub adapter: String,
    pub scene: String,
    /// The integrator on both devices.
    pub integrator: IntegratorKind,
    /// `kang-mg`'s V-cycles a GPU step (`implicit-mg` stops at its tolerance, as on the CPU).
    pub cycles: u32,
    /// Steps run before the timed ones (each size, each device).
    pub warm_up: u32,
    pub rows: Vec<GpuSimRow>,
    /// Why the run stopped before its last size (a cloth too large for the device, a GPU
    /// error); the rows measured before stay.
    pub stopped: Option<String>,
}

/// What the bench runs: the sizes (nodes a side), the largest the CPU runs too, the steps.
#[derive(Debug, Clone)]
pub(crate) struct GpuSimPlan {
    pub sizes: Vec<usize>,
    pub cpu_up_to: usize,
    /// Whether the GPU's rows are measured (`--device cpu`: only the CPU's, every size).
    pub gpu: bool,
    pub warm_up: u32,
    pub steps: u32,
    /// `kang-mg` (the default) or `implicit-mg`.
    pub integrator: IntegratorKind,
}

impl GpuSimPlan {
    /// 64² … 1024² (the CPU to 256²); `quick`: 32² and 64², a few steps.
    pub(crate) fn new(quick: bool) -> Self {
        if quick {
            Self {
                sizes: vec![32, 64],
                cpu_up_to: 64,
                gpu: true,
                warm_up: 2,
                steps: 5,
                integrator: IntegratorKind::KangMg,
            }
        } else {
            Self {
                sizes: vec![64, 128, 256, 512, 1024],
                cpu_up_to: 256,
                gpu: true,
                warm_up: 5,
                steps: 60,
                integrator: IntegratorKind::KangMg,
            }
        }
    }
}

fn row(sim: &Simulation, side: usize, device: &'static str, steps: u32, seconds: f64) -> GpuSimRow {
    let edges = shape::structural_edges(&sim.cloth, &sim.cloth.x);
    let per_step = seconds / f64::from(steps.max(1));
    let nodes = sim.cloth.node_count();
    GpuSimRow {
        side,
        nodes,
        device,
        steps,
        seconds_per_step: per_step,
        node_steps_per_second: nodes as f64 / per_step,
        real_time: sim.params().dt / per_step,
        stretch: edges.longest,
        shortest_edge: edges.shortest,
        distance_from_cpu: None,
        stages: None,
    }
}

/// Runs `plan` on `gpu` (none: the CPU's rows only); `progress` hears each size as it
/// starts. A size that fails stops the run with the reason in [`GpuSimReport::stopped`].
pub(crate) fn run(
    gpu: Option<&GpuContext>,
    plan: &GpuSimPlan,
    mut progress: impl FnMut(&str),
) -> GpuSimReport {
    let mut report = GpuSimReport {
        adapter: gpu.map_or_else(
            || "none (the CPU's rows only)".into(),
            GpuContext::adapter_report,
        ),
        scene: format!(
            "the peer's hanging sheet, {}, strain limited within 5 % both ways on every coarse level",
            plan.integrator.name()
        ),
        integrator: plan.integrator,
        cycles: DEFAULT_CYCLES,
        warm_up: plan.warm_up,
        rows: Vec::new(),
        stopped: None,
    };
    for &n in &plan.sizes {
        if let Err(reason) = run_size(gpu, plan, n, &mut report.rows, &mut progress) {
            report.stopped = Some(format!("{n}²: {reason}"));
            break;
        }
    }
    report
}

/// One size: the CPU's row (up to `plan.cpu_up_to`), then the GPU's.
fn run_size(
    gpu: Option<&GpuContext>,
    plan: &GpuSimPlan,
    n: usize,
    rows: &mut Vec<GpuSimRow>,
    progress: &mut impl FnMut(&str),
) -> Result<(), String> {
    let scene = Scene::from_json(&hanging_sheet(n, plan.integrator), "bench --gpu-sim")
        .map_err(|e| e.to_string())?;
    let sim = scene.simulation().map_err(|e| e.to_string())?;
    let cpu_state = if n <= plan.cpu_up_to {
        progress(&format!("{n}² on the CPU"));
        let mut cpu = sim.clone();
        cpu.step_n(plan.warm_up);
        let start = Instant::now();
        cpu.step_n(plan.steps);
        let seconds = start.elapsed().as_secs_f64();
        if let Some(d) = &cpu.divergence {
            return Err(format!("on the CPU: {}", d.reason));
        }
        rows.push(row(&cpu, n, "cpu", plan.steps, seconds));
        Some(cpu.cloth.x)
    } else {
        None
    };
    let Some(gpu) = gpu.filter(|_| plan.gpu) else {
        return Ok(());
    };
    progress(&format!("{n}² on the GPU"));
    let mut on_gpu = GpuSimulation::new(&gpu.device, &gpu.queue, sim).map_err(|e| e.to_string())?;
    on_gpu
        .step_n(&gpu.device, &gpu.queue, plan.warm_up)
        .map_err(|e| e.to_string())?;
    wait(gpu)?;
    let start = Instant::now();
    on_gpu
        .step_n(&gpu.device, &gpu.queue, plan.steps)
        .map_err(|e| e.to_string())?;
    wait(gpu)?;
    let seconds = start.elapsed().as_secs_f64();
    on_gpu
        .read_back(&gpu.device, &gpu.queue)
        .map_err(|e| e.to_string())?;
    gpu.check().map_err(|e| e.to_string())?;
    if let Some(d) = &on_gpu.sim.divergence {
        return Err(format!("on the GPU: {}", d.reason));
    }
    let mut r = row(&on_gpu.sim, n, "gpu", plan.steps, seconds);
    let stages = on_gpu
        .profile(&gpu.device, &gpu.queue, STAGE_STEPS)
        .map_err(|e| e.to_string())?;
    gpu.check().map_err(|e| e.to_string())?;
    r.stages = stages.map(|stages| {
        (stages.into_iter())
            .map(|(stage, seconds)| StageTime {
                stage,
                ms: 1e3 * seconds,
            })
            .collect()
    });
    if let Some(x) = cpu_state {
        r.distance_from_cpu = Some(
            x.iter()
                .zip(&on_gpu.sim.cloth.x)
                .map(|(a, b)| (*a - *b).length())
                .fold(0.0, f64::max),
        );
    }
    let finite = r.stretch.is_finite();
    rows.push(r);
    if finite {
        Ok(())
    } else {
        Err("the GPU's cloth blew up".into())
    }
}

/// Waits for the device to finish what was submitted.
fn wait(gpu: &GpuContext) -> Result<(), String> {
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The report as aligned text.
pub(crate) fn table(report: &GpuSimReport) -> String {
    let solve = if report.integrator == IntegratorKind::KangMg {
        format!("{} V-cycles a GPU step", report.cycles)
    } else {
        "the GPU's iterations stop at the tolerance".to_string()
    };
    let mut out = format!(
        "flagsim bench --gpu-sim: {} ({solve}, {} warm-up steps)\nadapter: {}\n\n",
        report.scene, report.warm_up, report.adapter
    );
    out.push_str(&format!(
        "{:>6} {:>9} {:>4} {:>6} {:>11} {:>14} {:>9} {:>8} {:>9} {:>11}\n",
        "size",
        "nodes",
        "on",
        "steps",
        "ms/step",
        "node-steps/s",
        "real time",
        "stretch",
        "shortest",
        "from CPU"
    ));
    for r in &report.rows {
        let from_cpu = r
            .distance_from_cpu
            .map_or_else(|| "-".to_string(), |d| format!("{d:.1e} m"));
        out.push_str(&format!(
            "{:>5}² {:>9} {:>4} {:>6} {:>11.3} {:>14.3e} {:>8.2}× {:>8.3} {:>9.3} {:>11}\n",
            r.side,
            r.nodes,
            r.device,
            r.steps,
            1e3 * r.seconds_per_step,
            r.node_steps_per_second,
            r.real_time,
            r.stretch,
            r.shortest_edge,
            from_cpu
        ));
        if let Some(stages) = &r.stages {
            let parts: Vec<String> = (stages.iter())
                .map(|s| format!("{} {:.3}", s.stage.name(), s.ms))
                .collect();
            let sum: f64 = stages.iter().map(|s| s.ms).sum();
            out.push_str(&format!(
                "{:>8}GPU ms a step by stage: {} (sum {sum:.3})\n",
                "",
                parts.join(", ")
            ));
        }
    }
    if let Some(reason) = &report.stopped {
        out.push_str(&format!("\nstopped at {reason}\n"));
    }
    out
}
