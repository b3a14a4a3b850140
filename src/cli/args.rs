//! The command line's subcommands and options (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::render::{ColorMode, ScaleMode};
use crate::sim::IntegratorKind;
use crate::sim::lab::copies::CopySpec;
use crate::upsample::DisplayMode;

use super::Result;

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
subcommand it opens the viewer on the scene shown last (the `flag` preset the first time; \
`flagsim view flag` opens the flag).\n\nSCENE is a path to a .json scene file or \
the name of a built-in preset (see `flagsim presets`)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Show more of what happens: -v wgpu's, winit's and egui's messages too, -vv debug,
    /// -vvv everything (`RUST_LOG` overrides this).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No progress bars and no informational lines: only warnings, errors and the output.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the viewer on a scene file or preset (default: the last scene shown, or the flag).
    View(ViewArgs),
    /// Run N fixed steps headless and write JSON (stdout when no --out).
    #[command(after_long_help = format!(
        "Scene parameters (the scene file's \"params\" and \"render\" sections; also \
         `flagsim params`):\n\n{}",
        crate::sim::format::params::spec::text()
    ))]
    Simulate(SimulateArgs),
    /// Render offscreen (no window needed): one frame after N steps to a PNG, or a clip of S
    /// simulated seconds to a GIF or MP4 with `--video`.
    Render(RenderArgs),
    /// The benchmark suite: cost per step, scaling, parallel speed-up, stability, accuracy
    /// against the filter, upsampling and the viewer's frame, as a table or JSON.
    Bench(BenchArgs),
    /// The integrator lab headless: 2 to 4 copies of a scene, each with its own integrator,
    /// stepped in lock-step from the same state; a summary table per copy, the per-step series
    /// as CSV and the plots as SVG.
    Compare(CompareArgs),
    /// List the built-in presets, one line each.
    Presets,
    /// List every scene parameter: unit, range, default and meaning (the table the viewer's
    /// sliders and the scene validation are built from).
    Params(ParamsArgs),
    /// Print a completion script for a shell, e.g.
    /// `flagsim completions bash > ~/.local/share/bash-completion/completions/flagsim`.
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The shells `flagsim completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub struct ParamsArgs {
    /// Print a Markdown table (the one in docs/scenes.md) instead of aligned text.
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
    #[arg(long, value_name = "FILE.svg", conflicts_with = "frame")]
    pub plot: Option<PathBuf>,
    /// Only the viewer's frame split, in seconds: each part's wall clock and, where the
    /// adapter has timestamp queries, its GPU time; the whole frame (the parts added, frame by
    /// frame) and its frame rate; then the live plots of a 4-copy lab in a
    /// frame that refreshes them and in one between. Drawn as the viewer starts on the
    /// adapter: on a software one with FXAA at render scale 75 % (the lowest `auto` takes), on
    /// any other with 4× MSAA at 100 %. Run it on a machine with a hardware GPU for that GPU's
    /// figures.
    #[arg(long)]
    pub frame: bool,
    /// With `--frame`: the scene to draw (a scene file or preset name; default `flag`), every
    /// flag of it stepped and drawn in each frame, e.g. `assets/flags/eight.json` for 8 flags.
    #[arg(long, value_name = "SCENE", requires = "frame")]
    pub scene: Option<String>,
    /// The simulation on the GPU against the CPU: the peer's hanging sheet (kang-mg, strain
    /// limited within 5 % both ways on every coarse level) at 64² to 1024² nodes (the CPU to 256²), each size's node-steps a
    /// second, real time, stretch and shortest edge on each device, and how far the GPU's
    /// cloth is from the CPU's after the same steps. `--quick`: 32² and 64², a few steps.
    #[arg(long, conflicts_with_all = ["frame", "plot"])]
    pub gpu_sim: bool,
    /// With `--gpu-sim`: the sizes, nodes a side, comma-separated (2 to 1024, a scene's
    /// largest grid), e.g. 256,512,1024.
    #[arg(long, value_name = "N,N,…", value_delimiter = ',', requires = "gpu_sim",
          value_parser = clap::value_parser!(u32).range(2..=1024))]
    pub sizes: Option<Vec<u32>>,
    /// With `--gpu-sim`: the largest size the CPU runs too (default 256; 64 with --quick).
    #[arg(long, value_name = "N", requires = "gpu_sim")]
    pub cpu_up_to: Option<u32>,
    /// With `--gpu-sim`: the integrator on both devices, `kang-mg` (the default) or
    /// `implicit-mg` (the true Jacobian, its solve in colours on the GPU).
    #[arg(long = "integrator", value_name = "kang-mg|implicit-mg", requires = "gpu_sim",
          value_parser = parse_gpu_integrator)]
    pub gpu_integrator: Option<crate::sim::IntegratorKind>,
    /// With `--gpu-sim`: one device's rows only, `cpu` (every size, no GPU opened) or `gpu`;
    /// `auto` (the default) measures both, which is how `auto`'s threshold was found. With
    /// `--frame`: where the flags step (default `cpu`): `gpu` steps every flag (`kang-mg`, or
    /// `implicit-mg` where the scene has it) on the GPU in each frame, the viewer's GPU mode
    /// (drawn from the GPU's node buffer, its state read back in snapshots); `auto` as the
    /// viewer decides.
    #[arg(long, value_name = "cpu|gpu|auto", value_parser = super::device::parse_device)]
    pub device: Option<crate::sim::DeviceChoice>,
}

#[derive(Debug, Args, Default)]
pub struct ViewArgs {
    /// Scene file (.json) or preset name; default: the scene shown when the viewer last
    /// closed (with its parameters, flag image and camera), or `flag` on a first run.
    pub scene: Option<String>,
    /// Window size in logical pixels, width x height, e.g. 1280x800; default: the size it
    /// last had, or 1280x800.
    #[arg(long, value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Start clean and keep nothing: neither read nor write the settings file (window size,
    /// camera, panel values, last scene and flag image, recent files), which otherwise lives
    /// in the platform's config folder (`$XDG_CONFIG_HOME/flagsim/settings.json` on Linux;
    /// `FLAGSIM_CONFIG_DIR` names another folder).
    #[arg(long)]
    pub no_persist: bool,
    /// Quit after presenting this many frames (automated smoke runs), printing the median frame
    /// time, the frame rate, the render scale, the simulation's steps per second and how many
    /// frames painted the panels anew.
    #[arg(long, value_name = "N")]
    pub exit_after_frames: Option<u64>,
    /// Save the last frame, panels included, as a PNG before quitting (needs
    /// --exit-after-frames).
    #[arg(long, value_name = "PATH", requires = "exit_after_frames")]
    pub screenshot: Option<PathBuf>,
    /// The share of the window's width and height the 3-D view is drawn at, then stretched:
    /// `auto` (follows the frame's cost, aiming at 45 fps, between 0.75 and 1), or 0.5 to 1
    /// (or 50% to 100%). Default: auto on a software adapter (lavapipe), 1 on a GPU. Screenshots and recordings
    /// are drawn at full size.
    #[arg(long, value_name = "auto|SCALE", value_parser = ScaleMode::parse)]
    pub render_scale: Option<ScaleMode>,
    /// The integrator lab: 2 to 4 copies of the scene side by side in lock-step, one per
    /// integrator (each optionally with its own dt after '@'), e.g. kang,xpbd,choi-ko.
    #[arg(long, value_name = "A,B[,C,D]", value_parser = parse_copies)]
    pub compare: Option<Copies>,
    /// With --compare: start the lab's reference copy too, an accurate solve of the same
    /// springs (backward Euler, full Jacobian, CG to 1e-10, 4 times the substeps, no strain
    /// limiting), and show each copy's distance from it (label, Lab panel, live plot).
    #[arg(long, requires = "compare")]
    pub reference: bool,
    /// A PNG, JPEG or WebP image to draw on the flag (instead of the scene's `render.texture`
    /// or the built-in flag); the flag takes its width/height ratio unless the scene gives both.
    #[arg(long, value_name = "PATH")]
    pub flag_image: Option<PathBuf>,
    /// Where the cloth steps: `cpu` (every integrator, f64), `gpu` (kang-mg or implicit-mg in
    /// f32 on a GPU adapter; another integrator becomes kang-mg) or `auto` (the GPU for a
    /// kang-mg cloth of at least 128 × 128 nodes on a hardware GPU, never on a CPU adapter such
    /// as lavapipe).
    /// Default: the scene's `"device"`, else cpu.
    #[arg(long, value_name = "cpu|gpu|auto", value_parser = super::device::parse_device)]
    pub device: Option<crate::sim::DeviceChoice>,
    /// For tests: press F12 (a screenshot into screenshots/) when drawing frame N, through the
    /// same code as the key.
    #[arg(long, value_name = "N", hide = true)]
    pub press_f12_at_frame: Option<u64>,
    /// For tests: press the Capture panel's record / stop button when drawing frame N
    /// (repeatable).
    #[arg(long, value_name = "N", hide = true)]
    pub toggle_recording_at_frame: Vec<u64>,
    /// For tests: what a recording writes (png-sequence, gif or mp4) instead of the remembered
    /// choice.
    #[arg(long, value_name = "FORMAT", hide = true, value_parser = crate::ui::RecordFormat::parse)]
    pub record_format: Option<crate::ui::RecordFormat>,
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
    /// Where the cloth steps: `cpu` (every integrator, f64), `gpu` (kang-mg or implicit-mg in
    /// f32 on a GPU adapter; another integrator becomes kang-mg) or `auto` (the GPU for a
    /// kang-mg cloth of at least 128 × 128 nodes on a hardware GPU, never on a CPU adapter such
    /// as lavapipe).
    /// Default: the scene's `"device"`, else cpu.
    #[arg(long, value_name = "cpu|gpu|auto", value_parser = super::device::parse_device)]
    pub device: Option<crate::sim::DeviceChoice>,
    /// Also write the upsampled render mesh, R × R render nodes (2..=1024), in `render`.
    #[arg(long, value_name = "R")]
    pub upsample: Option<u32>,
    /// Upsample with the GPU compute shader instead of the CPU reference (needs --upsample).
    #[arg(long)]
    pub gpu: bool,
    /// `json`: one object (the frames written as they are recorded, so memory stays flat);
    /// `jsonl`: each recorded frame on a line of its own, then a line with the final state and
    /// the statistics.
    #[arg(long, value_enum, default_value_t = OutputFormat::Json)]
    pub format: OutputFormat,
}

/// What `simulate` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Json,
    Jsonl,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Scene file (.json) or preset name.
    pub scene: String,
    /// 2 to 4 copies, comma-separated (1 to 4 with --resolutions, where the scene's own
    /// integrator is the default): integrator names, each optionally with its own dt in seconds
    /// after '@' (the help lists the names).
    #[arg(long, value_name = "A,B[,C,D]", value_parser = parse_copies, help = copies_help())]
    pub integrators: Option<Copies>,
    /// Simulated seconds to run (more than 0, at most 3600).
    #[arg(long)]
    pub seconds: f64,
    /// Write one row per lab step and copy, with the columns
    /// `time,integrator,kinetic_energy,max_strain,step_us,diverged,shortest_edge,short_edges,
    /// rms_distance_m,max_distance_m` (the distances from the reference, empty without
    /// --reference). `-` writes it to stdout (the summary table then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write the plots (kinetic energy, max strain and step time over time, and each
    /// copy's distance from the reference with --reference) as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Where the kang-mg and implicit-mg copies step (cpu, gpu or auto; a copy written
    /// `kang-mg:gpu` steps on the GPU whatever this says): `gpu` puts every such copy on a GPU
    /// adapter (f32, its state read back each lab step for the measures). Other integrators
    /// step on the CPU.
    #[arg(long, value_name = "cpu|gpu|auto", value_parser = super::device::parse_device)]
    pub device: Option<crate::sim::DeviceChoice>,
    /// Run an accurate solve of the same springs beside the copies, in lock-step (backward
    /// Euler with the full spring Jacobian, CG to 1e-10, 4 times the steps, no strain limiting
    /// or tethers), and measure every copy's distance from it each step.
    #[arg(long)]
    pub reference: bool,
    /// A resolution study: run the scene at each of these key grids (nodes a side, 2 to 1024,
    /// comma-separated), keeping its size, mass, springs and wind, and print each copy's motion
    /// (the fly edge's sway and frequency, its reach from the hoist, the ripple, the shortest
    /// edge) and, with --reference, the accurate solve's and each copy's distance from it.
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', num_args = 1..)]
    pub resolutions: Option<Vec<usize>>,
    /// With --resolutions --reference: the finest grid (nodes a side) that runs the accurate
    /// solve; finer grids are compared with the finest accurate solve run.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub reference_up_to: usize,
    /// With --resolutions: simulated seconds left out of the measures at the start (the
    /// flag's first swing), at least 0 and less than --seconds. Default: a third of --seconds,
    /// at most 5.
    #[arg(long, value_name = "SECONDS")]
    pub settle: Option<f64>,
}

/// The lab's copies as given on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Copies(pub Vec<CopySpec>);

fn copies_help() -> String {
    let names: Vec<&str> = IntegratorKind::ALL.iter().map(|k| k.name()).collect();
    format!(
        "2 to 4 copies, comma-separated: integrator names ({}), each optionally with its own \
         dt in seconds after '@' and its own key grid after '#' (NX, the height in the scene's \
         proportions, or NXxNY), e.g. kang,xpbd,choi-ko or kang,kang@0.005 or \
         implicit-mg#10,implicit-mg#32",
        names.join(", ")
    )
}

/// The copies as written; how many a command takes is its own check.
fn parse_copies(text: &str) -> Result<Copies, String> {
    text.split(',')
        .map(|s| CopySpec::parse(s.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map(Copies)
        .map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Scene file (.json) or preset name.
    pub scene: String,
    /// Number of published steps of `dt` to run before rendering.
    #[arg(long, default_value_t = 0)]
    pub steps: u64,
    /// The PNG to write (one picture after `--steps`).
    #[arg(
        long,
        value_name = "FILE.png",
        required_unless_present = "video",
        conflicts_with = "video"
    )]
    pub out: Option<PathBuf>,
    /// Write a clip instead of a picture: a GIF (looping) or an MP4 (H.264, needs `ffmpeg` on
    /// PATH), framed on the whole motion, starting after `--steps`.
    #[arg(long, value_name = "FILE.gif|FILE.mp4", requires = "seconds")]
    pub video: Option<PathBuf>,
    /// The clip's length in simulated seconds, (0, 3600]; it plays at the simulation's speed.
    #[arg(long, value_name = "S", requires = "video")]
    pub seconds: Option<f64>,
    /// The clip's frames per simulated (and played) second: 1..=50 for a GIF, 1..=120 for an
    /// MP4. Frame k shows the step nearest k / fps seconds after the first frame.
    #[arg(long, value_name = "F", default_value_t = 30.0)]
    pub fps: f64,
    /// Image size in pixels, width x height, e.g. 1280x800 (each 16..=8192).
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Override the scene's integrator.
    #[arg(long, value_name = "NAME")]
    pub integrator: Option<IntegratorKind>,
    /// Where the cloth steps: `cpu` (every integrator, f64), `gpu` (kang-mg or implicit-mg in
    /// f32 on a GPU adapter; another integrator becomes kang-mg) or `auto` (the GPU for a
    /// kang-mg cloth of at least 128 × 128 nodes on a hardware GPU, never on a CPU adapter such
    /// as lavapipe).
    /// Default: the scene's `"device"`, else cpu.
    #[arg(long, value_name = "cpu|gpu|auto", value_parser = super::device::parse_device)]
    pub device: Option<crate::sim::DeviceChoice>,
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
    /// A PNG, JPEG or WebP image to draw on the flag (instead of the scene's `render.texture`
    /// or the built-in flag); the flag takes its width/height ratio unless the scene gives both.
    #[arg(long, value_name = "PATH")]
    pub flag_image: Option<PathBuf>,
}

/// Parses `WIDTHxHEIGHT`.
/// An integrator the GPU steps, by name.
fn parse_gpu_integrator(text: &str) -> Result<crate::sim::IntegratorKind, String> {
    match crate::sim::IntegratorKind::from_name(text) {
        Some(kind) if kind.steps_on_gpu() => Ok(kind),
        _ => Err(format!(
            "'{text}': the GPU steps kang-mg and implicit-mg (bench --gpu-sim runs one of them on both devices)"
        )),
    }
}

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
