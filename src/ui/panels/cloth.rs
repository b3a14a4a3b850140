//! The *Cloth* controls: the key grid, mass, springs, strain limiting and the pole's scripted
//! motion.

use egui::Ui;

use crate::sim::format::params::spec;
use crate::sim::format::params::{Handle, HandlePath, Hoist, Provot, Stiffness};
use crate::sim::format::scene::GRID_SIDE;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::widgets::{self, Edit};
use crate::ui::{UiAction, UiState};

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
            changed |= widgets::real(ui, &spec::MAX_COMPRESSION, &mut self.max_compression);
            changed |= widgets::switch(ui, &spec::LIMIT_SHEAR, &mut self.shear);
            changed |= widgets::whole(ui, &spec::PROVOT_ITERATIONS, &mut self.iterations);
            changed |= widgets::whole(ui, &spec::STRAIN_LEVELS, &mut self.levels);
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

/// Where a flag goes: to the top of its pole, half-mast, or down.
pub(crate) const HOIST_STOPS: [(&str, f64, &str); 3] = [
    (
        "raise",
        Hoist::TOP,
        "Raise the flag to the top of its pole (key +)",
    ),
    (
        "half-mast",
        Hoist::HALF_MAST,
        "Lower the flag to half-mast (key m)",
    ),
    (
        "lower",
        Hoist::BOTTOM,
        "Lower the flag to the ground (key -)",
    ),
];

/// The hoist: *raise*, *half-mast*, *lower*, where to (a slider) and how fast, and where the
/// flag is now (`now`, a share of the way up). Whether anything changed.
fn hoist_ui(ui: &mut Ui, hoist: &mut Hoist, now: f64, which: &str) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        for (label, height, tip) in HOIST_STOPS {
            let here = (hoist.height - height).abs() < 1e-9;
            if ui
                .add_enabled(!here, egui::Button::new(label))
                .on_hover_text(tip)
                .clicked()
            {
                hoist.height = height;
                changed = true;
            }
        }
    });
    changed |= widgets::real(ui, &spec::HOIST_HEIGHT, &mut hoist.height);
    changed |= widgets::real(ui, &spec::HOIST_SPEED, &mut hoist.speed);
    let moving = (now - hoist.height).abs() > 1e-6;
    let going = if now < hoist.height {
        "going up"
    } else {
        "going down"
    };
    ui.label(if moving {
        format!("{which} is {:.0} % of the way up, {going}", 100.0 * now)
    } else {
        format!("{which} is {:.0} % of the way up", 100.0 * now)
    });
    changed
}

/// Mass, springs, strain limiting and the pole; sends what changed.
pub(crate) fn cloth_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    if widgets::real(ui, &spec::TOTAL_MASS, &mut state.total_mass) {
        actions.push(UiAction::Sim(Command::SetTotalMass(state.total_mass)));
    }
    // Of several flags, the hoist is the selected one's: the line names it.
    let which = match state.scene.flags.get(state.selected_flag) {
        Some(flag) => flag.label(state.selected_flag),
        None => "the flag".to_string(),
    };
    let p = &mut state.params;
    let mut changed = p.stiffness.ui(ui);
    changed |= widgets::real(ui, &spec::DAMPING, &mut p.damping);
    changed |= widgets::switch(ui, &spec::VISCOSITY, &mut p.viscosity);
    changed |= widgets::switch(ui, &spec::FILTER_EXTERNAL, &mut p.filter_external);
    changed |= p.provot.ui(ui);
    changed |= p.handle.ui(ui);
    changed |= hoist_ui(ui, &mut p.hoist, state.hoist_now, &which);
    if changed {
        actions.push(UiAction::Sim(Command::SetParams(Box::new(p.clone()))));
    }
}

/// What the key-grid slider does, for its tooltip.
const KEY_GRID_HELP: &str = "Simulated key nodes along the flag's width (the height's follow \
the grid's proportions), 2 to 1024. Let go and the cloth starts again at the new grid with the \
same size, total mass, springs and wind; the render grid is raised to at least the key grid. \
Large grids step faster on the GPU (Simulation: device).";

/// The key grid: a slider of the nodes along the width; let go, the cloth is rebuilt at that
/// grid ([`set_key_grid`]). Below it, what a step costs at the grid running now.
pub(crate) fn key_grid_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    let Some((nx, ny)) = state.scene.cloth.grid.as_ref().map(|g| (g.nx, g.ny)) else {
        ui.label("key grid: none (a cloth of nodes and springs)");
        return;
    };
    let mut n = state.key_grid_drag.unwrap_or(nx);
    let response = ui
        .add(
            egui::Slider::new(&mut n, GRID_SIDE)
                .logarithmic(true)
                .text("key nodes (width)"),
        )
        .on_hover_text(KEY_GRID_HELP);
    let released = response.drag_stopped() || (response.changed() && !response.dragged());
    state.key_grid_drag = response.dragged().then_some(n);
    if released && n != nx {
        state.key_grid_drag = None;
        let height = state.scene.proportional_height(n).unwrap_or(ny);
        set_key_grid(state, actions, n, height);
    }
    ui.label(key_grid_cost(nx, ny, snap));
}

/// The grid running and what its step costs: its wall time and how many times faster than
/// real time the CPU steps it, or the steps a second on the GPU.
pub(crate) fn key_grid_cost(nx: usize, ny: usize, snap: &Snapshot) -> String {
    let step = snap.stats.step_seconds;
    if snap.device.on_gpu {
        format!(
            "{nx} × {ny} key nodes, on the GPU: {:.0} steps/s",
            snap.steps_per_second
        )
    } else if step > 0.0 {
        format!(
            "{nx} × {ny} key nodes: a step {:.2} ms, {:.1} × real time",
            step * 1e3,
            snap.params.dt / step
        )
    } else {
        format!("{nx} × {ny} key nodes")
    }
}

/// Restarts the cloth at a key grid of `nx × ny` nodes with the current parameters and detail
/// settings ([`crate::sim::Scene::with_key_grid`]: the same size, mass, springs and wind); a grid
/// the scene refuses leaves a message and changes nothing.
pub(crate) fn set_key_grid(state: &mut UiState, actions: &mut Vec<UiAction>, nx: usize, ny: usize) {
    let mut scene = state.scene.clone();
    scene.params = state.params.clone();
    scene.render = state.view.render.clone();
    match scene.with_key_grid(nx, ny) {
        Ok(scene) => {
            state.view.render.resolution = scene.render.resolution;
            state.scene = scene.clone();
            actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
        }
        Err(e) => state.notices.error(format!("key grid {nx} × {ny}: {e}")),
    }
}
