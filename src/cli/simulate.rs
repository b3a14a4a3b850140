//! `flagsim simulate`: N fixed steps headless, the state as JSON.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use super::device::Stepping;
use super::{CliError, OutputFormat, Result, SimulateArgs, failed, load_scene_on};
use crate::render::drawing::headless::HeadlessRenderer;
use crate::render::drawing::view;
use crate::sim::format::render_settings::MAX_RESOLUTION;
use crate::sim::model::shape::Edges;
use crate::sim::{Scene, Simulation};
use crate::upsample::{RenderSettings, try_upsample_cpu};

#[derive(Serialize)]
struct NodeOut {
    x: [f64; 3],
    v: [f64; 3],
    dv: [f64; 3],
}

#[derive(Serialize)]
struct FrameOut {
    step: u64,
    time: f64,
    nodes: Vec<NodeOut>,
    /// The other flags' nodes in a scene of several (flag 1 first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flags: Vec<FlagFrameOut>,
}

#[derive(Serialize)]
struct FlagFrameOut {
    nodes: Vec<NodeOut>,
}

/// Another flag of a scene of several, at the end.
#[derive(Serialize)]
struct FlagOut {
    name: String,
    nodes: Vec<NodeOut>,
    max_strain: f64,
    diverged: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    divergence: Option<String>,
    shortest_edge: f64,
}

#[derive(Serialize)]
struct StatsOut {
    wall_seconds: f64,
    max_strain: f64,
    diverged: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    divergence: Option<String>,
    h2k_over_m: f64,
    /// Mean fraction of nodes the wavelet interpolation filled per step (when it ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    interpolated_fraction: Option<f64>,
    /// Mean Provot sweeps per step (they stop when nothing is over the limit; 0 when off).
    provot_sweeps: f64,
    /// Tethers in use at the end (0 when off).
    tethers: usize,
    /// Mean iterations of the step's solver per step: CG iterations (`implicit-cg`,
    /// `choi-ko`) or V-cycles (`kang-mg`); absent for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    solver_iterations: Option<f64>,
    /// The shortest structural edge over its rest length, and the share of structural edges
    /// under 0.95 of theirs (`sim::model::shape`): a cloth folded in its own plane shows here.
    shortest_edge: f64,
    short_edges: f64,
}

#[derive(Serialize)]
struct RenderOut {
    resolution: [u32; 2],
    source: &'static str,
    x: Vec<[f32; 3]>,
    n: Vec<[f32; 3]>,
}

/// Everything `simulate` writes but the frames, which are written as they are recorded.
#[derive(Serialize)]
struct SimulateOut {
    steps: u64,
    time: f64,
    integrator: &'static str,
    /// Where the cloth stepped: `"cpu"` or `"gpu"` (`--device`, the scene's `"device"`).
    device: &'static str,
    nodes: Vec<NodeOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    render: Option<RenderOut>,
    stats: StatsOut,
    /// The other flags of a scene of several (flag 1 first); the fields above are flag 0's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flags: Vec<FlagOut>,
}

fn nodes_of(sim: &Simulation) -> Vec<NodeOut> {
    let c = &sim.cloth;
    (0..c.node_count())
        .map(|i| NodeOut {
            x: c.x[i].to_array(),
            v: c.v[i].to_array(),
            dv: c.dv[i].to_array(),
        })
        .collect()
}

pub(super) fn simulate(args: SimulateArgs) -> Result<()> {
    let scene = load_scene_on(&args.scene, args.integrator, args.device)?;
    if args.every == Some(0) {
        return Err(CliError::BadInput("--every: must be at least 1".into()));
    }
    if args.gpu && args.upsample.is_none() {
        return Err(CliError::BadInput("--gpu: only with --upsample R".into()));
    }
    if let Some(r) = args.upsample {
        if !(2..=MAX_RESOLUTION).contains(&r) {
            return Err(CliError::BadInput(format!(
                "--upsample: must be in 2..={MAX_RESOLUTION}, got {r}"
            )));
        }
        if scene.cloth.grid.is_none() {
            return Err(CliError::BadInput(format!(
                "--upsample: {} is not a grid cloth; the spline upsampler needs a grid",
                args.scene
            )));
        }
    }
    let mut flags = crate::sim::runtime::flags::FlagSet::new(&scene)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?
        .flags;
    let sim = flags.remove(0);
    let others = flags;
    // A failure that is not the output's own (the GPU upsampler) stops the writing and is
    // reported as itself.
    let mut failure = None;
    let write = |out: &mut dyn Write| {
        run(sim, others.clone(), &scene, &args, out).map_err(|e| match e {
            Stop::Write(e) => e,
            Stop::Failed(e) => {
                failure = Some(e);
                std::io::Error::other("stopped")
            }
        })
    };
    let written = if let Some(path) = &args.out {
        crate::files::write_with(path, |out| write(out))
            .map_err(|e| CliError::write(path.display(), e))
    } else {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        match write(&mut out) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(|e| CliError::write("stdout", e)),
        }
    };
    match failure {
        Some(e) => Err(e),
        None => written,
    }
}

/// Why [`run`] stopped early.
enum Stop {
    Write(std::io::Error),
    Failed(CliError),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Write(e)
    }
}

/// Steps `sim`, writing each recorded frame to `out` as it comes (nothing is kept, so memory
/// stays flat whatever `--steps` and `--every`), then the final state and the statistics.
///
/// `--format json` writes one object, `{"frames": [...], "steps": ..., ...}`: the frames come
/// first because they are written before the rest is known (JSON objects are unordered).
/// `--format jsonl` writes each frame as a line of its own, then one line with the rest.
fn run(
    mut sim: Simulation,
    mut others: Vec<Simulation>,
    scene: &Scene,
    args: &SimulateArgs,
    out: &mut dyn Write,
) -> std::result::Result<(), Stop> {
    let lines = args.format == OutputFormat::Jsonl;
    let start = Instant::now();
    let mut sums = StepSums::default();
    let mut recorded = 0u64;
    if args.every.is_some() && !lines {
        out.write_all(b"{\"frames\":[")?;
    }
    let bar = super::progress::bar(args.steps, "flagsim simulate");
    let mut stepping = Stepping::new(scene.device, &mut sim).map_err(Stop::Failed)?;
    // The other flags step where the first does.
    let mut beside = (others.iter_mut())
        .map(|other| stepping.beside(other))
        .collect::<Result<Vec<_>>>()
        .map_err(Stop::Failed)?;
    let last = sim.step_index + args.steps;
    while sim.step_index < last {
        // The next step whose state is written: a recorded frame's, or the last.
        let next = args
            .every
            .map_or(last, |k| ((sim.step_index / k + 1) * k).min(last));
        let n = stepping.chunk(sim.step_index, next);
        // Every flag steps alike (a flag that diverged keeps its last good state); the run
        // stops when the first does, as a run of one flag does.
        for (other, stepping) in others.iter_mut().zip(&mut beside) {
            stepping.advance(other, n).map_err(Stop::Failed)?;
        }
        if !stepping.advance(&mut sim, n).map_err(Stop::Failed)? {
            break;
        }
        bar.inc(n);
        sums.add(&sim, stepping.cycles(), n);
        if let Some(k) = args.every
            && sim.step_index.is_multiple_of(k)
        {
            write_frame(out, &sim, &others, lines, recorded)?;
            recorded += 1;
        }
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    if let Some(d) = &sim.divergence {
        log::warn!("{d}; the output is the last good state");
    }
    let render = match args.upsample {
        Some(r) => Some(upsample_output(&sim, scene, r, args.gpu).map_err(Stop::Failed)?),
        None => None,
    };
    let edges = crate::sim::model::shape::structural_edges(&sim.cloth, &sim.cloth.x);
    let rest = SimulateOut {
        steps: sim.step_index,
        time: sim.time,
        integrator: sim.params().integrator.name(),
        device: stepping.name(),
        nodes: nodes_of(&sim),
        render,
        stats: stats_of(&sim, &sums, wall_seconds, edges),
        flags: flags_out(&others, scene),
    };
    write_rest(out, &rest, args.every.is_some() && !lines)
}

/// The per-step counts summed over the run, averaged into [`StatsOut`] at the end.
#[derive(Default)]
struct StepSums {
    interpolated: f64,
    sweeps: f64,
    solver: f64,
}

impl StepSums {
    /// Adds the `n` steps just taken: the CPU's own counts, or what the GPU's fixed
    /// `cycles` a step imply.
    fn add(&mut self, sim: &Simulation, cycles: Option<u32>, n: u64) {
        match cycles {
            None => {
                self.interpolated += sim.stats.interpolated_fraction;
                self.sweeps += f64::from(sim.stats.provot_sweeps);
                self.solver += f64::from(sim.stats.solver.iterations());
            }
            // The GPU runs a fixed number of V-cycles and Provot's sweeps a step.
            Some(cycles) => {
                let steps = n as f64;
                self.solver += f64::from(cycles) * steps;
                let p = sim.params();
                if p.provot.enabled {
                    self.sweeps += f64::from(p.provot.iterations) * steps;
                }
            }
        }
    }
}

/// Writes one recorded frame (every flag's nodes), after a comma in a JSON array or as a
/// line of its own with `lines`.
fn write_frame(
    out: &mut dyn Write,
    sim: &Simulation,
    others: &[Simulation],
    lines: bool,
    recorded: u64,
) -> std::io::Result<()> {
    if !lines && recorded > 0 {
        out.write_all(b",")?;
    }
    serde_json::to_writer(
        &mut *out,
        &FrameOut {
            step: sim.step_index,
            time: sim.time,
            nodes: nodes_of(sim),
            flags: (others.iter())
                .map(|f| FlagFrameOut { nodes: nodes_of(f) })
                .collect(),
        },
    )
    .map_err(std::io::Error::from)?;
    if lines {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The first flag's statistics at the end of the run, the sums averaged over its steps.
fn stats_of(sim: &Simulation, sums: &StepSums, wall_seconds: f64, edges: Edges) -> StatsOut {
    StatsOut {
        wall_seconds,
        max_strain: sim.cloth.max_strain(),
        diverged: sim.divergence.is_some(),
        divergence: sim
            .divergence
            .as_ref()
            .map(std::string::ToString::to_string),
        h2k_over_m: sim.h2k_over_m(),
        interpolated_fraction: sim
            .wavelet_active()
            .then(|| sums.interpolated / sim.step_index.max(1) as f64),
        provot_sweeps: sums.sweeps / sim.step_index.max(1) as f64,
        tethers: sim.stats.tethers,
        solver_iterations: sim
            .params()
            .integrator
            .has_solver()
            .then(|| sums.solver / sim.step_index.max(1) as f64),
        shortest_edge: edges.shortest,
        short_edges: edges.share_short,
    }
}

/// The other flags' final states, named as the scene names them (flag 1 first).
fn flags_out(others: &[Simulation], scene: &Scene) -> Vec<FlagOut> {
    others
        .iter()
        .enumerate()
        .map(|(k, f)| FlagOut {
            name: scene
                .flags
                .get(k + 1)
                .map_or_else(|| format!("flag {}", k + 2), |s| s.label(k + 1)),
            nodes: nodes_of(f),
            max_strain: f.cloth.max_strain(),
            diverged: f.divergence.is_some(),
            divergence: f.divergence.as_ref().map(ToString::to_string),
            shortest_edge: crate::sim::model::shape::structural_edges(&f.cloth, &f.cloth.x)
                .shortest,
        })
        .collect()
}

/// Writes everything but the frames and flushes; `continues` closes the frames' array and
/// continues the object it opened.
fn write_rest(
    out: &mut dyn Write,
    rest: &SimulateOut,
    continues: bool,
) -> std::result::Result<(), Stop> {
    let text = serde_json::to_string(rest).map_err(std::io::Error::from)?;
    if continues {
        // `{"steps":...}` continues the object the frames opened.
        out.write_all(b"],")?;
        out.write_all(text.get(1..).unwrap_or_default().as_bytes())?;
    } else {
        out.write_all(text.as_bytes())?;
    }
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// The final key nodes upsampled to `r × r` render nodes by the CPU reference or the GPU.
fn upsample_output(sim: &Simulation, scene: &Scene, r: u32, gpu: bool) -> Result<RenderOut> {
    let grid = sim
        .cloth
        .grid()
        .ok_or_else(|| CliError::BadInput("--upsample needs a grid cloth".into()))?;
    let keys = view::key_positions(&sim.cloth.x);
    let key_grid = view::key_grid(&grid, &keys);
    let settings = RenderSettings {
        resolution: [r, r],
        ..scene.render.clone()
    };
    let (mesh, source) = if gpu {
        let mut headless =
            HeadlessRenderer::new(16, 16).map_err(|e| failed(format!("--gpu: {e}")))?;
        let mesh = headless.upsample(&key_grid, &settings).map_err(failed)?;
        (mesh, "gpu")
    } else {
        let mesh = try_upsample_cpu(&key_grid, &settings)
            .map_err(|e| CliError::BadInput(format!("--upsample: {e}")))?;
        (mesh, "cpu")
    };
    Ok(RenderOut {
        resolution: mesh.resolution,
        source,
        x: mesh.positions.iter().map(glam::Vec3::to_array).collect(),
        n: mesh.normals.iter().map(glam::Vec3::to_array).collect(),
    })
}
