//! Presets, loading and saving scene files, and the flag's image.
//!
//! Everything here checks before it changes anything: a scene or an image that cannot be used
//! leaves a message and the current scene, flag and simulation as they were.

use std::path::{Path, PathBuf};

use egui::Ui;

use super::{UiAction, UiState};
use crate::render::flag_texture;
use crate::sim::scene::{PRESETS, Scene};
use crate::sim::thread::Command;

/// The flag image `scene` asks for (its `render.texture`, or the built-in flag), decoded and
/// checked; the message names the file.
fn scene_image(scene: &Scene) -> Result<image::RgbaImage, String> {
    match &scene.render.texture {
        Some(path) => flag_texture::load_flag_image(path),
        None => flag_texture::default_flag_image(),
    }
    .map_err(|e| e.to_string())
}

/// Loads `scene` (a preset, a file, a dropped file) with its flag image, the cloth fitted to
/// the image's shape; `what` names it in the message. An image that cannot be used refuses
/// the whole scene: the current one stays.
pub fn load_scene(state: &mut UiState, actions: &mut Vec<UiAction>, scene: Scene, what: &str) {
    let image = match scene_image(&scene) {
        Ok(image) => image,
        Err(e) => {
            state.message = Some((format!("{what} not loaded: {e}"), true));
            return;
        }
    };
    let mut scene = scene;
    if scene.render.texture.is_some() {
        scene.fit_to_image(image.width(), image.height());
    }
    state.message = Some((format!("loaded {what}"), false));
    state.view.render = scene.render.clone();
    state.scene = scene.clone();
    actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
    actions.push(UiAction::ResetCamera);
    actions.push(UiAction::FlagImage(Box::new(image)));
}

/// Draws the flag with the image at `path` (`None`: the built-in flag) on the current scene and
/// parameters. The cloth takes the image's width/height ratio ([`Scene::fit_to_image`]); when
/// that changes its size the simulation restarts, otherwise it goes on. A file that cannot be
/// used leaves a message and changes nothing.
pub fn set_flag_image(state: &mut UiState, actions: &mut Vec<UiAction>, path: Option<&Path>) {
    let decoded = match path {
        Some(path) => flag_texture::load_flag_image(path),
        None => flag_texture::default_flag_image(),
    };
    let image = match decoded {
        Ok(image) => image,
        Err(e) => {
            state.message = Some((e.to_string(), true));
            return;
        }
    };
    let mut scene = state.scene.clone();
    scene.params = state.params.clone();
    scene.render = state.view.render.clone();
    scene.render.texture = path.map(Path::to_path_buf);
    let (w, h) = match path {
        Some(_) => image.dimensions(),
        // The built-in flag is drawn at 3:2 (512 × 341 pixels).
        None => (3, 2),
    };
    if scene.fit_to_image(w, h) {
        actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene.clone()))));
        actions.push(UiAction::ResetCamera);
    }
    state.message = Some((
        match path {
            Some(p) => format!(
                "flag image {} ({} × {} pixels as drawn)",
                p.display(),
                image.width(),
                image.height()
            ),
            None => "the built-in flag".into(),
        },
        false,
    ));
    state.view.render.texture.clone_from(&scene.render.texture);
    state.scene = scene;
    actions.push(UiAction::FlagImage(Box::new(image)));
}

/// A file dropped on the window: a `.json` scene is loaded, anything else is tried as the
/// flag's image.
pub fn drop_file(state: &mut UiState, actions: &mut Vec<UiAction>, path: &Path) {
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        match Scene::from_file(path) {
            Ok(scene) => load_scene(state, actions, scene, &path.display().to_string()),
            Err(e) => state.message = Some((format!("{e}; the current scene stays"), true)),
        }
    } else {
        state.image_path = path.display().to_string();
        set_flag_image(state, actions, Some(path));
    }
}

pub fn scene_files_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    egui::ComboBox::from_label("preset")
        .selected_text("load a preset…")
        .show_ui(ui, |ui| {
            for (name, _) in PRESETS {
                if ui.selectable_label(false, name).clicked() {
                    match Scene::load(name) {
                        Ok(scene) => load_scene(state, actions, scene, &format!("preset {name}")),
                        Err(e) => state.message = Some((e.to_string(), true)),
                    }
                }
            }
        });
    ui.horizontal(|ui| {
        ui.label("file");
        ui.text_edit_singleline(&mut state.scene_path)
            .on_hover_text("A scene file (.json) to load or save; or drop one on the window");
    });
    ui.horizontal(|ui| {
        if ui.button("load scene").clicked() {
            match Scene::from_file(Path::new(&state.scene_path)) {
                Ok(scene) => {
                    let what = state.scene_path.clone();
                    load_scene(state, actions, scene, &what);
                }
                Err(e) => state.message = Some((e.to_string(), true)),
            }
        }
        if ui
            .button("save scene")
            .on_hover_text("The loaded cloth with the current parameters and detail settings")
            .clicked()
        {
            let mut scene = state.scene.clone();
            scene.params = state.params.clone();
            scene.render = state.view.render.clone();
            state.message = Some(
                match crate::files::write_atomically(
                    Path::new(&state.scene_path),
                    scene.to_json().as_bytes(),
                ) {
                    Ok(()) => (format!("saved {}", state.scene_path), false),
                    Err(e) => (format!("cannot save {}: {e}", state.scene_path), true),
                },
            );
        }
    });
    flag_image_ui(ui, state, actions);
}

/// The flag's image: a path field, *use image* and *built-in flag*.
fn flag_image_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    ui.horizontal(|ui| {
        ui.label("flag image");
        ui.text_edit_singleline(&mut state.image_path)
            .on_hover_text(
                "A PNG, JPEG or WebP file to draw on the flag; or drop one on the window. \
             The flag takes the image's width/height ratio (its height, along the pole, stays) \
             unless the scene file gives both its width and height.",
            );
    });
    ui.horizontal(|ui| {
        let typed = !state.image_path.trim().is_empty();
        if ui
            .add_enabled(typed, egui::Button::new("use image"))
            .clicked()
        {
            let path = PathBuf::from(state.image_path.trim());
            set_flag_image(state, actions, Some(&path));
        }
        if ui
            .add_enabled(
                state.view.render.texture.is_some(),
                egui::Button::new("built-in flag"),
            )
            .clicked()
        {
            set_flag_image(state, actions, None);
        }
    });
    if let Some(path) = &state.view.render.texture {
        ui.label(format!("drawing {}", path.display()));
    }
}
