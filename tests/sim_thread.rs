//! The command path without any window: commands sent through the channel change the running
//! simulation, and the latest-wins snapshot shows it.

use std::time::Duration;

use flagsim::sim::scene::Scene;
use flagsim::sim::stepper::FixedStepper;
use flagsim::sim::thread::{Command, SimThread, wait_for};
use flagsim::sim::{IntegratorKind, Params};
use glam::DVec3;

const WAIT: Duration = Duration::from_secs(20);

fn paused_flag() -> SimThread {
    SimThread::spawn(Scene::load("flag").unwrap(), true).unwrap()
}

#[test]
fn single_steps_advance_exactly_one_step_each() {
    let sim = paused_flag();
    let slot = sim.slot();
    assert_eq!(sim.latest().step, 0);
    for n in 1..=3 {
        sim.send(Command::Step);
        let s = wait_for(&slot, WAIT, |s| s.step == n).expect("step published");
        assert!(s.paused);
        assert!((s.time - n as f64 / 60.0).abs() < 1e-12);
    }
}

#[test]
fn ui_commands_change_the_running_simulation() {
    let sim = paused_flag();
    let slot = sim.slot();
    // Parameters.
    let mut p: Params = sim.latest().params.clone();
    p.stiffness.structural = 123.0;
    p.wind.velocity = [0.0, 0.0, 9.0];
    sim.send(Command::SetParams(Box::new(p)));
    sim.send(Command::SetIntegrator(IntegratorKind::ImplicitCg));
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 1).unwrap();
    assert_eq!(s.params.stiffness.structural, 123.0);
    assert_eq!(s.params.wind.velocity, [0.0, 0.0, 9.0]);
    assert_eq!(s.params.integrator, IntegratorKind::ImplicitCg);
    assert!(s.stats.cg.iterations > 0, "implicit-cg did not run");
    // Mass.
    sim.send(Command::SetTotalMass(0.5));
    let s = wait_for(&slot, WAIT, |s| (s.total_mass - 0.5).abs() < 1e-12).unwrap();
    assert!(s.error.is_none());
    // A bad value is reported and ignored.
    let mut bad = s.params.clone();
    bad.dt = f64::NAN;
    sim.send(Command::SetParams(Box::new(bad)));
    let s = wait_for(&slot, WAIT, |s| s.error.is_some()).unwrap();
    assert!(s.error.as_deref().unwrap().contains("params.dt"));
    assert!(s.params.dt.is_finite());
    // Running and pausing.
    sim.send(Command::Pause(false));
    let running = wait_for(&slot, WAIT, |s| s.step >= 10).unwrap();
    assert!(!running.paused);
    sim.send(Command::Pause(true));
    let paused = wait_for(&slot, WAIT, |s| s.paused).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(sim.latest().step, paused.step, "stepped while paused");
    // Reset goes back to the scene's state and parameters.
    sim.send(Command::Reset);
    let s = wait_for(&slot, WAIT, |s| s.step == 0 && s.generation == 1).unwrap();
    assert_eq!(s.params.integrator, IntegratorKind::Kang);
    assert_eq!(s.params.stiffness.structural, 40.0);
}

#[test]
fn a_grabbed_node_follows_its_target_and_keeps_its_velocity_on_release() {
    let sim = paused_flag();
    let slot = sim.slot();
    let node = 99; // the top fly-end corner
    let start = sim.latest().x[node];
    let target = start + DVec3::new(0.1, 0.2, 0.3);
    sim.send(Command::Grab { node, target });
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 1).unwrap();
    assert_eq!(s.grabbed, Some(node));
    assert!((s.x[node] - target).length() < 1e-12);
    // Moved by d in one step: its velocity is d / h.
    assert!((s.v[node] - (target - start) * 60.0).length() < 1e-9);
    let v_grab = s.v[node];
    // Its neighbour was pulled along.
    assert!((s.x[98] - sim.latest().x[98]).length() < 1e-12);
    sim.send(Command::Release);
    let s = wait_for(&slot, WAIT, |s| s.grabbed.is_none()).unwrap();
    // Released with its velocity (not stopped).
    assert_eq!(s.v[node], v_grab);
    assert_eq!(s.step, 1);
}

#[test]
fn the_pole_offset_moves_every_pinned_node() {
    let sim = paused_flag();
    let slot = sim.slot();
    let before = sim.latest();
    let offset = DVec3::new(0.0, 0.1, -0.2);
    sim.send(Command::SetPoleOffset(offset));
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 1).unwrap();
    for i in 0..s.x.len() {
        if s.pinned[i] {
            assert!((s.x[i] - (before.x[i] + offset)).length() < 1e-12);
        }
    }
}

#[test]
fn a_diverging_run_is_reported_and_the_snapshot_stays_finite() {
    let mut scene = Scene::load("flag").unwrap();
    scene.params.integrator = IntegratorKind::ExplicitEuler;
    scene.params.provot.enabled = false;
    scene.params.dt = 0.05;
    scene.params.stiffness.structural = 400.0;
    let sim = SimThread::spawn(scene, false).unwrap();
    let s = wait_for(&sim.slot(), WAIT, |s| s.divergence.is_some()).expect("guard fired");
    let d = s.divergence.clone().unwrap();
    assert_eq!(d.integrator, IntegratorKind::ExplicitEuler);
    assert!(s.paused);
    assert!(s.x.iter().chain(&s.v).all(|x| x.is_finite()));
    // Reset (what the banner offers) starts again from the scene and runs on.
    sim.send(Command::Reset);
    let resumed = wait_for(&sim.slot(), WAIT, |x| x.generation == 1 && x.step >= 1);
    assert!(resumed.is_some_and(|x| x.divergence.is_none()));
}

#[test]
fn the_fig8_comparison_is_published_when_asked() {
    let sim = paused_flag();
    sim.send(Command::SetCompare(true));
    sim.send(Command::Step);
    let s = wait_for(&sim.slot(), WAIT, |s| s.compare.is_some()).unwrap();
    let c = s.compare.as_ref().unwrap();
    assert_eq!(c.dv_active.len(), 100);
    assert!(c.cosine > 0.5 && c.cosine <= 1.0 + 1e-12, "{}", c.cosine);
}

#[test]
fn dropping_the_handle_joins_the_thread() {
    let sim = SimThread::spawn(Scene::load("flag").unwrap(), false).unwrap();
    drop(sim); // must return (the test would hang otherwise)
}

#[test]
fn the_fixed_stepper_turns_wall_time_into_whole_steps() {
    let dt = 0.01;
    let mut st = FixedStepper::default();
    assert_eq!(st.advance(0.025, dt), 2); // 2.5 steps owed: 2 now
    assert_eq!(st.advance(0.005, dt), 1); // the half left plus a half
    assert_eq!(st.advance(0.0, dt), 0);
    // Falling far behind runs at most the cap and drops the rest.
    assert_eq!(st.advance(10.0, dt), st.max_steps_per_update);
    assert!(st.behind);
    assert!(st.advance(0.001, dt) <= 1);
    // Time scale halves the steps due.
    let mut slow = FixedStepper::default();
    slow.time_scale = 0.5;
    assert_eq!(slow.advance(0.04, dt), 2);
    // Bad wall times are ignored.
    assert_eq!(slow.advance(f64::NAN, dt), 0);
    assert_eq!(slow.advance(-1.0, dt), 0);
}
