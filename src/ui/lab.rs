//! The *Lab* panel: open the integrator lab on the current scene (2 to 4 integrators side by
//! side) or go back to one cloth, and search the largest stable `dt` of each cloth shown.

use std::sync::Arc;

use egui::{RichText, Ui};

use super::plots::colour;
use super::stats::REFRESH;
use super::{UiAction, UiState};
use crate::sim::IntegratorKind;
use crate::sim::lab::{CopySpec, MAX_COPIES, MIN_COPIES};
use crate::sim::stability::{self, Search};
use crate::sim::thread::Snapshot;

/// The integrators of the cloths shown: copy 0's, then the lab's others.
pub fn shown_integrators(snap: &Snapshot) -> Vec<IntegratorKind> {
    std::iter::once(snap)
        .chain(&snap.lab)
        .map(|s| s.params.integrator)
        .collect()
}

/// The largest stable `dt` found for each cloth shown, if a search for exactly these
/// integrators has found it.
pub fn stable_dt(state: &UiState, snap: &Snapshot) -> Vec<Option<f64>> {
    let kinds = shown_integrators(snap);
    match &state.dt_search {
        Some(s) if s.integrators == kinds && !s.cancelled() => s.results(),
        _ => vec![None; kinds.len()],
    }
}

/// Each cloth's step time and strain for its label, refreshed as the Stats panel is (every
/// [`REFRESH`] while running, at once while paused), so the labels do not make the panels be
/// painted anew every frame.
pub fn figures(state: &mut UiState, snap: &Snapshot) -> Vec<String> {
    let now = std::time::Instant::now();
    let n = 1 + snap.lab.len();
    let stale = state.lab_figures.as_ref().is_none_or(|(at, rows)| {
        snap.paused || rows.len() != n || now.duration_since(*at) >= REFRESH
    });
    if stale {
        let rows = std::iter::once(snap)
            .chain(&snap.lab)
            .map(|c| {
                format!(
                    "{:.0} µs  strain {:.1} %",
                    c.stats.step_seconds * 1e6,
                    (c.stats.max_strain - 1.0) * 100.0
                )
            })
            .collect();
        state.lab_figures = Some((now, rows));
    }
    state
        .lab_figures
        .as_ref()
        .map(|(_, rows)| rows.clone())
        .unwrap_or_default()
}

/// A search's result as the panels write it: the top of the search range and nothing stable
/// are said as such.
pub fn stable_text(dt: f64) -> String {
    if dt >= stability::DT_MAX {
        format!("{} s or more", stability::DT_MAX)
    } else if dt <= 0.0 {
        format!("below {} s", stability::DT_MIN)
    } else {
        format!("{dt:.4} s")
    }
}

pub fn lab_ui(ui: &mut Ui, state: &mut UiState, snap: &Snapshot, actions: &mut Vec<UiAction>) {
    if snap.lab.is_empty() {
        ui.label("Compare integrators side by side, from the same state, in lock-step:");
        ui.horizontal_wrapped(|ui| {
            for (kind, picked) in IntegratorKind::ALL.iter().zip(&mut state.lab_pick) {
                ui.checkbox(picked, kind.name());
            }
        });
        let picked: Vec<CopySpec> = IntegratorKind::ALL
            .iter()
            .zip(&state.lab_pick)
            .filter(|(_, p)| **p)
            .map(|(k, _)| CopySpec {
                integrator: *k,
                dt: None,
            })
            .collect();
        let n = picked.len();
        let ok = (MIN_COPIES..=MAX_COPIES).contains(&n);
        if ui
            .add_enabled(ok, egui::Button::new("open the lab"))
            .on_disabled_hover_text(format!("Pick {MIN_COPIES} to {MAX_COPIES} integrators"))
            .clicked()
        {
            actions.push(UiAction::SetLab(picked));
        }
    } else {
        ui.horizontal_wrapped(|ui| {
            for (i, kind) in shown_integrators(snap).iter().enumerate() {
                ui.label(RichText::new(kind.name()).color(colour(i)).strong());
            }
        });
        if ui.button("back to one cloth").clicked() {
            actions.push(UiAction::SetLab(Vec::new()));
        }
    }
    ui.separator();
    search_ui(ui, state, snap);
}

/// *Largest stable dt*: starts the bench's bisection for every cloth shown on the scene as it is
/// now, in the background; progress and cancel while it runs, the results after.
fn search_ui(ui: &mut Ui, state: &mut UiState, snap: &Snapshot) {
    let kinds = shown_integrators(snap);
    let running = state.dt_search.as_ref().is_some_and(|s| !s.finished());
    if let Some(search) = state.dt_search.as_ref().filter(|_| running) {
        ui.horizontal(|ui| {
            ui.add(egui::ProgressBar::new(search.progress() as f32).show_percentage());
            if ui.button("cancel").clicked() {
                search.cancel();
            }
        });
        // The bar moves while nothing else asks for a frame.
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(250));
    } else if ui
        .button("find the largest stable dt")
        .on_hover_text(format!(
            "Bisection on dt from {} to {} s, {} simulated s a trial (as flagsim bench), for \
             each cloth shown, on the scene with the current parameters; in the background",
            stability::DT_MIN,
            stability::DT_MAX,
            stability::SECONDS
        ))
        .clicked()
    {
        let mut scene = state.scene.clone();
        scene.params = state.params.clone();
        state.dt_search = Some(Arc::new(Search::start(scene, kinds.clone())));
    }
    let results = stable_dt(state, snap);
    if results.iter().any(Option::is_some) {
        egui::Grid::new("stable dt").num_columns(2).show(ui, |ui| {
            for (i, (kind, dt)) in kinds.iter().zip(results).enumerate() {
                ui.label(RichText::new(kind.name()).color(colour(i)));
                ui.label(dt.map_or("…".into(), stable_text));
                ui.end_row();
            }
        });
    } else if state.dt_search.as_ref().is_some_and(|s| s.cancelled()) {
        ui.label("cancelled");
    }
}
