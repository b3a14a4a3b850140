//! The *Setting* panel: the sky (one colour or a gradient), a background image, the ground, the
//! pole's colour and its finial. What it changes is drawn from the next frame and saved with the
//! scene (`render.setting`); the simulation is not involved (a ground collider stays a collider
//! with the ground hidden).

use std::path::PathBuf;

use egui::Ui;

use crate::sim::format::params::spec;
use crate::sim::format::setting::{Color, Finial, Setting};
use crate::ui::panels::scene_files::{self, Pick};
use crate::ui::{UiAction, UiState, widgets};

/// A colour button (egui's picker, in 8-bit sRGB as a scene writes `"#rrggbb"`); whether the
/// colour changed.
fn color_button(ui: &mut Ui, color: &mut Color, tip: &str) -> bool {
    let mut rgb = color.to_rgb8();
    let changed = ui
        .color_edit_button_srgb(&mut rgb)
        .on_hover_text(format!("{tip} ({})", color.hex()))
        .changed();
    if changed {
        *color = Color::from_rgb8(rgb);
    }
    changed
}

/// A horizon for a sky that was one colour: the colour two thirds of the way to white.
pub(crate) fn paler(color: Color) -> Color {
    Color(color.0.map(|c| c + (1.0 - c) * (2.0 / 3.0)))
}

pub(crate) fn setting_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    sky_ui(ui, &mut state.view.render.setting);
    background_ui(ui, state, actions);
    let setting = &mut state.view.render.setting;
    widgets::switch(ui, &spec::GROUND_SHOWN, &mut setting.ground);
    ui.horizontal(|ui| {
        ui.label("pole");
        color_button(ui, &mut setting.pole_color, spec::POLE_COLOR.help);
        egui::ComboBox::from_id_salt("finial")
            .selected_text(setting.finial.name())
            .show_ui(ui, |ui| {
                for finial in Finial::ALL {
                    ui.selectable_value(&mut setting.finial, finial, finial.name());
                }
            })
            .response
            .on_hover_text(spec::FINIAL.help);
        ui.add_enabled_ui(setting.finial != Finial::None, |ui| {
            color_button(ui, &mut setting.finial_color, spec::FINIAL_COLOR.help);
        });
    });
    let default = Setting::default();
    if ui
        .add_enabled(*setting != default, egui::Button::new("default setting"))
        .on_hover_text(
            "The blue sky, no background image, the ground, a grey pole with a gold ball",
        )
        .clicked()
    {
        let had_background = setting.background.is_some();
        *setting = default;
        if had_background {
            scene_files::set_background(state, actions, None);
        }
    }
}

fn sky_ui(ui: &mut Ui, setting: &mut Setting) {
    let sky = &mut setting.sky;
    ui.horizontal(|ui| {
        ui.label("sky");
        let mut gradient = !sky.is_plain();
        if gradient {
            color_button(ui, &mut sky.zenith, "The sky straight up");
            color_button(
                ui,
                &mut sky.horizon,
                "The sky at the horizon (and the ground's haze)",
            );
        } else if color_button(ui, &mut sky.zenith, "The whole sky") {
            sky.horizon = sky.zenith;
        }
        if ui
            .checkbox(&mut gradient, "gradient")
            .on_hover_text(spec::SKY.help)
            .changed()
        {
            sky.horizon = if gradient {
                paler(sky.zenith)
            } else {
                sky.zenith
            };
        }
    });
    if setting.background.is_some() {
        ui.label(egui::RichText::new("(the background image covers the sky)").small());
    }
}

/// The background image: *open…* and *sky*, and on the desktop a path field and *use image*
/// (in a page a path means nothing: the image comes from the browser's file chooser).
fn background_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let in_page = cfg!(target_arch = "wasm32");
    ui.horizontal(|ui| {
        ui.label("background");
        if !in_page {
            ui.text_edit_singleline(&mut state.files.background_path)
                .on_hover_text(spec::BACKGROUND.help);
        }
    });
    ui.horizontal(|ui| {
        if ui
            .button("open…")
            .on_hover_text(if in_page {
                "Choose a PNG, JPEG or WebP image to draw behind the flag instead of the sky"
            } else {
                "Choose an image in your desktop's file dialog"
            })
            .clicked()
        {
            actions.push(UiAction::FileDialog(Pick::OpenBackground));
        }
        let typed = !state.files.background_path.trim().is_empty();
        if !in_page
            && ui
                .add_enabled(typed, egui::Button::new("use image"))
                .clicked()
        {
            let path = PathBuf::from(state.files.background_path.trim());
            scene_files::set_background(state, actions, Some(&path));
        }
        let shown = state.view.render.setting.background.is_some();
        if ui.add_enabled(shown, egui::Button::new("sky")).clicked() {
            scene_files::set_background(state, actions, None);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paler_colour_is_two_thirds_of_the_way_to_white() {
        let c = paler(Color([0.0, 0.3, 1.0]));
        for (got, want) in c.0.iter().zip([2.0 / 3.0, 0.3 + 0.7 * 2.0 / 3.0, 1.0]) {
            assert!((got - want).abs() < 1e-6, "{c:?}");
        }
    }
}
