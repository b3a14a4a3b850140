//! Presets, loading and saving scene files, the flag's image and the recent files.
//!
//! Everything here checks before it changes anything: a scene or an image that cannot be used
//! leaves a message and the current scene, flag and simulation as they were. Files come from
//! the path fields, a native file dialog (*open…*, *save as…*: [`UiAction::FileDialog`], run
//! by the application off the event loop), a file dropped on the window or the recent list;
//! every file opened or saved goes to the top of [`crate::ui::recent::RecentFiles`].

use std::path::{Path, PathBuf};

use egui::Ui;

use crate::render::passes::flag_texture;
use crate::sim::format::outline::{FlagShape, NOTCH_RANGE};
use crate::sim::format::scene::{PRESETS, Scene};
use crate::sim_thread::Command;
use crate::ui::recent::FileKind;
use crate::ui::{UiAction, UiState};

/// The background image `scene` asks for (its `render.setting.background`), decoded and
/// checked; `None` for the sky. The message names the file.
fn scene_background(scene: &Scene) -> Result<Option<image::RgbaImage>, String> {
    scene
        .render
        .setting
        .background
        .as_deref()
        .map(flag_texture::load_background_image)
        .transpose()
        .map_err(|e| e.to_string())
}

/// Gives `scene` the transparency of its flag `image` (for the image shape); whether that
/// changed it.
fn take_alpha(scene: &mut Scene, image: &image::RgbaImage) -> bool {
    let before = scene.cloth.grid.as_ref().map(|g| g.alpha.clone());
    let alpha: Vec<u8> = image.pixels().map(|p| p[3]).collect();
    scene.set_flag_alpha(image.width() as usize, image.height() as usize, &alpha);
    scene.cloth.grid.as_ref().map(|g| g.alpha.clone()) != before
}

/// What a native file dialog is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// A scene file to load.
    OpenScene,
    /// Where to save the scene.
    SaveScene,
    /// An image for the flag.
    OpenImage,
    /// An image for the background (*Setting*).
    OpenBackground,
}

/// Loads `scene` (a preset, a file, a dropped file) with its flag image, the cloth fitted to
/// the image's shape; `what` names it in the message. An image that cannot be used refuses
/// the whole scene: the current one stays. Whether it was loaded.
pub fn load_scene(
    state: &mut UiState,
    actions: &mut Vec<UiAction>,
    scene: Scene,
    what: &str,
) -> bool {
    let mut scene = scene;
    let images: Result<Vec<_>, String> = (0..scene.flag_count())
        .map(|k| crate::ui::panels::flags::flag_image(&mut scene, k))
        .collect();
    let (images, background) = match (images, scene_background(&scene)) {
        (Ok(images), Ok(background)) => (images, background),
        (Err(e), _) | (_, Err(e)) => {
            state.notices.error(format!("{what} not loaded: {e}"));
            return false;
        }
    };
    state.notices.info(format!("loaded {what}"));
    state.view.render = scene.render.clone();
    state.files.background_path = (scene.render.setting.background.as_ref())
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    state.scene = scene.clone();
    state.selected_flag = 0;
    actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
    actions.push(UiAction::ResetCamera);
    actions.push(UiAction::FlagImages(images));
    actions.push(UiAction::Background(background.map(Box::new)));
    true
}

/// Loads the scene file at `path` (typed, picked, dropped or recent); it becomes the path in
/// the field and the first recent file. A bad file leaves a message and the current scene.
pub fn open_scene_file(state: &mut UiState, actions: &mut Vec<UiAction>, path: &Path) {
    let what = path.display().to_string();
    let loaded = match Scene::from_file(path) {
        Ok(scene) => load_scene(state, actions, scene, &what),
        Err(e) => {
            state.notices.error(format!("{e}; the current scene stays"));
            false
        }
    };
    if loaded {
        state.files.scene_path = what;
        state.files.recent.add(FileKind::Scene, path);
    }
}

/// Saves the loaded cloth with the current parameters and detail settings to `path`
/// (atomically: a failed write keeps the old file).
pub fn save_scene(state: &mut UiState, path: &Path) {
    let scene = state.scene_as_shown();
    match crate::files::write_atomically(path, scene.to_json().as_bytes()) {
        Ok(()) => {
            state.files.scene_path = path.display().to_string();
            let full = crate::files::full_path(path);
            state.notices.info(format!("saved {}", full.display()));
            state.files.recent.add(FileKind::Scene, path);
        }
        Err(e) => (state.notices).error(format!("cannot save {}: {e}", path.display())),
    }
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
    match decoded {
        Ok(image) => show_flag_image(state, actions, path, image),
        Err(e) => state.notices.error(e.to_string()),
    }
}

/// A page's file (chosen, dropped or fetched from a link), by its name and bytes: a scene
/// (`.json`) is loaded, anything else put on the flag as an image. A file that cannot be used
/// leaves a message and changes nothing. Whether it was taken.
pub fn drop_bytes(
    state: &mut UiState,
    actions: &mut Vec<UiAction>,
    name: &str,
    bytes: Vec<u8>,
) -> bool {
    let json = Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        let scene = String::from_utf8(bytes)
            .map_err(|_| format!("{name} is not text"))
            .and_then(|text| Scene::from_json(&text, name).map_err(|e| e.to_string()));
        return match scene {
            Ok(scene) => load_scene(state, actions, scene, name),
            Err(e) => {
                state.notices.error(format!("{e}; the current scene stays"));
                false
            }
        };
    }
    match flag_texture::decode_flag_image(name, bytes) {
        Ok(image) => {
            show_flag_image(state, actions, Some(Path::new(name)), image);
            true
        }
        Err(e) => {
            state.notices.error(e.to_string());
            false
        }
    }
}

/// Puts `image` (from `path`; `None`: the built-in flag) on the flag, as [`set_flag_image`]
/// says.
fn show_flag_image(
    state: &mut UiState,
    actions: &mut Vec<UiAction>,
    path: Option<&Path>,
    image: image::RgbaImage,
) {
    if !state.scene.flags.is_empty() {
        return set_image_of_flag(state, actions, path, image);
    }
    let mut scene = state.scene.clone();
    scene.params = state.params.clone();
    scene.render = state.view.render.clone();
    scene.render.texture = path.map(Path::to_path_buf);
    let (w, h) = match path {
        Some(_) => image.dimensions(),
        // The built-in flag is drawn at 3:2 (512 × 341 pixels).
        None => (3, 2),
    };
    let resized = scene.fit_to_image(w, h);
    // A flag cut to its image's outline is cut anew to another image's.
    let recut = take_alpha(&mut scene, &image)
        && scene
            .cloth
            .grid
            .as_ref()
            .is_some_and(|g| g.shape == FlagShape::Image);
    if resized || recut {
        actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene.clone()))));
        actions.push(UiAction::ResetCamera);
    }
    state.notices.info(match path {
        Some(p) => format!(
            "flag image {} ({} × {} pixels as drawn)",
            p.display(),
            image.width(),
            image.height()
        ),
        None => "the built-in flag".into(),
    });
    state.view.render.texture.clone_from(&scene.render.texture);
    state.scene = scene;
    if let Some(path) = path {
        state.files.image_path = path.display().to_string();
        state.files.recent.add(FileKind::Image, path);
    }
    actions.push(UiAction::FlagImage(0, Box::new(image)));
}

/// [`set_flag_image`] for the selected flag of several: it keeps its height and takes the
/// image's proportions (the built-in flag's 3:2 for `None`) and its transparency, and starts
/// afresh; the others fly on.
fn set_image_of_flag(
    state: &mut UiState,
    actions: &mut Vec<UiAction>,
    path: Option<&Path>,
    image: image::RgbaImage,
) {
    let k = state.selected_flag;
    let mut scene = state.scene.clone();
    scene.place_flags();
    let Some(height) = scene.flag_scene(k).cloth.grid.map(|g| g.height) else {
        return;
    };
    let (w, h) = match path {
        Some(_) => image.dimensions(),
        None => (3, 2),
    };
    let Some(flag) = scene.flags.get_mut(k) else {
        return;
    };
    flag.image = path.map(Path::to_path_buf);
    flag.size = Some([height * f64::from(w) / f64::from(h.max(1)), height]);
    let alpha: Vec<u8> = image.pixels().map(|p| p[3]).collect();
    scene.set_alpha_of_flag(k, image.width() as usize, image.height() as usize, &alpha);
    let flag = scene.flags[k].clone();
    let before = actions.len();
    crate::ui::panels::flags::set_flag(state, actions, k, flag);
    if actions.len() == before {
        return;
    }
    state.notices.info(match path {
        Some(p) => format!("flag {}: image {}", k + 1, p.display()),
        None => format!("flag {}: the built-in flag", k + 1),
    });
    if let Some(path) = path {
        state.files.image_path = path.display().to_string();
        state.files.recent.add(FileKind::Image, path);
    }
    actions.push(UiAction::FlagImage(k, Box::new(image)));
}

/// Draws the image at `path` behind the flag instead of the sky (`None`: the sky again). The
/// path goes into the scene's `render.setting.background`, so *save* keeps it. A file that
/// cannot be used leaves a message and changes nothing.
pub fn set_background(state: &mut UiState, actions: &mut Vec<UiAction>, path: Option<&Path>) {
    match path.map(flag_texture::load_background_image).transpose() {
        Ok(image) => show_background(state, actions, path, image),
        Err(e) => state.notices.error(e.to_string()),
    }
}

/// [`set_background`] for a file's bytes, `name` naming it (a page's file chosen).
pub fn set_background_bytes(
    state: &mut UiState,
    actions: &mut Vec<UiAction>,
    name: &str,
    bytes: Vec<u8>,
) {
    match flag_texture::decode_background_image(name, bytes) {
        Ok(image) => show_background(state, actions, Some(Path::new(name)), Some(image)),
        Err(e) => state.notices.error(e.to_string()),
    }
}

/// Draws `image` (from `path`) behind the flag, or the sky again.
fn show_background(
    state: &mut UiState,
    actions: &mut Vec<UiAction>,
    path: Option<&Path>,
    image: Option<image::RgbaImage>,
) {
    state.notices.info(match (path, &image) {
        (Some(p), Some(image)) => format!(
            "background {} ({} × {} pixels)",
            p.display(),
            image.width(),
            image.height()
        ),
        _ => "the sky again, no background image".into(),
    });
    state.view.render.setting.background = path.map(Path::to_path_buf);
    if let Some(path) = path {
        state.files.background_path = path.display().to_string();
    }
    actions.push(UiAction::Background(image.map(Box::new)));
}

/// A file dropped on the window: a `.json` scene is loaded, anything else is tried as the
/// flag's image.
pub fn drop_file(state: &mut UiState, actions: &mut Vec<UiAction>, path: &Path) {
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        open_scene_file(state, actions, path);
    } else {
        set_flag_image(state, actions, Some(path));
    }
}

pub(crate) fn scene_files_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    egui::ComboBox::from_label("preset")
        .selected_text("load a preset…")
        .show_ui(ui, |ui| {
            for (name, _) in PRESETS {
                if ui.selectable_label(false, name).clicked() {
                    match Scene::load(name) {
                        Ok(scene) => {
                            load_scene(state, actions, scene, &format!("preset {name}"));
                        }
                        Err(e) => state.notices.error(e.to_string()),
                    }
                }
            }
        });
    if !IN_PAGE {
        ui.horizontal(|ui| {
            ui.label("file");
            ui.text_edit_singleline(&mut state.files.scene_path)
                .on_hover_text("A scene file (.json) to load or save; or drop one on the window");
        });
    }
    ui.horizontal(|ui| {
        if ui
            .button("open…")
            .on_hover_text(if IN_PAGE {
                "Choose a scene file (.json); or drop one on the page"
            } else {
                "Choose a scene file in your desktop's file dialog"
            })
            .clicked()
        {
            actions.push(UiAction::FileDialog(Pick::OpenScene));
        }
        let tip = "The loaded cloth with the current parameters and detail settings";
        if IN_PAGE {
            if ui
                .button("save as…")
                .on_hover_text(format!("{tip}, downloaded as a file"))
                .clicked()
            {
                actions.push(UiAction::FileDialog(Pick::SaveScene));
            }
            return;
        }
        if ui
            .button("load")
            .on_hover_text("Load the file typed above")
            .clicked()
        {
            let path = PathBuf::from(state.files.scene_path.trim());
            open_scene_file(state, actions, &path);
        }
        if ui.button("save").on_hover_text(tip).clicked() {
            let path = PathBuf::from(state.files.scene_path.trim());
            save_scene(state, &path);
        }
        if ui.button("save as…").on_hover_text(tip).clicked() {
            actions.push(UiAction::FileDialog(Pick::SaveScene));
        }
    });
    flag_image_ui(ui, state, actions);
    shape_ui(ui, state, actions);
    if !IN_PAGE {
        recent_ui(ui, state, actions);
    }
}

/// In a page there are no paths: files come from the file input and drops, and go out as
/// downloads, so the path fields, *load*, *save*, *use image* and the recent files (all paths)
/// are not shown there.
const IN_PAGE: bool = cfg!(target_arch = "wasm32");

/// The flag's shape: rectangle, swallowtail, pennant or burgee, and the notch's depth for the
/// notched ones. A change restarts the cloth at the new shape ([`set_shape`]).
fn shape_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let k = state.selected_flag;
    let current = if state.scene.flags.is_empty() {
        state.scene.cloth.grid.as_ref().map(|g| g.shape)
    } else {
        state.scene.flag_scene(k).cloth.grid.map(|g| g.shape)
    };
    let Some(current) = current else {
        return;
    };
    let mut shape = current;
    ui.horizontal(|ui| {
        ui.label("shape");
        egui::ComboBox::from_id_salt("flag shape")
            .selected_text(shape.name())
            .show_ui(ui, |ui| {
                for s in FlagShape::ALL {
                    if ui
                        .selectable_label(s.name() == shape.name(), s.name())
                        .clicked()
                    {
                        shape = s;
                    }
                }
            })
            .response
            .on_hover_text(
                "The flag's outline: the cloth keeps the nodes and springs of the cells it \
                 covers, and is drawn only inside it. A change restarts the cloth.",
            );
        if let Some(mut notch) = shape.notch() {
            let changed = ui
                .add(
                    egui::Slider::new(&mut notch, NOTCH_RANGE)
                        .text("notch")
                        .fixed_decimals(2),
                )
                .on_hover_text(
                    "How deep the notch is cut into the fly, a share of the width (0.05 to \
                     0.9; 1/3 for a swallowtail, 1/4 for a burgee unless the scene says)",
                )
                .changed();
            if changed {
                shape = shape.with_notch(notch);
            }
        }
    });
    if shape != current {
        set_shape(state, actions, shape);
    }
}

/// Gives the flag `shape` and restarts the cloth at it (with the current parameters and
/// detail settings); a shape the scene refuses leaves a message and changes nothing.
pub fn set_shape(state: &mut UiState, actions: &mut Vec<UiAction>, shape: FlagShape) {
    if !state.scene.flags.is_empty() {
        // One of several flags: it starts afresh at the shape, the others fly on.
        let k = state.selected_flag;
        if let Some(mut flag) = state.scene.flags.get(k).cloned() {
            flag.shape = Some(shape);
            crate::ui::panels::flags::set_flag(state, actions, k, flag);
        }
        return;
    }
    let mut scene = state.scene.clone();
    scene.params = state.params.clone();
    scene.render = state.view.render.clone();
    let Some(grid) = scene.cloth.grid.as_mut() else {
        state
            .notices
            .error("only a grid cloth has a shape".to_string());
        return;
    };
    grid.shape = shape;
    if let Err(e) = scene.validate() {
        state.notices.error(format!("shape {}: {e}", shape.name()));
        return;
    }
    state.scene = scene.clone();
    actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
}

/// The recent files: a click opens one again (a scene is loaded, an image put on the flag).
fn recent_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let mut open = None;
    ui.add_enabled_ui(!state.files.recent.is_empty(), |ui| {
        egui::ComboBox::from_id_salt("recent files")
            .selected_text("recent files…")
            .width(ui.available_width() - 8.0)
            .show_ui(ui, |ui| {
                for f in state.files.recent.iter() {
                    let name = f.path.file_name().map_or_else(
                        || f.path.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    );
                    let kind = match f.kind {
                        FileKind::Scene => "scene",
                        FileKind::Image => "image",
                    };
                    let clicked = ui
                        .selectable_label(false, format!("{kind}: {name}"))
                        .on_hover_text(f.path.display().to_string())
                        .clicked();
                    if clicked {
                        open = Some(f.clone());
                    }
                }
            });
    });
    if let Some(f) = open {
        match f.kind {
            FileKind::Scene => open_scene_file(state, actions, &f.path),
            FileKind::Image => set_flag_image(state, actions, Some(&f.path)),
        }
    }
}

/// The flag's image: *open…* and *built-in flag*, and on the desktop a path field and *use
/// image*.
fn flag_image_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let about = "The flag takes the image's width/height ratio (its height, along the pole, \
                 stays) unless the scene file gives both its width and height.";
    if !IN_PAGE {
        ui.horizontal(|ui| {
            ui.label("flag image");
            ui.text_edit_singleline(&mut state.files.image_path)
                .on_hover_text(format!(
                    "A PNG, JPEG or WebP file to draw on the flag; or drop one on the window. \
                     {about}"
                ));
        });
    }
    ui.horizontal(|ui| {
        if IN_PAGE {
            ui.label("flag image");
        }
        if ui
            .button("open…")
            .on_hover_text(if IN_PAGE {
                format!("Choose a PNG, JPEG or WebP image; or drop one on the page. {about}")
            } else {
                "Choose an image in your desktop's file dialog".to_owned()
            })
            .clicked()
        {
            actions.push(UiAction::FileDialog(Pick::OpenImage));
        }
        let typed = !state.files.image_path.trim().is_empty();
        if !IN_PAGE
            && ui
                .add_enabled(typed, egui::Button::new("use image"))
                .clicked()
        {
            let path = PathBuf::from(state.files.image_path.trim());
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
