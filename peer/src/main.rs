//! flagsim against its peer, rapier-cloth 0.3.0 (the Rust XPBD cloth crate, at its defaults:
//! f32, one thread, 4 substeps × 8 iterations, long-range tethers), on the same scenes in one
//! process, one after another, repeated and interleaved so that both see the same machine.
//!
//! The scenes (`peers/README.md` of the project's shared folder): an n × n, 1 m × 1 m sheet in
//! the XY plane, bottom-left corner at the origin, 0.2 kg, gravity only, starting at rest;
//! flagsim with structural 2000 N/m, shear 500, bend 50, Provot on with τ = 0.05 and every other
//! setting at its defaults; 600 steps of 1/60 s. `hanging`: the two top corners pinned; `flag`:
//! the whole left edge pinned. Quality is the final largest structural stretch (edge length over
//! rest length, horizontal and vertical grid edges), finite positions and a quiet guard, and the
//! shape: flagsim first solves the same springs accurately (`sim::shape::reference_params`:
//! backward Euler, CG to 1e-10, 4 substeps, no strain limiting, no tethers), and a result counts
//! only when its final nodes are within 1 cm RMS and 3 cm at most of that solution's and no
//! structural edge is shorter than 0.90 of its rest length (`--stretch-only` drops the shape).
//! The peer models its own material: its distance is reported, not scored. Time is the stepping
//! loop only, on both sides.
//!
//! ```text
//! cd peer && cargo run --release -- --sizes 32 64 96
//! ```

use std::time::Instant;

use clap::{Parser, ValueEnum};
use flagsim::sim::integrators::desbrun::MAX_DESBRUN_NODES;
use flagsim::sim::shape;
use flagsim::sim::simulation::PARALLEL_THRESHOLD;
use flagsim::sim::{IntegratorKind, Scene};
use glam::DVec3;
use rapier_cloth::{Cloth, ClothMaterial, GridBuilder, Solver, SolverSettings, Vec3};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Kind {
    /// The two top corners pinned.
    Hanging,
    /// The whole left edge pinned (a flag on a pole, without wind: the peer has no air).
    Flag,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Hanging => "hanging",
            Kind::Flag => "flag",
        }
    }
}

/// flagsim against rapier-cloth 0.3.0, side by side in one run.
#[derive(Debug, Parser)]
struct Args {
    /// Grid sizes n (n × n nodes).
    #[arg(long, num_args = 1.., default_values_t = [32, 64, 96])]
    sizes: Vec<usize>,
    /// Scenes.
    #[arg(long, value_enum, num_args = 1.., default_values_t = [Kind::Hanging, Kind::Flag])]
    scenes: Vec<Kind>,
    /// flagsim integrators to try (default: all).
    #[arg(long, num_args = 1..)]
    integrators: Vec<String>,
    /// Steps of 1/60 s.
    #[arg(long, default_value_t = 600)]
    steps: usize,
    /// Runs of each engine per scene and size, interleaved; the table shows medians.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Largest final structural stretch that counts as a result.
    #[arg(long, default_value_t = 1.10)]
    stretch: f64,
    /// The speed-up the summary calls met.
    #[arg(long, default_value_t = 50.0)]
    ratio: f64,
    /// A flagsim run is stopped after this many times the peer's time (at least 10 s).
    #[arg(long, default_value_t = 1.5)]
    timeout_ratio: f64,
    /// Also write every run as JSON lines to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Judge by the stretch alone (no reference solve, no shape criteria).
    #[arg(long)]
    stretch_only: bool,
    /// Largest RMS distance from the reference that counts as the same cloth, cm.
    #[arg(long, default_value_t = 1.0)]
    rms: f64,
    /// Largest distance of any node from the reference that counts, cm.
    #[arg(long, default_value_t = 3.0)]
    max_err: f64,
    /// Shortest structural edge (over its rest length) that counts.
    #[arg(long, default_value_t = 0.90)]
    min_edge: f64,
    /// The reference's physics steps per step (4: `sim::shape::REFERENCE_SUBSTEPS`).
    #[arg(long, default_value_t = shape::REFERENCE_SUBSTEPS)]
    ref_substeps: u32,
    /// The reference's CG tolerance.
    #[arg(long, default_value_t = shape::REFERENCE_CG_TOLERANCE)]
    ref_tol: f64,
}

/// What a result must meet to count.
#[derive(Debug, Clone, Copy)]
struct Criteria {
    stretch: f64,
    /// `(rms, max, min edge)` in m, m and rest lengths; `None` judges by the stretch alone.
    shape: Option<(f64, f64, f64)>,
}

const DT: f64 = 1.0 / 60.0;
const GRAVITY: f64 = -9.81;

/// One run of one engine.
#[derive(Debug, Clone)]
struct Run {
    engine: String,
    wall: f64,
    steps: usize,
    stretch: f64,
    finite: bool,
    diverged: bool,
    min_y: f64,
    max_abs_z: f64,
    /// Shortest structural edge over its rest length, and the share under 0.95.
    min_edge: f64,
    short_share: f64,
    /// RMS and largest node distance from the reference, m (NaN without one).
    rms: f64,
    max_dist: f64,
    /// Why the run has no result (stopped, skipped, an error).
    note: Option<String>,
}

impl Run {
    fn us_per_step(&self) -> f64 {
        1e6 * self.wall / self.steps.max(1) as f64
    }

    fn good(&self, c: Criteria) -> bool {
        let shape = c.shape.is_none_or(|(rms, max, edge)| {
            self.rms <= rms && self.max_dist <= max && self.min_edge >= edge
        });
        self.note.is_none() && self.finite && !self.diverged && self.stretch <= c.stretch && shape
    }

    /// Why a finished run does not count, in words (empty when it does).
    fn why_not(&self, c: Criteria) -> String {
        let mut out = Vec::new();
        if self.stretch > c.stretch {
            out.push(format!("stretch over {:.2}", c.stretch));
        }
        if let Some((rms, max, edge)) = c.shape {
            if self.rms > rms || self.max_dist > max {
                out.push("off the reference".to_string());
            }
            if self.min_edge < edge {
                out.push(format!("an edge under {edge:.2}"));
            }
        }
        out.join(", ")
    }

    fn json(&self, kind: Kind, n: usize) -> String {
        serde_json::json!({
            "engine": self.engine, "scene": kind.name(), "n": n, "steps": self.steps,
            "wall_s": self.wall, "us_per_step": self.us_per_step(), "stretch": self.stretch,
            "finite": self.finite, "diverged": self.diverged, "min_y": self.min_y,
            "max_abs_z": self.max_abs_z, "min_edge": self.min_edge,
            "short_edges": self.short_share, "rms_cm": 100.0 * self.rms,
            "max_cm": 100.0 * self.max_dist, "note": self.note,
        })
        .to_string()
    }
}

/// Largest `|x_a − x_b| / rest` over the horizontal and vertical edges of an n × n grid.
fn structural_stretch(x: &[DVec3], n: usize) -> f64 {
    let rest = 1.0 / (n - 1) as f64;
    let mut worst: f64 = 0.0;
    for j in 0..n {
        for i in 0..n {
            let a = x[j * n + i];
            if i + 1 < n {
                worst = worst.max(a.distance(x[j * n + i + 1]) / rest);
            }
            if j + 1 < n {
                worst = worst.max(a.distance(x[(j + 1) * n + i]) / rest);
            }
        }
    }
    worst
}

/// The shortest horizontal or vertical edge over its rest length, and the share under 0.95.
fn shortest_edges(x: &[DVec3], n: usize) -> (f64, f64) {
    let rest = 1.0 / (n - 1) as f64;
    let (mut shortest, mut short, mut count) = (f64::INFINITY, 0usize, 0usize);
    for j in 0..n {
        for i in 0..n {
            let a = x[j * n + i];
            let mut edge = |b: DVec3| {
                let r = a.distance(b) / rest;
                shortest = shortest.min(r);
                short += usize::from(r < shape::SHORT_EDGE);
                count += 1;
            };
            if i + 1 < n {
                edge(x[j * n + i + 1]);
            }
            if j + 1 < n {
                edge(x[(j + 1) * n + i]);
            }
        }
    }
    (shortest, short as f64 / count.max(1) as f64)
}

fn finish(engine: String, wall: f64, steps: usize, x: &[DVec3], n: usize) -> Run {
    let (min_edge, short_share) = shortest_edges(x, n);
    Run {
        engine,
        wall,
        steps,
        min_edge,
        short_share,
        rms: f64::NAN,
        max_dist: f64::NAN,
        stretch: structural_stretch(x, n),
        finite: x.iter().all(|p| p.is_finite()),
        diverged: false,
        min_y: x.iter().map(|p| p.y).fold(f64::INFINITY, f64::min),
        max_abs_z: x.iter().map(|p| p.z.abs()).fold(0.0, f64::max),
        note: None,
    }
}

/// rapier-cloth 0.3.0 at its defaults (as in its own examples and benches: 4 substeps of
/// 1/240 s, 8 iterations), through its public API only.
fn run_peer(kind: Kind, n: usize, steps: usize) -> (Run, Vec<DVec3>) {
    let engine = "rapier-cloth 0.3.0".to_string();
    let failed = |why: String| Run {
        engine: engine.clone(),
        wall: f64::NAN,
        steps,
        stretch: f64::NAN,
        finite: false,
        diverged: true,
        min_y: f64::NAN,
        max_abs_z: f64::NAN,
        min_edge: f64::NAN,
        short_share: f64::NAN,
        rms: f64::NAN,
        max_dist: f64::NAN,
        note: Some(why),
    };
    let mesh = match GridBuilder::new(n, n)
        .size(1.0, 1.0)
        .origin(Vec3::ZERO)
        .axes(Vec3::X, Vec3::Y)
        .build()
    {
        Ok(m) => m,
        Err(e) => return (failed(format!("GridBuilder: {e:?}")), Vec::new()),
    };
    let mut cloth = match Cloth::new(mesh, ClothMaterial::default()) {
        Ok(c) => c,
        Err(e) => return (failed(format!("Cloth::new: {e:?}")), Vec::new()),
    };
    let node = |i: usize, j: usize| (j * n + i) as u32;
    let pins: Vec<u32> = match kind {
        Kind::Hanging => vec![node(0, n - 1), node(n - 1, n - 1)],
        Kind::Flag => (0..n).map(|j| node(0, j)).collect(),
    };
    for p in pins {
        let at = cloth.positions()[p as usize];
        if let Err(e) = cloth.pin(p, at) {
            return (failed(format!("pin: {e:?}")), Vec::new());
        }
    }
    let substeps = 4;
    let h = (DT / substeps as f64) as f32;
    let settings = SolverSettings::default();
    let gravity = Vec3::new(0.0, GRAVITY as f32, 0.0);
    let mut solver = Solver::new();
    let start = Instant::now();
    for step in 0..steps {
        for _ in 0..substeps {
            if let Err(e) = solver.step(&mut cloth, h, gravity, &settings) {
                let mut run = failed(format!("step {step}: {e:?}"));
                run.wall = start.elapsed().as_secs_f64();
                return (run, Vec::new());
            }
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let x: Vec<DVec3> = cloth
        .positions()
        .iter()
        .map(|p| DVec3::new(p.x.into(), p.y.into(), p.z.into()))
        .collect();
    let run = finish(engine, wall, steps, &x, n);
    (run, x)
}

/// The scene as a flagsim scene file would say it.
fn flagsim_scene(kind: Kind, n: usize, integrator: IntegratorKind) -> Scene {
    let pins = match kind {
        Kind::Hanging => "top-corners",
        Kind::Flag => "hoist",
    };
    let json = format!(
        r#"{{
        "description": "peer comparison: {} {n} x {n}",
        "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1.0, "height": 1.0,
                    "origin": [0, 0, 0], "plane": "xy", "mass": 0.2, "pins": "{pins}" }} }},
        "params": {{ "integrator": "{}", "dt": {DT},
                     "gravity": [0, {GRAVITY}, 0],
                     "stiffness": {{ "structural": 2000, "shear": 500, "bend": 50 }},
                     "wind": {{ "velocity": [0, 0, 0], "drag": 0, "lift": 0, "linear": 0,
                                "gust": {{ "strength": 0 }} }},
                     "provot": {{ "enabled": true, "max_stretch": 0.05 }} }}
    }}"#,
        kind.name(),
        integrator.name()
    );
    Scene::from_json(&json, "peer comparison").expect("the comparison scene is valid")
}

/// The final nodes of an accurate solve of the scene's springs (`shape::reference_params`,
/// with `substeps` physics steps a step and CG to `tol`).
fn reference(kind: Kind, n: usize, steps: usize, substeps: u32, tol: f64) -> Vec<DVec3> {
    let mut scene = flagsim_scene(kind, n, IntegratorKind::ImplicitCg);
    scene.params = shape::reference_params(&scene.params);
    scene.params.substeps = substeps;
    scene.params.cg.tolerance = tol;
    let mut sim = scene.simulation().expect("the reference scene is valid");
    for _ in 0..steps {
        if !sim.step() {
            eprintln!("flagsim-peer: the reference stopped: {:?}", sim.divergence);
            std::process::exit(1);
        }
    }
    sim.cloth.x.clone()
}

/// The run with its distance from `reference` filled in (if there is one).
fn measured(mut run: Run, x: &[DVec3], reference: Option<&[DVec3]>) -> Run {
    if let Some(r) = reference {
        let d = shape::distance(x, r);
        (run.rms, run.max_dist) = (d.rms, d.max);
    }
    run
}

fn run_flagsim(
    kind: Kind,
    n: usize,
    steps: usize,
    integrator: IntegratorKind,
    limit: f64,
) -> (Run, Vec<DVec3>) {
    let engine = format!("flagsim {}", integrator.name());
    let skipped = |why: String| Run {
        engine: engine.clone(),
        wall: f64::NAN,
        steps,
        stretch: f64::NAN,
        finite: false,
        diverged: false,
        min_y: f64::NAN,
        max_abs_z: f64::NAN,
        min_edge: f64::NAN,
        short_share: f64::NAN,
        rms: f64::NAN,
        max_dist: f64::NAN,
        note: Some(why),
    };
    if integrator == IntegratorKind::Desbrun && n * n > 1024 {
        // Its dense inverse alone (O(n⁶) flops at n × n) takes longer than the peer's run.
        return (
            skipped(format!("skipped: dense filter over {} nodes", n * n)),
            Vec::new(),
        );
    }
    if integrator == IntegratorKind::Desbrun && n * n > MAX_DESBRUN_NODES {
        return (
            skipped("skipped: too large for the dense filter".into()),
            Vec::new(),
        );
    }
    let mut sim = match flagsim_scene(kind, n, integrator).simulation() {
        Ok(s) => s,
        Err(e) => return (skipped(e.to_string()), Vec::new()),
    };
    let start = Instant::now();
    let mut done = 0;
    let mut stopped = false;
    for _ in 0..steps {
        if !sim.step() {
            break;
        }
        done += 1;
        if start.elapsed().as_secs_f64() > limit {
            stopped = true;
            break;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let mut run = finish(engine, wall, steps, &sim.cloth.x, n);
    run.diverged = sim.divergence.is_some();
    if stopped {
        run.note = Some(format!("stopped after {done} steps ({wall:.0} s)"));
    } else if run.diverged {
        run.steps = done.max(1);
    }
    (run, sim.cloth.x.clone())
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.retain(|x| !x.is_nan());
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        0.5 * (xs[m - 1] + xs[m])
    }
}

/// The median run of several (median time; quality from the last run, the runs are
/// deterministic).
fn summarise(runs: &[Run]) -> Run {
    let mut out = runs[runs.len() - 1].clone();
    out.wall = median(runs.iter().map(|r| r.wall).collect());
    out
}

fn main() {
    let args = Args::parse();
    let integrators: Vec<IntegratorKind> = if args.integrators.is_empty() {
        IntegratorKind::ALL.to_vec()
    } else {
        let mut v = Vec::new();
        for name in &args.integrators {
            match IntegratorKind::from_name(name) {
                Some(k) => v.push(k),
                None => {
                    eprintln!("flagsim-peer: unknown integrator '{name}'");
                    std::process::exit(2);
                }
            }
        }
        v
    };
    if args.sizes.iter().any(|&n| n < 2) || args.repeats == 0 || args.steps == 0 {
        eprintln!("flagsim-peer: sizes must be at least 2, repeats and steps at least 1");
        std::process::exit(2);
    }
    let mut json = args.json.as_ref().map(|p| {
        std::fs::File::create(p).unwrap_or_else(|e| {
            eprintln!("flagsim-peer: {}: {e}", p.display());
            std::process::exit(1)
        })
    });
    let criteria = Criteria {
        stretch: args.stretch,
        shape: (!args.stretch_only).then_some((
            args.rms / 100.0,
            args.max_err / 100.0,
            args.min_edge,
        )),
    };
    let threads = rayon::current_num_threads();
    let mut table = Vec::new();
    let mut verdicts = Vec::new();
    for &n in &args.sizes {
        for &kind in &args.scenes {
            let mut peer_runs = Vec::new();
            let mut mine: Vec<Vec<Run>> = vec![Vec::new(); integrators.len()];
            let reference = (!args.stretch_only).then(|| {
                eprintln!(
                    "{:8} {n:>4} the reference (implicit-cg, {} substeps, CG to {:e})",
                    kind.name(),
                    args.ref_substeps,
                    args.ref_tol
                );
                reference(kind, n, args.steps, args.ref_substeps, args.ref_tol)
            });
            let reference = reference.as_deref();
            for rep in 0..args.repeats {
                let (peer, x) = run_peer(kind, n, args.steps);
                let peer = measured(peer, &x, reference);
                eprintln!(
                    "[{}/{}] {:8} {n:>4} {:24} {:>10.0} us/step  stretch {:.3}",
                    rep + 1,
                    args.repeats,
                    kind.name(),
                    peer.engine,
                    peer.us_per_step(),
                    peer.stretch
                );
                let limit = (args.timeout_ratio * peer.wall).max(10.0);
                peer_runs.push(peer);
                for (k, &integrator) in integrators.iter().enumerate() {
                    // An integrator that already failed (stopped, diverged, or out of the
                    // stretch limit) is deterministic: it is not run again.
                    if rep > 0 && mine[k].last().is_some_and(|r| !r.good(criteria)) {
                        continue;
                    }
                    let (r, x) = run_flagsim(kind, n, args.steps, integrator, limit);
                    let r = measured(r, &x, reference);
                    eprintln!(
                        "[{}/{}] {:8} {n:>4} {:24} {:>10.0} us/step  stretch {:.3}{}",
                        rep + 1,
                        args.repeats,
                        kind.name(),
                        r.engine,
                        r.us_per_step(),
                        r.stretch,
                        r.note
                            .as_deref()
                            .map(|s| format!("  ({s})"))
                            .unwrap_or_default()
                    );
                    mine[k].push(r);
                }
            }
            if let Some(f) = json.as_mut() {
                use std::io::Write;
                for r in peer_runs.iter().chain(mine.iter().flatten()) {
                    if let Err(e) = writeln!(f, "{}", r.json(kind, n)) {
                        eprintln!("flagsim-peer: writing JSON: {e}");
                    }
                }
            }
            let peer = summarise(&peer_runs);
            let mine: Vec<Run> = mine.iter().map(|runs| summarise(runs)).collect();
            let best = mine
                .iter()
                .filter(|r| r.good(criteria))
                .min_by(|a, b| a.wall.total_cmp(&b.wall))
                .cloned();
            table.push((kind, n, peer.clone(), mine));
            verdicts.push((kind, n, peer, best));
        }
    }

    println!(
        "flagsim against rapier-cloth 0.3.0: {} steps of 1/60 s, medians of {} interleaved runs; \
         flagsim on {threads} threads where its parallel path applies (from {PARALLEL_THRESHOLD} \
         nodes), the peer on one.",
        args.steps, args.repeats
    );
    println!();
    println!(
        "| scene | n | engine | µs/step | × peer | final max stretch | shortest edge | edges < 0.95 | RMS / max from reference (cm) | note |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---|---|");
    for (kind, n, peer, mine) in &table {
        for r in std::iter::once(peer).chain(mine) {
            let speedup = peer.wall / r.wall;
            let note = match (&r.note, r.diverged, r.finite) {
                (Some(s), _, _) => s.clone(),
                (None, true, _) => "diverged (guard)".into(),
                (None, false, false) => "non-finite".into(),
                _ if std::ptr::eq(r, peer) => "its own material: shape not scored".into(),
                _ => r.why_not(criteria),
            };
            println!(
                "| {} | {n} | {} | {:.0} | {:.2} | {:.3} | {:.3} | {:.1} % | {:.2} / {:.2} | {note} |",
                kind.name(),
                r.engine,
                r.us_per_step(),
                speedup,
                r.stretch,
                r.min_edge,
                100.0 * r.short_share,
                100.0 * r.rms,
                100.0 * r.max_dist
            );
        }
    }
    println!();
    let judged = match criteria.shape {
        None => format!("stretch ≤ {:.2}", args.stretch),
        Some(_) => format!(
            "stretch ≤ {:.2}, within {} cm RMS / {} cm of the reference, edges ≥ {}",
            args.stretch, args.rms, args.max_err, args.min_edge
        ),
    };
    println!(
        "| scene | n | rapier-cloth µs/step, final max stretch | best flagsim with {judged} | speed-up (goal ≥ {}×) |",
        args.ratio
    );
    println!("|---|---:|---|---|---|");
    let mut all_met = true;
    for (kind, n, peer, best) in &verdicts {
        let threads_used = if n * n >= PARALLEL_THRESHOLD {
            threads
        } else {
            1
        };
        let (what, verdict) = match best {
            Some(b) => {
                let speedup = peer.wall / b.wall;
                let met = speedup >= args.ratio;
                all_met &= met;
                (
                    format!(
                        "`{}` {:.0} µs, {:.3} ({} thread{})",
                        b.engine.trim_start_matches("flagsim "),
                        b.us_per_step(),
                        b.stretch,
                        threads_used,
                        if threads_used == 1 { "" } else { "s" }
                    ),
                    format!("**{speedup:.1} ×** {}", if met { "met" } else { "missed" }),
                )
            }
            None => {
                all_met = false;
                ("none".into(), "missed".into())
            }
        };
        println!(
            "| {} | {n} | {:.0}, {:.3} | {what} | {verdict} |",
            kind.name(),
            peer.us_per_step(),
            peer.stretch
        );
    }
    std::process::exit(if all_met { 0 } else { 1 });
}
