//! Presets, and loading and saving scene files.

use egui::Ui;

use super::{UiAction, UiState};
use crate::sim::scene::{PRESETS, Scene};
use crate::sim::thread::Command;

fn load(state: &mut UiState, actions: &mut Vec<UiAction>, scene: Scene, what: String) {
    state.message = Some((format!("loaded {what}"), false));
    state.view.render = scene.render.clone();
    state.scene = scene.clone();
    actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
    actions.push(UiAction::ResetCamera);
}

pub fn scene_files_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    egui::ComboBox::from_label("preset")
        .selected_text("load a preset…")
        .show_ui(ui, |ui| {
            for (name, _) in PRESETS {
                if ui.selectable_label(false, name).clicked() {
                    match Scene::load(name) {
                        Ok(scene) => load(state, actions, scene, format!("preset {name}")),
                        Err(e) => state.message = Some((e.to_string(), true)),
                    }
                }
            }
        });
    ui.horizontal(|ui| {
        ui.label("file");
        ui.text_edit_singleline(&mut state.scene_path)
            .on_hover_text("A scene file (.json) to load or save");
    });
    ui.horizontal(|ui| {
        if ui.button("load scene").clicked() {
            match Scene::from_file(std::path::Path::new(&state.scene_path)) {
                Ok(scene) => {
                    let what = state.scene_path.clone();
                    load(state, actions, scene, what);
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
            state.message = Some(match std::fs::write(&state.scene_path, scene.to_json()) {
                Ok(()) => (format!("saved {}", state.scene_path), false),
                Err(e) => (format!("cannot save {}: {e}", state.scene_path), true),
            });
        }
    });
}
