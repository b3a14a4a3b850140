//! The integrator lab: copies in lock-step (`sim::lab::copies`) and `flagsim compare`, its headless
//! twin. Expected values come from the definitions (`½ Σ m v²`, `|x_ab| / L`) and from standalone
//! runs of the same scene, never from the lab's own output.

use std::path::PathBuf;
use std::process::{Command, Output};

use flagsim::sim::IntegratorKind;
use flagsim::sim::Scene;
use flagsim::sim::SimError;
use flagsim::sim::lab::copies::{CopySpec, Lab};

mod process;

fn flagsim(args: &[&str]) -> Output {
    process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(args)
            .env("RUST_BACKTRACE", "0"),
        std::time::Duration::from_mins(2),
    )
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsim-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn copy(integrator: IntegratorKind) -> CopySpec {
    CopySpec {
        integrator,
        dt: None,
        grid: None,
        device: flagsim::sim::DeviceChoice::Cpu,
    }
}

fn flag_lab(kinds: &[IntegratorKind]) -> Lab {
    let specs: Vec<CopySpec> = kinds.iter().map(|k| copy(*k)).collect();
    Lab::new(&Scene::load("flag").unwrap(), &specs).unwrap()
}

#[test]
fn copies_with_the_same_integrator_stay_bit_identical() {
    let mut lab = flag_lab(&[IntegratorKind::Kang, IntegratorKind::Kang]);
    for _ in 0..300 {
        lab.tick();
    }
    let (a, b) = (&lab.copies[0].sim.cloth, &lab.copies[1].sim.cloth);
    assert_eq!(a.x, b.x);
    assert_eq!(a.v, b.v);
    let (s0, s1) = (&lab.copies[0].sample, &lab.copies[1].sample);
    assert_eq!(s0.kinetic_energy, s1.kinetic_energy);
    assert_eq!(s0.max_strain, s1.max_strain);
}

#[test]
fn a_copy_moves_exactly_as_the_scene_run_alone_and_different_integrators_part() {
    let kinds = [
        IntegratorKind::Kang,
        IntegratorKind::Xpbd,
        IntegratorKind::ChoiKo,
    ];
    let mut lab = flag_lab(&kinds);
    for _ in 0..120 {
        lab.tick();
    }
    for (copy, kind) in lab.copies.iter().zip(kinds) {
        let mut scene = Scene::load("flag").unwrap();
        scene.params.integrator = kind;
        let mut alone = scene.simulation().unwrap();
        alone.step_n(120);
        assert_eq!(copy.sim.cloth.x, alone.cloth.x, "{}", kind.name());
        // Lock-step: one step of each per lab step, all at the lab's time.
        assert_eq!(copy.steps, 120);
        assert_eq!(copy.sim.step_index, 120);
        assert!((copy.sim.time - lab.time()).abs() < 1e-12);
    }
    // Two minutes of wind have moved each integrator's flag its own way (by centimetres).
    let apart = |i: usize, j: usize| {
        let (a, b) = (&lab.copies[i].sim.cloth.x, &lab.copies[j].sim.cloth.x);
        a.iter()
            .zip(b)
            .map(|(p, q)| p.distance(*q))
            .fold(0.0, f64::max)
    };
    assert!(apart(0, 1) > 1e-2, "kang and xpbd {}", apart(0, 1));
    assert!(apart(0, 2) > 1e-2, "kang and choi-ko {}", apart(0, 2));
    assert!(apart(1, 2) > 1e-2, "xpbd and choi-ko {}", apart(1, 2));
}

#[test]
fn a_copy_with_its_own_dt_takes_as_many_steps_as_reach_the_labs_time() {
    let scene = Scene::load("flag").unwrap();
    let dt = scene.params.dt;
    let specs = [
        copy(IntegratorKind::Kang),
        CopySpec {
            integrator: IntegratorKind::Kang,
            dt: Some(dt / 3.0),
            grid: None,
            device: flagsim::sim::DeviceChoice::Cpu,
        },
        CopySpec {
            integrator: IntegratorKind::Kang,
            dt: Some(dt * 2.0),
            grid: None,
            device: flagsim::sim::DeviceChoice::Cpu,
        },
    ];
    let mut lab = Lab::new(&scene, &specs).unwrap();
    for tick in 1..=7u64 {
        lab.tick();
        assert_eq!(lab.copies[0].steps, tick);
        assert_eq!(
            lab.copies[1].steps,
            3 * tick,
            "a third of dt: 3 per lab step"
        );
        assert_eq!(lab.copies[2].steps, tick / 2, "twice dt: one every other");
        for c in &lab.copies[..2] {
            assert!((c.sim.time - lab.time()).abs() < 1e-9);
        }
    }
}

#[test]
fn a_diverged_copy_stops_and_the_others_go_on() {
    let mut lab = flag_lab(&[IntegratorKind::ExplicitEuler, IntegratorKind::Kang]);
    for _ in 0..200 {
        lab.tick();
    }
    let (euler, kang) = (&lab.copies[0], &lab.copies[1]);
    assert!(euler.sample.diverged, "explicit Euler at dt 1/60 blows up");
    let d = euler.sim.divergence.as_ref().unwrap();
    assert_eq!(
        euler.steps + 1,
        d.step,
        "it stopped at the step the guard rejected"
    );
    assert!(!kang.sample.diverged);
    assert_eq!(kang.steps, 200);
}

#[test]
fn a_bad_count_or_dt_is_refused_with_its_reason() {
    let scene = Scene::load("flag").unwrap();
    let e = Lab::new(&scene, &[copy(IntegratorKind::Kang)]).unwrap_err();
    let count = |count| SimError::CopyCount {
        count,
        min: 2,
        max: 4,
    };
    assert_eq!(e, count(1));
    assert!(e.to_string().contains("2 to 4 copies, got 1"), "{e}");
    let five = [copy(IntegratorKind::Kang); 5];
    assert_eq!(Lab::new(&scene, &five).unwrap_err(), count(5));
    // The copy as written, then the field and its range.
    let e = CopySpec::parse("kang@0").unwrap_err();
    let SimError::CopyText { text, source } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(text, "kang@0");
    assert!(
        matches!(&**source, SimError::OutOfRange { field, value, .. } if field == "params.dt" && *value == 0.0),
        "{source:?}"
    );
    assert!(e.to_string().starts_with("'kang@0': params.dt: "), "{e}");
    assert_eq!(
        CopySpec::parse("kang@fast").unwrap_err(),
        SimError::CopyDtNotANumber {
            text: "kang@fast".into()
        }
    );
    assert_eq!(
        CopySpec::parse(" xpbd@0.005 ").unwrap(),
        CopySpec {
            integrator: IntegratorKind::Xpbd,
            dt: Some(0.005),
            grid: None,
            device: flagsim::sim::DeviceChoice::Cpu,
        }
    );
}

/// The rows of a `compare` CSV for one copy: `(time, kinetic_energy, max_strain, diverged)`.
fn rows_of(csv: &str, label: &str) -> Vec<(f64, f64, f64, bool)> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[1] == label)
        .map(|f| {
            (
                f[0].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[5].parse().unwrap(),
            )
        })
        .collect()
}

/// `½ Σ m v²` and the largest `|x_ab| / L` over the structural and shear springs of the flag
/// preset (10 × 10 nodes over 1.2 m × 0.8 m, 0.12 kg; node `i + 10 j`), from `simulate`'s
/// JSON.
fn energy_and_strain(state: &serde_json::Value) -> (f64, f64) {
    let nodes = state["nodes"].as_array().unwrap();
    let vec3 = |v: &serde_json::Value| -> [f64; 3] {
        let a = v.as_array().unwrap();
        [0, 1, 2].map(|k| a[k].as_f64().unwrap())
    };
    let m = 0.12 / 100.0;
    let energy: f64 = nodes
        .iter()
        .map(|n| 0.5 * m * vec3(&n["v"]).iter().map(|c| c * c).sum::<f64>())
        .sum();
    let x: Vec<[f64; 3]> = nodes.iter().map(|n| vec3(&n["x"])).collect();
    let (lu, lv) = (1.2 / 9.0, 0.8 / 9.0);
    let ld = f64::hypot(lu, lv);
    let strain = |a: usize, b: usize, l: f64| {
        let d: f64 = (0..3).map(|k| (x[a][k] - x[b][k]).powi(2)).sum();
        d.sqrt() / l
    };
    let mut most: f64 = 0.0;
    for j in 0..10 {
        for i in 0..10 {
            let n = i + 10 * j;
            if i < 9 {
                most = most.max(strain(n, n + 1, lu));
            }
            if j < 9 {
                most = most.max(strain(n, n + 10, lv));
            }
            if i < 9 && j < 9 {
                most = most.max(strain(n, n + 11, ld));
                most = most.max(strain(n + 1, n + 10, ld));
            }
        }
    }
    (energy, most)
}

#[test]
fn compare_writes_a_row_per_step_and_copy_whose_figures_match_the_state() {
    let csv_path = temp("two.csv");
    let svg_path = temp("two.svg");
    let out = flagsim(&[
        "compare",
        "flag",
        "--integrators",
        "kang,xpbd",
        "--seconds",
        "1",
        "--csv",
        csv_path.to_str().unwrap(),
        "--plot",
        svg_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert_eq!(
        csv.lines().next(),
        Some(
            "time,integrator,kinetic_energy,max_strain,step_us,diverged,\
             shortest_edge,short_edges,rms_distance_m,max_distance_m"
        )
    );
    // 1 s of 1/60 s steps: 60 lab steps, two rows each.
    assert_eq!(csv.lines().count(), 1 + 60 * 2);
    for label in ["kang", "xpbd"] {
        let rows = rows_of(&csv, label);
        assert_eq!(rows.len(), 60, "{label}");
        for (k, row) in rows.iter().enumerate() {
            assert!(
                (row.0 - (k + 1) as f64 / 60.0).abs() < 1e-12,
                "{label} time {}",
                row.0
            );
            assert!(!row.3);
        }
        // Steps 20 and 60 recomputed from the state `simulate` writes for the same run.
        for steps in [20usize, 60] {
            let out = flagsim(&[
                "simulate",
                "flag",
                "--integrator",
                label,
                "--steps",
                &steps.to_string(),
            ]);
            assert!(out.status.success());
            let state: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let (energy, strain) = energy_and_strain(&state);
            let (_, e, s, _) = rows[steps - 1];
            assert!(
                (e - energy).abs() <= 1e-12 * energy,
                "{label} {steps}: {e} vs {energy}"
            );
            assert!(
                (s - strain).abs() <= 1e-12 * strain,
                "{label} {steps}: {s} vs {strain}"
            );
        }
    }
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("kang") && table.contains("xpbd"), "{table}");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    // Three panels, a line per copy in each (no reference: no distance panel, empty columns).
    assert_eq!(svg.matches("<polyline").count(), 3 * 2);
    assert!(!svg.contains("distance from the reference"));
    assert!(
        csv.lines().skip(1).all(|l| l.ends_with(",,")),
        "distances without a reference"
    );
}

/// The node positions `simulate` printed.
fn positions(state: &serde_json::Value) -> Vec<[f64; 3]> {
    state["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let a = n["x"].as_array().unwrap();
            [0, 1, 2].map(|k| a[k].as_f64().unwrap())
        })
        .collect()
}

#[test]
fn compare_with_a_reference_writes_each_copys_distance_from_an_accurate_solve() {
    let csv_path = temp("reference.csv");
    let svg_path = temp("reference.svg");
    let out = flagsim(&[
        "compare",
        "flag",
        "--integrators",
        "kang,kang-mg",
        "--seconds",
        "0.5",
        "--reference",
        "--csv",
        csv_path.to_str().unwrap(),
        "--plot",
        svg_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("reference copy: implicit-cg, 4 substeps"),
        "{table}"
    );
    assert!(
        table.contains("RMS cm") && table.contains("min edge"),
        "{table}"
    );
    // The reference as the documentation defines it, run alone: the flag preset's forces,
    // implicit-cg with CG to 1e-10 at four physics steps a step, no strain limiting, no tethers.
    let mut reference = Scene::load("flag").unwrap();
    reference.params.integrator = IntegratorKind::ImplicitCg;
    reference.params.substeps = 4;
    reference.params.cg.tolerance = 1e-10;
    reference.params.cg.max_iterations = 5000;
    reference.params.provot.enabled = false;
    reference.params.provot.tethers = false;
    let scene_path = temp("reference-scene.json");
    std::fs::write(&scene_path, reference.to_json()).unwrap();
    let reference = |steps: usize| {
        let out = flagsim(&[
            "simulate",
            scene_path.to_str().unwrap(),
            "--steps",
            &steps.to_string(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        positions(&serde_json::from_slice(&out.stdout).unwrap())
    };
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    for label in ["kang", "kang-mg"] {
        let rows: Vec<Vec<&str>> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect())
            .filter(|f: &Vec<&str>| f[1] == label)
            .collect();
        assert_eq!(rows.len(), 30, "{label}");
        for steps in [10usize, 30] {
            let out = flagsim(&[
                "simulate",
                "flag",
                "--integrator",
                label,
                "--steps",
                &steps.to_string(),
            ]);
            let x = positions(&serde_json::from_slice(&out.stdout).unwrap());
            let r = reference(steps);
            let d: Vec<f64> = x
                .iter()
                .zip(&r)
                .map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt())
                .collect();
            let rms = (d.iter().map(|v| v * v).sum::<f64>() / d.len() as f64).sqrt();
            let max = d.iter().copied().fold(0.0, f64::max);
            let row = &rows[steps - 1];
            let (got_rms, got_max): (f64, f64) = (row[8].parse().unwrap(), row[9].parse().unwrap());
            assert!(
                (got_rms - rms).abs() <= 1e-12 + 1e-9 * rms,
                "{label} {steps}: {got_rms} vs {rms}"
            );
            assert!(
                (got_max - max).abs() <= 1e-12 + 1e-9 * max,
                "{label} {steps}: {got_max} vs {max}"
            );
            // The shortest structural edge over its rest length (10 × 10 over 1.2 m × 0.8 m).
            let (lu, lv) = (1.2 / 9.0, 0.8 / 9.0);
            let len = |a: usize, b: usize| {
                (0..3)
                    .map(|k| (x[a][k] - x[b][k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            };
            let mut shortest = f64::MAX;
            for j in 0..10 {
                for i in 0..10 {
                    let n = i + 10 * j;
                    if i < 9 {
                        shortest = shortest.min(len(n, n + 1) / lu);
                    }
                    if j < 9 {
                        shortest = shortest.min(len(n, n + 10) / lv);
                    }
                }
            }
            let got: f64 = row[6].parse().unwrap();
            assert!(
                (got - shortest).abs() < 1e-9,
                "{label} {steps}: {got} vs {shortest}"
            );
        }
    }
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    // A fourth panel: the distances, a line per copy.
    assert!(svg.contains("RMS distance from the reference"));
    assert_eq!(svg.matches("<polyline").count(), 4 * 2);
}

#[test]
fn compare_refuses_bad_lists_and_values_with_exit_2_and_a_failed_write_with_exit_1() {
    let run = |args: &[&str]| {
        let mut all = vec!["compare", "flag"];
        all.extend_from_slice(args);
        flagsim(&all)
    };
    let cases: [(&[&str], &str); 7] = [
        (
            &["--integrators", "kangg,xpbd", "--seconds", "1"],
            "did you mean 'kang'",
        ),
        (
            &["--integrators", "kang,xpdb", "--seconds", "1"],
            "did you mean 'xpbd'",
        ),
        (
            &["--integrators", "kang", "--seconds", "1"],
            "2 to 4 copies, got 1",
        ),
        (
            &[
                "--integrators",
                "kang,xpbd,verlet,hybrid,desbrun",
                "--seconds",
                "1",
            ],
            "got 5",
        ),
        (
            &["--integrators", "kang,xpbd@-1", "--seconds", "1"],
            "params.dt",
        ),
        (
            &["--integrators", "kang,xpbd", "--seconds", "0"],
            "--seconds",
        ),
        (
            &[
                "--integrators",
                "kang,xpbd",
                "--seconds",
                "1",
                "--plot",
                "x.png",
            ],
            "must end in .svg",
        ),
    ];
    for (args, message) in cases {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = run(&[
        "--integrators",
        "kang,xpbd",
        "--seconds",
        "1",
        "--csv",
        "/nonexistent-dir/out.csv",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write"), "{err}");
}

mod thread {
    //! The lab on the simulation thread, as the viewer runs it.

    use std::time::Duration;

    use flagsim::sim::IntegratorKind;
    use flagsim::sim::Scene;
    use flagsim::sim::lab::copies::CopySpec;
    use flagsim::sim::runtime::snapshot::Snapshot;
    use flagsim::sim_thread::{Command, SimThread, wait_for};
    use glam::DVec3;

    const WAIT: Duration = Duration::from_secs(10);

    fn lab(kinds: &[IntegratorKind]) -> SimThread {
        let specs: Vec<CopySpec> = kinds
            .iter()
            .map(|k| CopySpec {
                integrator: *k,
                dt: None,
                grid: None,
                device: flagsim::sim::DeviceChoice::Cpu,
            })
            .collect();
        SimThread::spawn_lab(Scene::load("flag").unwrap(), &specs, true).unwrap()
    }

    fn wait(sim: &SimThread, pred: impl Fn(&Snapshot) -> bool) -> std::sync::Arc<Snapshot> {
        wait_for(&sim.slot(), WAIT, pred).expect("the thread answered in time")
    }

    #[test]
    fn every_copy_is_published_at_the_same_step_with_its_own_integrator() {
        let sim = lab(&[
            IntegratorKind::Kang,
            IntegratorKind::Xpbd,
            IntegratorKind::ChoiKo,
        ]);
        step(&sim, 30);
        let snap = wait(&sim, |s| s.step == 30);
        assert_eq!(snap.lab.len(), 2);
        let names: Vec<&str> = std::iter::once(&*snap)
            .chain(&snap.lab)
            .map(|s| s.params.integrator.name())
            .collect();
        assert_eq!(names, ["kang", "xpbd", "choi-ko"]);
        for copy in &snap.lab {
            assert_eq!(copy.step, 30, "lock-step");
            assert!((copy.time - snap.time).abs() < 1e-12);
            assert_eq!(copy.generation, snap.generation);
        }
        let apart = snap
            .x
            .iter()
            .zip(&snap.lab[0].x)
            .map(|(a, b)| a.distance(*b));
        assert!(
            apart.fold(0.0, f64::max) > 1e-4,
            "kang and xpbd moved alike"
        );
    }

    /// Steps the paused lab `n` times, one command each.
    fn step(sim: &SimThread, n: usize) {
        for _ in 0..n {
            sim.send(Command::Step);
        }
    }

    /// Explicit Euler at the flag's 1/60 s fails within a tenth of a second from any state:
    /// *resume* goes back to the state kept after the first step, steps on (its count grows)
    /// and fails again at once, which the copy's snapshot says with nothing earlier to go back
    /// to; at a dt small enough it goes on.
    #[test]
    fn a_resume_steps_from_a_kept_state_and_a_failure_at_once_is_told() {
        let sim = lab(&[IntegratorKind::Kang, IntegratorKind::ExplicitEuler]);
        step(&sim, 60);
        let first = wait(&sim, |s| s.step == 60);
        let d1 = first.lab[0]
            .divergence
            .clone()
            .expect("explicit Euler diverged");
        assert!(d1.step < 20, "{d1:?}");
        assert_eq!(first.lab[0].resumed, None);
        sim.send(Command::Copy(1, Box::new(Command::ClearDivergence)));
        step(&sim, 60);
        let again = wait(&sim, |s| s.step == 120);
        let copy = &again.lab[0];
        let d2 = copy.divergence.clone().expect("it failed again");
        let r = copy.resumed.expect("it resumed");
        assert!(
            d2.step > d1.step + 2,
            "its steps count on: {d1:?} then {d2:?}"
        );
        assert!((r.from_time - 1.0 / 60.0).abs() < 1e-9, "{r:?}");
        assert!((r.at_time - 1.0).abs() < 1e-9, "{r:?}");
        assert_eq!(r.at_step, d1.step - 1);
        assert_eq!(r.earlier, 0);
        assert!(r.failed_at_once(&d2));
        // The failed step begins after the resume.
        assert!(d2.time > r.at_time && d2.time < r.at_time + 0.2, "{d2:?}");
        // At a tenth of a millisecond it goes on for a lab step (167 of its own) and more.
        sim.send(Command::Copy(1, Box::new(Command::SetCopyDt(1e-4))));
        sim.send(Command::Copy(1, Box::new(Command::ClearDivergence)));
        step(&sim, 6);
        let on = wait(&sim, |s| s.step == 126);
        let copy = &on.lab[0];
        assert!(copy.divergence.is_none(), "{:?}", copy.divergence);
        assert!(copy.step > d2.step + 900, "{} steps", copy.step);
        assert!(
            (copy.time - on.time).abs() <= 1e-4,
            "within one of its steps"
        );
    }

    /// A copy that ran two seconds has states kept from the last two: a resume goes to the
    /// newest before it failed, and when it fails again at once at the same dt, the next goes
    /// further back than that one; at another dt, to the newest again.
    #[test]
    fn a_failure_at_once_sends_the_next_resume_further_back() {
        let specs = CopySpec::parse_list("kang,explicit-euler@0.002").unwrap();
        let sim = SimThread::spawn_lab(Scene::load("flag").unwrap(), &specs, true).unwrap();
        step(&sim, 130);
        let snap = wait(&sim, |s| s.step == 130);
        assert!(
            snap.lab[0].divergence.is_none(),
            "explicit Euler runs at 2 ms"
        );
        // At the flag's 1/60 s it fails within a few steps.
        sim.send(Command::Copy(1, Box::new(Command::SetCopyDt(1.0 / 60.0))));
        step(&sim, 10);
        let snap = wait(&sim, |s| s.step == 140);
        assert!(
            snap.lab[0].divergence.is_some(),
            "explicit Euler fails at 1/60 s"
        );
        sim.send(Command::Copy(1, Box::new(Command::ClearDivergence)));
        step(&sim, 10);
        let snap = wait(&sim, |s| s.step == 150);
        let r1 = snap.lab[0].resumed.expect("resumed");
        // Kept after lab steps 1, 30, 60, 90 and 120: the last four, the newest first.
        assert!((r1.from_time - 2.0).abs() < 1e-9, "{r1:?}");
        assert_eq!(r1.earlier, 3);
        let d = snap.lab[0].divergence.clone().expect("it failed again");
        assert!(r1.failed_at_once(&d));
        // The next resume goes to the state kept before that one.
        sim.send(Command::Copy(1, Box::new(Command::ClearDivergence)));
        step(&sim, 10);
        let snap = wait(&sim, |s| s.step == 160);
        let r2 = snap.lab[0].resumed.expect("resumed");
        assert!((r2.from_time - 1.5).abs() < 1e-9, "{r2:?}");
        assert_eq!(r2.earlier, 2);
        // Back at 2 ms: from the newest kept state, and it goes on.
        sim.send(Command::Copy(1, Box::new(Command::SetCopyDt(0.002))));
        sim.send(Command::Copy(1, Box::new(Command::ClearDivergence)));
        step(&sim, 60);
        let snap = wait(&sim, |s| s.step == 220);
        let r3 = snap.lab[0].resumed.expect("resumed");
        assert!((r3.from_time - 2.0).abs() < 1e-9, "{r3:?}");
        assert!(snap.lab[0].divergence.is_none());
    }

    /// A state stretched past twice its rest length is not kept to resume from: a flag of
    /// springs too soft for its weight (0.5 N/m, no strain limiting, no wind) sags past it,
    /// then on to the guard's ten times; a resume goes back to the last state kept before it
    /// passed twice.
    #[test]
    fn a_state_stretched_past_twice_its_length_is_not_kept() {
        let mut scene = Scene::load("flag").unwrap();
        scene.params.stiffness.structural = 0.5;
        scene.params.stiffness.shear = 0.1;
        scene.params.provot.enabled = false;
        scene.params.wind.velocity = [0.0; 3];
        let specs = CopySpec::parse_list("kang,explicit-euler@0.002").unwrap();
        let sim = SimThread::spawn_lab(scene, &specs, true).unwrap();
        // Lab steps until copy 1 stops, noting when it first passed twice its rest length.
        let (mut past, mut stopped) = (None, None);
        for k in 1..=600u64 {
            step(&sim, 1);
            let snap = wait(&sim, |s| s.step == k);
            let copy = &snap.lab[0];
            if past.is_none() && copy.stats.max_strain > 2.0 {
                past = Some(snap.time);
            }
            if copy.divergence.is_some() {
                stopped = Some(k);
                break;
            }
        }
        let past = past.expect("the soft flag sags past twice its length");
        let stopped = stopped.expect("and on to the guard's limit");
        // At least one state was due between the two, and not kept.
        assert!(
            past > 0.6 && (stopped as f64) / 60.0 > past + 0.5,
            "{past} {stopped}"
        );
        sim.send(Command::Copy(1, Box::new(Command::ClearDivergence)));
        step(&sim, 1);
        let snap = wait(&sim, |s| s.step == stopped + 1);
        let r = snap.lab[0].resumed.expect("resumed");
        // States are kept every half second: the last before it passed.
        let last_kept = ((past - 1e-9) * 2.0).floor() / 2.0;
        assert!(
            (r.from_time - last_kept).abs() < 1e-6,
            "went back to {} where the last state under twice the length was kept at {last_kept}",
            r.from_time
        );
    }

    #[test]
    fn a_grab_goes_to_its_copy_and_sync_copies_the_state_but_not_the_integrator() {
        let sim = lab(&[IntegratorKind::Kang, IntegratorKind::Xpbd]);
        let target = DVec3::new(0.5, 2.0, 0.3);
        sim.send(Command::Copy(
            1,
            Box::new(Command::Grab { node: 55, target }),
        ));
        let snap = wait(&sim, |s| s.lab.first().is_some_and(|c| c.grabbed.is_some()));
        assert_eq!(snap.lab[0].grabbed, Some(55));
        assert_eq!(snap.grabbed, None, "copy 0 was not grabbed");
        step(&sim, 20);
        let moved = wait(&sim, |s| s.step == 20);
        assert!(moved.lab[0].x[55].distance(moved.x[55]) > 1e-3);
        sim.send(Command::Copy(1, Box::new(Command::Release)));
        sim.send(Command::Sync(0));
        let synced = wait(&sim, |s| s.lab[0].grabbed.is_none() && s.lab[0].x == s.x);
        assert_eq!(synced.lab[0].v, synced.v, "and its velocities");
        assert_eq!(synced.lab[0].step, synced.step);
        assert_eq!(synced.lab[0].params.integrator, IntegratorKind::Xpbd);
        sim.send(Command::Copy(7, Box::new(Command::Release)));
        let refused = wait(&sim, |s| s.error.is_some());
        assert_eq!(
            refused.error,
            Some(flagsim::sim::SimError::NoCopy { copy: 7 })
        );
        assert_eq!(
            refused.error.as_ref().unwrap().to_string(),
            "there is no copy 7"
        );
    }

    #[test]
    fn the_reference_copy_runs_the_accurate_solve_and_each_copy_reports_its_distance() {
        use flagsim::sim::model::shape;
        let sim = lab(&[IntegratorKind::Kang, IntegratorKind::KangMg]);
        sim.send(Command::SetReference(true));
        step(&sim, 30);
        let snap = wait(&sim, |s| s.step == 30);
        let status = snap.reference.expect("the reference runs");
        assert!(!status.diverged);
        // The same accurate solve, run here on its own from the scene's initial state (where
        // the copies still are when it starts).
        let mut scene = Scene::load("flag").unwrap();
        scene.params = shape::reference_params(&scene.params);
        let mut alone = scene.simulation().unwrap();
        for _ in 0..30 {
            assert!(alone.step());
        }
        for copy in std::iter::once(&*snap).chain(&snap.lab) {
            let expected = shape::distance(&copy.x, &alone.cloth.x);
            let got = copy.reference_distance.expect("a distance per copy");
            assert!(
                (got.rms - expected.rms).abs() < 1e-12 && (got.max - expected.max).abs() < 1e-12,
                "{got:?} against {expected:?}"
            );
            assert!(got.rms > 0.0, "kang and kang-mg are not the accurate solve");
        }
        sim.send(Command::SetReference(false));
        let off = wait(&sim, |s| s.reference.is_none());
        assert!(off.reference_distance.is_none() && off.lab[0].reference_distance.is_none());
        // Outside the lab there is nothing to compare: refused with the reason.
        let alone = SimThread::spawn(Scene::load("flag").unwrap(), true).unwrap();
        alone.send(Command::SetReference(true));
        let refused = wait_for(&alone.slot(), WAIT, |s| s.error.is_some()).unwrap();
        assert_eq!(
            refused.error,
            Some(flagsim::sim::SimError::ReferenceOutsideLab)
        );
        assert!(
            refused
                .error
                .as_ref()
                .unwrap()
                .to_string()
                .contains("in the lab")
        );
        assert!(refused.reference.is_none());
    }

    /// Each copy's and the reference's motion, as the resolution study measures it: sampled
    /// every 0.1 s of lab time, over the last 20 s, published once a second; started again
    /// when the copies are synced or reset.
    #[test]
    fn the_lab_measures_how_each_copy_and_the_reference_move() {
        use flagsim::sim::lab::motion::MotionProbe;
        use flagsim::sim::model::shape;
        use flagsim::sim_thread::MOTION_WINDOW;
        let sim = lab(&[IntegratorKind::ImplicitMg, IntegratorKind::KangMg]);
        let before = wait(&sim, |_| true);
        assert!(before.motion.is_none() && before.lab[0].motion.is_none());
        sim.send(Command::SetReference(true));
        step(&sim, 180);
        let snap = wait(&sim, |s| s.step == 180);
        // The same runs on their own, sampled every 6th step of 1/60 s from the scene's state.
        let scene = Scene::load("flag").unwrap();
        let alone = |params: flagsim::sim::Params| {
            let mut run = scene.clone();
            run.params = params;
            let mut sim = run.simulation().unwrap();
            let mut probe = MotionProbe::new(&sim.cloth, 0.1).unwrap();
            for k in 1..=180 {
                assert!(sim.step());
                if k % 6 == 0 {
                    probe.sample(&sim.cloth);
                }
            }
            probe.motion().unwrap()
        };
        let mut kang_mg = scene.params.clone();
        kang_mg.integrator = IntegratorKind::KangMg;
        let expected = [
            alone(scene.params.clone()),
            alone(kang_mg),
            alone(shape::reference_params(&scene.params)),
        ];
        let got = [
            snap.motion.expect("copy 0's motion"),
            snap.lab[0].motion.expect("copy 1's motion"),
            snap.reference
                .and_then(|r| r.motion)
                .expect("the reference's"),
        ];
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g.samples, 30);
            assert!((g.sway - e.sway).abs() < 1e-12, "{g:?} against {e:?}");
            assert!((g.reach - e.reach).abs() < 1e-12, "{g:?} against {e:?}");
            assert!(
                (g.frequency - e.frequency).abs() < 1e-9,
                "{g:?} against {e:?}"
            );
            assert!((g.shortest_edge - e.shortest_edge).abs() < 1e-12);
        }
        // kang-mg is not the accurate solve: it sways less.
        assert!(got[1].sway < got[2].sway, "{got:?}");
        // Synced, every probe starts again.
        sim.send(Command::Sync(0));
        sim.send(Command::Step);
        let synced = wait(&sim, |s| s.step == 181);
        assert!(synced.motion.is_none() && synced.lab[0].motion.is_none());
        assert!(synced.reference.expect("still running").motion.is_none());
        // Without the reference, past the window: the figures are over its last 20 s.
        sim.send(Command::SetReference(false));
        let steps = (60.0 * (MOTION_WINDOW + 1.0)) as u64;
        step(&sim, steps as usize);
        let long = wait(&sim, |s| s.step == 181 + steps);
        assert!(long.reference.is_none());
        assert_eq!(long.motion.expect("copy 0's motion").samples, 200);
        // A reset starts them again.
        sim.send(Command::Reset);
        let reset = wait(&sim, |s| s.step == 0);
        assert!(reset.motion.is_none() && reset.lab[0].motion.is_none());
    }

    /// The figures are computed once a second of lab time, not at every sample: between two
    /// whole seconds a snapshot carries those of the last one.
    #[test]
    fn the_motion_figures_are_those_of_the_last_whole_second() {
        let sim = lab(&[IntegratorKind::ImplicitMg, IntegratorKind::KangMg]);
        // 1.5 s at 1/60 s: figures from t = 1 s, over the samples at 0.1, 0.2, … 1.0 s.
        step(&sim, 90);
        let between = wait(&sim, |s| s.step == 90);
        assert_eq!(between.motion.expect("copy 0's").samples, 10);
        assert_eq!(between.lab[0].motion.expect("copy 1's").samples, 10);
        // At 2 s, those of 2 s.
        step(&sim, 30);
        let whole = wait(&sim, |s| s.step == 120);
        assert_eq!(whole.motion.expect("copy 0's").samples, 20);
    }

    /// A copy the guard stopped is not measured standing still; one cloth outside the lab is
    /// not measured at all.
    #[test]
    fn a_stopped_copy_and_a_cloth_outside_the_lab_have_no_motion() {
        let sim = lab(&[IntegratorKind::ImplicitMg, IntegratorKind::ExplicitEuler]);
        step(&sim, 120);
        let snap = wait(&sim, |s| s.step == 120);
        assert!(snap.lab[0].divergence.is_some(), "explicit Euler at 1/60 s");
        assert_eq!(snap.motion.expect("implicit-mg's").samples, 20);
        // Sampled until it stopped (at step 7 of 120), not after.
        let stopped = snap.lab[0].motion.map_or(0, |m| m.samples);
        assert!(stopped < 5, "{:?}", snap.lab[0].motion);
        let alone = SimThread::spawn(Scene::load("flag").unwrap(), true).unwrap();
        step(&alone, 120);
        let one = wait_for(&alone.slot(), WAIT, |s| s.step == 120).unwrap();
        assert!(one.motion.is_none());
    }

    /// A sync between copies at the same grid takes the other's whole state, its integrator's
    /// warm start with it: two copies of one integrator then step bit for bit alike.
    #[test]
    fn a_sync_at_the_same_grid_keeps_the_integrators_warm_start() {
        let sim = lab(&[IntegratorKind::ImplicitMg, IntegratorKind::ImplicitMg]);
        let target = DVec3::new(0.5, 2.0, 0.3);
        sim.send(Command::Copy(
            1,
            Box::new(Command::Grab { node: 55, target }),
        ));
        step(&sim, 10);
        let apart = wait(&sim, |s| s.step == 10);
        assert_ne!(apart.x, apart.lab[0].x);
        sim.send(Command::Copy(1, Box::new(Command::Release)));
        sim.send(Command::Sync(0));
        step(&sim, 10);
        let after = wait(&sim, |s| s.step == 20);
        assert_eq!(
            after.lab[0].x, after.x,
            "the same steps from the same state"
        );
        assert_eq!(after.lab[0].v, after.v);
    }

    /// Copies at different key grids: a sync gives each the other's state at its own grid's
    /// nodes (bilinear between the source's), keeping its grid and integrator; the reference
    /// started from a copy runs at that copy's grid and is measured there.
    #[test]
    fn a_sync_across_key_grids_takes_the_state_at_each_copys_own_nodes() {
        use flagsim::sim::model::shape;
        let specs = CopySpec::parse_list("implicit-mg,implicit-mg#19").unwrap();
        let sim = SimThread::spawn_lab(Scene::load("flag").unwrap(), &specs, true).unwrap();
        let first = wait(&sim, |_| true);
        assert_eq!((first.x.len(), first.lab[0].x.len()), (100, 361));
        step(&sim, 20);
        let apart = wait(&sim, |s| s.step == 20);
        let coarse_at_fine = shape::resample(&apart.x, [10, 10], [19, 19]);
        assert_ne!(apart.lab[0].x, coarse_at_fine);
        sim.send(Command::Sync(0));
        let synced = wait(&sim, |s| {
            s.lab[0].x == shape::resample(&s.x, [10, 10], [19, 19])
        });
        assert_eq!(synced.lab[0].x, coarse_at_fine);
        assert_eq!(
            synced.lab[0].v,
            shape::resample(&apart.v, [10, 10], [19, 19])
        );
        assert_eq!(
            (synced.lab[0].step, synced.lab[0].time),
            (apart.step, apart.time)
        );
        assert_eq!(synced.lab[0].params.integrator, IntegratorKind::ImplicitMg);
        // The other way: the 10 × 10 copy's nodes are every other node of the 19 × 19's.
        sim.send(Command::SetReference(true));
        sim.send(Command::Sync(1));
        let back = wait(&sim, |s| {
            s.reference.is_some() && s.x == shape::resample(&s.lab[0].x, [19, 19], [10, 10])
        });
        for j in 0..10 {
            for i in 0..10 {
                assert_eq!(back.x[j * 10 + i], back.lab[0].x[2 * j * 19 + 2 * i]);
            }
        }
        assert_eq!(back.reference_distance.unwrap().max, 0.0);
        assert_eq!(back.lab[0].reference_distance.unwrap().max, 0.0);
        // The reference runs at copy 1's grid: its motion is measured at that grid's fly edge,
        // reaching out as far as copy 1 does (not from the middle of the sheet).
        step(&sim, 120);
        let moved = wait(&sim, |s| s.step == 140);
        let reference = moved
            .reference
            .and_then(|r| r.motion)
            .expect("the reference's");
        let copy = moved.lab[0].motion.expect("copy 1's");
        assert!(
            (reference.reach - copy.reach).abs() < 0.1 * copy.reach,
            "{reference:?} against {copy:?}"
        );
        assert!(copy.reach > 1.0, "{copy:?}");
        assert!(moved.lab[0].reference_distance.unwrap().rms > 0.0);
    }

    #[test]
    fn turning_the_reference_on_syncs_the_copies_to_copy_0() {
        let sim = lab(&[IntegratorKind::Kang, IntegratorKind::Xpbd]);
        step(&sim, 10);
        let apart = wait(&sim, |s| s.step == 10);
        assert_ne!(apart.x, apart.lab[0].x);
        sim.send(Command::SetReference(true));
        let synced = wait(&sim, |s| s.reference.is_some());
        assert_eq!(synced.x, synced.lab[0].x);
        // Both start where the reference starts: no distance yet.
        assert_eq!(synced.reference_distance.unwrap().max, 0.0);
        assert_eq!(synced.lab[0].reference_distance.unwrap().max, 0.0);
    }

    #[test]
    fn shared_parameters_reach_every_copy_and_each_keeps_its_integrator_and_dt() {
        let scene = Scene::load("flag").unwrap();
        let dt = scene.params.dt;
        let specs = [
            CopySpec {
                integrator: IntegratorKind::Kang,
                dt: None,
                grid: None,
                device: flagsim::sim::DeviceChoice::Cpu,
            },
            CopySpec {
                integrator: IntegratorKind::Kang,
                dt: Some(dt / 2.0),
                grid: None,
                device: flagsim::sim::DeviceChoice::Cpu,
            },
        ];
        let sim = SimThread::spawn_lab(scene.clone(), &specs, true).unwrap();
        let mut p = scene.params.clone();
        p.stiffness.structural = 80.0;
        p.integrator = IntegratorKind::Verlet;
        sim.send(Command::SetParams(Box::new(p)));
        step(&sim, 4);
        let snap = wait(&sim, |s| s.step == 4);
        assert_eq!(snap.params.stiffness.structural, 80.0);
        assert_eq!(snap.lab[0].params.stiffness.structural, 80.0);
        assert_eq!(snap.params.integrator, IntegratorKind::Kang);
        assert_eq!(snap.lab[0].params.dt, dt / 2.0);
        assert_eq!(snap.lab[0].step, 8, "half the dt: two steps per lab step");
        assert!(SimThread::spawn_lab(scene, &specs[..1], true).is_err());
    }
}

mod stable_dt {
    //! The largest stable `dt`: the bisection `flagsim bench` and the viewer's lab share.

    use std::sync::atomic::AtomicBool;

    use flagsim::sim::IntegratorKind;
    use flagsim::sim::Scene;
    use flagsim::sim::lab::motion::Motion;
    use flagsim::sim::lab::stability::{
        ACCURATE_SETTLE, ACCURATE_WINDOW, Accurate, Closeness, DT_MAX, DT_MIN, SECONDS, TRIALS,
        accuracy_reference, accuracy_trial, largest_accurate_dt, largest_stable_dt, runs_stably,
        steps_to,
    };
    use flagsim::sim_thread::Search;

    #[test]
    fn the_bisection_ends_on_a_stable_dt_just_below_an_unstable_one() {
        // The flag as this test was worked out for (soft springs, tethers): explicit Euler's
        // stability there is a clean threshold in dt, which the bisection assumes.
        let mut scene = Scene::load("flag").unwrap();
        scene.params.stiffness.structural = 40.0;
        scene.params.stiffness.shear = 10.0;
        scene.params.provot.tethers = true;
        let never = AtomicBool::new(false);
        let kind = IntegratorKind::ExplicitEuler;
        let mut trials = Vec::new();
        let dt = largest_stable_dt(&scene, kind, SECONDS, 6, &never, |n| trials.push(n)).unwrap();
        // Explicit Euler diverges within 3 s at the flag's 1/60 s (at 0.6 s, tests above), not at
        // 0.1 ms.
        assert!(dt > 1e-4 && dt < 1.0 / 60.0, "{dt}");
        assert_eq!(runs_stably(&scene, kind, dt, SECONDS, &never), Some(true));
        // Six halvings of log(0.5 / 1e-4) leave a bracket of (5000)^(1/64) ≈ 1.14: one step
        // above the result fails.
        let step = (DT_MAX / 1e-4f64).powf(1.0 / 64.0);
        assert_eq!(
            runs_stably(&scene, kind, dt * step, SECONDS, &never),
            Some(false)
        );
        assert_eq!(
            trials,
            (1..=8).collect::<Vec<u32>>(),
            "two bounds and six halvings"
        );
        // kang-mg takes the top of the range at once.
        let kang_mg = largest_stable_dt(&scene, IntegratorKind::KangMg, 0.5, 6, &never, |_| {});
        assert_eq!(kang_mg, Some(DT_MAX));
    }

    /// A 10 × 10 sheet hanging from its top corners in its own plane, stiff against its mass
    /// (h²k/m ≈ 900 at 1/60 s), as the peer comparison's scenes are.
    fn stiff_sheet() -> Scene {
        let text = r#"{"cloth": {"grid": {"nx": 10, "ny": 10, "width": 1.0, "height": 1.0,
            "origin": [0.0, 0.0, 0.0], "plane": "xy", "mass": 0.2, "pins": "top-corners"}},
            "params": {"dt": 0.016666666666666666,
              "stiffness": {"structural": 2000.0, "shear": 500.0, "bend": 50.0},
              "wind": {"velocity": [0.0, 0.0, 0.0], "drag": 0.0, "lift": 0.0, "linear": 0.0,
                       "gust": {"strength": 0.0}},
              "provot": {"enabled": true, "max_stretch": 0.05}}}"#;
        Scene::from_json(text, "stiff sheet").unwrap()
    }

    fn motion(sway: f64, frequency: f64, reach: f64) -> Motion {
        Motion {
            sway,
            frequency,
            reach,
            spread: 0.0,
            shortest_edge: 1.0,
            short_edges: 0.0,
            samples: 100,
        }
    }

    #[test]
    fn a_motion_is_accurate_when_each_figure_is_within_a_tenth_of_the_accurate_solves() {
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
        let reference = motion(0.2, 1.25, 1.0);
        // Sway 0.19 / 0.2 − 1 = −5 %, frequency 1.35 / 1.25 − 1 = +8 %, reach 1.02: +2 %.
        let c = Closeness::of(&motion(0.19, 1.35, 1.02), &reference);
        assert!(close(c.sway, -0.05) && close(c.frequency, 0.08) && close(c.reach, 0.02));
        assert!(c.accurate());
        // Any one figure beyond 10 %: not accurate, either way.
        for (m, what) in [
            (motion(0.23, 1.25, 1.0), "sway +15 %"),
            (motion(0.2, 1.1, 1.0), "frequency −12 %"),
            (motion(0.2, 1.25, 0.85), "reach −15 %"),
        ] {
            assert!(!Closeness::of(&m, &reference).accurate(), "{what}");
        }
        // A still accurate solve (a fly edge swaying under 1 mm): its sway and frequency are
        // the solve's noise and are not compared; the reach is.
        let still = motion(0.0005, 3.0, 1.0);
        let c = Closeness::of(&motion(0.01, 0.4, 1.05), &still);
        assert_eq!((c.sway, c.frequency), (None, None));
        assert!(close(c.reach, 0.05) && c.accurate());
        assert!(!Closeness::of(&motion(0.0, 3.0, 1.2), &still).accurate());
    }

    #[test]
    fn an_accuracy_trial_lands_on_the_instant_it_is_compared_at() {
        // n = ceil(S / dt) steps of S / n: never more than dt, the last ending at S.
        assert_eq!(steps_to(3.0, 0.5), (6, 0.5));
        assert_eq!(steps_to(3.0, 0.4), (8, 0.375));
        assert_eq!(steps_to(3.0, 5.0), (1, 3.0));
        let (n, dt) = steps_to(1.0, 0.3);
        assert_eq!(n, 4);
        assert!((dt - 0.25).abs() < 1e-15);
    }

    /// `scene` run by hand as an accuracy trial runs it: `dt` made the step that divides
    /// `ACCURATE_SETTLE + ACCURATE_WINDOW`, then a sample every step nearest 0.05 s from
    /// `ACCURATE_SETTLE` on.
    fn motion_by_hand(scene: &Scene, params: flagsim::sim::Params, dt: f64) -> Motion {
        use flagsim::sim::lab::motion::MotionProbe;
        let seconds = ACCURATE_SETTLE + ACCURATE_WINDOW;
        let n = (seconds / dt).ceil() as usize;
        let h = seconds / n as f64;
        let every = ((0.05 / h).round() as usize).max(1);
        let first = (ACCURATE_SETTLE / h).round() as usize;
        let mut run = scene.clone();
        run.params = params;
        run.params.dt = h;
        let mut sim = run.simulation().unwrap();
        let mut probe = MotionProbe::new(&sim.cloth, every as f64 * h).unwrap();
        for k in 1..=n {
            assert!(sim.step());
            if k >= first && (k - first).is_multiple_of(every) {
                probe.sample(&sim.cloth);
            }
        }
        probe.motion().unwrap()
    }

    /// The motion a trial and the accurate solve are judged by, as a run by hand measures it:
    /// `ACCURATE_SETTLE` seconds, then a sample every step nearest `MOTION_INTERVAL` (0.05 s)
    /// over `ACCURATE_WINDOW`, on a whole number of steps over the trial's seconds.
    #[test]
    fn a_trial_measures_the_motion_of_a_run_by_hand_over_the_same_samples() {
        let never = AtomicBool::new(false);
        let scene = stiff_sheet();
        assert_eq!(ACCURATE_SETTLE + ACCURATE_WINDOW, 10.0);
        // dt 0.03 s asked: ceil(10 / 0.03) = 334 steps of 10 / 334 s; a sample every
        // round(0.05 / h) = 2 steps from step round(2 / h) = 67 on: (334 − 67) / 2 + 1 = 134.
        let mut xpbd = scene.params.clone();
        xpbd.integrator = IntegratorKind::Xpbd;
        let hand = motion_by_hand(&scene, xpbd.clone(), 0.03);
        assert_eq!(hand.samples, 134);
        let trial = accuracy_trial(&scene, IntegratorKind::Xpbd, 0.03, &hand, &never).unwrap();
        let reach_alone = Closeness {
            sway: None,
            frequency: None,
            reach: Some(0.0),
        };
        assert_eq!(
            trial,
            Some(reach_alone),
            "the sheet hangs still: the reach alone"
        );
        // At 0.0147 s: 681 steps, a sample every round(3.405) = 3 from step round(136.2) = 136
        // (not a multiple of 3: the samples are counted from the first), 182 samples.
        let hand = motion_by_hand(&scene, xpbd, 0.0147);
        assert_eq!(hand.samples, 182);
        let trial = accuracy_trial(&scene, IntegratorKind::Xpbd, 0.0147, &hand, &never).unwrap();
        assert_eq!(trial, Some(reach_alone));
        // The flag flaps, so its sway and frequency are compared too (the frequency from the
        // samples' spacing): at 0.025 s, 400 steps, a sample every 2 from step 80, 161 samples.
        let flag = Scene::load("flag").unwrap();
        let mut xpbd = flag.params.clone();
        xpbd.integrator = IntegratorKind::Xpbd;
        let hand = motion_by_hand(&flag, xpbd, 0.025);
        assert_eq!(hand.samples, 161);
        assert!(hand.sway > 0.01 && hand.frequency > 0.1, "{hand:?}");
        let trial = accuracy_trial(&flag, IntegratorKind::Xpbd, 0.025, &hand, &never).unwrap();
        let all_three = Closeness {
            sway: Some(0.0),
            frequency: Some(0.0),
            reach: Some(0.0),
        };
        assert_eq!(trial, Some(all_three));
        // The accurate solve is run at its own dt, with its own parameters.
        let reference = accuracy_reference(&scene, &never)
            .unwrap()
            .expect("it runs");
        let accurate = flagsim::sim::model::shape::reference_params(&scene.params);
        let dt = accurate.dt;
        assert_eq!(reference, motion_by_hand(&scene, accurate, dt));
        assert!(reference.reach > 0.5, "{reference:?}");
    }

    /// A trial whose cloth runs away (stretched past three times its length, though the guard,
    /// at ten, never stops it) has no motion to judge; a trial cancelled while it runs stops.
    #[test]
    fn a_trial_that_runs_away_has_no_motion_and_one_cancelled_stops() {
        let never = AtomicBool::new(false);
        // The sheet on soft springs (0.7 N/m): xpbd hangs it at about 3.5 times its length.
        let mut soft = stiff_sheet();
        soft.params.stiffness.structural = 0.7;
        soft.params.stiffness.shear = 0.7;
        soft.params.stiffness.bend = 0.0;
        soft.params.provot.enabled = false;
        soft.params.integrator = IntegratorKind::Xpbd;
        soft.params.dt = 1.0 / 60.0;
        let mut sim = soft.simulation().unwrap();
        let mut most = 0.0f64;
        for _ in 0..600 {
            assert!(sim.step(), "the guard never stops it");
            most = most.max(sim.stats.max_strain);
        }
        assert!(most > 3.0 && most < 10.0, "{most}");
        let any = motion(0.0, 0.0, 1.0);
        let trial = accuracy_trial(&soft, IntegratorKind::Xpbd, 1.0 / 60.0, &any, &never);
        assert_eq!(trial, Ok(None));
        // 100 000 steps of 0.1 ms take seconds; cancelled after a tenth of one, the trial stops.
        let cancel = std::sync::Arc::new(AtomicBool::new(false));
        let later = std::sync::Arc::clone(&cancel);
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            later.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let scene = stiff_sheet();
        let cancelled = accuracy_trial(&scene, IntegratorKind::Kang, DT_MIN, &any, &cancel);
        canceller.join().unwrap();
        assert_eq!(cancelled, Err(flagsim::sim::lab::stability::Cancelled));
    }

    /// The flag in gusty wind is chaotic: no step ends near where the accurate solve ends, but
    /// xpbd and choi-ko move it as the accurate solve does at some dt, and the figures they
    /// are judged by come with it. The accurate solve measured against itself is accurate.
    #[test]
    fn on_the_flag_xpbd_and_choi_ko_have_an_accurate_dt_and_the_figures_it_was_judged_by() {
        let never = AtomicBool::new(false);
        let scene = Scene::load("flag").unwrap();
        let reference = accuracy_reference(&scene, &never)
            .unwrap()
            .expect("it runs");
        assert!(reference.sway > 0.05, "the flag flaps: {reference:?}");
        let mut accurate = scene.clone();
        accurate.params = flagsim::sim::model::shape::reference_params(&scene.params);
        let itself = accuracy_trial(
            &accurate,
            accurate.params.integrator,
            scene.params.dt,
            &reference,
            &never,
        )
        .unwrap()
        .expect("it runs");
        assert_eq!(
            itself,
            Closeness {
                sway: Some(0.0),
                frequency: Some(0.0),
                reach: Some(0.0)
            }
        );
        for kind in [IntegratorKind::Xpbd, IntegratorKind::ChoiKo] {
            let mut trials = 0;
            let found =
                largest_accurate_dt(&scene, kind, 4, 0.1, &reference, &never, |n| trials = n)
                    .unwrap();
            assert!(found.dt >= DT_MIN && found.dt <= 0.1, "{kind:?}: {found:?}");
            let judged = found.closeness.expect("the figures at that dt");
            assert!(judged.accurate(), "{kind:?}: {judged:?}");
            // The figures are those of a run at that very dt.
            let again = accuracy_trial(&scene, kind, found.dt, &reference, &never).unwrap();
            assert_eq!(again, Some(judged), "{kind:?}");
            // A whole number of steps over the trial's seconds.
            let seconds = ACCURATE_SETTLE + ACCURATE_WINDOW;
            assert_eq!(steps_to(seconds, found.dt).1, found.dt);
            assert!(trials <= 6, "{trials}");
        }
    }

    /// Where nothing is accurate down to the smallest dt, the answer is 0 with the figures at
    /// that dt; above the stable dt nothing is tried.
    #[test]
    fn below_the_smallest_dt_the_figures_there_are_given_and_nothing_above_the_stable_one() {
        let never = AtomicBool::new(false);
        let scene = stiff_sheet();
        let reference = accuracy_reference(&scene, &never)
            .unwrap()
            .expect("it runs");
        // The sheet hangs still: only its reach is compared. Against a reach 20 % longer, no
        // dt of kang is accurate.
        let far = Motion {
            reach: 1.2 * reference.reach,
            ..reference
        };
        let mut trials = Vec::new();
        let found = largest_accurate_dt(&scene, IntegratorKind::Kang, 2, 0.01, &far, &never, |n| {
            trials.push(n);
        })
        .unwrap();
        assert_eq!(found.dt, 0.0);
        assert_eq!(trials, [1, 2], "the top, then the bottom");
        let at_min = found.closeness.expect("the figures at the smallest dt");
        assert_eq!((at_min.sway, at_min.frequency), (None, None));
        assert!(at_min.reach.unwrap() < -0.1, "{at_min:?}");
        // A range of the smallest dt alone: that dt is tried, and its figures are given.
        let only = largest_accurate_dt(
            &scene,
            IntegratorKind::Kang,
            2,
            DT_MIN,
            &far,
            &never,
            |_| {},
        )
        .unwrap();
        assert_eq!(only.dt, 0.0);
        assert_eq!(
            only.closeness, found.closeness,
            "the figures at the smallest dt"
        );
        let none = largest_accurate_dt(&scene, IntegratorKind::Kang, 2, 0.0, &far, &never, |_| {
            panic!("no trial below the range")
        });
        assert_eq!(none, Some(Accurate::default()));
        // Against its own accurate solve, the top of the range at once, as the step that
        // divides the trial's 10 s: 0.03 s asked, ceil(10 / 0.03) = 334 steps of 10 / 334 s.
        let top = largest_accurate_dt(
            &scene,
            IntegratorKind::ImplicitMg,
            2,
            0.03,
            &reference,
            &never,
            |_| {},
        )
        .unwrap();
        assert_eq!(ACCURATE_SETTLE + ACCURATE_WINDOW, 10.0);
        assert_eq!(top.dt, 10.0 / 334.0);
        assert!(top.closeness.is_some_and(|c| c.accurate()));
    }

    /// A search at the lab's copies' key grids: each integrator's findings are those of a
    /// search on its grid's scene alone (one reference a grid), and a grid the scene cannot
    /// take ends the search with the reason.
    #[test]
    fn a_search_runs_each_integrator_at_its_copys_key_grid() {
        let finish = |search: &Search| {
            let start = std::time::Instant::now();
            while !search.finished() {
                assert!(start.elapsed().as_secs() < 120, "the search never ended");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        };
        let scene = stiff_sheet().with_key_grid(4, 4).unwrap();
        let kinds = vec![IntegratorKind::ImplicitMg, IntegratorKind::Kang];
        let both = Search::start_on_grids(
            scene.clone(),
            kinds.clone(),
            vec![Some([5, 5]), Some([6, 6])],
        );
        finish(&both);
        assert!(both.failure().is_none());
        assert!((both.progress() - 1.0).abs() < 1e-12, "{}", both.progress());
        for (i, (kind, n)) in kinds.iter().zip([5, 6]).enumerate() {
            let alone = Search::start(scene.with_key_grid(n, n).unwrap(), vec![*kind]);
            finish(&alone);
            assert_eq!(both.found()[i], alone.found()[0], "{kind:?} at {n} × {n}");
            assert!(both.found()[i].accurate.is_some());
        }
        let refused = Search::start_on_grids(
            Scene::load("two-masses").unwrap(),
            vec![IntegratorKind::Kang],
            vec![Some([8, 8])],
        );
        finish(&refused);
        let why = refused.failure().expect("the reason");
        assert!(why.starts_with("key grid 8 × 8: cloth.grid"), "{why}");
        assert_eq!(refused.results(), [None]);
    }

    #[test]
    fn a_search_reports_each_result_and_a_cancelled_one_stops() {
        let scene = Scene::load("flag").unwrap();
        let search = Search::start(scene.clone(), vec![IntegratorKind::KangMg]);
        let start = std::time::Instant::now();
        while !search.finished() {
            assert!(start.elapsed().as_secs() < 60, "the search never ended");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(search.results(), [Some(DT_MAX)]);
        let found = search.found()[0];
        let accurate = found
            .accurate
            .expect("the accurate dt is searched after the stable one");
        assert!((0.0..=DT_MAX).contains(&accurate), "{found:?}");
        assert!(search.failure().is_none());
        assert!((search.progress() - 1.0).abs() < 1e-12);
        let slow = Search::start(
            scene,
            vec![IntegratorKind::ImplicitCg, IntegratorKind::ChoiKo],
        );
        slow.cancel();
        assert!(slow.finished() && slow.cancelled());
        assert!(slow.progress() < 2.0 * f64::from(TRIALS));
        assert_eq!(slow.results(), [None, None]);
    }
}

/// A copy's device in the copy text: `:gpu`, `:auto` or `:cpu` after the name (and `@dt`),
/// `kang-mg` only on a GPU; the label says it back.
#[test]
fn a_copy_names_its_device() {
    use flagsim::sim::DeviceChoice;
    let gpu = CopySpec::parse("kang-mg:gpu").unwrap();
    assert_eq!(
        (gpu.integrator, gpu.dt, gpu.device),
        (IntegratorKind::KangMg, None, DeviceChoice::Gpu)
    );
    assert_eq!(gpu.to_string(), "kang-mg:gpu");
    let timed = CopySpec::parse(" kang-mg@0.01 : auto ").unwrap();
    assert_eq!((timed.dt, timed.device), (Some(0.01), DeviceChoice::Auto));
    assert_eq!(timed.to_string(), "kang-mg@0.01:auto");
    assert_eq!(
        CopySpec::parse("kang:cpu").unwrap().device,
        DeviceChoice::Cpu
    );
    assert_eq!(CopySpec::parse("kang:cpu").unwrap().to_string(), "kang");
    // implicit-mg steps on the GPU too (its solve in colours).
    let implicit = CopySpec::parse("implicit-mg#32:gpu").unwrap();
    assert_eq!(implicit.device, DeviceChoice::Gpu);
    assert_eq!(implicit.to_string(), "implicit-mg#32:gpu");
    for bad in ["kang:gpu", "xpbd@0.005:auto", "kang-mg:tpu", "kang-mg:"] {
        let e = CopySpec::parse(bad).unwrap_err();
        assert!(matches!(e, SimError::CopyDevice { .. }), "{bad}: {e}");
        assert!(
            e.to_string().contains("kang-mg and implicit-mg only"),
            "{bad}: {e}"
        );
    }
    let list = CopySpec::parse_list("kang-mg,kang-mg:gpu").unwrap();
    assert_eq!(list[0].device, DeviceChoice::Cpu);
    assert_eq!(list[1].device, DeviceChoice::Gpu);
}

/// A `:gpu` copy without a GPU is refused with the copy's name; `:auto` without one steps on
/// the CPU.
#[test]
fn a_gpu_copy_without_a_gpu_is_refused_and_auto_stays_on_the_cpu() {
    let scene = Scene::load("flag").unwrap();
    let specs = CopySpec::parse_list("kang,kang-mg:gpu").unwrap();
    let e = Lab::new(&scene, &specs).unwrap_err();
    assert!(e.to_string().contains("kang-mg:gpu"), "{e}");
    assert!(e.to_string().contains("no GPU"), "{e}");
    let specs = CopySpec::parse_list("kang,kang-mg:auto").unwrap();
    let lab = Lab::new(&scene, &specs).unwrap();
    assert!(lab.copies.iter().all(|c| c.device.is_none()));
}

/// A GPU copy beside a CPU copy of the same `kang-mg` (headless, on any adapter): both follow
/// the same cloth, lab step by lab step, and the GPU copy's samples come from its read-backs.
#[test]
fn a_gpu_copy_runs_beside_a_cpu_copy_of_the_same_cloth() {
    use flagsim::gpu_sim::GpuProvider;
    use flagsim::render::GpuContext;
    let ctx = match GpuContext::new_headless() {
        Ok(ctx) => ctx,
        Err(e) => {
            assert!(
                !std::env::var("CI").is_ok_and(|v| v == "true"),
                "CI=true but no GPU adapter: {e}"
            );
            eprintln!("SKIPPED: no GPU adapter. {e}");
            return;
        }
    };
    let provider = GpuProvider::new(
        ctx.device.clone(),
        ctx.queue.clone(),
        ctx.adapter.get_info(),
    );
    let scene = Scene::load("flag").unwrap();
    let specs = CopySpec::parse_list("kang-mg,kang-mg:gpu").unwrap();
    let mut lab = Lab::new_on(&scene, &specs, Some(&provider)).unwrap();
    assert!(lab.copies[0].device.is_none() && lab.copies[1].device.is_some());
    let start = lab.copies[0].sim.cloth.x.clone();
    for _ in 0..60 {
        lab.tick();
    }
    let (cpu, gpu) = (&lab.copies[0], &lab.copies[1]);
    assert_eq!((cpu.steps, gpu.steps), (60, 60));
    assert_eq!(gpu.sim.time, cpu.sim.time);
    assert!(gpu.sim.divergence.is_none(), "{:?}", gpu.sim.divergence);
    let apart = (gpu.sim.cloth.x.iter().zip(&cpu.sim.cloth.x))
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0, f64::max);
    let moved = (cpu.sim.cloth.x.iter().zip(&start))
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0, f64::max);
    assert!(moved > 0.05, "moved {moved} m");
    // The solve's tolerance (the CPU stops at 0.3, the GPU runs 2 V-cycles) and f32.
    assert!(apart < 1e-3, "{apart} m apart");
    assert!(gpu.sample.step_seconds > 0.0);
    assert!((gpu.sample.max_strain - cpu.sample.max_strain).abs() < 1e-3);
}

#[test]
fn compare_resolutions_measures_each_grid_beside_the_accurate_solve() {
    let csv_path = temp("study.csv");
    let out = flagsim(&[
        "compare",
        "flag",
        "--resolutions",
        "6,8",
        "--seconds",
        "1",
        "--settle",
        "0.5",
        "--reference",
        "--reference-up-to",
        "6",
        "--integrators",
        "implicit-mg,kang-mg",
        "--csv",
        csv_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("measured after 0.5 s"), "{table}");
    let rows_of = |grid: &str| -> Vec<&str> {
        table
            .lines()
            .filter(|l| l.starts_with(grid))
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect()
    };
    assert_eq!(rows_of("6×6"), ["accurate", "implicit-mg", "kang-mg"]);
    // Past --reference-up-to no accurate solve runs: the 8 × 8 copies are set against 6 × 6's.
    assert_eq!(rows_of("8×8"), ["implicit-mg", "kang-mg"]);
    assert_eq!(table.matches("(its 6×6)").count(), 2, "{table}");

    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "nx,ny,copy,sway_m,frequency_hz,reach_m,spread_m,shortest_edge,short_edges,\
             distance_m,step_us,diverged,accurate_grid,sway_vs_accurate,frequency_vs_accurate,\
             reach_vs_accurate"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 5);
    let num = |row: &[&str], k: usize| -> f64 { row[k].parse().unwrap() };
    let accurate = &rows[0];
    assert_eq!(&accurate[..3], ["6", "6", "accurate"]);
    assert_eq!((accurate[9], accurate[10], accurate[12]), ("", "", ""));
    for row in &rows[1..] {
        // A flag 1.2 m wide, pinned at its hoist: its fly edge within its width (and the
        // stretch limit) of the hoist, its edges neither collapsed nor torn.
        assert!(num(row, 5) > 0.3 && num(row, 5) < 1.2 * 1.1, "{row:?}");
        assert!(num(row, 7) > 0.2 && num(row, 7) <= 1.1, "{row:?}");
        assert!(num(row, 3) >= 0.0 && num(row, 6) >= 0.0 && num(row, 10) > 0.0);
        assert_eq!(row[11], "false");
        assert_eq!(row[12], "6x6");
        // Each "vs accurate" column is the relative difference of its own column.
        for (vs, own) in [(13, 3), (14, 4), (15, 5)] {
            let expected = (num(row, own) - num(accurate, own)) / num(accurate, own);
            assert!((num(row, vs) - expected).abs() < 1e-9, "{row:?}");
        }
    }
    // Only the grid that runs the accurate solve has distances from it.
    assert!(num(&rows[1], 9) > 0.0 && num(&rows[2], 9) > 0.0);
    assert_eq!((rows[3][9], rows[4][9]), ("", ""));
}

/// `flagsim compare PRESET --resolutions GRIDS --reference` with the preset's own integrator,
/// measured from `settle` to `seconds`, the accurate solve at 32² (minutes at 64²; the springs'
/// stiffness does not depend on the spacing, docs/method.md §12, so a finer grid is set against
/// it too): the CSV's rows, the header left out.
fn study_rows(preset: &str, grids: &str, seconds: &str, settle: &str) -> Vec<Vec<String>> {
    let csv_path = temp(&format!("{preset}-at-grids.csv"));
    let out = flagsim(&[
        "compare",
        preset,
        "--resolutions",
        grids,
        "--seconds",
        seconds,
        "--settle",
        settle,
        "--reference",
        "--reference-up-to",
        "32",
        "--integrators",
        "implicit-mg",
        "--csv",
        csv_path.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

/// The row of `copy` at `nx` nodes a side.
fn study_row<'a>(rows: &'a [Vec<String>], nx: &str, copy: &str) -> &'a [String] {
    rows.iter()
        .find(|r| r[0] == nx && r[2] == copy)
        .unwrap_or_else(|| panic!("no {copy} row at {nx}: {rows:?}"))
}

/// A study row's number in column `k` (3 sway, 4 frequency, 5 reach, 7 shortest edge).
fn study_num(row: &[String], k: usize) -> f64 {
    row[k].parse().unwrap()
}

/// The preset's own integrator at each of `grids` beside the accurate solve at 32²: it ran
/// to the end, no edge squeezed below 90 % of its length, and the fly edge as far from the
/// hoist as the accurate solve's within 5 %.
fn assert_keeps_edges_and_reach(rows: &[Vec<String>], grids: &[&str]) {
    let accurate = study_row(rows, "32", "accurate");
    for nx in grids {
        let row = study_row(rows, nx, "implicit-mg");
        assert_eq!(row[11], "false", "{row:?}");
        assert!(study_num(row, 7) >= 0.90, "shortest edge at {nx}²: {row:?}");
        let reach = (study_num(row, 5) - study_num(accurate, 5)).abs() / study_num(accurate, 5);
        assert!(
            reach <= 0.05,
            "reach at {nx}² {reach:.3} from the accurate: {row:?}"
        );
    }
}

/// The default flag at 32² and 64² key nodes with its own integrator keeps its edges and its
/// reach, measured from 5 s to 10 s.
#[test]
fn the_default_flag_keeps_its_edges_and_its_reach_at_finer_grids() {
    let rows = study_rows("flag", "32,64", "10", "5");
    let accurate = study_row(&rows, "32", "accurate");
    // The accurate flag streams out nearly its full 1.2 m width and keeps its edges.
    assert!(
        study_num(accurate, 5) > 1.1 && study_num(accurate, 7) > 0.9,
        "{accurate:?}"
    );
    assert_keeps_edges_and_reach(&rows, &["32", "64"]);
}

/// The sheet hanging from two corners, at 32² and 64²: the stretch beside a point pin grows
/// with the grid, and a limit on the shear springs there squeezes the edges across them
/// (0.87 at 32² with it), where the accurate solve keeps them whole; it hangs still.
#[test]
fn the_hanging_sheet_keeps_its_edges_and_its_reach_at_finer_grids() {
    let rows = study_rows("hanging", "32,64", "8", "4");
    let accurate = study_row(&rows, "32", "accurate");
    assert!(study_num(accurate, 7) > 0.95, "{accurate:?}");
    assert!(study_num(accurate, 3) < 1e-3, "still: {accurate:?}");
    assert_keeps_edges_and_reach(&rows, &["32", "64"]);
}

#[test]
fn compare_resolutions_refuses_bad_grids_settling_times_and_counts() {
    let run = |args: &[&str]| {
        let mut all = vec!["compare"];
        all.extend_from_slice(args);
        flagsim(&all)
    };
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "flag",
                "--resolutions",
                "8",
                "--seconds",
                "1",
                "--integrators",
                "kang#16",
            ],
            "'kang#16' has its own key grid",
        ),
        (
            &["flag", "--resolutions", "1,8", "--seconds", "1"],
            "--resolutions: each grid must be 2 to 1024 nodes a side, got 1",
        ),
        (
            &[
                "flag",
                "--resolutions",
                "8",
                "--seconds",
                "1",
                "--settle",
                "1",
            ],
            "--settle",
        ),
        (
            &[
                "flag",
                "--resolutions",
                "8",
                "--seconds",
                "1",
                "--plot",
                "a.svg",
            ],
            "--plot",
        ),
        (
            &[
                "flag",
                "--resolutions",
                "8",
                "--seconds",
                "1",
                "--integrators",
                "kang,xpbd,verlet,hybrid,desbrun",
            ],
            "1 to 4 copies, got 5",
        ),
        (
            &["two-masses", "--resolutions", "8", "--seconds", "1"],
            "cloth.grid",
        ),
    ];
    for (args, expected) in cases {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    // A copy's grid is read with the copy list (the argument parser's message and usage).
    let out = run(&["flag", "--seconds", "1", "--integrators", "kang,kang#1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("'kang#1': the key grid after '#' is NX or NXxNY, each 2 to 1024 nodes"),
        "{err}"
    );
}

/// A copy's own key grid in the copy text: `#NX` (the height in the scene's proportions) or
/// `#NXxNY` after the name and `dt`, before the device; the label says it back; anything else
/// after `#` is refused with what it takes.
#[test]
fn a_copy_names_its_key_grid() {
    use flagsim::sim::DeviceChoice;
    use flagsim::sim::lab::copies::CopyGrid;
    let wide = CopySpec::parse("implicit-mg#64").unwrap();
    assert_eq!(wide.grid, Some(CopyGrid { nx: 64, ny: None }));
    assert_eq!(wide.to_string(), "implicit-mg#64");
    let all = CopySpec::parse(" kang-mg@0.01#32x20:gpu ").unwrap();
    assert_eq!(
        (all.dt, all.grid, all.device),
        (
            Some(0.01),
            Some(CopyGrid {
                nx: 32,
                ny: Some(20)
            }),
            DeviceChoice::Gpu
        )
    );
    assert_eq!(all.to_string(), "kang-mg@0.01#32x20:gpu");
    assert_eq!(CopySpec::parse(&all.to_string()).unwrap(), all);
    for bad in [
        "kang#",
        "kang#1",
        "kang#1025",
        "kang#32x",
        "kang#x8",
        "kang#a",
        "kang#8x8x8",
    ] {
        let e = CopySpec::parse(bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("'{bad}': the key grid after '#' is NX or NXxNY, each 2 to 1024 nodes"),
        );
    }
    // A cloth of nodes and springs has no grid to change: the copy says so.
    let e = Lab::new(
        &Scene::load("two-masses").unwrap(),
        &CopySpec::parse_list("kang,kang#8").unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("kang#8: cloth.grid"), "{e}");
}

/// `flagsim compare` with copies at their own key grids: one row a step for each, labelled
/// with its grid.
#[test]
fn compare_runs_copies_at_their_own_key_grids() {
    let csv_path = temp("grids.csv");
    let out = flagsim(&[
        "compare",
        "flag",
        "--integrators",
        "implicit-mg,implicit-mg#16",
        "--reference",
        "--seconds",
        "0.5",
        "--csv",
        csv_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("implicit-mg#16"), "{table}");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert_eq!(rows_of(&csv, "implicit-mg#16").len(), 30, "{csv}");
    assert_eq!(rows_of(&csv, "implicit-mg").len(), 30);
}
