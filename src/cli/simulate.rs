//! `flagsim simulate`: N fixed steps headless, the state as JSON.

use std::time::Instant;

use serde::Serialize;

use super::{CliError, Result, SimulateArgs, failed, load_scene, write_json};
use crate::render::headless::HeadlessRenderer;
use crate::render::view;
use crate::sim::{Scene, Simulation};
use crate::upsample::settings::MAX_RESOLUTION;
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
}

#[derive(Serialize)]
struct RenderOut {
    resolution: [u32; 2],
    source: &'static str,
    x: Vec<[f32; 3]>,
    n: Vec<[f32; 3]>,
}

#[derive(Serialize)]
struct SimulateOut {
    steps: u64,
    time: f64,
    integrator: &'static str,
    nodes: Vec<NodeOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<Vec<FrameOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    render: Option<RenderOut>,
    stats: StatsOut,
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
    let scene = load_scene(&args.scene, args.integrator)?;
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
    let mut sim = scene
        .simulation()
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?;
    let start = Instant::now();
    let mut frames = args.every.map(|_| Vec::new());
    let mut interpolated_sum = 0.0;
    let mut sweeps_sum = 0.0;
    for _ in 0..args.steps {
        if !sim.step() {
            break;
        }
        interpolated_sum += sim.stats.interpolated_fraction;
        sweeps_sum += f64::from(sim.stats.provot_sweeps);
        if let (Some(k), Some(frames)) = (args.every, frames.as_mut())
            && sim.step_index % k == 0
        {
            frames.push(FrameOut {
                step: sim.step_index,
                time: sim.time,
                nodes: nodes_of(&sim),
            });
        }
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some(d) = &sim.divergence {
        eprintln!("flagsim: warning: {d}; the output is the last good state");
    }
    let render = match args.upsample {
        Some(r) => Some(upsample_output(&sim, &scene, r, args.gpu)?),
        None => None,
    };
    let out = SimulateOut {
        steps: sim.step_index,
        time: sim.time,
        integrator: sim.params().integrator.name(),
        nodes: nodes_of(&sim),
        frames,
        render,
        stats: StatsOut {
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
                .then(|| interpolated_sum / sim.step_index.max(1) as f64),
            provot_sweeps: sweeps_sum / sim.step_index.max(1) as f64,
            tethers: sim.stats.tethers,
        },
    };
    write_json(&out, args.out.as_ref())
}

/// The final key nodes upsampled to `r × r` render nodes by the CPU reference or the GPU.
fn upsample_output(sim: &Simulation, scene: &Scene, r: u32, gpu: bool) -> Result<RenderOut> {
    let grid = sim
        .cloth
        .grid
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
