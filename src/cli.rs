//! The command line: one binary, subcommands for the viewer and the headless tools. Every
//! failure is one clear message on stderr: exit code 2 for bad input, 1 for a failure while
//! running ([`CliError`]).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use crate::render::headless::HeadlessRenderer;
use crate::render::view::{self, ViewSettings};
use crate::render::{ColorMode, ScaleMode};
use crate::sim::scene::{PRESETS, Scene};
use crate::sim::thread::Snapshot;
use crate::sim::{IntegratorKind, Simulation};
use crate::upsample::settings::MAX_RESOLUTION;
use crate::upsample::{DisplayMode, RenderSettings, try_upsample_cpu};

/// Exit code for bad input (unknown preset, unreadable file, invalid scene or value).
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for a failure while running (a write, the GPU, the window).
pub const EXIT_FAILURE: i32 = 1;

/// What can go wrong on the command line; each is reported once, as one message.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user's input: an unknown preset, an unreadable or invalid scene, a bad value.
    #[error("{0}")]
    BadInput(String),
    /// An output could not be written (a full disk, a missing folder, a closed terminal).
    #[error("{what}: cannot write: {source}")]
    Write {
        what: String,
        source: std::io::Error,
    },
    /// The GPU, the window or the renderer failed while running.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    /// 2 for bad input, 1 for a failure while running.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::BadInput(_) => EXIT_BAD_INPUT,
            CliError::Write { .. } | CliError::Failed(_) => EXIT_FAILURE,
        }
    }

    fn write(what: impl std::fmt::Display, source: std::io::Error) -> Self {
        CliError::Write {
            what: what.to_string(),
            source,
        }
    }
}

/// The command line's result.
pub type Result<T, E = CliError> = std::result::Result<T, E>;

fn failed(e: impl std::fmt::Display) -> CliError {
    CliError::Failed(e.to_string())
}

impl clap::ValueEnum for IntegratorKind {
    fn value_variants<'a>() -> &'a [Self] {
        &IntegratorKind::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

impl clap::ValueEnum for DisplayMode {
    fn value_variants<'a>() -> &'a [Self] {
        &DisplayMode::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let help = match self {
            DisplayMode::KeyOnly => "the simulated key mesh (Fig. 9a)",
            DisplayMode::Smooth => "cubic splines (Fig. 9b)",
            DisplayMode::Wrinkled => "splines with eq. 14's wrinkles (Fig. 9c)",
        };
        Some(clap::builder::PossibleValue::new(self.name()).help(help))
    }
}

impl clap::ValueEnum for ColorMode {
    fn value_variants<'a>() -> &'a [Self] {
        &ColorMode::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let help = match self {
            ColorMode::Texture => "the flag image",
            ColorMode::NodeType => "key, frame and internal nodes (Fig. 2)",
            ColorMode::Strain => "blue compressed, white at rest, red stretched",
            ColorMode::Integration => "wavelet interpolation: yellow interpolated, red integrated",
        };
        Some(clap::builder::PossibleValue::new(self.name()).help(help))
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "flagsim",
    version,
    about = "Real-time cloth: Kang et al.'s approximate implicit integration with wrinkled cubic spline upsampling",
    long_about = "flagsim simulates a 10 × 10 key-node flag with Kang, Choi, Cho and Lee's O(n) \
approximate implicit integrator and upsamples it with wrinkled cubic splines. Without a \
subcommand it opens the viewer on the default scene.\n\nSCENE is a path to a .json scene file or \
the name of a built-in preset (see `flagsim presets`)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the viewer on a scene file or preset (default: the flag).
    View(ViewArgs),
    /// Run N fixed steps headless and write JSON (stdout when no --out).
    #[command(after_long_help = format!(
        "Scene parameters (the scene file's \"params\" and \"render\" sections; also \
         `flagsim params`):\n\n{}",
        crate::sim::params::spec::text()
    ))]
    Simulate(SimulateArgs),
    /// Run N steps and render one frame offscreen to a PNG (no window needed).
    Render(RenderArgs),
    /// The benchmark suite: cost per step, scaling, parallel speed-up, stability, accuracy
    /// against the filter, upsampling and the viewer's frame, as a table or JSON.
    Bench(BenchArgs),
    /// List the built-in presets, one line each.
    Presets,
    /// List every scene parameter: unit, range, default and meaning (the table the viewer's
    /// sliders and the scene validation are built from).
    Params(ParamsArgs),
}

#[derive(Debug, Args)]
pub struct ParamsArgs {
    /// Print a Markdown table (the one in README) instead of aligned text.
    #[arg(long)]
    pub markdown: bool,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// A reduced run (small grids, few repeats) that finishes in well under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Also write a log-log plot of time per step against node count (SVG).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

#[derive(Debug, Args, Default)]
pub struct ViewArgs {
    /// Scene file (.json) or preset name; default `flag`.
    pub scene: Option<String>,
    /// Window size in logical pixels, width x height, e.g. 1280x800.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Quit after presenting this many frames (automated smoke runs).
    #[arg(long, value_name = "N")]
    pub exit_after_frames: Option<u64>,
    /// Save the last frame, panels included, as a PNG before quitting (needs
    /// --exit-after-frames).
    #[arg(long, value_name = "PATH", requires = "exit_after_frames")]
    pub screenshot: Option<PathBuf>,
    /// The share of the window's width and height the 3-D view is drawn at, then stretched:
    /// `auto` (follows the frame's cost, aiming at 45 fps), or 0.5 to 1 (or 50% to 100%).
    /// Default: auto on a software adapter (lavapipe), 1 on a GPU. Screenshots and recordings
    /// are drawn at full size.
    #[arg(long, value_name = "auto|SCALE", value_parser = ScaleMode::parse)]
    pub render_scale: Option<ScaleMode>,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Scene file (.json) or preset name.
    pub scene: String,
    /// Number of published steps of `dt` to run (0 writes the initial state).
    #[arg(long)]
    pub steps: u64,
    /// Write the JSON here instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also record every K-th step in `frames`.
    #[arg(long, value_name = "K")]
    pub every: Option<u64>,
    /// Override the scene's integrator.
    #[arg(long, value_name = "NAME")]
    pub integrator: Option<IntegratorKind>,
    /// Also write the upsampled render mesh, R × R render nodes (2..=1024), in `render`.
    #[arg(long, value_name = "R")]
    pub upsample: Option<u32>,
    /// Upsample with the GPU compute shader instead of the CPU reference (needs --upsample).
    #[arg(long)]
    pub gpu: bool,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Scene file (.json) or preset name.
    pub scene: String,
    /// Number of published steps of `dt` to run before rendering.
    #[arg(long, default_value_t = 0)]
    pub steps: u64,
    /// The PNG to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Image size in pixels, width x height, e.g. 1280x800 (each 16..=8192).
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Override the scene's integrator.
    #[arg(long, value_name = "NAME")]
    pub integrator: Option<IntegratorKind>,
    /// Display mode (default: the scene's).
    #[arg(long, value_name = "MODE")]
    pub mode: Option<DisplayMode>,
    /// Surface colouring.
    #[arg(long, value_name = "COLORS", default_value = "texture")]
    pub color: ColorMode,
    /// Draw the key mesh as lines.
    #[arg(long)]
    pub wireframe: bool,
    /// Draw each key node's last velocity change as a segment.
    #[arg(long)]
    pub dv: bool,
    /// Move the camera closer (2 = half the distance of the automatic framing), 0.1..=20.
    #[arg(long, default_value_t = 1.0)]
    pub zoom: f32,
}

/// Parses `WIDTHxHEIGHT`.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{text}' is not WIDTHxHEIGHT, e.g. 1280x800"))?;
    let parse = |v: &str| -> Result<u32, String> {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (16..=8192).contains(n))
            .ok_or_else(|| format!("'{text}': each side must be a whole number in 16..=8192"))
    };
    Ok((parse(w)?, parse(h)?))
}

/// Runs the command line; the error says what went wrong and which exit code it means.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Simulate(args)) => simulate(args),
        Some(Command::Render(args)) => render(args),
        Some(Command::Presets) => presets(),
        Some(Command::Params(args)) => print_stdout(&if args.markdown {
            crate::sim::params::spec::markdown()
        } else {
            crate::sim::params::spec::text()
        }),
        Some(Command::Bench(args)) => bench(args),
        Some(Command::View(args)) => view(args),
        None => view(ViewArgs {
            size: (1280, 800),
            ..ViewArgs::default()
        }),
    }
}

fn view(args: ViewArgs) -> Result<()> {
    let scene = load_scene(args.scene.as_deref().unwrap_or("flag"), None)?;
    if let Some(path) = &args.screenshot
        && !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        return Err(CliError::BadInput(format!(
            "--screenshot: {} must end in .png",
            path.display()
        )));
    }
    crate::app::viewer::run(crate::app::viewer::ViewerOptions {
        scene,
        size: args.size,
        exit_after_frames: args.exit_after_frames,
        screenshot: args.screenshot,
        render_scale: args.render_scale,
    })
    .map_err(|e| failed(format!("{e:#}")))
}

fn bench(args: BenchArgs) -> Result<()> {
    if let Some(p) = &args.plot
        && !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(CliError::BadInput(format!(
            "--plot: {} must end in .svg",
            p.display()
        )));
    }
    let cfg = crate::bench::BenchConfig { quick: args.quick };
    let report = crate::bench::run(&cfg, |section| eprintln!("flagsim bench: {section} …"));
    // The report first: a plot that cannot be written must not lose the measurements.
    if args.json {
        write_json(&report, None)?;
    } else {
        print_stdout(&crate::bench::table(&report))?;
    }
    if let Some(p) = &args.plot {
        std::fs::write(p, crate::bench::plot_svg(&report))
            .map_err(|e| CliError::write(format!("the plot {}", p.display()), e))?;
        eprintln!("flagsim bench: wrote {}", p.display());
    }
    Ok(())
}

fn presets() -> Result<()> {
    let mut text = String::new();
    for (name, _) in PRESETS {
        let description =
            Scene::load(name).map_or_else(|e| format!("(invalid: {e})"), |s| s.description);
        text.push_str(&format!("{name:<14} {description}\n"));
    }
    print_stdout(&text)
}

/// Writes to stdout; a closed pipe (`flagsim presets | head -1`) is not an error.
fn print_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::write("stdout", e)),
        _ => Ok(()),
    }
}

/// Loads a scene and applies an integrator override; errors are bad input.
pub fn load_scene(name: &str, integrator: Option<IntegratorKind>) -> Result<Scene> {
    let mut scene = Scene::load(name).map_err(|e| CliError::BadInput(e.to_string()))?;
    if let Some(kind) = integrator {
        scene.params.integrator = kind;
    }
    Ok(scene)
}

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

fn simulate(args: SimulateArgs) -> Result<()> {
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

fn render(args: RenderArgs) -> Result<()> {
    let mut scene = load_scene(&args.scene, args.integrator)?;
    if let Some(mode) = args.mode {
        scene.render.mode = mode;
        if mode == DisplayMode::Wrinkled {
            scene.render.wrinkles = true;
        }
    }
    let color_mode = args.color;
    if !(args.zoom.is_finite() && (0.1..=20.0).contains(&args.zoom)) {
        return Err(CliError::BadInput(format!(
            "--zoom: must be in 0.1..=20, got {}",
            args.zoom
        )));
    }
    let out_ok = args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !out_ok {
        return Err(CliError::BadInput(format!(
            "--out: {} must end in .png",
            args.out.display()
        )));
    }
    let mut sim = scene
        .simulation()
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?;
    let initial = Snapshot::of(&sim);
    for _ in 0..args.steps {
        if !sim.step() {
            break;
        }
    }
    if let Some(d) = &sim.divergence {
        eprintln!("flagsim: warning: {d}; rendering the last good state");
    }
    let snap = Snapshot::of(&sim);
    let view_settings = ViewSettings {
        render: scene.render.clone(),
        color_mode,
        key_wireframe: args.wireframe,
        dv_overlay: args.dv,
        ..ViewSettings::default()
    };
    let (w, h) = args.size;
    let mut headless = HeadlessRenderer::new(w, h).map_err(failed)?;
    // Frame where the cloth started and where it ended (a drop, a blown-out flag).
    let mut camera = view::framing_camera(&[&initial, &snap]);
    camera.distance /= args.zoom;
    let image = headless
        .render(&snap, &view_settings, &camera)
        .map_err(failed)?;
    image.save(&args.out).map_err(|e| match e {
        image::ImageError::IoError(e) => CliError::write(args.out.display(), e),
        e => failed(format!(
            "{}: cannot encode the PNG: {e}",
            args.out.display()
        )),
    })?;
    eprintln!(
        "flagsim: wrote {} ({w}×{h}, step {}, t = {:.3} s, {})",
        args.out.display(),
        sim.step_index,
        sim.time,
        headless.ctx.adapter_report()
    );
    Ok(())
}

fn write_json(value: &impl Serialize, out: Option<&PathBuf>) -> Result<()> {
    let text =
        serde_json::to_string(value).map_err(|e| failed(format!("serialising the output: {e}")))?;
    match out {
        Some(path) => {
            std::fs::write(path, text + "\n").map_err(|e| CliError::write(path.display(), e))
        }
        None => print_stdout(&(text + "\n")),
    }
}
