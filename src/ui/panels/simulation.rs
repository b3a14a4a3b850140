//! The *Simulation* panel: the integrator and its step, run controls and the time scale.

use egui::Ui;

use crate::sim::format::device_choice::AUTO_GPU_NODES;
use crate::sim::format::params::spec;
use crate::sim::format::params::{CgSettings, ChoiKo, MultigridSettings, Wavelet};
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::{DeviceChoice, IntegratorKind};
use crate::sim_thread::Command;
use crate::ui::widgets::{self, Edit};
use crate::ui::{UiAction, UiState};

impl Edit for ChoiKo {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::real(ui, &spec::FLEXURAL_RIGIDITY, &mut self.flexural_rigidity);
        changed |= widgets::real(ui, &spec::BUCKLING_CLAMP, &mut self.buckling_clamp);
        changed
    }
}

impl Edit for CgSettings {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::real(ui, &spec::CG_TOLERANCE, &mut self.tolerance);
        changed |= widgets::whole(ui, &spec::CG_MAX_ITERATIONS, &mut self.max_iterations);
        changed
    }
}

impl Edit for MultigridSettings {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::real(ui, &spec::MG_TOLERANCE, &mut self.tolerance);
        changed |= widgets::whole(ui, &spec::MG_MAX_CYCLES, &mut self.max_cycles);
        changed
    }
}

impl Edit for Wavelet {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let mut changed = widgets::switch(ui, &spec::WAVELET, &mut self.enabled);
        if self.enabled {
            changed |= widgets::real(ui, &spec::WAVELET_THRESHOLD, &mut self.threshold);
        }
        changed
    }
}

/// The integrator, its step and its own settings; sends the parameters when they change.
pub(crate) fn integrator_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    let p = &mut state.params;
    let mut changed = false;
    // In the lab each copy has its own integrator: the panel shows copy 0's (what the keys
    // and this list change) and names the others'.
    let in_lab = !snap.lab.is_empty();
    if in_lab {
        p.integrator = snap.params.integrator;
    }
    let mut picked = p.integrator;
    egui::ComboBox::from_label(if in_lab {
        "integrator of copy 0"
    } else {
        "integrator"
    })
    .selected_text(picked.name())
    .show_ui(ui, |ui| {
        for kind in IntegratorKind::ALL {
            ui.selectable_value(&mut picked, kind, kind.name());
        }
    })
    .response
    .on_hover_text(spec::INTEGRATOR.help);
    if in_lab {
        let names: Vec<String> = (0..=snap.lab.len())
            .map(|i| crate::ui::panels::lab::copy_name(snap, i))
            .collect();
        ui.label(format!("the lab's copies: {}", names.join(", ")))
            .on_hover_text("Each copy keeps its own integrator; back to one cloth to choose one");
        if picked != p.integrator {
            p.integrator = picked;
            actions.push(UiAction::Sim(Command::SetIntegrator(picked)));
        }
    } else if picked != p.integrator {
        p.integrator = picked;
        changed = true;
    }
    changed |= widgets::real(ui, &spec::DT, &mut p.dt);
    changed |= widgets::whole(ui, &spec::SUBSTEPS, &mut p.substeps);
    let local_implicit = matches!(p.integrator, IntegratorKind::Kang | IntegratorKind::Hybrid);
    ui.add_enabled_ui(local_implicit, |ui| {
        changed |= widgets::whole(ui, &spec::JACOBI_ITERATIONS, &mut p.jacobi_iterations);
    });
    match p.integrator {
        IntegratorKind::Xpbd => {
            changed |= widgets::whole(ui, &spec::XPBD_SUBSTEPS, &mut p.xpbd_substeps);
        }
        IntegratorKind::ChoiKo => {
            changed |= p.choi_ko.ui(ui);
            changed |= p.cg.ui(ui);
        }
        IntegratorKind::ImplicitCg => changed |= p.cg.ui(ui),
        IntegratorKind::KangMg | IntegratorKind::ImplicitMg => changed |= p.multigrid.ui(ui),
        _ => {}
    }
    let on_grid = snap.grid.is_some();
    ui.add_enabled_ui(local_implicit && on_grid, |ui| {
        changed |= p.wavelet.ui(ui);
    })
    .response
    .on_disabled_hover_text("The wavelet interpolation is for kang and hybrid on a grid cloth.");
    if changed {
        actions.push(UiAction::Sim(Command::SetParams(Box::new(p.clone()))));
    }
}

/// Where the cloth steps: the CPU, the GPU (`kang-mg` or `implicit-mg` in f32), or `auto`;
/// and where it does now, with what the GPU mode has read back.
pub(crate) fn device_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    let status = &snap.device;
    let mut choice = status.choice;
    let gpu_help = match &status.adapter {
        Some(name) => format!(
            "gpu: kang-mg or implicit-mg steps on {name} in f32 (another integrator switches \
             to kang-mg), the node buffer drawn from there; auto: the GPU for a kang-mg cloth \
             of at least {AUTO_GPU_NODES} nodes on a hardware GPU (never on a CPU adapter such \
             as lavapipe, where it is slower)"
        ),
        None => NO_GPU.to_owned(),
    };
    egui::ComboBox::from_label("device")
        .selected_text(choice.name())
        .show_ui(ui, |ui| {
            for d in DeviceChoice::ALL {
                ui.selectable_value(&mut choice, d, d.name());
            }
        })
        .response
        .on_hover_text(gpu_help);
    if choice != status.choice {
        choose_device(state, choice, actions);
    }
    // Of several flags, each steps where the switch puts it (a flag the GPU refuses sends the
    // switch back to cpu, with the reason): the line counts them and adds up what was read
    // back.
    let (mut flags, mut on_gpu) = (0, 0);
    let mut r = crate::sim::runtime::device::ReadBacks::default();
    for flag in snap.all_flags() {
        flags += 1;
        if flag.device.on_gpu {
            on_gpu += 1;
        }
        r += flag.device.read_backs;
    }
    let where_ = match (on_gpu, flags) {
        (0, _) => None,
        (_, 1) => Some("on the GPU".to_owned()),
        (k, n) => Some(format!("{k} of {n} flags on the GPU")),
    };
    let text = match where_ {
        Some(place) => format!(
            "{place}: {} snapshots, {} waited read-backs, {:.1} MB",
            r.snapshots,
            r.waited,
            r.bytes as f64 / 1e6
        ),
        // Asked for the GPU, and none to step on.
        None if status.choice == DeviceChoice::Gpu && status.adapter.is_none() => {
            format!("on the CPU: {NO_GPU}")
        }
        None => "on the CPU".to_owned(),
    };
    ui.label(text);
}

/// Why the cloth steps on the CPU where no GPU was handed to the simulation: the step's
/// kernels are compute shaders, which a page drawing with WebGL2 does not have.
const NO_GPU: &str = if cfg!(target_arch = "wasm32") {
    "the GPU step needs WebGPU"
} else {
    "no GPU is open for the simulation"
};

/// The *device* list's choice: the GPU steps `kang-mg` and `implicit-mg` only, so choosing it
/// under another integrator switches to `kang-mg`, with a notice that says so.
pub(crate) fn choose_device(
    state: &mut UiState,
    choice: DeviceChoice,
    actions: &mut Vec<UiAction>,
) {
    if choice == DeviceChoice::Gpu && !state.params.integrator.steps_on_gpu() {
        state.notices.info(format!(
            "the GPU steps kang-mg and implicit-mg only: the integrator is now kang-mg (was {})",
            state.params.integrator.name()
        ));
        state.params.integrator = IntegratorKind::KangMg;
        actions.push(UiAction::Sim(Command::SetParams(Box::new(
            state.params.clone(),
        ))));
    }
    actions.push(UiAction::Sim(Command::SetDevice(choice)));
}

/// Run, step, reset and the time scale.
pub(crate) fn run_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    ui.horizontal(|ui| {
        let label = if snap.paused { "run" } else { "pause" };
        if ui.button(label).on_hover_text("Space").clicked() {
            actions.push(UiAction::Sim(Command::TogglePause));
        }
        if ui
            .button("step")
            .on_hover_text(". : one step while paused")
            .clicked()
        {
            actions.push(UiAction::Sim(Command::Step));
        }
        if ui
            .button("reset")
            .on_hover_text("r : back to the scene's start")
            .clicked()
        {
            actions.push(UiAction::Sim(Command::Reset));
        }
    });
    if widgets::real(ui, &spec::TIME_SCALE, &mut state.time_scale) {
        actions.push(UiAction::Sim(Command::SetTimeScale(state.time_scale)));
    }
}
