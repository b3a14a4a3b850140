//! The fast core: a step allocates nothing once its work arrays exist, the long-range tethers
//! hold a cloth that cannot hold itself, and the parallel path (bands of Provot's sweeps, the
//! step run on the pool) still gives the serial result bit for bit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use flagsim::sim::constraints::limit::Bounds;
use flagsim::sim::model::cloth::Cloth;
use flagsim::sim::runtime::simulation::Grab;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::sim::{IntegratorKind, Scene, Simulation};
use glam::DVec3;

/// Counts the allocations made on the thread that asks (tests run on several threads at once,
/// so a global count would see the others').
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static ALLOCATED_BYTES: Cell<usize> = const { Cell::new(0) };
}

fn count_allocation(bytes: usize) {
    // `try_with`: the counter may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
    let _ = ALLOCATED_BYTES.try_with(|c| c.set(c.get() + bytes));
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches only a
// thread-local `Cell` with a const initialiser, which never allocates.
#[allow(unsafe_code)] // reason: a global allocator is unsafe by definition; it only counts
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocation(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_allocation(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocation(new_size);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// Bytes asked for on this thread so far (a reallocation counts its new size).
fn allocated_bytes() -> usize {
    ALLOCATED_BYTES.with(Cell::get)
}

fn scene_with(name: &str, kind: IntegratorKind, dt: f64) -> Simulation {
    let mut scene = Scene::load(name).expect("preset");
    scene.params.integrator = kind;
    scene.params.dt = dt;
    scene.simulation().expect("simulation")
}

/// Allocations made by `steps` steps after `warm_up` steps (which size the work arrays, build
/// the tethers and, for `desbrun`, the inverse).
fn allocations_per_run(sim: &mut Simulation, warm_up: usize, steps: usize) -> usize {
    for _ in 0..warm_up {
        assert!(sim.step(), "warm-up diverged: {:?}", sim.divergence);
    }
    let before = allocations();
    for _ in 0..steps {
        assert!(sim.step(), "diverged: {:?}", sim.divergence);
    }
    allocations() - before
}

#[test]
fn the_counter_sees_an_allocation() {
    // The test below is only worth something if the counter counts.
    let before = allocations();
    let v: Vec<u64> = std::hint::black_box(vec![1, 2, 3]);
    assert_eq!(v.len(), 3);
    assert!(allocations() > before);
}

#[test]
fn a_256_square_snapshot_copies_the_state_and_shares_the_topology() {
    let json = r#"{ "cloth": { "grid": { "nx": 256, "ny": 256, "pins": "hoist" } } }"#;
    let mut sim = Scene::from_json(json, "test")
        .unwrap()
        .simulation()
        .unwrap();
    sim.parallel = Some(false);
    assert!(sim.step());
    let n = sim.cloth.node_count();
    let (springs, triangles) = (
        sim.cloth.topology.mesh.springs.len(),
        sim.cloth.topology.mesh.triangles.len(),
    );
    assert!(
        springs > 5 * n && triangles > n,
        "{springs} springs, {triangles} triangles"
    );
    let before = allocated_bytes();
    let first = Snapshot::of(&sim);
    let bytes = allocated_bytes() - before;
    // The state: x, v and Δv (24 bytes a node each), the pins and the interpolated flags (a
    // byte a node at most), and the parameters (a few hundred bytes).
    let state = 3 * 24 * n + 2 * n;
    assert!(
        bytes <= state + 4096,
        "{bytes} bytes for a state of {state}"
    );
    // A copy of the springs alone (8 bytes each) would be far more than that slack.
    assert!(8 * springs > 4096);
    assert!(
        bytes >= 3 * 24 * n,
        "{bytes} bytes: the state was not copied"
    );
    assert!(sim.step());
    let second = Snapshot::of(&sim);
    assert!(std::sync::Arc::ptr_eq(&first.mesh, &second.mesh));
    assert!(std::sync::Arc::ptr_eq(
        &first.mesh,
        &sim.cloth.topology.mesh
    ));
    assert_ne!(first.x, second.x, "the state is the step's own");
    // The shared mesh is the cloth's springs and triangles.
    assert_eq!(sim.cloth.topology.ends, second.mesh.springs);
}

#[test]
fn a_copy_of_a_256_square_cloth_copies_the_state_and_shares_the_topology() {
    // The lab's copies, saved histories and the reference copy clone the cloth: the state is
    // theirs, the topology and the stiffness tables are shared.
    let json = r#"{ "cloth": { "grid": { "nx": 256, "ny": 256, "pins": "hoist" } } }"#;
    let sim = Scene::from_json(json, "test")
        .unwrap()
        .simulation()
        .unwrap();
    let n = sim.cloth.node_count();
    let before = allocated_bytes();
    let copy = sim.cloth.clone();
    let bytes = allocated_bytes() - before;
    // x, v and Δv (24 bytes a node each), m (8), pinned (1); the anchors are rest data, in
    // the topology.
    let state = 3 * 24 * n + 8 * n + n;
    assert_eq!(bytes, state, "{bytes} bytes for a state of {state}");
    assert!(std::sync::Arc::ptr_eq(&copy.topology, &sim.cloth.topology));
    assert!(std::ptr::eq(copy.stiffness(), sim.cloth.stiffness()));
}

#[test]
fn no_integrator_allocates_in_a_step_after_the_first() {
    // The flag preset (gusty air, a ground collider, Provot with tethers) at a step every
    // integrator is stable at (explicit Euler diverges at 2 ms within its 20 % limit);
    // serial, so that all the work happens on this thread.
    for kind in IntegratorKind::ALL {
        let mut sim = scene_with("flag", kind, 0.001);
        sim.parallel = Some(false);
        let n = allocations_per_run(&mut sim, 2, 300);
        assert_eq!(n, 0, "{}: {n} allocations in 300 steps", kind.name());
    }
    // The wavelet interpolation, and substeps.
    for kind in [IntegratorKind::Kang, IntegratorKind::Hybrid] {
        let mut sim = scene_with("wavelet", kind, 1.0 / 60.0);
        sim.parallel = Some(false);
        let n = allocations_per_run(&mut sim, 2, 300);
        assert_eq!(n, 0, "{} with wavelet: {n} allocations", kind.name());
    }
    let mut scene = Scene::load("flag").unwrap();
    scene.params.substeps = 3;
    let mut sim = scene.simulation().unwrap();
    assert_eq!(allocations_per_run(&mut sim, 2, 300), 0, "substeps");
}

#[test]
fn the_parallel_step_allocates_nothing_on_the_thread_that_runs_it() {
    // Run from a pool thread, as `Simulation::step` arranges itself. (Handing a step to the
    // pool from outside it is rayon's business: its job queue allocates a block every 63
    // hand-overs.) A pool of its own, so that its threads never pick up another test's work.
    let mut sim = sheet(64, "top-corners", 2000.0);
    sim.parallel = Some(true);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a thread pool");
    let n = pool.install(|| allocations_per_run(&mut sim, 2, 100));
    assert_eq!(n, 0);
}

/// An n × n, 1 m sheet hanging in the XY plane with `pins`, 0.2 kg, structural stiffness `k`
/// (shear k/4, bend k/40), Provot at τ = 0.05 with the default tethers, run by `kang-mg`.
fn sheet(n: usize, pins: &str, k: f64) -> Simulation {
    sheet_with(n, pins, k, true)
}

fn sheet_with(n: usize, pins: &str, k: f64, tethers: bool) -> Simulation {
    let json = format!(
        r#"{{ "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1, "height": 1,
                "origin": [0, 0, 0], "mass": 0.2, "pins": "{pins}" }} }},
             "params": {{ "integrator": "kang-mg", "dt": 0.016666666666666666,
                "stiffness": {{ "structural": {k}, "shear": {}, "bend": {} }},
                "wind": {{ "velocity": [0, 0, 0], "drag": 0, "lift": 0, "linear": 0 }},
                "provot": {{ "enabled": true, "max_stretch": 0.05, "tethers": {tethers} }} }} }}"#,
        k / 4.0,
        k / 40.0
    );
    Scene::from_json(&json, "sheet")
        .unwrap()
        .simulation()
        .unwrap()
}

/// Rest distance in the sheet's plane between nodes `a` and `b` of an n × n, 1 m grid: the
/// length of the shortest path inside the flat sheet.
fn rest_distance(n: usize, a: usize, b: usize) -> f64 {
    let l = 1.0 / (n - 1) as f64;
    let (ia, ja) = ((a % n) as f64, (a / n) as f64);
    let (ib, jb) = ((b % n) as f64, (b / n) as f64);
    l * ((ia - ib).powi(2) + (ja - jb).powi(2)).sqrt()
}

/// The largest `|x_i − x_p| / rest(i, p)` over every free node `i` and every pinned node `p`.
fn worst_reach(sim: &Simulation, n: usize, pins: &[usize]) -> f64 {
    let mut worst: f64 = 0.0;
    for i in 0..n * n {
        if pins.contains(&i) {
            continue;
        }
        for &p in pins {
            let d = (sim.cloth.x[i] - sim.cloth.x[p]).length();
            worst = worst.max(d / rest_distance(n, i, p));
        }
    }
    worst
}

#[test]
fn tethers_hold_a_sheet_far_too_soft_to_hold_itself() {
    let n = 64;
    let corners = [n * n - n, n * n - 1];
    // 2 N/m: the sheet's own springs would let it stretch to many times its size.
    let mut with = sheet(n, "top-corners", 2.0);
    let mut without = sheet_with(n, "top-corners", 2.0, false);
    for _ in 0..300 {
        assert!(with.step(), "{:?}", with.divergence);
        without.step();
    }
    let tau = 0.05;
    let reach = worst_reach(&with, n, &corners);
    assert!(
        reach <= 1.0 + tau + 1e-9,
        "a node is {reach:.3} × its rest distance from a pin"
    );
    // Without tethers Provot's four sweeps cannot: the comparison shows what the tethers do.
    let loose = worst_reach(&without, n, &corners);
    assert!(loose > 1.0 + tau, "without tethers: {loose:.3}");
    assert!(with.stats.tethers > 0);
}

#[test]
fn tethers_follow_a_moved_pole() {
    let n = 24;
    let mut sim = sheet(n, "top-corners", 2.0);
    let corners = [n * n - n, n * n - 1];
    for _ in 0..60 {
        assert!(sim.step());
    }
    // Lift the pole (both pins) by 0.5 m and let the sheet follow.
    sim.pole_offset = DVec3::new(0.0, 0.5, 0.0);
    for _ in 0..60 {
        assert!(sim.step());
    }
    assert_eq!(
        sim.cloth.x[corners[0]].y, 1.5,
        "the pins moved with the pole"
    );
    let reach = worst_reach(&sim, n, &corners);
    assert!(reach <= 1.05 + 1e-9, "{reach}");
    // Moving the pins does not rebuild the tethers (only their anchors move).
    assert_eq!(sim.tethers().builds, 1);
}

#[test]
fn grabbing_a_node_adds_tethers_to_it_and_releasing_removes_them() {
    let n = 24;
    let mut sim = sheet(n, "top-corners", 2.0);
    for _ in 0..10 {
        assert!(sim.step());
    }
    let grabbed = n / 2; // the middle of the bottom edge
    let anchored_to_grab = |sim: &Simulation| {
        (0..n * n)
            .filter(|&i| sim.tethers().of_node(i).any(|(p, _)| p == grabbed))
            .count()
    };
    assert_eq!(anchored_to_grab(&sim), 0);
    let builds = sim.tethers().builds;
    // Lift it 0.3 m and pull it 0.3 m towards the viewer (within reach of the pins): every
    // free node gets a tether to it.
    let target = sim.cloth.x[grabbed] + DVec3::new(0.0, 0.3, 0.3);
    sim.grab = Some(Grab {
        node: grabbed,
        target,
    });
    for _ in 0..60 {
        assert!(sim.step());
    }
    assert_eq!(sim.tethers().builds, builds + 1);
    assert_eq!(anchored_to_grab(&sim), n * n - 3);
    assert_eq!(sim.cloth.x[grabbed], target);
    // Its neighbours came along, within their rest distance from it (the tethers run last
    // but one: Provot may lengthen them by at most τ).
    for i in [grabbed - 1, grabbed + 1, grabbed + n] {
        let d = (sim.cloth.x[i] - target).length();
        assert!(d <= 1.05 * rest_distance(n, i, grabbed) + 1e-9, "node {i}");
    }
    sim.grab = None;
    assert!(sim.step());
    assert_eq!(sim.tethers().builds, builds + 2);
    assert_eq!(anchored_to_grab(&sim), 0);
}

#[test]
fn each_tether_has_the_rest_distance_along_the_cloth() {
    // A hoist: one region, so each node has three tethers (the nearest hoist node, which is
    // the one in its own row, and the hoist's two ends); their lengths are the distances in
    // the flat rest sheet.
    let n = 12;
    let mut sim = sheet(n, "hoist", 2000.0);
    assert!(sim.step());
    for j in 0..n {
        for i in 1..n {
            let node = j * n + i;
            let mut anchors: Vec<(usize, f64)> = sim.tethers().of_node(node).collect();
            anchors.sort_by_key(|a| a.0);
            let mut expected: Vec<usize> = vec![0, j * n, (n - 1) * n];
            expected.sort_unstable();
            expected.dedup();
            assert_eq!(
                anchors.iter().map(|a| a.0).collect::<Vec<_>>(),
                expected,
                "node ({i}, {j})"
            );
            for (p, rest) in anchors {
                assert!((rest - rest_distance(n, node, p)).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn the_parallel_path_is_bit_identical_to_the_serial_one_on_a_banded_cloth() {
    // 128 × 128: two bands of Provot's sweeps, so the parallel sweeps really run in parallel.
    for (pins, kind) in [
        ("top-corners", IntegratorKind::Kang),
        ("hoist", IntegratorKind::Kang),
        ("hoist", IntegratorKind::Xpbd),
        ("top-corners", IntegratorKind::ExplicitEuler),
    ] {
        let mut serial = sheet(128, pins, 2000.0);
        let mut p = serial.params().clone();
        p.integrator = kind;
        serial.set_params(p).unwrap();
        let mut parallel = serial.clone();
        serial.parallel = Some(false);
        parallel.parallel = Some(true);
        assert!(serial.cloth.topology.strain_order.bands.len() > 1);
        for _ in 0..20 {
            serial.step();
            parallel.step();
        }
        assert_eq!(serial.cloth.x, parallel.cloth.x, "{pins} {}", kind.name());
        assert_eq!(serial.cloth.v, parallel.cloth.v, "{pins} {}", kind.name());
        assert_eq!(serial.cloth.dv, parallel.cloth.dv, "{pins} {}", kind.name());
    }
}

#[test]
fn the_one_thread_force_scatter_equals_the_parallel_gather_bit_for_bit() {
    // A crumpled, moving 33 × 33 sheet (more springs than one batch, not a multiple of it),
    // with damping, the viscosity term and skipped nodes (single ones and whole blocks, so
    // some springs have both ends skipped).
    let mut cloth = sheet(33, "top-corners", 2000.0).cloth;
    let n = cloth.node_count();
    for i in 0..n {
        let t = i as f64;
        cloth.x[i] += 0.004 * DVec3::new((1.3 * t).sin(), (0.7 * t).cos(), (2.1 * t).sin());
        cloth.v[i] = DVec3::new((0.3 * t).cos(), (1.9 * t).sin(), 0.5 * (t * 0.11).sin());
    }
    assert!(!cloth.topology.ends.len().is_multiple_of(64) && cloth.topology.ends.len() > 64);
    let skip: Vec<bool> = (0..n)
        .map(|i| i % 7 == 0 || (200..260).contains(&i))
        .collect();
    for viscosity in [None, Some(1.0 / 60.0)] {
        for skip in [&[][..], &skip[..]] {
            let mut forces = [vec![DVec3::NAN; n], vec![DVec3::NAN; n]];
            for (parallel, out) in [false, true].into_iter().zip(&mut forces) {
                let mut scratch = flagsim::sim::model::forces::ForceWork::default();
                flagsim::sim::model::forces::spring_forces(
                    &cloth,
                    0.8,
                    viscosity,
                    parallel,
                    skip,
                    &mut scratch,
                    out,
                );
            }
            assert_eq!(
                forces[0],
                forces[1],
                "viscosity {viscosity:?}, skip {}",
                skip.len()
            );
            // And the sums are the springs' forces: node 0's (a pinned corner, skipped or
            // not) from its springs one by one, with Hooke's law written out.
            let expect: DVec3 = if skip.first() == Some(&true) {
                DVec3::ZERO
            } else {
                cloth
                    .topology
                    .springs
                    .iter()
                    .enumerate()
                    .fold(DVec3::ZERO, |sum, (s, sp)| {
                        let sign = if sp.a == 0 {
                            1.0
                        } else if sp.b == 0 {
                            -1.0
                        } else {
                            return sum;
                        };
                        let d = cloth.x[sp.b] - cloth.x[sp.a];
                        let len = d.length();
                        let dir = d / len;
                        let f = cloth.k()[s] * (len - sp.rest) * dir
                            + 0.8 * (cloth.v[sp.b] - cloth.v[sp.a]).dot(dir) * dir;
                        let visc = viscosity.map_or(DVec3::ZERO, |h| {
                            h * cloth.k()[s]
                                * (cloth.v[if sign > 0.0 { sp.b } else { sp.a }] - cloth.v[0])
                        });
                        sum + sign * f + visc
                    })
            };
            assert!(
                (forces[0][0] - expect).length() < 1e-9 * (1.0 + expect.length()),
                "{expect}"
            );
        }
    }
}

#[test]
fn the_strain_maxima_find_one_stretched_spring_wherever_it_is() {
    // A 5 × 5 sheet at rest (every ratio 1), then one spring at a time given a rest length
    // 1.5 times shorter (a cloth built anew with it): its ratio is then 1.5, every other
    // one still 1. Each position in the four running maxima and in the tail is met, on both
    // paths, for limited and unlimited (bend) springs.
    let base = sheet(5, "top-corners", 2000.0).cloth;
    let springs = base.topology.springs.len();
    assert!(!springs.is_multiple_of(4), "the tail must be tested too");
    assert_eq!(base.strain_maxima(false), (1.0, 1.0));
    for s in 0..springs {
        let mut shortened = base.topology.springs.clone();
        shortened[s].rest /= 1.5;
        let cloth = Cloth::new(
            base.x.clone(),
            base.v.clone(),
            base.m.clone(),
            base.pinned.clone(),
            shortened,
            base.topology.mesh.triangles.clone(),
            base.grid(),
        );
        for parallel in [false, true] {
            let (all, limited) = cloth.strain_maxima(parallel);
            assert!((all - 1.5).abs() < 1e-12, "spring {s}: {all}");
            let is_limited = cloth.topology.limited[s] > 0.0;
            assert_eq!(limited == all, is_limited, "spring {s}: {limited} {all}");
        }
    }
}

#[test]
fn provot_sweeps_stop_when_nothing_is_over_the_limit() {
    // A sheet at rest under no load: nothing to correct, one sweep finds that out.
    let mut sim = sheet(16, "top-corners", 2000.0);
    let mut p = sim.params().clone();
    p.gravity = [0.0; 3];
    sim.set_params(p).unwrap();
    assert!(sim.step());
    assert_eq!(sim.stats.provot_sweeps, 1);
    assert_eq!(sim.stats.provot_corrections, 0);
}

/// Three free nodes on a line, 1.5 m apart, joined by two springs of rest length 1 m.
fn chain() -> Simulation {
    let json = r#"{ "cloth": {
        "nodes": [ { "x": [0, 0, 0], "m": 1 }, { "x": [1.5, 0, 0], "m": 1 }, { "x": [3, 0, 0], "m": 1 } ],
        "springs": [ { "a": 0, "b": 1, "k": 1, "rest": 1 }, { "a": 1, "b": 2, "k": 1, "rest": 1 } ] },
        "params": { "gravity": [0, 0, 0], "wind": { "velocity": [0, 0, 0] } } }"#;
    Scene::from_json(json, "chain")
        .unwrap()
        .simulation()
        .unwrap()
}

#[test]
fn provot_sweeps_go_forward_then_backward() {
    // τ = 0. Sweep 1, forward: spring 0 (length 1.5) moves each end 0.25 → 0.25, 1.25; spring
    // 1 (1.25 → 3, length 1.75) moves each end 0.375 → 1.625, 2.625. Sweep 2, backward:
    // spring 1 is now exactly 1; spring 0 (0.25 → 1.625, 1.375) moves each end 0.1875 →
    // 0.4375, 1.4375. (Forward again would have ended at 0.4375, 1.53125, 2.53125.)
    let mut sim = chain();
    let mut moved = vec![false; 3];
    let kinematic = vec![false; 3];
    let (corrections, sweeps) = flagsim::sim::constraints::limit::provot_sweeps(
        &mut sim.cloth,
        &kinematic,
        &mut moved,
        true,
        Bounds::stretch(1.0),
        2,
        false,
    );
    let x: Vec<f64> = sim.cloth.x.iter().map(|p| p.x).collect();
    assert_eq!(x, vec![0.4375, 1.4375, 2.625]);
    assert_eq!((corrections, sweeps), (3, 2));
    assert_eq!(moved, vec![true; 3]);
    // A third sweep (forward) finds spring 0 at 1 and spring 1 at 1.1875: one more.
    let mut sim3 = chain();
    let (c3, s3) = flagsim::sim::constraints::limit::provot_sweeps(
        &mut sim3.cloth,
        &kinematic,
        &mut [false; 3],
        true,
        Bounds::stretch(1.0),
        3,
        false,
    );
    assert_eq!((c3, s3), (4, 3));
    assert_eq!(sim3.cloth.x[2].x, 2.625 - 0.09375);
}

/// A spring shorter than its shortest length is lengthened to it, half from each end, all
/// from the free end when the other is held, at any rest length; one of length 0 has no
/// direction and stays.
#[test]
fn a_spring_shorter_than_its_shortest_length_is_lengthened() {
    // Nodes at 0, 0.5 and 3, rest 1, at most 10 × and at least 0.9 × rest. Sweep 1: spring 0
    // (0.5) moves each end 0.2 apart → −0.2, 0.7; spring 1 (2.3) is within. Sweep 2 finds
    // both within and stops.
    let bounds = Bounds {
        longest: 10.0,
        shortest: 0.9,
    };
    for held in [false, true] {
        let mut sim = chain();
        sim.cloth.x[1].x = 0.5;
        let kinematic = [held, false, false];
        let mut moved = [false; 3];
        let got = flagsim::sim::constraints::limit::provot_sweeps(
            &mut sim.cloth,
            &kinematic,
            &mut moved,
            true,
            bounds,
            4,
            false,
        );
        assert_eq!(got, (1, 2));
        let x: Vec<f64> = sim.cloth.x.iter().map(|p| p.x).collect();
        let want = if held {
            [0.0, 0.9, 3.0]
        } else {
            [-0.2, 0.7, 3.0]
        };
        for (g, w) in x.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "held {held}: {x:?}, want {want:?}");
        }
        assert_eq!(moved, [!held, true, false]);
    }
    // At rest length 2 the shortest length is 1.8: nodes at 0, 1 and 6 move 0.4 apart each.
    let json = r#"{ "cloth": {
        "nodes": [ { "x": [0, 0, 0], "m": 1 }, { "x": [1, 0, 0], "m": 1 }, { "x": [6, 0, 0], "m": 1 } ],
        "springs": [ { "a": 0, "b": 1, "k": 1, "rest": 2 }, { "a": 1, "b": 2, "k": 1, "rest": 2 } ] },
        "params": { "gravity": [0, 0, 0], "wind": { "velocity": [0, 0, 0] } } }"#;
    let mut long = Scene::from_json(json, "chain of 2 m")
        .unwrap()
        .simulation()
        .unwrap();
    let got = flagsim::sim::constraints::limit::provot_sweeps(
        &mut long.cloth,
        &[false; 3],
        &mut [false; 3],
        true,
        bounds,
        4,
        false,
    );
    assert_eq!(got, (1, 2));
    let x: Vec<f64> = long.cloth.x.iter().map(|p| p.x).collect();
    for (g, w) in x.iter().zip([-0.4, 1.4, 6.0]) {
        assert!((g - w).abs() < 1e-12, "rest 2: {x:?}");
    }
    let mut sim = chain();
    sim.cloth.x[1] = sim.cloth.x[0];
    let got = flagsim::sim::constraints::limit::provot_sweeps(
        &mut sim.cloth,
        &[false; 3],
        &mut [false; 3],
        true,
        Bounds {
            longest: 10.0,
            shortest: 0.9,
        },
        4,
        false,
    );
    assert_eq!(got, (0, 1));
    assert_eq!(sim.cloth.x[1], sim.cloth.x[0]);
}

/// Provot's rule and the documented order, written out plainly: springs in spring order
/// within bands of `BAND_NODES` consecutive nodes, then the springs between bands; forward on
/// odd sweeps, all reversed on even ones; stop after a sweep with no correction.
fn reference_sweeps(
    cloth: &flagsim::sim::Cloth,
    x: &mut [DVec3],
    kinematic: &[bool],
    limit: f64,
    iterations: u32,
) -> (usize, u32) {
    use flagsim::sim::model::cloth::{StrainOrder, limits_strain};
    let n = x.len();
    let bands = (n / StrainOrder::BAND_NODES).max(1);
    let band_nodes = n.div_ceil(bands);
    let limited: Vec<_> = cloth
        .topology
        .springs
        .iter()
        .filter(|s| s.rest > 0.0 && limits_strain(s.family))
        .collect();
    let mut forward: Vec<_> = (0..bands)
        .flat_map(|b| {
            limited
                .iter()
                .filter(move |s| s.a / band_nodes == b && s.b / band_nodes == b)
        })
        .collect();
    forward.extend(
        limited
            .iter()
            .filter(|s| s.a / band_nodes != s.b / band_nodes),
    );
    let mut total = 0;
    for sweep in 0..iterations {
        let order: Vec<_> = if sweep % 2 == 0 {
            forward.clone()
        } else {
            forward.iter().rev().copied().collect()
        };
        let mut made = 0;
        for s in order {
            let d = x[s.b] - x[s.a];
            let len = d.length();
            let (ka, kb) = (kinematic[s.a], kinematic[s.b]);
            if len <= limit * s.rest * (1.0 + 1e-9) || (ka && kb) {
                continue;
            }
            let excess = ((len - limit * s.rest) / len) * d;
            match (ka, kb) {
                (false, false) => {
                    x[s.a] += 0.5 * excess;
                    x[s.b] += -0.5 * excess;
                }
                (true, false) => x[s.b] += -excess,
                _ => x[s.a] += excess,
            }
            made += 1;
        }
        total += made;
        if made == 0 {
            return (total, sweep + 1);
        }
    }
    (total, iterations)
}

#[test]
fn provot_sweeps_follow_the_documented_order_over_bands_serial_and_parallel() {
    // 128 × 128: two bands and the springs between them. Every free node shaken by up to
    // 30 % of an edge, so springs everywhere are over the limit.
    let sim = sheet(128, "top-corners", 2000.0);
    assert!(
        sim.cloth.topology.strain_order.bands.len() > 1
            && !sim.cloth.topology.strain_order.boundary.is_empty()
    );
    let mut cloth = sim.cloth.clone();
    let mut seed = 7u64;
    let l = 1.0 / 127.0;
    for (x, pinned) in cloth.x.iter_mut().zip(&sim.cloth.pinned) {
        if !pinned {
            let mut r = || {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.6 * l
            };
            *x += DVec3::new(r(), r(), r());
        }
    }
    let kinematic = cloth.pinned.clone();
    for iterations in [1, 2, 3] {
        let mut expected = cloth.x.clone();
        let counts = reference_sweeps(&cloth, &mut expected, &kinematic, 1.05, iterations);
        for parallel in [false, true] {
            let mut c = cloth.clone();
            let mut moved = vec![false; c.node_count()];
            let got = flagsim::sim::constraints::limit::provot_sweeps(
                &mut c,
                &kinematic,
                &mut moved,
                true,
                Bounds::stretch(1.05),
                iterations,
                parallel,
            );
            assert_eq!(got, counts, "{iterations} sweeps, parallel {parallel}");
            assert!(c.x == expected, "{iterations} sweeps, parallel {parallel}");
        }
    }
}

#[test]
fn tether_slack_lets_the_sheet_sag_beyond_its_rest_distance() {
    let n = 32;
    let corners = [n * n - n, n * n - 1];
    let mut sim = sheet(n, "top-corners", 2.0);
    let mut p = sim.params().clone();
    p.provot.tether_stretch = 0.3;
    // Tethers alone (no sweeps after them), so what holds the sheet is the tethers' limit.
    p.provot.iterations = 0;
    sim.set_params(p).unwrap();
    for _ in 0..300 {
        assert!(sim.step());
    }
    // A sheet this soft hangs as far as the tethers let it: to 1.3 × its rest distance.
    let reach = worst_reach(&sim, n, &corners);
    // (Two rounds over a node's two tethers leave it within 1e-3 of both.)
    assert!(reach > 1.29 && reach <= 1.301, "{reach}");
}
