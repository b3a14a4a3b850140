//! The *Cloth* controls: mass, springs, strain limiting and the pole's scripted motion.

use egui::Ui;

use super::widgets::{self, Edit};
use super::{UiAction, UiState};
use crate::sim::params::spec;
use crate::sim::params::{Handle, HandlePath, Provot, Stiffness};
use crate::sim::thread::Command;

impl Edit for Stiffness {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::real(ui, &spec::STRUCTURAL, &mut self.structural);
        changed |= widgets::real(ui, &spec::SHEAR, &mut self.shear);
        changed |= widgets::real(ui, &spec::BEND, &mut self.bend);
        changed
    }
}

impl Edit for Provot {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::switch(ui, &spec::PROVOT, &mut self.enabled);
        ui.add_enabled_ui(self.enabled, |ui| {
            changed |= widgets::real(ui, &spec::MAX_STRETCH, &mut self.max_stretch);
            changed |= widgets::whole(ui, &spec::PROVOT_ITERATIONS, &mut self.iterations);
            changed |= widgets::switch(ui, &spec::TETHERS, &mut self.tethers);
            ui.add_enabled_ui(self.tethers, |ui| {
                changed |= widgets::real(ui, &spec::TETHER_STRETCH, &mut self.tether_stretch);
            });
        });
        changed
    }
}

impl Edit for Handle {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut waving = self.path == HandlePath::Figure8;
        let mut changed = ui
            .checkbox(&mut waving, "wave the pole (figure 8)")
            .on_hover_text(spec::HANDLE_PATH.help)
            .changed();
        if changed {
            self.path = if waving {
                HandlePath::Figure8
            } else {
                HandlePath::None
            };
        }
        if waving {
            changed |= widgets::real(ui, &spec::HANDLE_AMPLITUDE, &mut self.amplitude);
            changed |= widgets::real(ui, &spec::HANDLE_PERIOD, &mut self.period);
        }
        changed
    }
}

/// Mass, springs, strain limiting and the pole; sends what changed.
pub fn cloth_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    if widgets::real(ui, &spec::TOTAL_MASS, &mut state.total_mass) {
        actions.push(UiAction::Sim(Command::SetTotalMass(state.total_mass)));
    }
    let p = &mut state.params;
    let mut changed = p.stiffness.ui(ui);
    changed |= widgets::real(ui, &spec::DAMPING, &mut p.damping);
    changed |= widgets::switch(ui, &spec::VISCOSITY, &mut p.viscosity);
    changed |= widgets::switch(ui, &spec::FILTER_EXTERNAL, &mut p.filter_external);
    changed |= p.provot.ui(ui);
    changed |= p.handle.ui(ui);
    if changed {
        actions.push(UiAction::Sim(Command::SetParams(Box::new(p.clone()))));
    }
}
