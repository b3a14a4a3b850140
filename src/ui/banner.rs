//! The banner over the view when the guard has stopped an integrator.

use egui::{Color32, RichText, Ui};

use crate::sim::IntegratorKind;
use crate::sim::format::params::spec;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::{UiAction, UiState};

/// The banner shown when the guard stopped an integrator: which, when, why, and the way out.
/// Of several flags, `stopped` lists those it stopped: the first is named (`snap` is its
/// snapshot) and *resume* goes to each (empty for a scene of one flag).
pub(crate) fn divergence_banner(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    stopped: &[usize],
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    let Some(d) = &snap.divergence else {
        return actions;
    };
    let which = stopped.first().map_or_else(String::new, |&k| {
        let name = state
            .scene
            .flags
            .get(k)
            .map_or_else(|| format!("flag {}", k + 1), |f| f.label(k));
        let more = match stopped.len() {
            1 => String::new(),
            n => format!(
                " (and {} more flag{})",
                n - 1,
                if n == 2 { "" } else { "s" }
            ),
        };
        format!("{name}{more}: ")
    });
    let resume = |actions: &mut Vec<UiAction>| {
        if stopped.is_empty() {
            actions.push(UiAction::Sim(Command::ClearDivergence));
        }
        for &k in stopped {
            let clear = Box::new(Command::ClearDivergence);
            actions.push(UiAction::Sim(Command::Flag(k, clear)));
        }
    };
    egui::Frame::new()
        .fill(Color32::from_rgb(150, 30, 25))
        .inner_margin(8.0)
        .show(ui, |ui| {
            ui.colored_label(
                Color32::WHITE,
                RichText::new(format!(
                    "{which}{} diverged at step {} (t = {:.2} s): {}",
                    d.integrator.name(),
                    d.step,
                    d.time,
                    d.reason
                ))
                .strong(),
            );
            ui.colored_label(
                Color32::WHITE,
                "The simulation is paused on the last good state.",
            );
            ui.horizontal(|ui| {
                if ui.button("reset").clicked() {
                    actions.push(UiAction::Sim(Command::Reset));
                }
                if ui.button("halve dt and resume").clicked() {
                    state.params.dt = (state.params.dt * 0.5).max(spec::DT.min);
                    actions.push(UiAction::Sim(Command::SetParams(Box::new(
                        state.params.clone(),
                    ))));
                    resume(&mut actions);
                }
                if ui.button("switch to implicit-mg and resume").clicked() {
                    actions.push(state.set_integrator(IntegratorKind::ImplicitMg));
                    resume(&mut actions);
                }
            });
        });
    actions
}
