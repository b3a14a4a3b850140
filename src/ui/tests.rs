//! The panels against the parameter table: every slider spans what the validation accepts.
use crate::sim::IntegratorKind;
use crate::sim::format::scene::Scene;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::panels::*;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::sim::format::params::HandlePath;
use crate::sim::format::params::spec::{Entry, TABLE};
use crate::sim_thread::{SimThread, wait_for};
use crate::ui::*;

/// Every slider the parameter panels draw, `path → (low end, high end)`, over the states
/// that show different controls: each integrator, with the wavelet interpolation and the
/// waving pole off and on.
fn drawn_sliders() -> BTreeMap<&'static str, (f64, f64)> {
    let scene = Scene::load("flag").unwrap();
    let snap = Snapshot::of(&scene.clone().simulation().unwrap());
    let ctx = egui::Context::default();
    widgets::DRAWN.with(|d| d.borrow_mut().clear());
    for kind in IntegratorKind::ALL {
        for on in [false, true] {
            let mut state = UiState::new(scene.clone(), 0.12);
            state.params.integrator = kind;
            state.params.wavelet.enabled = on;
            state.params.handle.path = if on {
                HandlePath::Figure8
            } else {
                HandlePath::None
            };
            let mut actions = Vec::new();
            let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
                simulation::integrator_ui(ui, &mut state, &snap, &mut actions);
                cloth::cloth_ui(ui, &mut state, &mut actions);
                simulation::run_ui(ui, &mut state, &snap, &mut actions);
                wind::wind_ui(ui, &mut state, &mut actions);
                detail::detail_ui(ui, &mut state, &FrameInfo::default(), &mut actions);
            });
            // Nothing is painted here; egui insists the font texture be dealt with.
            output.textures_delta.clear();
            assert!(actions.is_empty(), "drawing alone sent {actions:?}");
        }
    }
    let mut out = BTreeMap::new();
    widgets::DRAWN.with(|d| {
        for &(path, lo, hi) in d.borrow().iter() {
            let before = out.insert(path, (lo, hi));
            assert!(
                before.is_none_or(|r| r == (lo, hi)),
                "{path} drawn with two ranges"
            );
        }
    });
    out
}

/// Whether the simulation takes `v` for the parameter at `path`: the scene validation for
/// scene fields, the simulation thread for the time scale. Where each path lives is written
/// here from the scene format, independently of the spec table.
fn accepted(path: &str, v: f64) -> bool {
    let mut scene = Scene::load("flag").unwrap();
    let p = &mut scene.params;
    let whole = v as u32;
    match path {
        "params.dt" => p.dt = v,
        "params.substeps" => p.substeps = whole,
        "params.jacobi_iterations" => p.jacobi_iterations = whole,
        "params.xpbd_substeps" => p.xpbd_substeps = whole,
        "params.stiffness.structural" => p.stiffness.structural = v,
        "params.stiffness.shear" => p.stiffness.shear = v,
        "params.stiffness.bend" => p.stiffness.bend = v,
        "params.damping" => p.damping = v,
        "params.wind.velocity" => p.wind.velocity = [0.0, 0.0, v],
        "params.wind.drag" => p.wind.drag = v,
        "params.wind.lift" => p.wind.lift = v,
        "params.wind.linear" => p.wind.linear = v,
        "params.wind.gust.strength" => p.wind.gust.strength = v,
        "params.wind.gust.period" => p.wind.gust.period = v,
        "params.wind.response" => p.wind.response = v,
        "params.provot.max_stretch" => p.provot.max_stretch = v,
        "params.provot.iterations" => p.provot.iterations = whole,
        "params.provot.max_compression" => p.provot.max_compression = v,
        "params.provot.levels" => p.provot.levels = whole,
        "params.provot.tether_stretch" => p.provot.tether_stretch = v,
        "params.handle.amplitude" => p.handle.amplitude = v,
        "params.handle.period" => p.handle.period = v,
        "params.hoist.height" => p.hoist.height = v,
        "params.hoist.speed" => p.hoist.speed = v,
        "params.cg.tolerance" => p.cg.tolerance = v,
        "params.cg.max_iterations" => p.cg.max_iterations = whole,
        "params.multigrid.tolerance" => p.multigrid.tolerance = v,
        "params.multigrid.max_cycles" => p.multigrid.max_cycles = whole,
        "params.choi_ko.flexural_rigidity" => p.choi_ko.flexural_rigidity = v,
        "params.choi_ko.buckling_clamp" => p.choi_ko.buckling_clamp = v,
        "params.wavelet.threshold" => p.wavelet.threshold = v,
        "cloth.grid.mass" => scene.cloth.grid.as_mut().unwrap().mass = v,
        "render.resolution" => scene.render.resolution = [whole; 2],
        "render.wrinkle_c" => scene.render.wrinkle_c = v,
        "time scale" => {
            let sim = SimThread::spawn(scene, true).unwrap();
            let slot = sim.slot();
            sim.send(Command::SetTimeScale(v));
            let wait = Duration::from_secs(5);
            let s = wait_for(&slot, wait, |s| s.error.is_some() || s.time_scale == v)
                .expect("the thread answered");
            return s.error.is_none();
        }
        other => panic!("this test does not know where {other} lives"),
    }
    scene.validate().is_ok()
}

#[test]
fn every_slider_spans_exactly_what_the_validation_accepts() {
    let drawn = drawn_sliders();
    // Every numeric parameter of the table has its slider, and so do the three values set
    // outside `params`.
    let mut expected: Vec<&str> = TABLE
        .iter()
        .filter_map(|e| match e {
            Entry::Real(s) => Some(s.path),
            Entry::Whole(s) => Some(s.path),
            _ => None,
        })
        .collect();
    expected.extend(["cloth.grid.mass", "time scale", "params.wind.velocity"]);
    for path in &expected {
        assert!(drawn.contains_key(path), "no slider for {path}");
    }
    for (path, &(lo, hi)) in &drawn {
        assert!(
            accepted(path, lo),
            "{path}: the slider's low end {lo} is refused"
        );
        assert!(
            accepted(path, hi),
            "{path}: the slider's high end {hi} is refused"
        );
        let integer = matches!(
            *path,
            "params.substeps"
                | "params.jacobi_iterations"
                | "params.xpbd_substeps"
                | "params.provot.iterations"
                | "params.cg.max_iterations"
                | "params.multigrid.max_cycles"
                | "params.provot.levels"
                | "render.resolution"
        );
        let (below, above) = if integer {
            (lo - 1.0, hi + 1.0)
        } else {
            (lo - (lo.abs() * 1e-6).max(1e-12), hi + hi.abs() * 1e-6)
        };
        // A count or a speed has nothing below 0 to refuse.
        let nothing_below = lo == 0.0 && (integer || *path == "params.wind.velocity");
        if !nothing_below {
            assert!(
                !accepted(path, below),
                "{path}: {below}, below the slider, is accepted"
            );
        }
        assert!(
            !accepted(path, above),
            "{path}: {above}, above the slider, is accepted"
        );
    }
}

/// The key grid: the cloth starts again at the new grid with the flag's size, total mass,
/// springs and the user's parameters; the thread's cloth read back is that grid.
#[test]
fn the_key_grid_rebuilds_the_cloth_at_its_size_mass_and_springs() {
    let scene = Scene::load("flag").unwrap();
    let mut state = UiState::new(scene.clone(), 0.12);
    // A stiffness the user set in the panel is kept.
    state.params.stiffness.structural = 150.0;
    let mut actions = Vec::new();
    cloth::set_key_grid(&mut state, &mut actions, 32, 24);
    let [UiAction::Sim(Command::LoadScene(loaded))] = &actions[..] else {
        panic!("{actions:?}");
    };
    let g = loaded.cloth.grid.as_ref().unwrap();
    assert_eq!((g.nx, g.ny), (32, 24));
    assert_eq!((g.width, g.height, g.mass), (1.2, 0.8, 0.12));
    assert_eq!(loaded.params.stiffness.structural, 150.0);
    assert_eq!(loaded.params.wind, scene.params.wind);
    assert_eq!(state.scene.cloth.grid.as_ref().unwrap().nx, 32);

    let sim = SimThread::spawn((**loaded).clone(), false).unwrap();
    let slot = sim.slot();
    let s = wait_for(&slot, Duration::from_secs(20), |s| s.step >= 3).expect("steps");
    let grid = s.grid.as_ref().expect("a grid");
    assert_eq!((grid.nx, grid.ny, s.x.len()), (32, 24, 32 * 24));
    assert!((grid.l0_u - 1.2 / 31.0).abs() < 1e-12 && (grid.l0_v - 0.8 / 23.0).abs() < 1e-12);
    assert!((s.total_mass - 0.12).abs() < 1e-12, "{}", s.total_mass);
    assert_eq!(s.params.stiffness.structural, 150.0);
    assert!(s.x.iter().all(|p| p.is_finite()));

    // A grid past the limit leaves a notice and sends nothing.
    let mut actions = Vec::new();
    cloth::set_key_grid(&mut state, &mut actions, 2000, 10);
    assert!(actions.is_empty(), "{actions:?}");
    let notice = state.notices.last().expect("a notice");
    assert!(
        notice.text.contains("key grid 2000 × 10"),
        "{}",
        notice.text
    );
    assert_eq!(state.scene.cloth.grid.as_ref().unwrap().nx, 32);
}

/// Drawn alone, the key grid's slider sends nothing and says what a step costs.
#[test]
fn the_key_grid_line_says_the_grid_and_its_steps_cost() {
    let scene = Scene::load("flag").unwrap();
    let mut snap = Snapshot::of(&scene.clone().simulation().unwrap());
    snap.stats.step_seconds = 2e-3;
    let mut state = UiState::new(scene, 0.12);
    let ctx = egui::Context::default();
    let mut actions = Vec::new();
    let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
        cloth::key_grid_ui(ui, &mut state, &snap, &mut actions);
    });
    output.textures_delta.clear();
    assert!(actions.is_empty(), "{actions:?}");
    // dt = 1/60 s stepped in 2 ms: 8.3 times faster than real time.
    assert_eq!(
        cloth::key_grid_cost(10, 10, &snap),
        "10 × 10 key nodes: a step 2.00 ms, 8.3 × real time"
    );
    snap.device.on_gpu = true;
    snap.steps_per_second = 61.0;
    assert_eq!(
        cloth::key_grid_cost(10, 10, &snap),
        "10 × 10 key nodes, on the GPU: 61 steps/s"
    );
}

/// A lab copy's motion row: each figure in the panel's units, and beside the reference's, its
/// difference from it in whole percent.
#[test]
fn a_motion_row_gives_each_figure_and_its_difference_from_the_reference() {
    use crate::sim::lab::motion::Motion;
    use crate::ui::panels::lab::motion_cells;
    let copy = Motion {
        sway: 0.186,
        frequency: 0.49,
        reach: 1.199,
        spread: 0.05,
        shortest_edge: 0.956,
        short_edges: 0.0,
        samples: 200,
    };
    let reference = Motion {
        sway: 0.166,
        frequency: 0.98,
        reach: 1.195,
        ..copy
    };
    assert_eq!(motion_cells(&copy, None), ["18.6", "0.49", "1.199", "0.96"]);
    // (18.6 − 16.6) / 16.6 = +12.0 %, (0.49 − 0.98) / 0.98 = −50 %, (1.199 − 1.195) / 1.195 =
    // +0.3 %.
    assert_eq!(
        motion_cells(&copy, Some(&reference)),
        ["18.6 +12 %", "0.49 −50 %", "1.199 +0 %", "0.96"]
    );
    // A reference that does not move has no relative difference to give.
    let still = Motion {
        sway: 0.0,
        frequency: 0.0,
        ..reference
    };
    assert_eq!(
        motion_cells(&copy, Some(&still)),
        ["18.6", "0.49", "1.199 +0 %", "0.96"]
    );
    // Nor one that sways less than a millimetre (a hanging sheet's solve noise, whose
    // "frequency" is that noise's); at a millimetre it moves.
    let noise = Motion {
        sway: 0.000_99,
        frequency: 7.3,
        ..reference
    };
    assert_eq!(
        motion_cells(&copy, Some(&noise)),
        ["18.6", "0.49", "1.199 +0 %", "0.96"]
    );
    let moves = Motion {
        sway: 0.001,
        frequency: 0.49,
        ..reference
    };
    // (18.6 − 0.1) / 0.1 = +18500 %.
    assert_eq!(
        motion_cells(&copy, Some(&moves)),
        ["18.6 +18500 %", "0.49 +0 %", "1.199 +0 %", "0.96"]
    );
}

/// The Lab panel's key grids: each picked integrator at the scene's grid, then at each added
/// one (the height in the scene's proportions); with none added, the scene's grid unnamed.
/// A copy is named with its grid only where the lab's copies do not share one.
#[test]
fn the_labs_key_grids_make_each_integrator_a_copy_at_each_grid() {
    use crate::sim::DeviceChoice;
    use crate::sim::lab::copies::CopyGrid;
    let mut scene = Scene::load("flag").unwrap();
    scene = scene.with_key_grid(12, 8).unwrap();
    let mut state = UiState::new(scene.clone(), 0.12);
    state.lab.pick = std::array::from_fn(|i| IntegratorKind::ALL[i] == IntegratorKind::ImplicitMg);
    let alone = lab::lab_copies(&state, false);
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].grid, None);
    state.lab.grids = vec![24, 36];
    let copies = lab::lab_copies(&state, false);
    let grids: Vec<_> = copies.iter().map(|c| c.grid).collect();
    // 12 × 8 in proportion: 24 × 16 and 36 × 24.
    let at = |nx, ny| Some(CopyGrid { nx, ny: Some(ny) });
    assert_eq!(grids, [at(12, 8), at(24, 16), at(36, 24)]);
    assert!(
        copies
            .iter()
            .all(|c| c.integrator == IntegratorKind::ImplicitMg)
    );
    // Two integrators at two grids: grid by grid.
    state.lab.pick = std::array::from_fn(|i| {
        matches!(
            IntegratorKind::ALL[i],
            IntegratorKind::Kang | IntegratorKind::Xpbd
        )
    });
    state.lab.grids = vec![20];
    let labels = |state: &UiState, gpu: bool| -> Vec<String> {
        lab::lab_copies(state, gpu)
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(
        labels(&state, false),
        ["kang#12x8", "xpbd#12x8", "kang#20x13", "xpbd#20x13"]
    );

    // Names: with the grid where the copies' grids differ, without where they do not.
    let sim = |s: &Scene| Snapshot::of(&s.clone().simulation().unwrap());
    let mut snap = sim(&scene);
    snap.lab = vec![sim(&scene.with_key_grid(24, 16).unwrap())];
    assert_eq!(lab::copy_name(&snap, 0), "implicit-mg 12×8");
    assert_eq!(lab::copy_name(&snap, 1), "implicit-mg 24×16");
    snap.lab = vec![sim(&scene)];
    snap.lab[0].device.on_gpu = true;
    assert_eq!(lab::copy_name(&snap, 0), "implicit-mg");
    assert_eq!(lab::copy_name(&snap, 1), "implicit-mg (GPU)");
    // The GPU's copy, where a GPU is lent and it is ticked, at each grid too.
    state.lab.gpu = false;
    assert!(
        lab::lab_copies(&state, true)
            .iter()
            .all(|c| c.device == DeviceChoice::Cpu)
    );
    state.lab.gpu = true;
    assert!(
        lab::lab_copies(&state, false)
            .iter()
            .all(|c| c.device == DeviceChoice::Cpu)
    );
    assert_eq!(
        labels(&state, true),
        [
            "kang#12x8",
            "xpbd#12x8",
            "kang-mg#12x8:gpu",
            "kang#20x13",
            "xpbd#20x13",
            "kang-mg#20x13:gpu"
        ]
    );
    // The stable-dt search is asked for each copy's grid where it is not the scene's.
    snap.lab = vec![sim(&scene.with_key_grid(24, 16).unwrap())];
    assert_eq!(lab::shown_grids(&state, &snap), [None, Some([24, 16])]);
}

/// *+ key grid* doubles the last grid (the scene's first), at most the largest grid, while the
/// copies can take one more (three added grids and the scene's make four); the panel shows
/// the grids and the button.
#[test]
fn a_key_grid_added_in_the_lab_panel_doubles_the_last_until_the_copies_are_full() {
    let scene = Scene::load("flag").unwrap();
    let mut state = UiState::new(scene.clone(), 0.12);
    let mut widths = Vec::new();
    while lab::can_add_key_grid(&state) {
        lab::add_key_grid(&mut state, 10);
        widths.push(*state.lab.grids.last().unwrap());
    }
    assert_eq!(widths, [20, 40, 80]);
    assert_eq!(
        state.lab.grids.len() + 1,
        crate::sim::lab::copies::MAX_COPIES
    );
    state.lab.grids = vec![600];
    lab::add_key_grid(&mut state, 10);
    assert_eq!(state.lab.grids, [600, 1024]);

    // Drawn: the scene's grid, each added one and the button.
    state.lab.grids = vec![20];
    let snap = Snapshot::of(&scene.simulation().unwrap());
    let ctx = egui::Context::default();
    let mut actions = Vec::new();
    let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
        lab::lab_ui(ui, &mut state, &snap, &mut actions);
    });
    output.textures_delta.clear();
    let mut text = String::new();
    for clipped in &output.shapes {
        if let egui::epaint::Shape::Text(t) = &clipped.shape {
            text.push_str(t.galley.text());
            text.push('|');
        }
    }
    for expected in ["key grids:", "10 × 10", "20", "+ key grid", "open the lab"] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    state.lab.grids = vec![20, 40, 80];
    let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
        lab::lab_ui(ui, &mut state, &snap, &mut actions);
    });
    output.textures_delta.clear();
    let full = output.shapes.iter().any(|c| {
        matches!(&c.shape, egui::epaint::Shape::Text(t) if t.galley.text().contains("+ key grid"))
    });
    assert!(!full, "no button once the copies are full");
    assert!(actions.is_empty(), "{actions:?}");
}

#[test]
fn the_accurate_dt_is_written_with_the_figures_it_was_judged_by() {
    use crate::sim::lab::stability::Closeness;
    use crate::sim_thread::Found;
    let judged = Closeness {
        sway: Some(0.031),
        frequency: Some(-0.004),
        reach: Some(0.012),
    };
    let found = Found {
        stable: Some(0.5),
        accurate: Some(0.0333),
        closeness: Some(judged),
    };
    assert_eq!(
        lab::found_text(&found).unwrap(),
        "stable dt: 0.5 s or more · accurate: 0.0333 s (sway +3 %, Hz −0 %, reach +1 %)"
    );
    // A still accurate solve: the reach alone. Nothing accurate down to 1e-4 s: the figures
    // there. A failed run says so.
    let still = Closeness {
        sway: None,
        frequency: None,
        reach: Some(-0.25),
    };
    let none = Found {
        stable: Some(0.02),
        accurate: Some(0.0),
        closeness: Some(still),
    };
    assert_eq!(lab::judged_text(&none).unwrap(), "at 0.0001 s: reach −25 %");
    let failed = Found {
        closeness: None,
        ..none
    };
    assert_eq!(
        lab::judged_text(&failed).unwrap(),
        "at 0.0001 s the run failed"
    );
    // Before the accurate dt is found: nothing to judge, and "…".
    let waiting = Found {
        stable: Some(0.02),
        accurate: None,
        closeness: None,
    };
    assert_eq!(lab::judged_text(&waiting), None);
    assert_eq!(
        lab::found_text(&waiting).unwrap(),
        "stable dt: 0.0200 s · accurate: …"
    );
}

/// A lab snapshot of the flag: copy `i` with `kinds[i]`, on the GPU where `gpu[i]`, at
/// `nx[i]` nodes across.
fn lab_of(kinds: &[IntegratorKind], gpu: &[bool], nx: &[usize]) -> Snapshot {
    let sim = Scene::load("flag").unwrap().simulation().unwrap();
    let mut copies: Vec<Snapshot> = (0..kinds.len())
        .map(|i| {
            let mut s = Snapshot::of(&sim);
            s.params.integrator = kinds[i];
            s.device.on_gpu = gpu[i];
            if let Some(g) = &mut s.grid {
                g.nx = nx[i];
            }
            s
        })
        .collect();
    let mut snap = copies.remove(0);
    snap.lab = copies;
    snap
}

#[test]
fn leaving_the_lab_the_panel_keeps_the_integrators_device_and_grids_that_were_open() {
    let scene = Scene::load("flag").unwrap();
    let mut state = UiState::new(scene, 0.12);
    let snap = lab_of(
        &[
            IntegratorKind::Kang,
            IntegratorKind::Xpbd,
            IntegratorKind::KangMg,
            IntegratorKind::Xpbd,
        ],
        &[false, false, true, false],
        &[10, 10, 10, 20],
    );
    state.sync(&snap);
    let picked: Vec<IntegratorKind> = IntegratorKind::ALL
        .iter()
        .zip(&state.lab.pick)
        .filter(|(_, p)| **p)
        .map(|(k, _)| *k)
        .collect();
    assert_eq!(picked, [IntegratorKind::Kang, IntegratorKind::Xpbd]);
    assert!(state.lab.gpu);
    assert_eq!(state.lab.grids, [20]);
    // Back to one cloth: the choices stay as they were.
    let one = lab_of(&[IntegratorKind::ImplicitMg], &[false], &[10]);
    state.sync(&one);
    assert!(state.lab.gpu && state.lab.grids == [20]);
    assert!(
        state.lab.pick[IntegratorKind::ALL
            .iter()
            .position(|k| *k == IntegratorKind::Kang)
            .unwrap()]
    );
}

/// The texts accessibility reports of the Simulation panel's integrator controls.
fn integrator_texts(state: &mut UiState, snap: &Snapshot) -> (Vec<String>, Vec<UiAction>) {
    let ctx = egui::Context::default();
    ctx.enable_accesskit();
    let mut actions = Vec::new();
    let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
        simulation::integrator_ui(ui, state, snap, &mut actions);
    });
    out.textures_delta.clear();
    let update = out.platform_output.accesskit_update.expect("a tree");
    let texts = (update.nodes.iter())
        .filter_map(|(_, n)| n.label().or(n.value()).map(str::to_owned))
        .collect();
    (texts, actions)
}

#[test]
fn in_the_lab_the_simulation_panel_shows_copy_0s_integrator_and_names_the_copies() {
    let scene = Scene::load("flag").unwrap();
    let mut state = UiState::new(scene, 0.12);
    assert_eq!(state.params.integrator, IntegratorKind::ImplicitMg);
    let snap = lab_of(
        &[IntegratorKind::Kang, IntegratorKind::Xpbd],
        &[false, false],
        &[10, 10],
    );
    let (texts, actions) = integrator_texts(&mut state, &snap);
    assert!(actions.is_empty(), "{actions:?}");
    assert_eq!(state.params.integrator, IntegratorKind::Kang);
    assert!(texts.iter().any(|t| t == "kang"), "{texts:?}");
    assert!(
        texts.iter().any(|t| t == "integrator of copy 0"),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t == "the lab's copies: kang, xpbd"),
        "{texts:?}"
    );
    // Outside the lab: the integrator as the user set it, and no list.
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let one = lab_of(&[IntegratorKind::Kang], &[false], &[10]);
    let (texts, _) = integrator_texts(&mut state, &one);
    assert_eq!(state.params.integrator, IntegratorKind::ImplicitMg);
    assert!(texts.iter().any(|t| t == "implicit-mg"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.starts_with("the lab's copies")));
}

#[test]
fn choosing_the_gpu_under_another_integrator_switches_to_kang_mg_with_a_notice() {
    use crate::sim::DeviceChoice;
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    state.params.integrator = IntegratorKind::Xpbd;
    let mut actions = Vec::new();
    simulation::choose_device(&mut state, DeviceChoice::Gpu, &mut actions);
    assert_eq!(state.params.integrator, IntegratorKind::KangMg);
    let note = state.notices.last().expect("a notice");
    assert!(
        note.text.contains("integrator is now kang-mg (was xpbd)"),
        "{}",
        note.text
    );
    assert!(matches!(
        &actions[..],
        [UiAction::Sim(Command::SetParams(p)), UiAction::Sim(Command::SetDevice(DeviceChoice::Gpu))]
            if p.integrator == IntegratorKind::KangMg
    ));
    // Under implicit-mg, or choosing the CPU: nothing changes but the device, without a word.
    for (kind, choice) in [
        (IntegratorKind::ImplicitMg, DeviceChoice::Gpu),
        (IntegratorKind::Xpbd, DeviceChoice::Cpu),
    ] {
        let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
        state.params.integrator = kind;
        let mut actions = Vec::new();
        simulation::choose_device(&mut state, choice, &mut actions);
        assert_eq!(state.params.integrator, kind);
        assert!(state.notices.last().is_none());
        assert!(matches!(&actions[..], [UiAction::Sim(Command::SetDevice(c))] if *c == choice));
    }
}
