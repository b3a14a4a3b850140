//! The *Lab* panel: open the integrator lab on the current scene (2 to 4 integrators side by
//! side) or go back to one cloth, and search the largest stable `dt` of each cloth shown.

use egui::{RichText, Ui};

use crate::sim::format::scene::GRID_SIDE;
use crate::sim::lab::copies::{CopyGrid, CopySpec, MAX_COPIES, MIN_COPIES};
use crate::sim::lab::motion::{Motion, is_still, relative_difference};
use crate::sim::lab::stability::{self, Closeness};
use crate::sim::model::shape;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::{DeviceChoice, IntegratorKind};
use crate::sim_thread::Command;
use crate::sim_thread::Found;
use crate::sim_thread::MOTION_WINDOW;
use crate::ui::plots::REFRESH;
use crate::ui::plots::colour;
use crate::ui::{UiAction, UiState};

/// The integrators of the cloths shown: copy 0's, then the lab's others.
pub(crate) fn shown_integrators(snap: &Snapshot) -> Vec<IntegratorKind> {
    std::iter::once(snap)
        .chain(&snap.lab)
        .map(|s| s.params.integrator)
        .collect()
}

/// The key grid of each cloth shown where it is not the scene's (`None` where it is).
pub(crate) fn shown_grids(state: &UiState, snap: &Snapshot) -> Vec<Option<[usize; 2]>> {
    let scene = state.scene.cloth.grid.as_ref().map(|g| [g.nx, g.ny]);
    std::iter::once(snap)
        .chain(&snap.lab)
        .map(|s| s.grid.map(|g| [g.nx, g.ny]).filter(|g| Some(*g) != scene))
        .collect()
}

/// The largest stable and accurate `dt` found so far for each cloth shown, by a search for
/// exactly these integrators at these key grids.
pub(crate) fn stable_dt(state: &UiState, snap: &Snapshot) -> Vec<Found> {
    let kinds = shown_integrators(snap);
    let grids = shown_grids(state, snap);
    match &state.lab.dt_search {
        Some(s) if s.integrators == kinds && s.grids == grids && !s.cancelled() => s.found(),
        _ => vec![Found::default(); kinds.len()],
    }
}

/// A search's findings for one cloth in a few words (`None` before the first is found): the
/// accurate `dt` with the figures it was judged by.
pub(crate) fn found_text(found: &Found) -> Option<String> {
    let stable = found.stable?;
    let accurate = match (found.accurate, judged_text(found)) {
        (Some(dt), Some(judged)) => format!("{} ({judged})", accurate_text(dt, stable)),
        _ => "…".into(),
    };
    Some(format!(
        "stable dt: {} · accurate: {accurate}",
        stable_text(stable)
    ))
}

/// What the accurate `dt` was judged by (`None` before it is found): the motion's difference
/// from the accurate solve's there, or at the smallest `dt` tried when none was accurate.
pub(crate) fn judged_text(found: &Found) -> Option<String> {
    let dt = found.accurate?;
    Some(match found.closeness {
        None if dt > 0.0 => "its run failed".into(),
        None => format!("at {} s the run failed", stability::DT_MIN),
        Some(c) if dt > 0.0 => closeness_text(&c),
        Some(c) => format!("at {} s: {}", stability::DT_MIN, closeness_text(&c)),
    })
}

/// How a run's motion differed from the accurate solve's, as the panels write it:
/// `"sway +3 %, Hz −1 %, reach +0 %"`, leaving out the figures not compared.
pub(crate) fn closeness_text(c: &Closeness) -> String {
    [("sway", c.sway), ("Hz", c.frequency), ("reach", c.reach)]
        .into_iter()
        .filter_map(|(name, d)| d.map(|d| format!("{name} {:+.0} %", 100.0 * d)))
        .collect::<Vec<_>>()
        .join(", ")
        .replace('-', "−")
}

/// The largest accurate `dt` as the panels write it, "(all stable)" added when it is the
/// stable one (every stable `dt` tried was accurate).
pub(crate) fn accurate_text(dt: f64, stable: f64) -> String {
    if dt <= 0.0 {
        format!("below {} s", stability::DT_MIN)
    } else if dt >= stable {
        format!("{} (all stable)", stable_text(dt))
    } else {
        format!("{dt:.4} s")
    }
}

/// Each cloth's step time and strain for its label, refreshed as the Stats panel is (every
/// [`REFRESH`] while running, at once while paused), so the labels do not make the panels be
/// painted anew every frame.
pub(crate) fn figures(state: &mut UiState, snap: &Snapshot) -> Vec<String> {
    let now = web_time::Instant::now();
    let n = 1 + snap.lab.len();
    let stale = state.lab.figures.as_ref().is_none_or(|(at, rows)| {
        snap.paused || rows.len() != n || now.duration_since(*at) >= REFRESH
    });
    if stale {
        let rows = std::iter::once(snap)
            .chain(&snap.lab)
            .map(|c| {
                let distance = c
                    .reference_distance
                    .map(|d| format!("  ref {:.2} cm", 100.0 * d.rms))
                    .unwrap_or_default();
                // A GPU copy's steps are timed on the device, not here (`bench --gpu-sim`).
                let time = if c.device.on_gpu {
                    "on the GPU".to_owned()
                } else {
                    format!("{:.0} µs", c.stats.step_seconds * 1e6)
                };
                format!(
                    "{time}  strain {:.1} %{distance}",
                    (c.stats.max_strain - 1.0) * 100.0
                )
            })
            .collect();
        state.lab.figures = Some((now, rows));
    }
    state
        .lab
        .figures
        .as_ref()
        .map(|(_, rows)| rows.clone())
        .unwrap_or_default()
}

/// A search's result as the panels write it: the top of the search range and nothing stable
/// are said as such.
pub(crate) fn stable_text(dt: f64) -> String {
    if dt >= stability::DT_MAX {
        format!("{} s or more", stability::DT_MAX)
    } else if dt <= 0.0 {
        format!("below {} s", stability::DT_MIN)
    } else {
        format!("{dt:.4} s")
    }
}

pub(crate) fn lab_ui(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    actions: &mut Vec<UiAction>,
) {
    if snap.lab.is_empty() {
        ui.label("Compare integrators side by side, from the same state, in lock-step:");
        ui.horizontal_wrapped(|ui| {
            for (kind, picked) in IntegratorKind::ALL.iter().zip(&mut state.lab.pick) {
                ui.checkbox(picked, kind.name());
            }
        });
        // A GPU copy of kang-mg beside the CPU's copies, where a GPU is lent to the simulation.
        let gpu = snap.device.adapter.is_some();
        ui.add_enabled(
            gpu,
            egui::Checkbox::new(&mut state.lab.gpu, "kang-mg on the GPU"),
        )
        .on_hover_text("A copy stepped by kang-mg on the GPU (f32), beside the CPU's")
        .on_disabled_hover_text("No GPU is lent to the simulation");
        grids_ui(ui, state);
        let picked = lab_copies(state, gpu);
        let n = picked.len();
        let ok = (MIN_COPIES..=MAX_COPIES).contains(&n);
        if ui
            .add_enabled(ok, egui::Button::new("open the lab"))
            .on_disabled_hover_text(format!(
                "Pick integrators and key grids for {MIN_COPIES} to {MAX_COPIES} copies (each \
                 integrator at each key grid; {n} now)"
            ))
            .clicked()
        {
            actions.push(UiAction::SetLab(picked));
        }
    } else {
        ui.horizontal_wrapped(|ui| {
            for i in 0..=snap.lab.len() {
                ui.label(RichText::new(copy_name(snap, i)).color(colour(i)).strong());
            }
        });
        if ui.button("back to one cloth").clicked() {
            actions.push(UiAction::SetLab(Vec::new()));
        }
        reference_ui(ui, snap, actions);
        motion_ui(ui, snap);
    }
    ui.separator();
    search_ui(ui, state, snap, actions);
}

/// The key grids each picked integrator runs at: the scene's, and those added here (nodes
/// along the width, the height in the scene's proportions).
fn grids_ui(ui: &mut Ui, state: &mut UiState) {
    let Some(scene) = state.scene.cloth.grid.as_ref().map(|g| (g.nx, g.ny)) else {
        state.lab.grids.clear();
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.label("key grids:").on_hover_text(KEY_GRIDS_HELP);
        ui.label(format!("{} × {}", scene.0, scene.1));
        let mut remove = None;
        for (k, n) in state.lab.grids.iter_mut().enumerate() {
            ui.add(egui::DragValue::new(n).range(GRID_SIDE).speed(0.5))
                .on_hover_text("Nodes along the width of this key grid");
            if ui
                .small_button("×")
                .on_hover_text("Remove this key grid")
                .clicked()
            {
                remove = Some(k);
            }
        }
        if let Some(k) = remove {
            state.lab.grids.remove(k);
        }
        if can_add_key_grid(state)
            && ui
                .small_button("+ key grid")
                .on_hover_text(KEY_GRIDS_HELP)
                .clicked()
        {
            add_key_grid(state, scene.0);
        }
    });
}

/// Whether the lab can take one more key grid: each grid has a copy at least, and the
/// scene's is one of them.
pub(crate) fn can_add_key_grid(state: &UiState) -> bool {
    state.lab.grids.len() + 1 < MAX_COPIES
}

/// Adds a key grid twice as wide as the last one (the scene's `scene_nx` when none was
/// added), at most the largest grid.
pub(crate) fn add_key_grid(state: &mut UiState, scene_nx: usize) {
    let last = state.lab.grids.last().copied().unwrap_or(scene_nx);
    state.lab.grids.push((2 * last).min(*GRID_SIDE.end()));
}

/// What the lab's key grids do, for their tooltip.
const KEY_GRIDS_HELP: &str = "Each picked integrator runs at each key grid: the scene's, and \
those added here (nodes along the width; the height keeps the scene's proportions). The copies \
share the flag's size, total mass, springs and wind, so a finer grid is the same flag in more \
detail; their distances from the reference are taken at the reference's nodes.";

/// The copies the *Lab* panel's choices make: each picked integrator (and the GPU's
/// `kang-mg`, where asked) at the scene's key grid, then at each added one. Without added
/// grids the copies keep the scene's.
pub(crate) fn lab_copies(state: &UiState, gpu: bool) -> Vec<CopySpec> {
    let mut kinds: Vec<(IntegratorKind, DeviceChoice)> = IntegratorKind::ALL
        .iter()
        .zip(&state.lab.pick)
        .filter(|(_, p)| **p)
        .map(|(k, _)| (*k, DeviceChoice::Cpu))
        .collect();
    if gpu && state.lab.gpu {
        kinds.push((IntegratorKind::KangMg, DeviceChoice::Gpu));
    }
    let scene = state.scene.cloth.grid.as_ref().map(|g| (g.nx, g.ny));
    let grids: Vec<Option<CopyGrid>> = match scene {
        Some((nx, ny)) if !state.lab.grids.is_empty() => std::iter::once(nx)
            .chain(state.lab.grids.iter().copied())
            .map(|w| {
                let ny = if w == nx {
                    ny
                } else {
                    state.scene.proportional_height(w).unwrap_or(ny)
                };
                Some(CopyGrid {
                    nx: w,
                    ny: Some(ny),
                })
            })
            .collect(),
        _ => vec![None],
    };
    grids
        .iter()
        .flat_map(|&grid| {
            kinds.iter().map(move |&(integrator, device)| CopySpec {
                integrator,
                dt: None,
                grid,
                device,
            })
        })
        .collect()
}

/// Copy `n`'s snapshot: `snap` itself for 0, else its `lab` entry.
pub(crate) fn copy_of(snap: &Snapshot, n: usize) -> &Snapshot {
    match n {
        0 => snap,
        n => snap.lab.get(n - 1).unwrap_or(snap),
    }
}

/// Copy `i`'s name in the panels: its integrator, "(GPU)" on the GPU, and its key grid where
/// the lab's copies do not all share one.
pub(crate) fn copy_name(snap: &Snapshot, i: usize) -> String {
    let copy = copy_of(snap, i);
    let mut name = copy.params.integrator.name().to_owned();
    if copy.device.on_gpu {
        name.push_str(" (GPU)");
    }
    let grid = |s: &Snapshot| s.grid.map(|g| (g.nx, g.ny));
    if let Some((nx, ny)) = grid(copy)
        && snap.lab.iter().any(|c| grid(c) != grid(snap))
    {
        name.push_str(&format!(" {nx}×{ny}"));
    }
    name
}

/// A motion figure and, beside the reference's, how far it is from it: `"16.1 −3 %"`.
fn with_difference(value: f64, reference: Option<f64>, decimals: usize) -> String {
    let own = format!("{value:.decimals$}");
    match reference.and_then(|r| relative_difference(value, r)) {
        Some(d) => format!("{own} {:+.0} %", 100.0 * d).replace('-', "−"),
        None => own,
    }
}

/// The cells of a motion row: the sway in cm, the frequency in Hz, the reach in m and the
/// shortest edge, each with its difference from the reference's where it has one (the sway
/// and frequency not where the reference's fly edge is still, [`is_still`]: a share of the
/// solve's noise means nothing).
pub(crate) fn motion_cells(m: &Motion, reference: Option<&Motion>) -> [String; 4] {
    let moving = reference.filter(|r| !is_still(r));
    [
        with_difference(100.0 * m.sway, moving.map(|r| 100.0 * r.sway), 1),
        with_difference(m.frequency, moving.map(|r| r.frequency), 2),
        with_difference(m.reach, reference.map(|r| r.reach), 3),
        format!("{:.2}", m.shortest_edge),
    ]
}

/// How each copy (and the reference, while it runs) moves over the lab's last seconds: the
/// resolution study's figures, so that a copy is judged by its motion as well as its
/// distance.
fn motion_ui(ui: &mut Ui, snap: &Snapshot) {
    let reference = snap.reference.and_then(|r| r.motion);
    let copies: Vec<(usize, &Snapshot)> =
        std::iter::once(snap).chain(&snap.lab).enumerate().collect();
    if reference.is_none() && copies.iter().all(|(_, c)| c.motion.is_none()) {
        return;
    }
    ui.label(RichText::new(format!("motion over the last {MOTION_WINDOW:.0} s")).small())
        .on_hover_text(
            "At the middle of the fly edge: its sway (standard deviation out of the cloth's \
             plane, cm), its dominant frequency (Hz) and its mean reach from the hoist (m); \
             and the shortest structural edge over its rest length. Beside each copy's, its \
             difference from the reference's while the reference runs. Sampled ten times a \
             second of simulated time, computed once a second.",
        );
    egui::Grid::new("lab motion").num_columns(5).show(ui, |ui| {
        for head in ["", "sway cm", "Hz", "reach m", "edge"] {
            ui.label(RichText::new(head).small());
        }
        ui.end_row();
        if let Some(r) = &reference {
            ui.label("reference");
            for cell in motion_cells(r, None) {
                ui.label(cell);
            }
            ui.end_row();
        }
        for (i, c) in copies {
            ui.label(RichText::new(copy_name(snap, i)).color(colour(i)));
            match &c.motion {
                Some(m) => {
                    for cell in motion_cells(m, reference.as_ref()) {
                        ui.label(cell);
                    }
                }
                None => {
                    ui.label("…");
                }
            }
            ui.end_row();
        }
    });
}

/// The reference copy: a switch, and while it runs what it costs and each copy's distance
/// from it (also plotted under the view).
fn reference_ui(ui: &mut Ui, snap: &Snapshot, actions: &mut Vec<UiAction>) {
    let mut on = snap.reference.is_some();
    if ui
        .checkbox(&mut on, "reference copy")
        .on_hover_text(format!(
            "Runs an accurate solve of the same springs beside the copies (backward Euler with \
             the full spring Jacobian, CG to {:e}, {} times the substeps, no strain limiting or \
             tethers), from copy 0's state: every copy is synced to it when it starts. Each \
             copy's RMS distance from it is shown beside its name and plotted. The reference is \
             not dragged; it costs far more than the copies, so a large cloth may fall behind \
             real time.",
            shape::REFERENCE_CG_TOLERANCE,
            shape::REFERENCE_SUBSTEPS
        ))
        .changed()
    {
        actions.push(UiAction::Sim(Command::SetReference(on)));
    }
    if let Some(r) = snap.reference {
        let text = if r.diverged {
            "the reference's guard stopped it: no distances".to_string()
        } else {
            format!("reference: {:.0} µs a step", r.step_seconds * 1e6)
        };
        ui.label(RichText::new(text).small());
        egui::Grid::new("reference distances")
            .num_columns(2)
            .show(ui, |ui| {
                for (i, c) in std::iter::once(snap).chain(&snap.lab).enumerate() {
                    ui.label(RichText::new(copy_name(snap, i)).color(colour(i)));
                    ui.label(c.reference_distance.map_or("-".into(), |d| {
                        format!("RMS {:.2} cm, max {:.2} cm", 100.0 * d.rms, 100.0 * d.max)
                    }));
                    ui.end_row();
                }
            });
    }
}

/// *Largest stable dt*: asks the app to start the bench's bisection for every cloth shown on
/// the scene as it is now, in the background; progress and cancel while it runs, the results
/// after.
fn search_ui(ui: &mut Ui, state: &mut UiState, snap: &Snapshot, actions: &mut Vec<UiAction>) {
    let kinds = shown_integrators(snap);
    let running = state.lab.dt_search.as_ref().is_some_and(|s| !s.finished());
    if let Some(search) = state.lab.dt_search.as_ref().filter(|_| running) {
        // The button first: the bar then takes the width that is left. After the bar, the
        // button stood past the panel's edge and the panel grew by its width every frame.
        ui.horizontal(|ui| {
            if ui.button("cancel").clicked() {
                search.cancel();
            }
            ui.add(egui::ProgressBar::new(search.progress() as f32).show_percentage());
        });
        // The bar moves while nothing else asks for a frame.
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(250));
    } else if ui
        .button("find the largest stable and accurate dt")
        .on_hover_text(format!(
            "Bisection on dt from {} to {} s for each cloth shown, on the scene with the \
             current parameters, in the background. Stable: runs {} simulated s (as flagsim \
             bench) without the guard firing. Accurate: also moves as an accurate solve of the \
             same springs does (backward Euler, CG to {:e}, {} times the substeps, no strain \
             limiting or tethers): over {} s after the first {} s, the fly edge's sway, \
             dominant frequency and reach each within {:.0} % of the accurate solve's. Not \
             where each node is: a flag in gusty wind is chaotic, and after seconds no step \
             ends where the accurate solve does.",
            stability::DT_MIN,
            stability::DT_MAX,
            stability::SECONDS,
            shape::REFERENCE_CG_TOLERANCE,
            shape::REFERENCE_SUBSTEPS,
            stability::ACCURATE_WINDOW,
            stability::ACCURATE_SETTLE,
            100.0 * stability::ACCURATE_SHARE,
        ))
        .clicked()
    {
        let mut scene = state.scene.clone();
        scene.params = state.params.clone();
        actions.push(UiAction::FindStableDt {
            scene: Box::new(scene),
            integrators: kinds.clone(),
            grids: shown_grids(state, snap),
        });
    }
    let results = stable_dt(state, snap);
    if results.iter().any(|f| f.stable.is_some()) {
        ui.label(
            RichText::new(format!(
                "accurate: sway, frequency and reach within {:.0} % of the accurate solve's",
                100.0 * stability::ACCURATE_SHARE
            ))
            .small(),
        );
        egui::Grid::new("stable dt").num_columns(3).show(ui, |ui| {
            ui.label("");
            ui.label("stable");
            ui.label("accurate");
            ui.end_row();
            for (i, found) in results.iter().enumerate() {
                ui.label(RichText::new(copy_name(snap, i)).color(colour(i)));
                ui.label(found.stable.map_or("…".into(), stable_text));
                let accurate = match (found.stable, found.accurate) {
                    (Some(stable), Some(dt)) => accurate_text(dt, stable),
                    _ => "…".into(),
                };
                ui.label(accurate);
                ui.end_row();
            }
        });
        // What each accurate dt was judged by, a line each (wrapped in a narrow panel).
        for (i, found) in results.iter().enumerate() {
            if let Some(judged) = judged_text(found) {
                ui.label(
                    RichText::new(format!("{}: {judged}", copy_name(snap, i)))
                        .color(colour(i))
                        .small(),
                );
            }
        }
    } else if state.lab.dt_search.as_ref().is_some_and(|s| s.cancelled()) {
        ui.label("cancelled");
    }
    if let Some(why) = state.lab.dt_search.as_ref().and_then(|s| s.failure()) {
        ui.label(format!("no accurate dt: {why}"));
    }
}
