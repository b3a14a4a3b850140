//! The *Flags* panel: the scene's flags, which one the panels edit, adding and removing flags,
//! and the selected flag's name and pole.
//!
//! Each change goes to the simulation thread as one command ([`Command::AddFlag`],
//! [`Command::RemoveFlag`], [`Command::SetFlag`]); the other flags fly on. The panel's copy of
//! the scene ([`UiState::scene`]) follows, its poles placed where they stand
//! ([`Scene::place_flags`]), so *save* writes what is shown.

use egui::Ui;

use crate::render::passes::flag_texture;
use crate::sim::format::flag_spec::{FlagSpec, MAX_POLE_HEIGHT};
use crate::sim::format::flags::MAX_FLAGS;
use crate::sim::format::scene::Scene;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::{UiAction, UiState};

pub(crate) fn flags_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    if !snap.lab.is_empty() {
        ui.label("The lab compares copies of the first flag; close it to change the flags.");
        return;
    }
    let count = state.scene.flag_count();
    let list = state.scene.flag_list();
    for (k, flag) in list.iter().enumerate() {
        let hoist = snap.flag(k).map_or(1.0, |f| f.hoist);
        let text = format!("{} · {:.0} % up the pole", flag.label(k), 100.0 * hoist);
        if ui
            .selectable_label(k == state.selected_flag, text)
            .on_hover_text("Select it: the panels edit it, the hoist keys move it (or click it)")
            .clicked()
        {
            state.select_flag(k, snap);
        }
    }
    ui.horizontal(|ui| {
        if ui
            .add_enabled(count < MAX_FLAGS, egui::Button::new("add flag"))
            .on_hover_text("Another flag on a pole of its own, next along the row")
            .clicked()
        {
            add_flag(state, actions);
        }
        if ui
            .add_enabled(count > 1, egui::Button::new("remove"))
            .on_hover_text("Takes the selected flag and its pole away")
            .clicked()
        {
            remove_flag(state, actions, state.selected_flag);
        }
    });
    pole_ui(ui, state, actions);
}

/// The selected flag's name, and where its pole stands and how tall it is.
fn pole_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let k = state.selected_flag;
    let mut placed = state.scene.clone();
    placed.place_flags();
    let Some(mut flag) = placed.flags.get(k).cloned() else {
        return;
    };
    ui.horizontal(|ui| {
        ui.label("name");
        let mut name = flag.name.clone();
        if ui
            .text_edit_singleline(&mut name)
            .on_hover_text("Shown in this list and kept in the scene file")
            .changed()
        {
            flag.name = name;
            placed.flags[k].name.clone_from(&flag.name);
            state.scene = placed.clone();
        }
    });
    let [mut x, mut y, mut z] = flag.pole.position.unwrap_or_default();
    let mut height = flag.pole.height.unwrap_or(1.0);
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label("pole at");
        for (label, v) in [("x", &mut x), ("y", &mut y), ("z", &mut z)] {
            changed |= ui
                .add(
                    egui::DragValue::new(v)
                        .speed(0.02)
                        .range(-1e3..=1e3)
                        .prefix(format!("{label} "))
                        .suffix(" m"),
                )
                .on_hover_text("Where the pole's foot stands; the flag starts afresh there")
                .changed();
        }
    });
    changed |= ui
        .add(
            egui::Slider::new(&mut height, 0.1..=20.0)
                .text("pole height")
                .suffix(" m"),
        )
        .on_hover_text(
            "From the foot to the top of the flag's hoist edge (0.1 to 20 here; a scene file \
             may give up to 1000 m)",
        )
        .changed();
    if changed {
        flag.pole.position = Some([x, y, z]);
        flag.pole.height = Some(height.clamp(1e-3, MAX_POLE_HEIGHT));
        set_flag(state, actions, k, flag);
    }
}

/// Adds a flag at the end of the list, next along the row, with the scene's image, and
/// selects it.
pub fn add_flag(state: &mut UiState, actions: &mut Vec<UiAction>) {
    let mut scene = state.scene.clone();
    scene.place_flags();
    if scene.flags.len() >= MAX_FLAGS {
        (state.notices).error(format!("a scene flies at most {MAX_FLAGS} flags"));
        return;
    }
    scene.flags.push(scene.next_flag());
    let k = scene.flags.len() - 1;
    let image = match flag_image(&mut scene, k) {
        Ok(image) => image,
        Err(e) => {
            state.notices.error(format!("add flag: {e}"));
            return;
        }
    };
    if let Err(e) = scene.validate() {
        state.notices.error(format!("add flag: {e}"));
        return;
    }
    actions.push(UiAction::Sim(Command::AddFlag(Box::new(
        scene.flags[k].clone(),
    ))));
    actions.push(UiAction::FlagImage(k, Box::new(image)));
    actions.push(UiAction::ResetCamera);
    state.params.hoist = scene.flag_scene(k).params.hoist;
    state.scene = scene;
    state.selected_flag = k;
    state.notices.info(format!("added flag {}", k + 1));
}

/// Removes flag `k`; the one after it (or the last) is selected.
pub fn remove_flag(state: &mut UiState, actions: &mut Vec<UiAction>, k: usize) {
    let mut scene = state.scene.clone();
    if scene.flag_count() <= 1 || k >= scene.flag_count() {
        return;
    }
    scene.place_flags();
    let label = scene.flags[k].label(k);
    scene.flags.remove(k);
    actions.push(UiAction::Sim(Command::RemoveFlag(k)));
    actions.push(UiAction::FlagRemoved(k));
    state.selected_flag = k.min(scene.flags.len() - 1);
    state.scene = scene;
    state.notices.info(format!("removed {label}"));
}

/// Flag `k` becomes `flag`, starting afresh (the others fly on); refused with a message when
/// the scene refuses it.
pub(crate) fn set_flag(state: &mut UiState, actions: &mut Vec<UiAction>, k: usize, flag: FlagSpec) {
    let mut scene = state.scene.clone();
    scene.place_flags();
    let Some(slot) = scene.flags.get_mut(k) else {
        return;
    };
    *slot = flag;
    if let Err(e) = scene.validate() {
        state.notices.error(e.to_string());
        return;
    }
    actions.push(UiAction::Sim(Command::SetFlag(
        k,
        Box::new(scene.flags[k].clone()),
    )));
    state.scene = scene;
}

/// Flag `k`'s image (its own, the scene's, or the built-in flag), decoded and checked, with
/// the flag fitted to its proportions and cut to its transparency.
pub(crate) fn flag_image(scene: &mut Scene, k: usize) -> Result<image::RgbaImage, String> {
    let texture = scene.flag_scene(k).render.texture;
    let image = match &texture {
        Some(path) => flag_texture::load_flag_image(path),
        None => flag_texture::default_flag_image(),
    }
    .map_err(|e| e.to_string())?;
    if texture.is_some() {
        scene.fit_flag_to_image(k, image.width(), image.height());
    }
    let alpha: Vec<u8> = image.pixels().map(|p| p[3]).collect();
    scene.set_alpha_of_flag(k, image.width() as usize, image.height() as usize, &alpha);
    Ok(image)
}
