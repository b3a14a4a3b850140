//! Scenes and their images as the headless commands load them: overrides from the command
//! line, and every failure as bad input.

use std::path::Path;

use crate::sim::IntegratorKind;
use crate::sim::format::scene::Scene;

use super::{CliError, Result};

/// Loads a scene and applies an integrator override; errors are bad input.
pub fn load_scene(name: &str, integrator: Option<IntegratorKind>) -> Result<Scene> {
    load_scene_on(name, integrator, None)
}

/// [`load_scene`] with a `--device` override: a scene on the GPU steps `kang-mg` or
/// `implicit-mg`, so any other `--integrator` with it is bad input.
pub(crate) fn load_scene_on(
    name: &str,
    integrator: Option<IntegratorKind>,
    device: Option<crate::sim::DeviceChoice>,
) -> Result<Scene> {
    let mut scene = Scene::load(name).map_err(|e| CliError::BadInput(e.to_string()))?;
    if let Some(kind) = integrator {
        scene.params.integrator = kind;
    }
    let device = device.unwrap_or(scene.device);
    if device == crate::sim::DeviceChoice::Gpu
        && let Some(kind) = integrator.filter(|&k| !k.steps_on_gpu())
    {
        return Err(CliError::BadInput(format!(
            "--integrator {}: the GPU steps kang-mg and implicit-mg only (device gpu); use --device cpu for {0}",
            kind.name()
        )));
    }
    scene.set_device(device);
    Ok(scene)
}

/// Flag 0's image ([`flag_images`]; every flag is fitted to its own).
pub fn flag_image(scene: &mut Scene, path: Option<&Path>) -> Result<Option<image::RgbaImage>> {
    Ok(flag_images(scene, path)?.into_iter().next().flatten())
}

/// Each flag's image for `scene` ([`crate::render::passes::flag_texture::flag_images`]); a bad one is
/// bad input.
pub fn flag_images(
    scene: &mut Scene,
    path: Option<&Path>,
) -> Result<Vec<Option<image::RgbaImage>>> {
    crate::render::passes::flag_texture::flag_images(scene, path)
        .map_err(|e| CliError::BadInput(e.to_string()))
}

/// The scene's background image (`render.setting.background`), decoded and checked before
/// anything is simulated; `None` when it has none.
pub(crate) fn background_image(scene: &Scene) -> Result<Option<image::RgbaImage>> {
    let Some(path) = &scene.render.setting.background else {
        return Ok(None);
    };
    crate::render::passes::flag_texture::load_background_image(path)
        .map(Some)
        .map_err(|e| CliError::BadInput(e.to_string()))
}
