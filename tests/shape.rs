//! Whether a result is the same cloth. The shape measures on hand-made positions,
//! the accurate reference and its convergence, `kang-mg`'s multigrid against a direct solve, and
//! the default configuration against the reference on a stiff in-plane flag.

use flagsim::sim::model::shape::{self, Distance};
use flagsim::sim::solvers::multigrid::{Multigrid, coarse_len, parents};
use flagsim::sim::{IntegratorKind, Scene, Simulation};
use glam::DVec3;

/// The peer comparison's flag (`../shared/peers`): an n × n, 1 m × 1 m sheet pinned along its
/// left edge, 0.2 kg, structural 2000 N/m (shear 500, bend 50), gravity only, dt 1/60, and a
/// `provot` block as given.
fn peer_flag(n: usize, integrator: Option<&str>, provot: &str) -> Scene {
    let integrator = integrator.map_or(String::new(), |i| format!(r#""integrator": "{i}","#));
    let json = format!(
        r#"{{
        "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1.0, "height": 1.0,
                              "origin": [0, 0, 0], "plane": "xy", "mass": 0.2, "pins": "hoist" }} }},
        "params": {{ {integrator} "dt": 0.016666666666666666,
            "stiffness": {{ "structural": 2000, "shear": 500, "bend": 50 }},
            "wind": {{ "velocity": [0, 0, 0], "drag": 0, "lift": 0, "linear": 0,
                      "gust": {{ "strength": 0 }} }},
            "provot": {provot} }}
    }}"#
    );
    Scene::from_json(&json, "peer flag").expect("scene")
}

fn run(mut sim: Simulation, steps: u32) -> Vec<DVec3> {
    assert_eq!(sim.step_n(steps), steps);
    assert!(sim.divergence.is_none(), "{:?}", sim.divergence);
    sim.cloth.x.clone()
}

#[test]
fn the_distance_of_a_known_shift_and_of_one_moved_node() {
    let a: Vec<DVec3> = (0..16)
        .map(|i| DVec3::new(f64::from(i % 4), f64::from(i / 4), 0.0))
        .collect();
    // Every node moved by (0.03, 0, 0.04): 5 cm each, so RMS and largest are both 5 cm.
    let b: Vec<DVec3> = a.iter().map(|p| *p + DVec3::new(0.03, 0.0, 0.04)).collect();
    let d = shape::distance(&a, &b);
    assert!(
        (d.rms - 0.05).abs() < 1e-12 && (d.max - 0.05).abs() < 1e-12,
        "{d:?}"
    );
    // One node of 16 moved by 0.2 m: RMS = sqrt(0.2² / 16) = 0.05, largest 0.2.
    let mut c = a.clone();
    c[5].y += 0.2;
    let d = shape::distance(&a, &c);
    assert!((d.rms - 0.05).abs() < 1e-12, "{d:?}");
    assert!((d.max - 0.2).abs() < 1e-12, "{d:?}");
    assert_eq!(shape::distance(&a, &a), Distance::default());
    assert_eq!(shape::distance(&[], &a), Distance::default());
}

#[test]
fn a_squeezed_edge_is_the_shortest_and_counted() {
    // 3 × 3 nodes, 1 m square: structural edges of 0.5 m, 12 of them.
    let scene = Scene::from_json(
        r#"{ "cloth": { "grid": { "nx": 3, "ny": 3, "width": 1.0, "height": 1.0,
                                   "origin": [0, 0, 0], "plane": "xy" } } }"#,
        "3x3",
    )
    .unwrap();
    let sim = scene.simulation().unwrap();
    let rest = shape::structural_edges(&sim.cloth, &sim.cloth.x);
    assert!((rest.shortest - 1.0).abs() < 1e-12 && (rest.longest - 1.0).abs() < 1e-12);
    assert_eq!(rest.share_short, 0.0);
    // Node (1, 0) moved 0.2 m toward node (0, 0): that edge becomes 0.3 m (0.6), the one to
    // (2, 0) 0.7 m (1.4), the one up to (1, 1) sqrt(0.2² + 0.5²) (1.077): one of 12 short.
    let mut x = sim.cloth.x.clone();
    x[1].x -= 0.2;
    let e = shape::structural_edges(&sim.cloth, &x);
    assert!((e.shortest - 0.6).abs() < 1e-12, "{e:?}");
    assert!((e.longest - 1.4).abs() < 1e-12, "{e:?}");
    assert!((e.share_short - 1.0 / 12.0).abs() < 1e-12, "{e:?}");
    // An edge at exactly 0.95 is not short; just under is.
    let mut x = sim.cloth.x.clone();
    x[2].x = x[1].x + 0.5 * shape::SHORT_EDGE;
    assert_eq!(shape::structural_edges(&sim.cloth, &x).share_short, 0.0);
    x[2].x -= 1e-9;
    assert!((shape::structural_edges(&sim.cloth, &x).share_short - 1.0 / 12.0).abs() < 1e-12);
}

#[test]
fn the_reference_is_backward_euler_without_limits_at_four_times_the_steps() {
    let scene = Scene::load("flag").unwrap();
    let mut p = scene.params.clone();
    p.substeps = 2;
    let r = shape::reference_params(&p);
    assert_eq!(r.integrator, IntegratorKind::ImplicitCg);
    assert_eq!(r.substeps, 8);
    assert_eq!(r.cg.tolerance, 1e-10);
    assert!(!r.provot.enabled && !r.provot.tethers && !r.wavelet.enabled);
    // The forces are the scene's.
    assert_eq!(
        (r.stiffness, r.wind, r.gravity, r.dt),
        (p.stiffness, p.wind, p.gravity, p.dt)
    );
    // Never more substeps than a scene may have.
    p.substeps = 60;
    assert_eq!(shape::reference_params(&p).substeps, 100);
}

#[test]
fn the_reference_converges_and_the_default_keeps_a_stiff_flags_shape() {
    // 16 × 16, h²k/m = 711: kang's two sweeps fold this flag in its own plane.
    let steps = 180; // 3 s: the sheet has come to rest
    let limits = r#"{ "enabled": true, "max_stretch": 0.05 }"#;
    let scene = peer_flag(16, None, limits);
    let reference = |substeps: u32| {
        let mut s = scene.clone();
        s.params = shape::reference_params(&scene.params);
        s.params.substeps = substeps;
        run(s.simulation().unwrap(), steps)
    };
    let (r4, r8) = (reference(4), reference(8));
    let converged = shape::distance(&r4, &r8);
    assert!(
        converged.max < 0.001,
        "4 and 8 substeps differ by {converged:?}"
    );
    // The default configuration (the scene names no integrator) is within 1 cm RMS and 3 cm
    // everywhere of the reference, with no structural edge squeezed under 0.90.
    let sim = scene.simulation().unwrap();
    assert_eq!(sim.params().integrator, IntegratorKind::ImplicitMg);
    let x = run(sim, steps);
    let d = shape::distance(&x, &r8);
    let edges = shape::structural_edges(&scene.simulation().unwrap().cloth, &x);
    assert!(d.rms < 0.01 && d.max < 0.03, "default: {d:?}");
    assert!(
        edges.shortest > 0.9 && edges.longest < 1.1,
        "default: {edges:?}"
    );
    // For contrast, the paper's kang with tethers: more than 10 cm RMS off the reference.
    let old = peer_flag(
        16,
        Some("kang"),
        r#"{ "enabled": true, "max_stretch": 0.05, "tethers": true }"#,
    );
    let x = run(old.simulation().unwrap(), steps);
    let d = shape::distance(&x, &r8);
    assert!(d.rms > 0.1, "kang with tethers: {d:?}");
}

#[test]
fn coarse_nodes_interpolate_with_weights_that_sum_to_one() {
    for n in [1, 2, 3, 4, 9, 10, 31, 32] {
        let nc = coarse_len(n);
        // Every even node, and the last one of an even count.
        assert_eq!(nc, n.div_ceil(2) + usize::from(n % 2 == 0), "n = {n}");
        for i in 0..n {
            let (p, count) = parents(i, n);
            let sum: f64 = p[..count].iter().map(|(_, w)| w).sum();
            assert_eq!(sum, 1.0, "n = {n}, node {i}");
            for (c, _) in &p[..count] {
                assert!(
                    *c < nc && c.abs_diff(i / 2) <= 1,
                    "n = {n}, node {i} -> {c}"
                );
            }
            if i % 2 == 0 {
                assert_eq!(
                    (p[0], count),
                    ((i / 2, 1.0), 1),
                    "an even node is a coarse node"
                );
            }
        }
    }
    // An odd node between two coarse nodes takes half of each; the last node of an even count
    // is a coarse node of its own, one fine spacing from the one before.
    assert_eq!(parents(3, 10), ([(1, 0.5), (2, 0.5)], 2));
    assert_eq!(parents(9, 10), ([(5, 1.0), (0, 0.0)], 1));
    assert_eq!(parents(8, 10), ([(4, 1.0), (0, 0.0)], 1));
    assert_eq!(parents(7, 9), ([(3, 0.5), (4, 0.5)], 2));
}

/// A grid sheet with `pins` for the multigrid tests, run by `kang-mg`.
fn grid_sim(nx: usize, ny: usize, pins: &str, k: f64, dt: f64) -> Simulation {
    let json = format!(
        r#"{{ "cloth": {{ "grid": {{ "nx": {nx}, "ny": {ny}, "width": 1.0, "height": 0.8,
                                     "mass": 0.3, "pins": "{pins}" }} }},
             "params": {{ "integrator": "kang-mg", "dt": {dt},
                 "stiffness": {{ "structural": {k}, "shear": {}, "bend": {} }},
                 "wind": {{ "velocity": [0, 0, 0], "gust": {{ "strength": 0 }} }} }} }}"#,
        k / 4.0,
        k / 40.0
    );
    Scene::from_json(&json, "grid")
        .unwrap()
        .simulation()
        .unwrap()
}

/// `A x` of kang's system `(D − h² K)` with the held nodes' columns left out, from its
/// definition: `A_ii = m_i + h² Σ_j k_ij`, `A_ij = −h² k_ij`.
fn apply(sim: &Simulation, held: &[bool], h: f64, x: &[DVec3]) -> Vec<DVec3> {
    let c = &sim.cloth;
    (0..c.node_count())
        .map(|i| {
            if held[i] {
                return DVec3::ZERO;
            }
            let mut y = c.m[i] * x[i];
            for l in c.links(i) {
                let k = c.k()[l.spring as usize];
                let j = l.node as usize;
                y += h * h * k * x[i];
                if !held[j] {
                    y -= h * h * k * x[j];
                }
            }
            y
        })
        .collect()
}

fn norm(v: &[DVec3]) -> f64 {
    v.iter().map(|a| a.length_squared()).sum::<f64>().sqrt()
}

#[test]
fn v_cycles_solve_kangs_system_and_shrink_the_residual_whatever_the_size() {
    // h²k/m in the thousands, as in the peer scenes.
    for (n, pins) in [(17, "hoist"), (32, "top-corners"), (48, "hoist")] {
        let sim = grid_sim(n, n, pins, 2000.0, 1.0 / 60.0);
        let h = sim.params().h();
        let held = sim.cloth.pinned.clone();
        let mut mg = Multigrid::default();
        assert!(mg.prepare(&sim.cloth, &held, h));
        assert!(!mg.prepare(&sim.cloth, &held, h), "same inputs: no rebuild");
        assert!(mg.depth() >= 2, "{n}: {} levels", mg.depth());
        // A right-hand side with smooth and rough parts: what a V-cycle must handle.
        let b: Vec<DVec3> = (0..n * n)
            .map(|i| {
                if held[i] {
                    return DVec3::ZERO;
                }
                let (x, y) = ((i % n) as f64, (i / n) as f64);
                DVec3::new(
                    1.0,
                    (0.3 * x).sin(),
                    if ((x + y) as usize).is_multiple_of(2) {
                        1.0
                    } else {
                        -1.0
                    },
                ) * 1e-3
            })
            .collect();
        let scale = norm(&b);
        let mut x = vec![DVec3::ZERO; n * n];
        let mut last = 1.0;
        let mut rates = Vec::new();
        for cycle in 1..=8 {
            let report = mg.solve(&b, &mut x, scale, 0.0, 1, false);
            let r: Vec<DVec3> = apply(&sim, &held, h, &x)
                .iter()
                .zip(&b)
                .map(|(ax, b)| *b - *ax)
                .collect();
            let now = norm(&r) / scale;
            eprintln!("{n} {pins}, cycle {cycle}: {now:e}");
            rates.push(now / last);
            assert_eq!(report.cycles, 1);
            last = now;
        }
        // From the second cycle on, each cuts the residual by at least 3 (a multigrid's rate
        // does not depend on the size; the first also turns smooth error into rough).
        assert!(rates[1..].iter().all(|r| *r < 1.0 / 3.0), "{n}: {rates:?}");
        assert!(last < 1e-4, "{n}: {last}");
        // With a tolerance the cycles stop once the residual they meet is under it.
        let mut x = vec![DVec3::ZERO; n * n];
        let report = mg.solve(&b, &mut x, scale, 1e-6, 50, false);
        assert!(report.cycles > 1 && report.cycles < 50, "{report:?}");
        assert!(report.relative_residual <= 1e-6, "{report:?}");
        let r: Vec<DVec3> = apply(&sim, &held, h, &x)
            .iter()
            .zip(&b)
            .map(|(ax, b)| *b - *ax)
            .collect();
        assert!(norm(&r) / scale < 1e-5, "{n}: {}", norm(&r) / scale);
        // Held nodes keep what they were given.
        assert!(held.iter().zip(&x).all(|(h, x)| !*h || *x == DVec3::ZERO));
    }
}

#[test]
fn a_cloth_of_at_most_64_nodes_is_solved_directly_to_rounding() {
    // 8 × 7 = 56 nodes: a single level, factored once (Cholesky) and solved by substitution.
    // Every free node's row of kang's system must balance to rounding in one solve, whatever
    // the right-hand side; held nodes are not unknowns and stay zero.
    for pins in ["hoist", "top-corners"] {
        let sim = grid_sim(8, 7, pins, 2000.0, 1.0 / 60.0);
        let h = sim.params().h();
        let held = sim.cloth.pinned.clone();
        let mut mg = Multigrid::default();
        mg.prepare(&sim.cloth, &held, h);
        assert_eq!(mg.depth(), 1);
        let b: Vec<DVec3> = (0..56)
            .map(|i| {
                if held[i] {
                    DVec3::ZERO
                } else {
                    let t = i as f64;
                    DVec3::new(t.sin(), (0.7 * t).cos(), 1.0 - 0.03 * t)
                }
            })
            .collect();
        let mut x = vec![DVec3::ZERO; 56];
        let report = mg.solve(&b, &mut x, norm(&b), 0.0, 1, false);
        assert_eq!(report.cycles, 1);
        let ax = apply(&sim, &held, h, &x);
        let r: Vec<DVec3> = ax.iter().zip(&b).map(|(a, b)| *b - *a).collect();
        // The diagonal is about h²·k_sum ≈ 10⁵·m: rounding leaves ~1e-15 of |A x|.
        assert!(
            norm(&r) <= 1e-12 * norm(&ax),
            "{pins}: {}",
            norm(&r) / norm(&ax)
        );
        assert!(norm(&x) > 0.0);
        assert!(held.iter().zip(&x).all(|(h, x)| !*h || *x == DVec3::ZERO));
    }
}

#[test]
fn the_parallel_v_cycle_gives_the_serial_answer_bit_for_bit() {
    let sim = grid_sim(70, 66, "hoist", 500.0, 1.0 / 60.0);
    let h = sim.params().h();
    let held = sim.cloth.pinned.clone();
    let b: Vec<DVec3> = (0..70 * 66)
        .map(|i| {
            if held[i] {
                DVec3::ZERO
            } else {
                DVec3::new((i as f64).sin(), 1.0, -0.5)
            }
        })
        .collect();
    let solve = |parallel: bool| {
        let mut mg = Multigrid::default();
        mg.prepare(&sim.cloth, &held, h);
        let mut x = vec![DVec3::ZERO; b.len()];
        mg.solve(&b, &mut x, 1.0, 0.0, 3, parallel);
        x
    };
    assert_eq!(solve(false), solve(true));
}

#[test]
fn kang_mg_comes_to_the_springs_own_rest_state() {
    // A 12 × 12 flag on its pole, stiff (h²k/m ≈ 300), with the default multigrid tolerance:
    // after 20 s at rest every free node's spring forces balance its weight, which eq. 10's two
    // sweeps with unfiltered gravity never manage at this stiffness. (In its own plane: a sheet
    // that buckles out of it creeps there for a long time, since the approximate Hessian is
    // stiff across springs where the true one is not.)
    let mut sim = grid_sim(12, 12, "hoist", 2000.0, 1.0 / 60.0);
    let mut p = sim.params().clone();
    p.provot.enabled = false;
    p.damping = 0.5;
    sim.set_params(p.clone()).unwrap();
    sim.step_n(1200);
    // The step reports its solve: at rest one V-cycle reaches the tolerance.
    let report = sim.stats.solver.solve().expect("an iterative solve");
    assert_eq!(report.iterations, 1, "{report:?}");
    assert!(
        report.relative_residual <= p.multigrid.tolerance,
        "{report:?}"
    );
    let c = &sim.cloth;
    let g = DVec3::new(0.0, -9.81, 0.0);
    let mut worst: f64 = 0.0;
    for i in (0..c.node_count()).filter(|&i| !c.pinned[i]) {
        let mut f = c.m[i] * g;
        for l in c.links(i) {
            let s = l.spring as usize;
            let d = c.x[l.node as usize] - c.x[i];
            f += c.k()[s] * (d.length() - c.topology.rest[s]) * d.normalize();
        }
        worst = worst.max(f.length() / (c.m[i] * 9.81));
    }
    let vmax = c.v.iter().map(|v| v.length()).fold(0.0, f64::max);
    assert!(
        worst < 1e-3,
        "largest net force {worst} of a node's weight (fastest node {vmax} m/s)"
    );
}

#[test]
fn a_probe_step_leaves_kang_mgs_run_as_it_was() {
    // The Fig. 8 comparison probes a step and undoes it; kang-mg's warm start must be undone
    // with it, or the run after the probe parts from the run without one.
    let run = |probe: bool| {
        let mut sim = grid_sim(12, 12, "hoist", 2000.0, 1.0 / 60.0);
        sim.step_n(5);
        if probe {
            sim.probe_delta_v(IntegratorKind::KangMg).unwrap();
        }
        sim.step_n(5);
        sim.cloth.x.clone()
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn kang_mg_takes_the_air_at_the_end_velocity() {
    // A free 2 × 2 sheet whose springs have no stiffness, no gravity, in a steady wind w with
    // only the linear wind k_w (w − v) acting (the air constants are per node of a 10 × 10
    // cloth, so each of 4 nodes takes 25 times them: forces::AIR_REFERENCE_NODES). Each row of
    // the system is (m + h k) Δv = h k (w − v): from rest Δv = h k w / (m + h k), which never
    // overshoots the wind however large h is; then the next step from v = Δv.
    let (mass, kw, h) = (0.04, 0.02, 0.1);
    let (m, k) = (mass / 4.0, kw * 25.0);
    let w = DVec3::new(3.0, 0.0, -1.0);
    let json = format!(
        r#"{{ "cloth": {{ "grid": {{ "nx": 2, "ny": 2, "width": 0.1, "height": 0.1, "mass": {mass},
                                     "pins": "none" }} }},
             "params": {{ "integrator": "kang-mg", "dt": {h}, "gravity": [0, 0, 0],
                 "stiffness": {{ "structural": 0, "shear": 0, "bend": 0 }},
                 "wind": {{ "velocity": [{}, {}, {}], "drag": 0, "lift": 0, "linear": {kw},
                           "response": 0, "gust": {{ "strength": 0 }} }},
                 "provot": {{ "enabled": false }} }} }}"#,
        w.x, w.y, w.z
    );
    let mut sim = Scene::from_json(&json, "air")
        .unwrap()
        .simulation()
        .unwrap();
    sim.step();
    let dv1 = h * k * w / (m + h * k);
    for i in 0..4 {
        assert!(
            (sim.cloth.v[i] - dv1).length() < 1e-12,
            "{:?} vs {dv1:?}",
            sim.cloth.v[i]
        );
    }
    sim.step();
    let v2 = dv1 + h * k * (w - dv1) / (m + h * k);
    assert!(
        (sim.cloth.v[0] - v2).length() < 1e-12,
        "{:?} vs {v2:?}",
        sim.cloth.v[0]
    );
    // The air off and gravity on: the rows are m Δv = h m g again, Δv = h g exactly (nothing
    // of the air's diagonal left in the solve).
    let mut p = sim.params().clone();
    p.wind.linear = 0.0;
    p.gravity = [0.0, -9.81, 0.0];
    sim.set_params(p).unwrap();
    sim.step();
    let v3 = v2 + h * DVec3::new(0.0, -9.81, 0.0);
    assert!(
        (sim.cloth.v[0] - v3).length() < 1e-12,
        "{:?} vs {v3:?}",
        sim.cloth.v[0]
    );
}

#[test]
fn a_moving_pin_enters_kang_mgs_system_with_its_known_velocity_change() {
    // Node 0 pinned and waved along the figure 8 (amplitude a, period T), node 1 free on a
    // zero-rest-length spring k, no gravity, no air, from rest. Node 0's known change of
    // velocity over the first step is offset(h) / h; node 1's row of the system is
    // (m + h² k) Δv₁ = h F₁ + h² k Δv₀ with F₁ = k (x₀ − x₁) (the viscosity term is zero at rest).
    let (m, k, h, a, period) = (0.05, 40.0, 0.02, 0.1, 1.0);
    let json = format!(
        r#"{{ "cloth": {{ "nodes": [ {{ "x": [0, 0, 0], "m": {m}, "pinned": true }},
                                     {{ "x": [0.3, -0.1, 0], "m": {m} }} ],
                         "springs": [ {{ "a": 0, "b": 1, "k": {k}, "rest": 0 }} ] }},
             "params": {{ "integrator": "kang-mg", "dt": {h}, "gravity": [0, 0, 0],
                 "wind": {{ "velocity": [0, 0, 0], "drag": 0, "lift": 0, "linear": 0 }},
                 "handle": {{ "path": "figure8", "amplitude": {a}, "period": {period} }},
                 "provot": {{ "enabled": false }} }} }}"#
    );
    let mut sim = Scene::from_json(&json, "moving pin")
        .unwrap()
        .simulation()
        .unwrap();
    let w = std::f64::consts::TAU / period;
    let offset = DVec3::new(0.0, 0.5 * a * (2.0 * w * h).sin(), a * (w * h).sin());
    let dv0 = offset / h;
    let u = DVec3::new(0.3, -0.1, 0.0);
    let dv1 = (h * h * k * dv0 - h * k * u) / (m + h * h * k);
    sim.step();
    assert!(
        (sim.cloth.x[0] - offset).length() < 1e-12,
        "{:?}",
        sim.cloth.x[0]
    );
    assert!(
        (sim.cloth.v[1] - dv1).length() < 1e-12,
        "{:?} vs {dv1:?}",
        sim.cloth.v[1]
    );
}

/// A flag of `n × n` nodes in 3-D wind (it leaves its plane), `h²k/m ≈ 60`.
fn windy_flag(n: usize, integrator: &str) -> Simulation {
    let json = format!(
        r#"{{ "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1.0, "height": 0.8,
                                     "mass": 0.2, "pins": "hoist" }} }},
             "params": {{ "integrator": "{integrator}", "dt": 0.016666666666666666,
                 "stiffness": {{ "structural": 300.0, "shear": 75.0, "bend": 2.0 }},
                 "damping": 0.02,
                 "wind": {{ "velocity": [5, 0, 2], "drag": 0.004, "lift": 0.006,
                            "linear": 0.004, "gust": {{ "strength": 0.5 }} }},
                 "provot": {{ "enabled": false }} }} }}"#
    );
    Scene::from_json(&json, "windy flag")
        .unwrap()
        .simulation()
        .unwrap()
}

#[test]
fn implicit_mg_converges_to_the_step_implicit_cg_takes() {
    // The same system (backward Euler with the full spring Jacobian, spring damping, the
    // semi-implicit air, the pole's nodes held), two unrelated solvers: Jacobi-preconditioned
    // CG and multigrid-preconditioned flexible CG, both to 1e-12, from a state in mid-flap.
    let mut sim = windy_flag(12, "implicit-cg");
    sim.step_n(60);
    let mut p = sim.params().clone();
    p.cg.tolerance = 1e-12;
    p.cg.max_iterations = 5000;
    p.multigrid.tolerance = 1e-12;
    p.multigrid.max_cycles = 100;
    sim.set_params(p).unwrap();
    let cg = sim.probe_delta_v(IntegratorKind::ImplicitCg).unwrap();
    let mg = sim.probe_delta_v(IntegratorKind::ImplicitMg).unwrap();
    let size = norm(&cg);
    assert!(
        size > 1e-3,
        "a step that changes nothing proves nothing: {size}"
    );
    let apart: Vec<DVec3> = cg.iter().zip(&mg).map(|(a, b)| *a - *b).collect();
    assert!(
        norm(&apart) < 1e-8 * size,
        "implicit-mg's Δv is {} from implicit-cg's (|Δv| = {size})",
        norm(&apart)
    );
}

#[test]
fn a_node_crossing_a_sheet_at_rest_length_keeps_its_velocity_under_implicit_mg() {
    // A flat 5 × 5 sheet at rest length, no gravity or air; the middle node moves across it.
    // Every spring lies in the sheet's plane, so the true Jacobian's P = x̂x̂ᵀ never sees that
    // velocity, and at rest length its (1 − L/|x|) part is zero: backward Euler changes
    // nothing (Δv = 0). Desbrun's Hessian gives each spring k across its length too: kang-mg's
    // viscosity term and matrix take most of the velocity away in one step (h²k/m = 12.5 a spring here).
    let json = |integrator: &str| {
        format!(
            r#"{{ "cloth": {{ "grid": {{ "nx": 5, "ny": 5, "width": 0.4, "height": 0.4,
                                         "mass": 0.05, "pins": "top-corners" }} }},
                 "params": {{ "integrator": "{integrator}", "dt": 0.02, "gravity": [0, 0, 0],
                     "stiffness": {{ "structural": 62.5, "shear": 62.5, "bend": 62.5 }},
                     "multigrid": {{ "tolerance": 1e-12, "max_cycles": 50 }},
                     "wind": {{ "velocity": [0, 0, 0], "drag": 0, "lift": 0, "linear": 0,
                                "gust": {{ "strength": 0 }} }},
                     "provot": {{ "enabled": false }} }} }}"#
        )
    };
    let v0 = DVec3::new(0.0, 0.0, 0.7);
    let after_one_step = |integrator: &str| {
        let mut sim = Scene::from_json(&json(integrator), "sheet")
            .unwrap()
            .simulation()
            .unwrap();
        let mid = 12;
        assert!(sim.cloth.x.iter().all(|x| x.z == 0.0), "the sheet is flat");
        sim.cloth.v[mid] = v0;
        assert!(sim.step());
        (sim.cloth.v[mid], sim.cloth.v.clone())
    };
    let (v, all) = after_one_step("implicit-mg");
    assert!((v - v0).length() < 1e-9, "implicit-mg: {v} from {v0}");
    let others = all
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 12)
        .map(|(_, v)| v.length())
        .fold(0.0, f64::max);
    assert!(others < 1e-9, "the others were moved: {others} m/s");
    let (v, _) = after_one_step("kang-mg");
    assert!(
        v.dot(v0) < 0.5 * v0.length_squared(),
        "kang-mg kept {v} of {v0}"
    );
}

#[test]
fn implicit_mg_meets_its_tolerance_in_a_few_iterations_on_a_stiff_fine_flag() {
    // 17 × 17 (two coarse levels and a direct solve), h²k/m ≈ 800: Gauss–Seidel sweeps alone
    // need hundreds of iterations for the sheet's stretching modes, which only the coarse grid
    // reaches. With it every step of the fall meets the default tolerance, within 12 iterations
    // while the sheet drops from rest (its first steps need the most, warm starts then help),
    // and 1 to 3 on average over the last 30 steps, once it swings.
    let scene = peer_flag(
        17,
        Some("implicit-mg"),
        r#"{ "enabled": true, "max_stretch": 0.05 }"#,
    );
    let mut sim = scene.simulation().unwrap();
    let tolerance = sim.params().multigrid.tolerance;
    let mut late = 0;
    for step in 0..90 {
        assert!(sim.step());
        let report = sim.stats.solver.solve().expect("an iterative solve");
        assert!(
            report.relative_residual <= tolerance && report.iterations <= 12,
            "step {step}: {report:?}"
        );
        if step >= 60 {
            late += report.iterations;
        }
    }
    assert!(
        (30..=90).contains(&late),
        "{late} iterations over the last 30 steps"
    );
}

#[test]
fn at_its_tolerance_implicit_mg_is_as_close_to_the_solution_as_the_residual_allows() {
    // The first step of a stiff 17 × 17 flag from rest: flat, every spring at rest length,
    // v = 0, gravity only, so the right-hand side is h m g on every free node and the
    // residual's scale is h |g| sqrt(Σ m²). Stopping at |r| ≤ tol · scale leaves an error of
    // at most |A⁻¹| |r| ≤ tol · scale / min m (A is a mass matrix plus positive semi-definite
    // blocks, so its smallest eigenvalue is at least the smallest mass).
    let scene = peer_flag(17, Some("implicit-mg"), r#"{ "enabled": false }"#);
    let mut sim = scene.simulation().unwrap();
    let tolerance = sim.params().multigrid.tolerance;
    let h = sim.params().h();
    let c = &sim.cloth;
    let free: Vec<usize> = (0..c.node_count()).filter(|&i| !c.pinned[i]).collect();
    let mass_norm = free.iter().map(|&i| c.m[i] * c.m[i]).sum::<f64>().sqrt();
    let m_min = free.iter().map(|&i| c.m[i]).fold(f64::INFINITY, f64::min);
    let g = DVec3::from_array(sim.params().gravity).length();
    let bound = tolerance * h * g * mass_norm / m_min;
    let got = sim.probe_delta_v(IntegratorKind::ImplicitMg).unwrap();
    let mut p = sim.params().clone();
    p.cg.tolerance = 1e-12;
    p.cg.max_iterations = 5000;
    sim.set_params(p).unwrap();
    let exact = sim.probe_delta_v(IntegratorKind::ImplicitCg).unwrap();
    let error: Vec<DVec3> = got.iter().zip(&exact).map(|(a, b)| *a - *b).collect();
    assert!(
        norm(&error) <= bound,
        "error {} over the bound {bound}",
        norm(&error)
    );
    // It did have to iterate: the bound is not met from Δv = 0.
    assert!(norm(&exact) > bound, "{} against {bound}", norm(&exact));
}

#[test]
fn implicit_mg_stops_at_four_iterations_per_allowed_cycle() {
    // The same first step needs about 9 iterations to reach the default tolerance; with
    // `max_cycles` 1 the cap is ITERATIONS_PER_CYCLE × 1 = 4, and the step reports exactly
    // that many, its residual still above the tolerance.
    use flagsim::sim::solvers::integrators::implicit_mg::ITERATIONS_PER_CYCLE;
    let scene = peer_flag(17, Some("implicit-mg"), r#"{ "enabled": false }"#);
    let mut sim = scene.simulation().unwrap();
    let mut p = sim.params().clone();
    p.multigrid.max_cycles = 1;
    sim.set_params(p).unwrap();
    assert!(sim.step());
    let report = sim.stats.solver.solve().expect("an iterative solve");
    assert_eq!(report.iterations, ITERATIONS_PER_CYCLE, "{report:?}");
    assert!(
        report.relative_residual > sim.params().multigrid.tolerance,
        "{report:?}"
    );
}

#[test]
fn implicit_mg_iterates_even_where_its_start_meets_the_tolerance() {
    // The first step from rest: Δv starts at 0, so the residual is the whole right-hand side
    // and its relative size |b| / max(h |g| |m|, |b|) is at most 1. With the tolerance at 1
    // that start already meets it; the step must still solve (an iteration), or it would
    // repeat the last Δv and a cloth would hang still, short of its rest.
    let scene = peer_flag(17, Some("implicit-mg"), r#"{ "enabled": false }"#);
    let mut sim = scene.simulation().unwrap();
    let mut exact_params = sim.params().clone();
    exact_params.cg.tolerance = 1e-12;
    exact_params.cg.max_iterations = 5000;
    let mut p = sim.params().clone();
    p.multigrid.tolerance = 1.0;
    sim.set_params(p).unwrap();
    let mut probe = scene.simulation().unwrap();
    probe.set_params(exact_params).unwrap();
    let exact = probe.probe_delta_v(IntegratorKind::ImplicitCg).unwrap();
    assert!(sim.step());
    let report = sim.stats.solver.solve().expect("an iterative solve");
    // (CG's residual need not shrink in every iteration, so more than one may follow.)
    assert!(report.iterations >= 1, "{report:?}");
    // The step moved the cloth (v was 0): a real part of the exact Δv.
    assert!(
        norm(&sim.cloth.v) > 0.1 * norm(&exact),
        "|v| {} against the exact |Δv| {}",
        norm(&sim.cloth.v),
        norm(&exact)
    );
}

#[test]
fn implicit_mgs_one_pass_assembly_gives_the_parallel_passes_step_bit_for_bit() {
    // On one thread implicit-mg builds its system in one pass over the springs (blocks,
    // diagonal blocks, right-hand side and the warm start's product together); in parallel
    // in separate passes, node by node. A node's links are in spring order, so both add each
    // node's terms in the same order: the same step to the bit, in wind, with the pole held
    // and the air's coefficients in the diagonal, the pole waved along the figure 8 (its
    // nodes' known Δv on the right-hand side).
    let mut serial = windy_flag(14, "implicit-mg");
    let mut p = serial.params().clone();
    p.handle.path = flagsim::sim::format::params::HandlePath::Figure8;
    p.handle.amplitude = 0.1;
    p.handle.period = 1.0;
    serial.set_params(p).unwrap();
    let mut parallel = serial.clone();
    serial.parallel = Some(false);
    parallel.parallel = Some(true);
    for step in 0..40 {
        assert!(serial.step() && parallel.step());
        assert_eq!(serial.cloth.x, parallel.cloth.x, "step {step}");
        assert_eq!(serial.cloth.v, parallel.cloth.v, "step {step}");
    }
    // The run did something: the flag left its plane and the solver iterated.
    let report = serial.stats.solver.solve().expect("an iterative solve");
    assert!(report.iterations >= 1);
    assert!(serial.cloth.x.iter().any(|x| x.z.abs() > 0.05));
}

/// Positions of an `nx × ny` grid (node `(i, j)` at `j · nx + i`) from a function of the
/// node's share of the width and the height.
fn field(nx: usize, ny: usize, f: impl Fn(f64, f64) -> DVec3) -> Vec<DVec3> {
    let mut x = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            x.push(f(i as f64 / (nx - 1) as f64, j as f64 / (ny - 1) as f64));
        }
    }
    x
}

/// Taken at another grid's nodes, a grid's positions are bilinear between the four nodes
/// around: a bilinear field (`a + b u + c v + d u v`) comes back exactly at any grid, a
/// curved one as the interpolation of its nodes, and the same grid gives the positions
/// themselves.
#[test]
fn a_grid_taken_at_another_grids_nodes_is_bilinear_between_its_own() {
    let bilinear = |u: f64, v: f64| {
        DVec3::new(0.3, -1.0, 2.0)
            + u * DVec3::new(1.2, 0.1, 0.0)
            + v * DVec3::new(0.0, -0.8, 0.2)
            + u * v * DVec3::new(0.05, 0.3, -0.4)
    };
    let coarse = field(5, 4, bilinear);
    for to in [[9, 7], [13, 4], [3, 2], [5, 4], [17, 31]] {
        let got = shape::resample(&coarse, [5, 4], to);
        let expected = field(to[0], to[1], bilinear);
        assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            assert!(g.distance(*e) < 1e-12, "{to:?}: {g} against {e}");
        }
    }
    // The same grid: the positions themselves, bit for bit.
    let curved = field(3, 3, |u, v| DVec3::new(u, v, u * u));
    assert_eq!(shape::resample(&curved, [3, 3], [3, 3]), curved);
    // u² at u = 0, ½, 1 taken at u = ¼: halfway between 0 and ¼, i.e. ⅛ (not u² = 1/16).
    let finer = shape::resample(&curved, [3, 3], [5, 3]);
    assert!((finer[1].z - 0.125).abs() < 1e-15, "{}", finer[1]);
    assert!((finer[3].z - 0.625).abs() < 1e-15, "{}", finer[3]);
    assert!((finer[1].x - 0.25).abs() < 1e-15);
    // Past the middle of a longer row, still between the two nodes around: u² at u = ¾ and 1
    // taken at u = ⅞ is 0.78125 (not extrapolated from an earlier pair).
    let row = field(5, 2, |u, _| DVec3::new(0.0, 0.0, u * u));
    let finer = shape::resample(&row, [5, 2], [9, 2]);
    assert!((finer[7].z - 0.78125).abs() < 1e-15, "{}", finer[7]);
    assert!((finer[5].z - 0.40625).abs() < 1e-15, "{}", finer[5]);
}

/// Two cloths of one sheet at different key grids are measured at the second one's nodes:
/// the same flat sheet is 0 apart, and moved 1 cm out of its plane, 1 cm (RMS and max).
#[test]
fn cloths_at_different_grids_are_measured_at_the_same_places_of_the_sheet() {
    let scene = Scene::load("flag").unwrap();
    let coarse = scene.simulation().unwrap();
    let fine = scene.with_key_grid(19, 19).unwrap().simulation().unwrap();
    assert_eq!(fine.cloth.node_count(), 361);
    let d = shape::cloth_distance(&fine.cloth, &fine.cloth.x, &coarse.cloth, &coarse.cloth.x);
    assert!(d.rms < 1e-12 && d.max < 1e-12, "{d:?}");
    let moved: Vec<DVec3> = fine.cloth.x.iter().map(|p| *p + DVec3::Z * 0.01).collect();
    let d = shape::cloth_distance(&fine.cloth, &moved, &coarse.cloth, &coarse.cloth.x);
    assert!(
        (d.rms - 0.01).abs() < 1e-12 && (d.max - 0.01).abs() < 1e-12,
        "{d:?}"
    );
    // Either way round.
    let d = shape::cloth_distance(&coarse.cloth, &coarse.cloth.x, &fine.cloth, &moved);
    assert!((d.rms - 0.01).abs() < 1e-12, "{d:?}");
    // The same grid: node by node, as `distance`.
    let same = shape::cloth_distance(
        &coarse.cloth,
        &coarse.cloth.x,
        &coarse.cloth,
        &coarse.cloth.x,
    );
    assert_eq!(same, Distance::default());
}
