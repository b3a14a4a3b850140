//! The *Capture* panel: screenshots and PNG sequences.

use egui::Ui;

use super::{UiAction, UiState};

pub fn capture_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    ui.checkbox(&mut state.screenshot_panels, "include the panels");
    if ui
        .button("screenshot (F12)")
        .on_hover_text("Saves a PNG in screenshots/")
        .clicked()
    {
        actions.push(UiAction::Screenshot);
    }
    ui.separator();
    ui.add_enabled_ui(state.recording.is_none(), |ui| {
        ui.add(
            egui::Slider::new(&mut state.record_fps, 1.0..=120.0)
                .text("record rate")
                .suffix(" frames per simulated s"),
        )
        .on_hover_text("Frames are taken at this simulated rate, whatever the display does.");
    });
    let label = if state.recording.is_some() {
        "stop recording"
    } else {
        "record PNG sequence"
    };
    if ui.button(label).clicked() {
        actions.push(UiAction::ToggleRecording);
    }
    if let Some(r) = &state.recording {
        ui.label(format!("{} frames in {}", r.frames, r.dir.display()));
    }
}
