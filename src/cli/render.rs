//! `flagsim render`: one frame offscreen to a PNG, or a clip to a GIF or MP4 (`--video`).

use std::path::Path;

use super::device::Stepping;
use super::{CliError, RenderArgs, Result, background_image, failed, flag_images, load_scene_on};
use crate::render::camera::orbit::OrbitCamera;
use crate::render::drawing::frame::PoleLook;
use crate::render::drawing::headless::HeadlessRenderer;
use crate::render::drawing::view::{self, ViewSettings};
use crate::sim::runtime::flags::FlagSet;
use crate::sim::runtime::snapshot::Snapshot;
use crate::upsample::DisplayMode;
use crate::video::{Encoder, VideoError, VideoFormat, VideoWriter, step_of_frame};

/// The longest clip, simulated seconds.
pub(crate) const MAX_SECONDS: f64 = 3600.0;
/// Snapshots of the clip that its framing looks at at most (spread evenly over the clip).
const FRAMING_SAMPLES: u32 = 32;

pub(super) fn render(args: RenderArgs) -> Result<()> {
    let mut scene = load_scene_on(&args.scene, args.integrator, args.device)?;
    let flag_images = flag_images(&mut scene, args.flag_image.as_deref())?;
    let background = background_image(&scene)?;
    if let Some(mode) = args.mode {
        scene.render.mode = mode;
        if mode == DisplayMode::Wrinkled {
            scene.render.wrinkles = true;
        }
    }
    if !(args.zoom.is_finite() && (0.1..=20.0).contains(&args.zoom)) {
        return Err(CliError::BadInput(format!(
            "--zoom: must be in 0.1..=20, got {}",
            args.zoom
        )));
    }
    let target = match (&args.video, &args.out) {
        (Some(video), _) => {
            let clip = check_video(&args, video)?;
            // Opened first: a missing ffmpeg or an unwritable folder is said before any work.
            let (w, h) = args.size;
            let writer = VideoWriter::create(video, w, h, clip.fps).map_err(video_error)?;
            Target::Video(clip, Box::new(writer))
        }
        (None, Some(out)) => {
            let png = out
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("png"));
            if !png {
                return Err(CliError::BadInput(format!(
                    "--out: {} must end in .png",
                    out.display()
                )));
            }
            // Checked first, as a video's file is: an unwritable place is said before any work.
            crate::files::check_writable(out).map_err(|e| CliError::write(out.display(), e))?;
            Target::Png(out)
        }
        (None, None) => {
            return Err(CliError::BadInput(
                "give --out FILE.png for a picture or --video FILE.gif|FILE.mp4 for a clip".into(),
            ));
        }
    };
    let mut sim =
        FlagSet::new(&scene).map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?;
    let initial = sim.snapshot();
    let mut stepping = Stepping::for_flags(scene.device, &mut sim.flags)?;
    step_to(&mut sim, &mut stepping, &mut 0, args.steps)?;
    let view_settings = ViewSettings {
        render: scene.render.clone(),
        color_mode: args.color,
        key_wireframe: args.wireframe,
        dv_overlay: args.dv,
        ..ViewSettings::default()
    };
    let (w, h) = args.size;
    let mut headless = HeadlessRenderer::new(w, h).map_err(failed)?;
    for (k, image) in flag_images.iter().enumerate() {
        if image.is_some() {
            headless
                .set_flag_image_of(k, image.as_ref())
                .map_err(failed)?;
        }
    }
    headless.set_pole_looks(
        scene
            .flag_scenes()
            .iter()
            .map(|s| PoleLook::of(&s.render.setting))
            .collect(),
    );
    if background.is_some() {
        headless
            .set_background(background.as_ref())
            .map_err(failed)?;
    }
    let mut shot = Shot {
        headless,
        size: (w, h),
        view: view_settings,
        zoom: args.zoom,
    };
    match target {
        Target::Png(out) => {
            if let Some((k, d)) = sim.divergence() {
                let flag = flag_name(&sim, k);
                log::warn!("{flag}{d}; rendering the last good state");
            }
            shot.png(&sim, &initial, out)
        }
        Target::Video(clip, writer) => {
            let dt = scene.params.dt;
            shot.video(sim, &mut stepping, &initial, &clip, *writer, dt)
        }
    }
}

enum Target<'a> {
    Png(&'a Path),
    Video(Clip<'a>, Box<VideoWriter>),
}

/// A clip asked for with `--video`.
struct Clip<'a> {
    path: &'a Path,
    fps: f64,
    frames: u32,
}

/// Checks `--video`, `--seconds` and `--fps` before anything is simulated or drawn.
fn check_video<'a>(args: &RenderArgs, path: &'a Path) -> Result<Clip<'a>> {
    let bad = |e: VideoError| CliError::BadInput(format!("--video: {e}"));
    let format = VideoFormat::of(path).map_err(bad)?;
    format
        .check_fps(args.fps)
        .map_err(|e| CliError::BadInput(format!("--fps: {e}")))?;
    let Some(seconds) = args.seconds else {
        return Err(CliError::BadInput(
            "--video needs --seconds, the clip's length in simulated seconds".into(),
        ));
    };
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_SECONDS) {
        return Err(CliError::BadInput(format!(
            "--seconds: must be in (0, {MAX_SECONDS}], got {seconds}"
        )));
    }
    Ok(Clip {
        path,
        fps: args.fps,
        frames: frame_count(seconds, args.fps),
    })
}

/// Frames of a clip of `seconds` at `fps`: `round(seconds · fps)`, at least 1.
pub(crate) fn frame_count(seconds: f64, fps: f64) -> u32 {
    (seconds * fps).round().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// What draws the pictures: the GPU, the view and the zoom.
struct Shot {
    headless: HeadlessRenderer,
    /// Image size, pixels.
    size: (u32, u32),
    view: ViewSettings,
    zoom: f32,
}

impl Shot {
    fn camera(&self, snaps: &[&Snapshot]) -> OrbitCamera {
        let mut camera = view::framing_camera(snaps);
        camera.distance /= self.zoom;
        camera
    }

    fn png(&mut self, sim: &FlagSet, initial: &Snapshot, out: &Path) -> Result<()> {
        let snap = sim.snapshot();
        // Frame where the cloth started and where it ended (a drop, a blown-out flag).
        let camera = self.camera(&[initial, &snap]);
        let image = (self.headless)
            .render(&snap, &self.view, &camera)
            .map_err(failed)?;
        crate::files::save_image(out, &image, image::ImageFormat::Png).map_err(|e| match e {
            image::ImageError::IoError(e) => CliError::write(out.display(), e),
            e => failed(format!("{}: cannot encode the PNG: {e}", out.display())),
        })?;
        let (w, h) = image.dimensions();
        log::info!(
            "wrote {} ({w}×{h}, step {}, t = {:.3} s, {})",
            out.display(),
            sim.first().step_index,
            sim.first().time,
            self.headless.ctx.adapter_report()
        );
        Ok(())
    }

    /// Renders `clip` of `sim` (stepping `dt`) frame by frame: frame `k` shows the state
    /// [`step_of_frame`] steps after the first, so the clip plays at the simulation's speed.
    /// The steps run on each flag's `stepping` (on the GPU: a frame's steps submitted together,
    /// the state read back once a frame).
    fn video(
        &mut self,
        mut sim: FlagSet,
        stepping: &mut [Stepping],
        initial: &Snapshot,
        clip: &Clip,
        writer: VideoWriter,
        dt: f64,
    ) -> Result<()> {
        let size = self.size;
        // The camera stays put over the clip: framed on the whole motion, found by running the
        // clip once without drawing (the simulation is deterministic).
        let camera = self.camera(
            &clip_samples(&sim, stepping, initial, clip, dt)?
                .iter()
                .collect::<Vec<_>>(),
        );
        let bar = super::progress::bar(u64::from(clip.frames), "video");
        let mut encoder = Encoder::start(writer);
        let mut step = 0;
        let mut warned = false;
        for k in 0..clip.frames {
            if let Err(e) = step_to(
                &mut sim,
                stepping,
                &mut step,
                step_of_frame(k, clip.fps, dt),
            ) {
                encoder.abandon();
                return Err(e);
            }
            if let (Some((k, d)), false) = (sim.divergence(), warned) {
                let flag = flag_name(&sim, k);
                log::warn!("{flag}{d}; the rest of the clip shows the last good state");
                warned = true;
            }
            let image = match self.headless.render(&sim.snapshot(), &self.view, &camera) {
                Ok(image) => image,
                Err(e) => {
                    // A clip cut short is not the clip asked for: nothing is written.
                    encoder.abandon();
                    return Err(failed(e));
                }
            };
            encoder.push(image).map_err(video_error)?;
            bar.inc(1);
        }
        let frames = encoder.finish().map_err(video_error)?;
        bar.finish_and_clear();
        log::info!(
            "wrote {} ({}×{}, {frames} frames at {} fps, t = {:.3} s, stepped on the {}, {})",
            clip.path.display(),
            size.0,
            size.1,
            clip.fps,
            sim.first().time,
            stepping
                .first()
                .map_or("cpu", Stepping::name)
                .to_uppercase(),
            self.headless.ctx.adapter_report()
        );
        Ok(())
    }
}

/// "flag N: " for a flag of several, nothing for one.
fn flag_name(sim: &FlagSet, k: usize) -> String {
    if sim.flags.len() > 1 {
        format!("flag {}: ", k + 1)
    } else {
        String::new()
    }
}

/// Steps `sim`, now `*step` steps in, until it is `target` steps in (or every flag diverges:
/// each then keeps its last good state), each flag on its `stepping`'s device: the CPU a step
/// at a time, the GPU all of them at once, each flag's state read back after them (a flag that
/// diverged there stays paused at its last good state).
fn step_to(
    sim: &mut FlagSet,
    stepping: &mut [Stepping],
    step: &mut u64,
    target: u64,
) -> Result<()> {
    if matches!(stepping.first(), None | Some(Stepping::Cpu)) {
        while *step < target && sim.step() {
            *step += 1;
        }
    } else if *step < target {
        for (flag, stepping) in sim.flags.iter_mut().zip(stepping.iter_mut()) {
            stepping.advance(flag, target - *step)?;
        }
        *step = target;
    }
    Ok(())
}

/// Up to [`FRAMING_SAMPLES`] snapshots spread over the clip (the first and the last included),
/// from a copy of `sim` run through it on `stepping`'s device (on the GPU a stepper of its own).
fn clip_samples(
    sim: &FlagSet,
    stepping: &[Stepping],
    initial: &Snapshot,
    clip: &Clip,
    dt: f64,
) -> Result<Vec<Snapshot>> {
    let mut run = sim.clone();
    let mut beside = match stepping.first() {
        Some(lead) => (run.flags.iter_mut())
            .map(|flag| lead.beside(flag))
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    let mut samples = vec![initial.clone(), run.snapshot()];
    let every = clip.frames.div_ceil(FRAMING_SAMPLES).max(1);
    let mut step = 0;
    for k in 1..clip.frames {
        let target = step_of_frame(k, clip.fps, dt);
        if k % every == 0 || k + 1 == clip.frames {
            step_to(&mut run, &mut beside, &mut step, target)?;
            samples.push(run.snapshot());
        }
    }
    Ok(samples)
}

/// A video error as the command line reports it: a name or a rate is bad input (exit 2), the
/// rest failures while running (exit 1).
fn video_error(e: VideoError) -> CliError {
    match e {
        VideoError::Write { path, source } => CliError::write(path.display(), source),
        e if e.is_bad_input() => CliError::BadInput(e.to_string()),
        e => failed(e),
    }
}
