//! The *Overlays* panel: wireframes, the velocity-change segments, the Fig. 8 comparison and
//! the colour mode.

use egui::Ui;

use crate::render::ColorMode;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::{UiAction, UiState};

pub(crate) fn overlays_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    let v = &mut state.view;
    ui.checkbox(&mut v.key_wireframe, "key mesh (w)")
        .on_hover_text("The 10 × 10 simulated springs as lines.");
    ui.checkbox(&mut v.render_wireframe, "render mesh")
        .on_hover_text("The edges of the upsampled render mesh.");
    ui.checkbox(&mut v.dv_overlay, "velocity change Δv (v)")
        .on_hover_text("One red segment per key node: the last step's Δv × scale.");
    ui.add(
        egui::Slider::new(&mut v.dv_scale, 0.001..=2.0)
            .logarithmic(true)
            .text("Δv scale")
            .suffix(" s"),
    )
    .on_hover_text("Segment length per m/s of velocity change.");
    if ui
        .checkbox(&mut v.compare, "compare with the precomputed filter")
        .on_hover_text(
            "The paper's Fig. 8: this integrator's Δv (red) and the exact filter's (blue) from \
             the same state, with their agreement.",
        )
        .changed()
    {
        actions.push(UiAction::Sim(Command::SetCompare(v.compare)));
    }
    if v.compare {
        match &snap.compare {
            Some(c) => {
                ui.label(format!(
                    "cosine similarity {:.5}\nrelative error {:.3} %",
                    c.cosine,
                    100.0 * c.relative_error
                ));
            }
            None => {
                ui.label("(computed after the next step)");
            }
        }
    }
    egui::ComboBox::from_label("colours")
        .selected_text(v.color_mode.name())
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut v.color_mode, ColorMode::Texture, "texture");
            ui.selectable_value(&mut v.color_mode, ColorMode::NodeType, "node-type")
                .on_hover_text("Key nodes red, frame nodes blue, internal nodes yellow (Fig. 2).");
            ui.selectable_value(&mut v.color_mode, ColorMode::Strain, "strain")
                .on_hover_text("Blue compressed, white at rest, red stretched (±10 %).");
            ui.selectable_value(&mut v.color_mode, ColorMode::Integration, "integration")
                .on_hover_text(
                    "Wavelet interpolation (Chi 2007): yellow around key nodes the last step \
                     interpolated, red around integrated ones.",
                );
        });
}
