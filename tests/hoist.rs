//! Raising and lowering the flag: the pinned nodes move down the pole by
//! `(1 − η) · travel` (`params.hoist`), a scene can start at half-mast, a change moves them at
//! the set speed, the guard stays quiet and the pole stays where it was.
//!
//! The numbers come from the `flag` preset: a 0.8 m high hoist from y = 1.6 m to 2.4 m, the
//! ground at 0, so the travel is 1.6 m and the pole 2.4 m high.

use flagsim::render::drawing::view;
use flagsim::sim::Scene;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::sim::{Params, Simulation};

const BOTTOM: f64 = 1.6;
const HEIGHT: f64 = 0.8;
const TOP: f64 = BOTTOM + HEIGHT;

fn flag() -> Scene {
    let scene = Scene::load("flag").unwrap();
    let grid = scene.cloth.grid.as_ref().unwrap();
    // The numbers above are the preset's.
    assert_eq!((grid.origin[1], grid.height), (BOTTOM, HEIGHT));
    scene
}

fn pinned_y(sim: &Simulation) -> Vec<f64> {
    (sim.cloth.pinned.iter().zip(&sim.cloth.x))
        .filter(|(p, _)| **p)
        .map(|(_, x)| x.y)
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn at_half_mast_the_pinned_nodes_are_at_half_the_poles_height() {
    let mut scene = flag();
    scene.params.hoist.height = 0.5;
    let mut sim = scene.simulation().unwrap();
    assert_eq!(sim.hoist_travel(), BOTTOM);
    // From the start (no jump): the hoist's middle at half the pole's 2.4 m.
    let y = pinned_y(&sim);
    assert!((mean(&y) - TOP / 2.0).abs() < 1e-9, "{y:?}");
    assert!((y.iter().copied().fold(f64::MIN, f64::max) - (TOP - BOTTOM / 2.0)).abs() < 1e-9);
    // And there it stays while the flag flies.
    for _ in 0..120 {
        assert!(sim.step());
    }
    let y = pinned_y(&sim);
    assert!((mean(&y) - TOP / 2.0).abs() < 1e-9, "{y:?}");
    // The whole flag moved with its hoist: nothing hangs above it.
    let highest = sim.cloth.x.iter().map(|x| x.y).fold(f64::MIN, f64::max);
    assert!(highest < TOP - 0.5, "a node at {highest} m");
}

#[test]
fn lowering_and_raising_run_at_the_set_speed() {
    let scene = flag();
    let mut sim = scene.simulation().unwrap();
    let dt = scene.params.dt;
    let speed = 0.4;
    let lower = Params {
        hoist: flagsim::sim::format::params::Hoist { height: 0.0, speed },
        ..scene.params.clone()
    };
    sim.set_params(lower.clone()).unwrap();
    let top_pin = |sim: &Simulation| pinned_y(sim).into_iter().fold(f64::MIN, f64::max);
    for step in 1..=60 {
        assert!(sim.step(), "the guard fired at step {step}");
        let expected = TOP - speed * dt * f64::from(step);
        assert!(
            (top_pin(&sim) - expected).abs() < 1e-9,
            "step {step}: {} m, expected {expected}",
            top_pin(&sim)
        );
    }
    // 1.6 m at 0.4 m/s: down after 4 s, the lowest pinned node on the ground, and no further.
    for _ in 0..(3.5 / dt) as u32 {
        assert!(sim.step());
    }
    let y = pinned_y(&sim);
    let lowest = y.iter().copied().fold(f64::MAX, f64::min);
    assert!(lowest.abs() < 1e-9, "lowest pinned node at {lowest}");
    assert!((sim.hoist() - 0.0).abs() < 1e-12);
    // Up again, faster.
    let raise = Params {
        hoist: flagsim::sim::format::params::Hoist {
            height: 1.0,
            speed: 2.0,
        },
        ..lower
    };
    sim.set_params(raise).unwrap();
    assert!(sim.step());
    let moved = mean(&pinned_y(&sim)) - mean(&y);
    assert!(
        (moved - 2.0 * dt).abs() < 1e-9,
        "moved {moved} m in one step"
    );
}

#[test]
fn the_guard_stays_quiet_and_nothing_jumps_while_the_flag_goes_up_and_down() {
    for speed in [0.3, 2.0, 5.0] {
        let scene = flag();
        let mut sim = scene.simulation().unwrap();
        let dt = scene.params.dt;
        let mut fastest: f64 = 0.0;
        for (height, seconds) in [(0.0, 6.0), (0.5, 3.0), (1.0, 3.0)] {
            let mut p = scene.params.clone();
            p.hoist.height = height;
            p.hoist.speed = speed;
            sim.set_params(p).unwrap();
            for _ in 0..(seconds / dt) as u32 {
                assert!(
                    sim.step(),
                    "guard at speed {speed}: {:?}",
                    sim.divergence.as_ref().map(|d| &d.reason)
                );
                fastest = sim
                    .cloth
                    .v
                    .iter()
                    .map(|v| v.length())
                    .fold(fastest, f64::max);
            }
        }
        assert!((sim.hoist() - 1.0).abs() < 1e-12, "back at the top");
        // The wind (6 m/s with gusts) moves the fly end; hoisting adds its own speed.
        assert!(
            fastest < 12.0 + speed,
            "a node at {fastest} m/s, hoisting at {speed}"
        );
    }
}

#[test]
fn the_pole_stays_where_it_is_while_the_flag_comes_down() {
    let scene = flag();
    let top = Snapshot::of(&scene.simulation().unwrap());
    let mut lowered = scene.clone();
    lowered.params.hoist.height = 0.25;
    let low = Snapshot::of(&lowered.simulation().unwrap());
    assert!((low.hoist_drop - 0.75 * BOTTOM).abs() < 1e-12);
    let [a, b] = [&top, &low].map(|s| view::pole(s).expect("a pole"));
    assert!(a.top.abs_diff_eq(b.top, 1e-6), "{a:?} {b:?}");
    assert!(a.base.abs_diff_eq(b.base, 1e-6), "{a:?} {b:?}");
    // The pole reaches just above the top of the hoist at full height.
    assert!((f64::from(a.top.y) - TOP).abs() < 0.1, "{a:?}");
}

#[test]
fn a_scene_writes_its_hoist_and_a_bad_one_is_refused_naming_the_field() {
    let scene = Scene::from_json(
        r#"{"params": {"hoist": {"height": 0.5, "speed": 1.5}}}"#,
        "t",
    )
    .unwrap();
    assert_eq!(scene.params.hoist.height, 0.5);
    assert_eq!(scene.params.hoist.speed, 1.5);
    let again = Scene::from_json(&scene.to_json(), "saved").unwrap();
    assert_eq!(again.params.hoist, scene.params.hoist);
    for (json, field) in [
        (
            r#"{"params": {"hoist": {"height": 1.5}}}"#,
            "params.hoist.height",
        ),
        (
            r#"{"params": {"hoist": {"height": -0.1}}}"#,
            "params.hoist.height",
        ),
        (
            r#"{"params": {"hoist": {"speed": 0}}}"#,
            "params.hoist.speed",
        ),
        (r#"{"params": {"hoist": {"sped": 1}}}"#, "params.hoist"),
    ] {
        let e = Scene::from_json(json, "t.json").unwrap_err().to_string();
        assert!(e.contains(field), "{json}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn a_cloth_without_pins_or_below_the_ground_has_nowhere_to_go() {
    // The drop preset has no pins: the hoist changes nothing.
    let mut scene = Scene::load("drop-on-ball").unwrap();
    scene.params.hoist.height = 0.0;
    let sim = scene.simulation().unwrap();
    assert_eq!(sim.hoist_travel(), 0.0);
    assert_eq!(sim.hoist_drop(), 0.0);
}

#[test]
fn lowered_the_flag_stops_on_a_raised_ground() {
    // The ground collider at 0.4 m: the travel is the lowest pin's 1.6 m less 0.4.
    let mut scene = flag();
    for c in &mut scene.params.colliders {
        if let flagsim::sim::format::params::Collider::Ground(g) = c {
            g.height = 0.4;
        }
    }
    scene.params.hoist.height = 0.0;
    let sim = scene.simulation().unwrap();
    assert!((sim.hoist_travel() - (BOTTOM - 0.4)).abs() < 1e-12);
    let lowest = pinned_y(&sim).into_iter().fold(f64::MAX, f64::min);
    assert!(
        (lowest - 0.4).abs() < 1e-9,
        "lowest pinned node at {lowest}"
    );
}
