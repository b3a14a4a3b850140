//! `flagsim render`: one frame offscreen to a PNG.

use super::{CliError, RenderArgs, Result, failed, flag_image, load_scene};
use crate::render::headless::HeadlessRenderer;
use crate::render::view::{self, ViewSettings};
use crate::sim::thread::Snapshot;
use crate::upsample::DisplayMode;

pub(super) fn render(args: RenderArgs) -> Result<()> {
    let mut scene = load_scene(&args.scene, args.integrator)?;
    let flag_image = flag_image(&mut scene, args.flag_image.as_deref())?;
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
        log::warn!("{d}; rendering the last good state");
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
    if let Some(image) = &flag_image {
        headless.set_flag_image(image).map_err(failed)?;
    }
    // Frame where the cloth started and where it ended (a drop, a blown-out flag).
    let mut camera = view::framing_camera(&[&initial, &snap]);
    camera.distance /= args.zoom;
    let image = headless
        .render(&snap, &view_settings, &camera)
        .map_err(failed)?;
    crate::files::save_image(&args.out, &image, image::ImageFormat::Png).map_err(|e| match e {
        image::ImageError::IoError(e) => CliError::write(args.out.display(), e),
        e => failed(format!(
            "{}: cannot encode the PNG: {e}",
            args.out.display()
        )),
    })?;
    log::info!(
        "wrote {} ({w}×{h}, step {}, t = {:.3} s, {})",
        args.out.display(),
        sim.step_index,
        sim.time,
        headless.ctx.adapter_report()
    );
    Ok(())
}
