//! The *Wind* panel: speed and direction, gusts, and the air model.

use egui::Ui;

use crate::sim::format::params::spec;
use crate::sim::format::params::{DragModel, Gust, LiftModel};
use crate::sim_thread::Command;
use crate::ui::widgets::{self, Edit};
use crate::ui::{UiAction, UiState};

/// `(speed m/s, azimuth deg from +X toward +Z, elevation deg)`.
pub(crate) fn wind_polar(v: [f64; 3]) -> (f64, f64, f64) {
    let [x, y, z] = v;
    let speed = (x * x + y * y + z * z).sqrt();
    if speed < 1e-12 {
        return (0.0, 0.0, 0.0);
    }
    let az = z.atan2(x).to_degrees();
    let el = (y / speed).clamp(-1.0, 1.0).asin().to_degrees();
    (speed, az, el)
}

pub(crate) fn wind_vector(speed: f64, az_deg: f64, el_deg: f64) -> [f64; 3] {
    let (az, el) = (az_deg.to_radians(), el_deg.to_radians());
    [
        speed * el.cos() * az.cos(),
        speed * el.sin(),
        speed * el.cos() * az.sin(),
    ]
}

impl Edit for Gust {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::real(ui, &spec::GUST_STRENGTH, &mut self.strength);
        changed |= widgets::real(ui, &spec::GUST_PERIOD, &mut self.period);
        let mut seed = u32::try_from(self.seed).unwrap_or(u32::MAX);
        if ui
            .add(
                egui::DragValue::new(&mut seed)
                    .range(0..=u32::MAX)
                    .prefix("seed "),
            )
            .on_hover_text(spec::GUST_SEED.help)
            .changed()
        {
            self.seed = u64::from(seed);
            changed = true;
        }
        changed
    }
}

fn choice<T: PartialEq + Copy>(
    ui: &mut Ui,
    label: &str,
    help: &str,
    value: &mut T,
    options: &[(T, &str)],
) -> bool {
    let mut changed = false;
    let selected = options
        .iter()
        .find(|(v, _)| v == value)
        .map_or("", |(_, name)| *name);
    egui::ComboBox::from_label(label)
        .selected_text(selected)
        .show_ui(ui, |ui| {
            for (v, name) in options {
                changed |= ui.selectable_value(value, *v, *name).changed();
            }
        })
        .response
        .on_hover_text(help);
    changed
}

pub(crate) fn wind_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let (mut speed, _, _) = wind_polar(state.params.wind.velocity);
    let mut changed = widgets::real(ui, &spec::WIND_SPEED, &mut speed);
    changed |= ui
        .add(
            egui::Slider::new(&mut state.azimuth_deg, -180.0..=180.0)
                .text("direction")
                .suffix("°"),
        )
        .on_hover_text(
            "Where the wind blows to, in the ground plane: 0° = +X (away from the pole).",
        )
        .changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut state.elevation_deg, -60.0..=60.0)
                .text("elevation")
                .suffix("°"),
        )
        .on_hover_text("Upward angle of the wind.")
        .changed();
    if changed {
        state.params.wind.velocity = wind_vector(speed, state.azimuth_deg, state.elevation_deg);
    }
    let w = &mut state.params.wind;
    changed |= w.gust.ui(ui);
    changed |= widgets::real(ui, &spec::DRAG, &mut w.drag);
    changed |= widgets::real(ui, &spec::LIFT, &mut w.lift);
    changed |= choice(
        ui,
        "lift model",
        spec::LIFT_MODEL.help,
        &mut w.lift_model,
        &[
            (LiftModel::Paper, "paper (eqs. 18–19)"),
            (LiftModel::Smooth, "smooth"),
        ],
    );
    changed |= choice(
        ui,
        "drag model",
        spec::DRAG_MODEL.help,
        &mut w.drag_model,
        &[
            (DragModel::SemiImplicit, "semi-implicit"),
            (DragModel::Explicit, "explicit (eq. 17)"),
        ],
    );
    changed |= widgets::real(ui, &spec::LINEAR, &mut w.linear);
    changed |= widgets::real(ui, &spec::RESPONSE, &mut w.response);
    if changed {
        actions.push(UiAction::Sim(Command::SetParams(Box::new(
            state.params.clone(),
        ))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wind_direction_round_trips_through_the_panel_angles() {
        for v in [
            [6.0, 0.0, 0.0],
            [0.0, 0.0, -3.0],
            [2.0, 1.0, 2.0],
            [-4.0, -1.0, 0.5],
        ] {
            let (s, az, el) = wind_polar(v);
            let back = wind_vector(s, az, el);
            for c in 0..3 {
                assert!((back[c] - v[c]).abs() < 1e-9, "{v:?} → {back:?}");
            }
        }
        // 0° blows along +X, 90° along +Z.
        let w = wind_vector(1.0, 90.0, 0.0);
        assert!(w[0].abs() < 1e-12 && (w[2] - 1.0).abs() < 1e-12);
    }
}
