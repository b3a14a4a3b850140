//! The *Stats* panel: frame and step timings, strain, the guard and each integrator's figures.

use crate::ui::plots::REFRESH;
use egui::Ui;

use crate::sim::IntegratorKind;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::solvers::integrators::SolverReport;
use crate::ui::FrameInfo;

/// The panel: the figures of the last refresh (every [`REFRESH`], and at once while paused).
pub(crate) fn stats_ui(
    ui: &mut Ui,
    state: &mut crate::ui::UiState,
    snap: &Snapshot,
    frame: &FrameInfo<'_>,
) {
    let now = web_time::Instant::now();
    let stale = state
        .stats_rows
        .as_ref()
        .is_none_or(|(at, _)| snap.paused || now.duration_since(*at) >= REFRESH);
    if stale {
        state.stats_rows = Some((now, rows(snap, frame)));
    }
    let Some((_, rows)) = &state.stats_rows else {
        return;
    };
    egui::Grid::new("stats")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for (k, v) in rows {
                ui.label(*k);
                ui.label(v);
                ui.end_row();
            }
        });
}

/// Every figure of the panel, as `(name, value)`.
pub(crate) fn rows(snap: &Snapshot, frame: &FrameInfo<'_>) -> Vec<(&'static str, String)> {
    let st = &snap.stats;
    let mut out = Vec::new();
    frame_rows(&mut out, frame);
    // On the GPU the CPU's step is not taken: its time and its counters (Provot's fixes,
    // the V-cycles, the tethers pulled) would be the last CPU step's, so they are not shown;
    // the GPU's own times are `bench --gpu-sim`'s (timestamps).
    let on_gpu = snap.device.on_gpu;
    step_rows(&mut out, snap, on_gpu);
    strain_limit_rows(&mut out, snap, on_gpu);
    out.push((
        "guard",
        match &snap.divergence {
            Some(d) => format!("fired at step {}", d.step),
            None => "ok".into(),
        },
    ));
    solver_rows(&mut out, snap, on_gpu);
    if !snap.interpolated.is_empty() {
        out.push((
            "interpolated",
            format!(
                "{:.0} % of nodes, {} regions",
                st.interpolated_fraction * 100.0,
                st.interpolated_regions
            ),
        ));
    }
    out.push(("adapter", frame.adapter.to_string()));
    out
}

/// What the stepper is doing, in words: stopped, paused, running (behind real time or not).
fn status_of(snap: &Snapshot) -> &'static str {
    if snap.divergence.is_some() {
        "stopped by the guard"
    } else if snap.paused {
        "paused"
    } else if snap.behind {
        "running, behind real time"
    } else {
        "running"
    }
}

/// The viewer's own figures: frame rate, frame times, render scale, frames drawn.
fn frame_rows(out: &mut Vec<(&'static str, String)>, frame: &FrameInfo<'_>) {
    let mut row = |k: &'static str, v: String| out.push((k, v));
    row("fps", format!("{:.0}", frame.fps));
    row("frame time", format!("{:.1} ms", frame.frame_ms));
    row("frame CPU", format!("{:.2} ms", frame.cpu_ms));
    row(
        "render scale",
        format!("{:.0} %", frame.render_scale * 100.0),
    );
    row("frames drawn", frame.frames.to_string());
}

/// The stepper's figures: the step's time (not on the GPU), its rate and state, the
/// simulated time, the stiffness ratio and the largest strain.
fn step_rows(out: &mut Vec<(&'static str, String)>, snap: &Snapshot, on_gpu: bool) {
    let st = &snap.stats;
    let status = status_of(snap);
    let mut row = |k: &'static str, v: String| out.push((k, v));
    row(
        "step time",
        if on_gpu {
            "on the GPU, not timed".to_string()
        } else {
            format!("{:.1} µs", st.step_seconds * 1e6)
        },
    );
    row("steps / s", format!("{:.0}", snap.steps_per_second));
    row("stepper", status.to_string());
    row(
        "sim time",
        format!("{:.2} s (step {})", snap.time, snap.step),
    );
    row("h²k/m", format!("{:.3}", st.h2k_over_m));
    row(
        "max strain",
        format!("{:.1} %", (st.max_strain - 1.0) * 100.0),
    );
}

/// The strain limit's counters where it is on (on the GPU only that it is on: the GPU
/// counts nothing).
fn strain_limit_rows(out: &mut Vec<(&'static str, String)>, snap: &Snapshot, on_gpu: bool) {
    let st = &snap.stats;
    let mut row = |k: &'static str, v: String| out.push((k, v));
    if snap.params.provot.enabled && on_gpu {
        row("strain limit", "on the GPU, not counted".to_string());
    } else if snap.params.provot.enabled {
        // Short rows: the widest figure must not widen the panel as its digits change
        // (the panel would then be painted anew whole at every refresh).
        row(
            "strain limit",
            format!(
                "{} sweeps, {} fixes",
                st.provot_sweeps, st.provot_corrections
            ),
        );
        row("coarse fixes", format!("{}", st.level_corrections));
        row(
            "tethers",
            format!("{} ({} pulled)", st.tethers, st.tether_corrections),
        );
    }
}

/// What the integrator itself reports, as it reports it (not on the GPU, which runs a
/// fixed number of V-cycles and reports nothing back).
fn solver_rows(out: &mut Vec<(&'static str, String)>, snap: &Snapshot, on_gpu: bool) {
    let mut row = |k: &'static str, v: String| out.push((k, v));
    match snap.stats.solver {
        _ if on_gpu => {}
        SolverReport::None => {}
        SolverReport::Iterative(solve) => {
            let what = match snap.params.integrator {
                IntegratorKind::KangMg => "V-cycles",
                IntegratorKind::ImplicitMg => "MG-CG iterations",
                _ => "CG iterations",
            };
            row(what, format!("{}", solve.iterations));
        }
        SolverReport::Buckling { solve, bdf2 } => row(
            "PCG iterations",
            format!(
                "{} ({})",
                solve.iterations,
                if bdf2 { "BDF2" } else { "BDF1 start" }
            ),
        ),
        SolverReport::Filter {
            precompute_seconds,
            builds,
        } => row(
            "filter inverse",
            format!("{:.2} ms ({builds} builds)", precompute_seconds * 1e3),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::format::scene::Scene;
    use crate::ui::UiState;

    fn shown_step(state: &UiState) -> String {
        let (_, rows) = state.stats_rows.as_ref().expect("figures taken");
        rows.iter()
            .find(|(k, _)| *k == "sim time")
            .unwrap()
            .1
            .clone()
    }

    #[test]
    fn running_figures_wait_for_the_refresh_and_paused_ones_follow_at_once() {
        let scene = Scene::load("flag").unwrap();
        let mut snap = Snapshot::of(&scene.clone().simulation().unwrap());
        let mut state = UiState::new(scene, 0.12);
        let ctx = egui::Context::default();
        let draw = |state: &mut UiState, snap: &Snapshot| {
            let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
                stats_ui(ui, state, snap, &FrameInfo::default());
            });
            out.textures_delta.clear();
        };
        snap.paused = false;
        snap.step = 1;
        draw(&mut state, &snap);
        assert!(shown_step(&state).ends_with("(step 1)"));
        // Running, a step later and well within REFRESH: the panel keeps its figures.
        snap.step = 2;
        draw(&mut state, &snap);
        assert!(
            shown_step(&state).ends_with("(step 1)"),
            "{}",
            shown_step(&state)
        );
        // Paused (a single step, say): the figures follow at once.
        snap.paused = true;
        snap.step = 3;
        draw(&mut state, &snap);
        assert!(shown_step(&state).ends_with("(step 3)"));
    }

    /// On the GPU the CPU step's time and counters are stale: the panel says where the cloth
    /// steps instead of showing them.
    #[test]
    fn on_the_gpu_the_cpus_step_figures_are_not_shown() {
        let scene = Scene::load("flag").unwrap();
        let mut sim = scene.simulation().unwrap();
        sim.step();
        let mut snap = Snapshot::of(&sim);
        snap.stats.step_seconds = 123e-6;
        snap.stats.provot_corrections = 77;
        snap.stats.solver =
            SolverReport::Iterative(crate::sim::solvers::integrators::implicit_cg::CgReport {
                iterations: 9,
                ..Default::default()
            });
        let value = |snap: &Snapshot, k: &str| {
            rows(snap, &FrameInfo::default())
                .into_iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v)
        };
        assert!(snap.params.provot.enabled);
        assert_eq!(value(&snap, "step time").as_deref(), Some("123.0 µs"));
        assert!(value(&snap, "strain limit").unwrap().contains("77 fixes"));
        assert!(
            value(&snap, "CG iterations").is_some() || value(&snap, "MG-CG iterations").is_some()
        );
        snap.device.on_gpu = true;
        assert_eq!(
            value(&snap, "step time").as_deref(),
            Some("on the GPU, not timed")
        );
        assert_eq!(
            value(&snap, "strain limit").as_deref(),
            Some("on the GPU, not counted")
        );
        assert_eq!(value(&snap, "coarse fixes"), None);
        assert_eq!(value(&snap, "tethers"), None);
        assert_eq!(value(&snap, "CG iterations"), None);
        assert_eq!(value(&snap, "MG-CG iterations"), None);
    }
}
