//! The left panel: every panel in its order.

use egui::{RichText, Ui};

use crate::sim::runtime::snapshot::Snapshot;
use crate::ui::panels::{
    capture, cloth, detail, flags, lab, overlays, scene_files, setting, simulation, stats, wind,
};
use crate::ui::{FrameInfo, UiAction, UiState, notices};

/// The left panel's contents. Returns the actions the user asked for this frame.
pub(crate) fn controls(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    frame: &FrameInfo<'_>,
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    crate::ui::widgets::set_scene_values(ui.ctx(), &state.scene);
    // A solid scroll bar, always drawn while the panel is taller than the window (egui's
    // default floating one is invisible until hovered, so nothing shows there is more below).
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.heading("flagsim");
        ui.label(
            RichText::new("Kang et al.: approximate implicit cloth, wrinkled splines").small(),
        );
        ui.separator();
        egui::CollapsingHeader::new("Simulation")
            .default_open(true)
            .show(ui, |ui| {
                simulation::integrator_ui(ui, state, snap, &mut actions);
                simulation::device_ui(ui, state, snap, &mut actions);
                cloth::key_grid_ui(ui, state, snap, &mut actions);
                cloth::cloth_ui(ui, state, &mut actions);
                simulation::run_ui(ui, state, snap, &mut actions);
                ui.separator();
                scene_files::scene_files_ui(ui, state, &mut actions);
            });
        egui::CollapsingHeader::new(format!("Flags ({})", snap.flag_count()))
            .id_salt("flags")
            .default_open(!snap.flags.is_empty())
            .show(ui, |ui| flags::flags_ui(ui, state, snap, &mut actions));
        egui::CollapsingHeader::new("Lab")
            .default_open(!snap.lab.is_empty())
            .show(ui, |ui| lab::lab_ui(ui, state, snap, &mut actions));
        egui::CollapsingHeader::new("Wind")
            .default_open(true)
            .show(ui, |ui| wind::wind_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new("Detail")
            .default_open(false)
            .show(ui, |ui| detail::detail_ui(ui, state, frame, &mut actions));
        egui::CollapsingHeader::new("Setting")
            .default_open(false)
            .show(ui, |ui| setting::setting_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new("Overlays")
            .default_open(true)
            .show(ui, |ui| {
                overlays::overlays_ui(ui, state, snap, &mut actions);
            });
        egui::CollapsingHeader::new("Stats")
            .default_open(true)
            .show(ui, |ui| {
                ui.checkbox(&mut state.plots.shown, "live plots")
                    .on_hover_text(
                        "Kinetic energy, max strain and step time over time, under the view (and each \
                         cloth's distance from the lab's reference copy while it runs)",
                    );
                stats::stats_ui(ui, state, snap, frame);
            });
        egui::CollapsingHeader::new("Capture")
            .default_open(false)
            .show(ui, |ui| capture::capture_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new(format!("Messages ({})", state.notices.log().len()))
            .id_salt("messages")
            .default_open(false)
            .show(ui, |ui| notices::log_ui(ui, &state.notices));
        egui::CollapsingHeader::new("Settings")
            .default_open(false)
            .show(ui, |ui| settings_ui(ui, state, &mut actions));
        ui.separator();
        ui.label(RichText::new("h: keys and mouse help").small());
    });
    actions
}

/// Where the settings are kept, and *Reset to defaults*.
fn settings_ui(ui: &mut Ui, state: &UiState, actions: &mut Vec<UiAction>) {
    match &state.files.settings_place {
        Some(place) if cfg!(target_arch = "wasm32") => {
            ui.label("The camera, panel values and the last scene are kept in")
                .on_hover_text(
                    "Not the scene's image. Written a second after a change; a link's scene \
                     is shown before the last one.",
                );
            ui.label(RichText::new(place).small());
        }
        Some(place) => {
            ui.label(
                "Window, camera, panel values, the last scene and the recent files are kept in",
            )
            .on_hover_text("Written a second after a change and when the viewer closes");
            ui.label(RichText::new(place).monospace().small());
        }
        None if cfg!(target_arch = "wasm32") => {
            ui.label("Nothing is kept between visits: this browser keeps nothing for the page.");
        }
        None => {
            ui.label("Nothing is kept between runs (--no-persist).");
        }
    }
    if ui
        .button("Reset to defaults")
        .on_hover_text(
            "The window, camera, display, overlays, quality, render scale, time scale, record \
             rate, live plots, lab choice and path fields as on a first run. The scene, its \
             parameters and the recent files stay.",
        )
        .clicked()
    {
        actions.push(UiAction::ResetSettings);
    }
}
