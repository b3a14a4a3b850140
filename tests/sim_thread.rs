//! The command path without any window: commands sent through the channel change the running
//! simulation, and the latest-wins snapshot shows it.

use std::sync::Arc;
use std::time::Duration;

use flagsim::sim::format::scene::Scene;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::sim::runtime::stepper::FixedStepper;
use flagsim::sim::{IntegratorKind, Params, SimError};
use flagsim::sim_thread::{Command, SimThread, SnapshotSlot, wait_for};
use glam::DVec3;

/// Long enough for any scheduling delay (a step of the flag takes microseconds), short enough
/// that a broken thread fails the test in seconds.
const WAIT: Duration = Duration::from_secs(5);

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
    assert!(s.stats.solver.iterations() > 0, "implicit-cg did not run");
    // Mass.
    sim.send(Command::SetTotalMass(0.5));
    let s = wait_for(&slot, WAIT, |s| (s.total_mass - 0.5).abs() < 1e-12).unwrap();
    assert!(s.error.is_none());
    // A bad value is reported and ignored.
    let mut bad = s.params.clone();
    bad.dt = f64::NAN;
    sim.send(Command::SetParams(Box::new(bad)));
    let s = wait_for(&slot, WAIT, |s| s.error.is_some()).unwrap();
    assert!(
        matches!(&s.error, Some(SimError::OutOfRange { field, .. }) if field == "params.dt"),
        "{:?}",
        s.error
    );
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
    assert_eq!(s.params.integrator, IntegratorKind::ImplicitMg);
    assert_eq!(s.params.stiffness.structural, 100.0);
}

/// The flag with no gravity and no wind: at rest it stays exactly where it is, so whatever
/// moves was moved by the command under test. Symplectic Euler at a small step (no implicit
/// damping), so a free node keeps its velocity but for `h F / m`.
fn still_flag() -> SimThread {
    let mut scene = Scene::load("flag").unwrap();
    scene.params.gravity = [0.0; 3];
    scene.params.wind.velocity = [0.0; 3];
    scene.params.integrator = IntegratorKind::SymplecticEuler;
    scene.params.dt = 1e-3;
    // The grabbed node's tether pulls its neighbour along within the step.
    scene.params.provot.tethers = true;
    SimThread::spawn(scene, true).unwrap()
}

#[test]
fn a_grabbed_node_follows_its_target_and_keeps_its_velocity_on_release() {
    let sim = still_flag();
    let slot = sim.slot();
    let node = 99; // the top fly-end corner
    let before = sim.latest();
    let start = before.x[node];
    // 1 mm out of the plane in one 1 ms step: 1 m/s, far inside the strain limit.
    let target = start + DVec3::new(0.0, 0.0, 0.001);
    sim.send(Command::Grab { node, target });
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 1).unwrap();
    assert_eq!(s.grabbed, Some(node));
    assert!((s.x[node] - target).length() < 1e-12);
    // Moved by d in one step: its velocity is d / h.
    let v_grab = (target - start) * 1e3;
    assert!((s.v[node] - v_grab).length() < 1e-9);
    // Its neighbour (nothing else acts on it) was pulled along, towards the target.
    let pulled = s.x[98] - before.x[98];
    assert!(pulled.z > 0.0, "neighbour moved by {pulled}");
    // The grab moves with its target.
    let target2 = target + DVec3::new(0.0, 0.0, 0.001);
    sim.send(Command::MoveGrab(target2));
    sim.send(Command::MoveGrab(DVec3::NAN)); // ignored
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 2).unwrap();
    assert!((s.x[node] - target2).length() < 1e-12);
    assert!(s.error.is_none());
    let v_moving = (target2 - target) * 1e3;
    // Released, one free step later it still moves on at that velocity but for `h F / m`: the
    // springs stretch by under 1e-5 m, `h F / m` is below 1e-3 m/s. Not stopped, not held.
    sim.send(Command::Release);
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 3).unwrap();
    assert_eq!(s.grabbed, None);
    assert!(
        (s.v[node] - v_moving).length() < 1e-2 * v_moving.length(),
        "velocity after release {} (was {v_moving})",
        s.v[node]
    );
    assert!(
        s.x[node].z > target2.z,
        "the node stopped at the release point"
    );
}

#[test]
fn an_invalid_grab_is_reported_and_grabs_nothing() {
    let sim = still_flag();
    let slot = sim.slot();
    let start = sim.latest().x.clone();
    // Each bad grab alone (a command batch publishes its message; the next batch clears it).
    for (n, (node, target)) in [
        (100, DVec3::ZERO), // one past the last node
        (5, DVec3::new(f64::NAN, 0.0, 0.0)),
    ]
    .into_iter()
    .enumerate()
    {
        sim.send(Command::Grab { node, target });
        let s = wait_for(&slot, WAIT, |s| s.error.is_some()).expect("reported");
        // (A NaN target is not equal to itself: compare its bits.)
        assert!(
            matches!(&s.error, Some(SimError::InvalidGrab { node: n, target: t })
                if *n == node && t.to_array().map(f64::to_bits) == target.to_array().map(f64::to_bits)),
            "{:?}",
            s.error
        );
        assert!(s.error.as_ref().unwrap().to_string().starts_with("grab: "));
        assert_eq!(s.grabbed, None);
        sim.send(Command::Step);
        let s = wait_for(&slot, WAIT, |s| s.step == n as u64 + 1).unwrap();
        assert_eq!(s.grabbed, None);
    }
    let s = sim.latest();
    // Nothing moved (but for round-off): no force acts on the still flag.
    let moved = s.x.iter().zip(&start).map(|(a, b)| a.distance(*b));
    assert!(moved.fold(0.0, f64::max) < 1e-12);
    // A later good command clears the message.
    sim.send(Command::Step);
    let s = wait_for(&slot, WAIT, |s| s.step == 3).unwrap();
    assert!(s.error.is_none());
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
    // Symplectic Euler is stable below `h ω ≈ 2`: on this flag up to about 0.0047 s (bench).
    scene.params.integrator = IntegratorKind::SymplecticEuler;
    scene.params.provot.enabled = false;
    scene.params.dt = 0.008;
    let sim = SimThread::spawn(scene, false).unwrap();
    let s = wait_for(&sim.slot(), WAIT, |s| s.divergence.is_some()).expect("guard fired");
    let d = s.divergence.clone().unwrap();
    assert_eq!(d.integrator, IntegratorKind::SymplecticEuler);
    assert!(s.paused);
    assert!(s.x.iter().chain(&s.v).all(|x| x.is_finite()));
    // It stays stopped until asked.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        sim.latest().step,
        s.step,
        "stepped on after the guard fired"
    );
    // The banner's "halve dt and resume": the new dt, the divergence cleared, stepping on from
    // the state the guard rolled back to. (That state is already far from rest, so on this
    // flag the run may well diverge again a few steps later: a new divergence, at a later step.)
    let mut p = s.params.clone();
    p.dt /= 2.0;
    sim.send(Command::SetParams(Box::new(p)));
    sim.send(Command::ClearDivergence);
    let resumed = wait_for(&sim.slot(), WAIT, |x| x.step > s.step).expect("resumed");
    assert_eq!(resumed.params.dt, 0.004);
    assert!(resumed.x.iter().all(|x| x.is_finite()));
    if let Some(again) = &resumed.divergence {
        assert!(
            again.step > d.step,
            "the old divergence was not cleared: {again:?}"
        );
    }
    // Reset (what the banner offers) starts again from the scene and runs on.
    sim.send(Command::Reset);
    let resumed = wait_for(&sim.slot(), WAIT, |x| x.generation == 1 && x.step >= 1);
    assert!(resumed.is_some_and(|x| x.divergence.is_none()));
}

#[test]
fn the_fig8_comparison_is_published_when_asked() {
    // Fig. 8 is kang's claim: its Δv against the precomputed filter's, close at moderate
    // h²k/m (the flag at 40 N/m: 9.3; the preset's 100 N/m make it 23, where they part).
    let mut scene = Scene::load("flag").unwrap();
    scene.params.integrator = IntegratorKind::Kang;
    scene.params.stiffness.structural = 40.0;
    scene.params.stiffness.shear = 10.0;
    scene.params.provot.tethers = true;
    let sim = SimThread::spawn(scene, true).unwrap();
    sim.send(Command::SetCompare(true));
    sim.send(Command::Step);
    let s = wait_for(&sim.slot(), WAIT, |s| s.compare.is_some()).unwrap();
    let c = s.compare.as_ref().unwrap();
    assert_eq!(c.dv_active.len(), 100);
    assert!(c.cosine > 0.5 && c.cosine <= 1.0 + 1e-12, "{}", c.cosine);
}

/// Runs `f` on another thread and fails if it has not returned within `limit` (a deadlock
/// fails the test in seconds instead of hanging the suite).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .expect("did not return in time (deadlock?)")
}

#[test]
fn dropping_the_handle_stops_and_joins_the_thread() {
    // A large running cloth, so that its thread is busy in a step when the handle goes.
    let mut scene = Scene::load("flag").unwrap();
    let g = scene
        .cloth
        .grid
        .as_mut()
        .expect("the flag preset is a grid");
    (g.nx, g.ny) = (96, 96);
    let sim = SimThread::spawn(scene, false).unwrap();
    let slot = sim.slot();
    wait_for(&slot, WAIT, |s| s.step >= 1).expect("running");
    // The worker holds the other reference to the slot until it returns: after a join it is
    // gone; a drop that does not wait would find the thread still running.
    within(WAIT, move || drop(sim));
    assert_eq!(
        Arc::strong_count(&slot),
        1,
        "the thread outlived its handle"
    );
}

#[test]
fn shutdown_stops_the_thread_and_later_commands_report_it() {
    let mut sim = paused_flag();
    let slot = sim.slot();
    sim.shutdown();
    assert_eq!(
        Arc::strong_count(&slot),
        2,
        "the worker still holds the slot"
    ); // sim + slot
    assert!(
        !sim.send(Command::Step),
        "a command to a stopped thread claimed to arrive"
    );
}

#[test]
fn every_publish_gets_the_next_sequence_number_and_the_newest_wins() {
    let scene = Scene::load("flag").unwrap();
    let sim = scene.simulation().unwrap();
    let slot = SnapshotSlot::new(Snapshot::of(&sim));
    assert_eq!((slot.seq(), slot.latest().seq), (0, 0));
    for step in 1..=3u64 {
        let mut snap = Snapshot::of(&sim);
        snap.step = step;
        slot.publish(snap);
    }
    // Only the newest is kept, with the count of publishes as its number.
    let latest = slot.latest();
    assert_eq!((latest.seq, latest.step, slot.seq()), (3, 3, 3));
}

#[test]
fn the_thread_publishes_each_step_with_a_new_sequence_number() {
    let sim = paused_flag();
    let slot = sim.slot();
    let mut seen = vec![sim.latest().seq];
    for n in 1..=3 {
        sim.send(Command::Step);
        seen.push(wait_for(&slot, WAIT, |s| s.step == n).unwrap().seq);
    }
    assert!(
        seen.windows(2).all(|w| w[1] > w[0]),
        "sequence numbers {seen:?}"
    );
    assert_eq!(slot.seq(), *seen.last().unwrap());
}

#[test]
fn toggle_pause_starts_and_stops_the_clock() {
    let sim = paused_flag();
    let slot = sim.slot();
    sim.send(Command::TogglePause);
    let s = wait_for(&slot, WAIT, |s| s.step >= 3).expect("running after the toggle");
    assert!(!s.paused);
    sim.send(Command::TogglePause);
    let paused = wait_for(&slot, WAIT, |s| s.paused).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(sim.latest().step, paused.step, "stepped while paused");
}

#[test]
fn the_time_scale_is_applied_within_its_range_and_refused_outside_it() {
    let sim = paused_flag();
    let slot = sim.slot();
    sim.send(Command::SetTimeScale(0.5));
    let s = wait_for(&slot, WAIT, |s| s.time_scale == 0.5).unwrap();
    assert!(s.error.is_none());
    for bad in [0.0, 20.0, f64::NAN] {
        sim.send(Command::SetTimeScale(bad));
        let s = wait_for(&slot, WAIT, |s| s.error.is_some()).unwrap();
        assert!(
            s.error.as_ref().unwrap().to_string().contains("time scale"),
            "{:?}",
            s.error
        );
        assert_eq!(s.time_scale, 0.5, "{bad} was applied");
        sim.send(Command::Step); // clears the message for the next round
        wait_for(&slot, WAIT, |s| s.error.is_none()).unwrap();
    }
}

#[test]
fn a_bad_scene_is_refused_and_the_running_one_kept() {
    let sim = paused_flag();
    let slot = sim.slot();
    sim.send(Command::Step);
    wait_for(&slot, WAIT, |s| s.step == 1).unwrap();
    let mut bad = Scene::load("flag").unwrap();
    bad.params.dt = -1.0;
    sim.send(Command::LoadScene(Box::new(bad)));
    let s = wait_for(&slot, WAIT, |s| s.error.is_some()).unwrap();
    assert!(
        matches!(&s.error, Some(SimError::OutOfRange { field, value, .. })
            if field == "params.dt" && *value == -1.0),
        "{:?}",
        s.error
    );
    assert_eq!(
        (s.step, s.generation),
        (1, 0),
        "the running simulation was replaced"
    );
    // Reset still goes back to the good scene.
    sim.send(Command::Reset);
    let s = wait_for(&slot, WAIT, |s| s.generation == 1).unwrap();
    assert!(s.error.is_none(), "{:?}", s.error);
    assert_eq!((s.step, s.params.dt), (0, 1.0 / 60.0));
    // A good scene loads, as a new generation.
    let mut good = Scene::load("flag").unwrap();
    good.params.dt = 0.01;
    sim.send(Command::LoadScene(Box::new(good)));
    let s = wait_for(&slot, WAIT, |s| s.generation == 2).unwrap();
    assert_eq!(s.params.dt, 0.01);
}

#[test]
fn the_fixed_stepper_turns_wall_time_into_whole_steps() {
    let dt = 0.01;
    let mut st = FixedStepper::default();
    assert_eq!(st.until_next(dt), dt, "nothing owed: a whole step to wait");
    assert_eq!(st.advance(0.025, dt), 2); // 2.5 steps owed: 2 now
    assert!(!st.behind, "kept up, yet reported behind");
    // Half a step is owed: the next one is due in half a step of wall time.
    assert!(
        (st.until_next(dt) - 0.005).abs() < 1e-12,
        "{}",
        st.until_next(dt)
    );
    assert_eq!(st.advance(0.005, dt), 1); // the half left plus a half
    assert_eq!(st.advance(0.0, dt), 0);
    // Falling far behind runs at most the cap and drops the rest.
    assert_eq!(st.advance(10.0, dt), st.max_steps_per_update);
    assert!(st.behind);
    assert!(st.advance(0.001, dt) <= 1);
    // Time scale halves the steps due, and doubles the wall time to the next one.
    let mut slow = FixedStepper::default();
    slow.time_scale = 0.5;
    assert_eq!(slow.advance(0.04, dt), 2);
    assert_eq!(slow.advance(0.01, dt), 0); // half a step owed
    assert!(
        (slow.until_next(dt) - 0.01).abs() < 1e-12,
        "{}",
        slow.until_next(dt)
    );
    // Reset forgets the backlog and the behind flag.
    slow.reset();
    assert!((slow.until_next(dt) - 0.02).abs() < 1e-12);
    assert_eq!(
        slow.advance(0.01, dt),
        0,
        "the forgotten half step came back"
    );
    slow.reset();
    // Bad wall times and steps are ignored, and leave the backlog as it was.
    assert_eq!(slow.advance(f64::NAN, dt), 0);
    assert_eq!(slow.advance(-1.0, dt), 0);
    assert_eq!(slow.advance(f64::INFINITY, dt), 0);
    assert_eq!(slow.advance(0.1, 0.0), 0, "a zero dt ran steps");
    assert_eq!(slow.advance(0.1, -0.01), 0);
    assert_eq!(slow.advance(0.04, dt), 2, "a bad call changed the backlog");
    // Right after falling behind (the backlog cut to one dt) no wall time means no step.
    let mut behind = FixedStepper::default();
    behind.advance(10.0, dt);
    assert_eq!(behind.advance(0.0, dt), 0);
    assert!(behind.behind);
    behind.reset();
    assert!(!behind.behind);
}

#[test]
fn the_step_rate_is_counted_over_windows_of_a_second() {
    use flagsim::sim_thread::RateMeter;
    let t0 = std::time::Instant::now();
    let at = |s: f64| t0 + Duration::from_secs_f64(s);
    let mut meter = RateMeter::default();
    // Until a second has passed there is no rate yet.
    assert_eq!(meter.add(10, at(0.0)), 0.0);
    assert_eq!(meter.add(20, at(0.5)), 0.0);
    // 10 + 20 + 30 steps in the first second: 60 per second.
    assert_eq!(meter.add(30, at(1.0)), 60.0);
    // It holds until the next window closes: 5 + 25 steps in 1.5 s is 20 per second.
    assert_eq!(meter.add(5, at(1.5)), 60.0);
    assert_eq!(meter.add(25, at(2.5)), 20.0);
}

#[test]
fn a_running_thread_publishes_only_when_it_stepped() {
    // Steps of 0.5 s: between two steps the thread wakes every 50 ms with nothing to do and
    // must not publish (a new sequence number for the same state would have the viewer
    // interpolate between two equal snapshots).
    let mut scene = Scene::load("flag").unwrap();
    scene.params.dt = 0.5;
    let sim = SimThread::spawn(scene, false).unwrap();
    let slot = sim.slot();
    wait_for(&slot, WAIT, |s| s.step >= 1).unwrap();
    let mut checked = false;
    for _ in 0..10 {
        let a = sim.latest();
        std::thread::sleep(Duration::from_millis(200));
        let b = sim.latest();
        if a.step == b.step {
            assert_eq!(a.seq, b.seq, "published without a step");
            checked = true;
            break;
        }
    }
    assert!(checked, "never 200 ms without a step at dt = 0.5 s");
}

/// The integrator lab's paths through the thread: copies stepped in lock-step on the lab's
/// clock, commands routed to one copy, sync, and resuming one copy after its divergence.
mod lab {
    use super::*;
    use flagsim::sim::lab::copies::CopySpec;

    fn spec(integrator: IntegratorKind, dt: Option<f64>) -> CopySpec {
        CopySpec {
            integrator,
            dt,
            grid: None,
            device: flagsim::sim::DeviceChoice::Cpu,
        }
    }

    fn lab(scene: Scene, specs: &[CopySpec], paused: bool) -> SimThread {
        SimThread::spawn_lab(scene, specs, paused).unwrap()
    }

    fn wait(sim: &SimThread, pred: impl Fn(&Snapshot) -> bool) -> Arc<Snapshot> {
        wait_for(&sim.slot(), WAIT, pred).expect("the thread answered in time")
    }

    /// Copy `n` of a lab snapshot (0 is the snapshot itself).
    fn copy(s: &Snapshot, n: usize) -> &Snapshot {
        if n == 0 { s } else { &s.lab[n - 1] }
    }

    fn three_kang() -> SimThread {
        let specs = [
            IntegratorKind::Kang,
            IntegratorKind::Xpbd,
            IntegratorKind::ChoiKo,
        ]
        .map(|k| spec(k, None));
        lab(Scene::load("flag").unwrap(), &specs, true)
    }

    #[test]
    fn the_labs_clock_advances_every_copy_by_its_own_dt() {
        let scene = Scene::load("flag").unwrap();
        let dt = scene.params.dt;
        let specs = [
            spec(IntegratorKind::Kang, None),
            spec(IntegratorKind::Kang, Some(dt / 2.0)),
            spec(IntegratorKind::Xpbd, Some(dt / 4.0)),
        ];
        let sim = lab(scene, &specs, true);
        for n in 1..=3u64 {
            sim.send(Command::Step);
            let s = wait(&sim, |s| s.step == n);
            // n lab steps of dt are n, 2n and 4n steps of each copy's own dt, all at n·dt.
            for (c, per_lab_step) in [(0, 1), (1, 2), (2, 4)] {
                assert_eq!(copy(&s, c).step, n * per_lab_step, "copy {c}");
                assert!((copy(&s, c).time - n as f64 * dt).abs() < 1e-12, "copy {c}");
            }
        }
    }

    #[test]
    fn a_command_to_copy_n_reaches_copy_n_only_and_a_missing_copy_is_an_error() {
        let sim = three_kang();
        let target = DVec3::new(0.4, 1.8, 0.2);
        for n in 0..3 {
            sim.send(Command::Copy(
                n,
                Box::new(Command::Grab { node: 44, target }),
            ));
            let s = wait(&sim, |s| copy(s, n).grabbed.is_some());
            for c in 0..3 {
                let expected = (c == n).then_some(44);
                assert_eq!(copy(&s, c).grabbed, expected, "grab for copy {n}, copy {c}");
            }
            assert_eq!(s.error, None);
            sim.send(Command::Copy(n, Box::new(Command::Release)));
            wait(&sim, |s| copy(s, n).grabbed.is_none());
        }
        // One past the last copy, and far past it: refused, nothing grabbed, the thread alive.
        for missing in [3, 9] {
            sim.send(Command::Copy(
                missing,
                Box::new(Command::Grab { node: 44, target }),
            ));
            let s = wait(&sim, |s| s.error.is_some());
            assert_eq!(s.error, Some(SimError::NoCopy { copy: missing }));
            assert!((0..3).all(|c| copy(&s, c).grabbed.is_none()));
            sim.send(Command::Step);
            let stepped = wait(&sim, |x| x.step == s.step + 1);
            assert_eq!(stepped.error, None, "the next batch clears the message");
        }
        // Only the cloth commands go to a copy.
        sim.send(Command::Copy(1, Box::new(Command::Reset)));
        let s = wait(&sim, |s| s.error.is_some());
        assert!(matches!(s.error, Some(SimError::NotACopyCommand { .. })));
    }

    #[test]
    fn sync_gives_every_other_copy_copy_ns_state_and_keeps_their_integrators() {
        let sim = three_kang();
        for _ in 0..15 {
            sim.send(Command::Step);
        }
        let before = wait(&sim, |s| s.step == 15);
        assert_ne!(before.x, before.lab[0].x, "kang and xpbd part");
        assert_ne!(before.lab[0].x, before.lab[1].x, "xpbd and choi-ko part");
        sim.send(Command::Sync(1));
        let s = wait(&sim, |s| s.x == s.lab[0].x);
        let source = copy(&before, 1);
        for c in 0..3 {
            let got = copy(&s, c);
            assert_eq!(got.x, source.x, "copy {c}'s positions");
            assert_eq!(got.v, source.v, "copy {c}'s velocities");
            assert_eq!(got.step, source.step);
        }
        let kinds: Vec<_> = (0..3).map(|c| copy(&s, c).params.integrator).collect();
        assert_eq!(
            kinds,
            [
                IntegratorKind::Kang,
                IntegratorKind::Xpbd,
                IntegratorKind::ChoiKo
            ]
        );
        // They step on from there, each with its own integrator.
        sim.send(Command::Step);
        let on = wait(&sim, |s| s.step == 16);
        assert_ne!(on.x, on.lab[0].x);
        sim.send(Command::Sync(3));
        let s = wait(&sim, |s| s.error.is_some());
        assert_eq!(s.error, Some(SimError::NoCopy { copy: 3 }));
    }

    #[test]
    fn the_reference_copy_starts_from_copy_0_and_stops_when_asked() {
        let sim = three_kang();
        for _ in 0..5 {
            sim.send(Command::Step);
        }
        let apart = wait(&sim, |s| s.step == 5);
        assert_ne!(apart.x, apart.lab[0].x);
        sim.send(Command::SetReference(true));
        let on = wait(&sim, |s| s.reference.is_some());
        assert_eq!(on.error, None);
        for c in 0..3 {
            // Every copy synced to copy 0, where the reference starts: no distance yet.
            assert_eq!(copy(&on, c).x, apart.x, "copy {c}");
            let d = copy(&on, c)
                .reference_distance
                .expect("a distance per copy");
            assert_eq!((d.rms, d.max), (0.0, 0.0), "copy {c}");
        }
        // Stepped apart from it, then synced to copy 1: the reference starts again there.
        for _ in 0..5 {
            sim.send(Command::Step);
        }
        let later = wait(&sim, |s| s.step == 10);
        assert!((0..3).all(|c| copy(&later, c).reference_distance.unwrap().max > 0.0));
        sim.send(Command::Sync(1));
        let synced = wait(&sim, |s| s.x == s.lab[0].x);
        for c in 0..3 {
            let d = copy(&synced, c).reference_distance.unwrap();
            assert_eq!((d.rms, d.max), (0.0, 0.0), "copy {c} after the sync");
        }
        // A reset starts it again from the scene, with the copies.
        for _ in 0..3 {
            sim.send(Command::Step);
        }
        wait(&sim, |s| s.step == 13);
        sim.send(Command::Reset);
        let reset = wait(&sim, |s| s.generation == 1);
        assert!(reset.reference.is_some(), "the reference keeps running");
        for c in 0..3 {
            let d = copy(&reset, c).reference_distance.unwrap();
            assert_eq!((d.rms, d.max), (0.0, 0.0), "copy {c} after the reset");
        }
        sim.send(Command::SetReference(false));
        let off = wait(&sim, |s| s.reference.is_none());
        assert!((0..3).all(|c| copy(&off, c).reference_distance.is_none()));
        // Outside the lab: refused.
        let alone = paused_flag();
        alone.send(Command::SetReference(true));
        let s = wait(&alone, |s| s.error.is_some());
        assert_eq!(s.error, Some(SimError::ReferenceOutsideLab));
        assert!(s.reference.is_none());
    }

    /// The flag without strain limiting at `dt` = 0.008 s: `kang` runs, `symplectic-euler`
    /// (stable below about 0.0047 s here) diverges within a few dozen steps.
    fn kang_and_a_diverging_copy(paused: bool) -> SimThread {
        let mut scene = Scene::load("flag").unwrap();
        scene.params.provot.enabled = false;
        scene.params.dt = 0.008;
        let specs = [
            spec(IntegratorKind::Kang, None),
            spec(IntegratorKind::SymplecticEuler, None),
        ];
        lab(scene, &specs, paused)
    }

    /// Steps the lab until copy 1 diverges; returns the lab's step and that snapshot.
    fn until_copy_1_diverges(sim: &SimThread) -> (u64, Arc<Snapshot>) {
        let mut step = 0;
        loop {
            step += 1;
            assert!(
                step < 2000,
                "symplectic-euler never diverged at dt = 0.008 s"
            );
            sim.send(Command::Step);
            let s = wait(sim, |s| s.step == step);
            if s.lab[0].divergence.is_some() {
                return (step, s);
            }
        }
    }

    fn to_copy_1(cmd: Command) -> Command {
        Command::Copy(1, Box::new(cmd))
    }

    #[test]
    fn a_resumed_copy_goes_on_from_a_kept_state_on_the_labs_clock() {
        let sim = kang_and_a_diverging_copy(true);
        let (step, diverged) = until_copy_1_diverges(&sim);
        let first = diverged.lab[0].divergence.clone().unwrap();
        let stood = diverged.lab[0].step;
        assert_eq!(first.step, stood + 1, "the failed step is not counted");
        // The lab runs on; the diverged copy stands still.
        for _ in 0..20 {
            sim.send(Command::Step);
        }
        let later = wait(&sim, |s| s.step == step + 20);
        assert_eq!(later.lab[0].step, stood);
        assert_eq!(later.lab[0].x, diverged.lab[0].x);
        // Resumed at the same dt: from a state kept before it failed (its last good state,
        // springs stretched almost tenfold, would fail at its next step), 20 lab steps later,
        // its steps counting on; the same dt fails again there, later than before.
        sim.send(to_copy_1(Command::ClearDivergence));
        for _ in 0..20 {
            sim.send(Command::Step);
        }
        let again = wait(&sim, |s| s.step == step + 40);
        let r = again.lab[0].resumed.expect("it resumed");
        assert!(r.from_time < first.time, "{r:?} before {first:?}");
        assert!((r.at_time - later.time).abs() < 1e-9);
        assert_eq!(r.at_step, stood);
        if let Some(d) = &again.lab[0].divergence {
            assert!(d.step > first.step && d.time > later.time, "{d:?}");
        }
        // A quarter of its dt lets it run on from a kept state, in time with the lab.
        let at = again.lab[0].step;
        sim.send(to_copy_1(Command::SetCopyDt(0.002)));
        sim.send(to_copy_1(Command::ClearDivergence));
        for _ in 0..5 {
            sim.send(Command::Step);
        }
        let on = wait(&sim, |s| s.step == step + 45);
        let copy1 = &on.lab[0];
        assert_eq!(copy1.params.dt, 0.002);
        assert_eq!(on.params.dt, 0.008, "copy 0 keeps its dt");
        assert!(copy1.divergence.is_none(), "{:?}", copy1.divergence);
        assert_eq!(copy1.step, at + 20, "four steps of 0.002 s per lab step");
        assert!((copy1.time - on.time).abs() < 1e-9, "in time with the lab");
        assert_ne!(copy1.x, diverged.lab[0].x, "it moved");
    }

    #[test]
    fn a_diverged_copy_can_start_again_from_another_copys_state() {
        let sim = kang_and_a_diverging_copy(true);
        let (step, _) = until_copy_1_diverges(&sim);
        sim.send(to_copy_1(Command::TakeState(0)));
        let s = wait(&sim, |s| s.lab[0].divergence.is_none());
        assert_eq!(s.lab[0].x, s.x);
        assert_eq!(s.lab[0].v, s.v);
        assert_eq!(s.lab[0].step, step);
        assert_eq!(s.lab[0].params.integrator, IntegratorKind::SymplecticEuler);
        sim.send(Command::Step);
        let on = wait(&sim, |s| s.step == step + 1);
        assert_eq!(on.lab[0].step, step + 1, "it steps on with the lab");
        assert_ne!(on.lab[0].x, on.x, "each with its own integrator");
        // Refused: a copy that does not exist, a dt out of range, a copy dt outside the lab.
        sim.send(to_copy_1(Command::TakeState(2)));
        let s = wait(&sim, |s| s.error.is_some());
        assert_eq!(s.error, Some(SimError::NoCopy { copy: 2 }));
        // The error is reported in the snapshot of its own batch of commands, so wait for it
        // rather than for a later step (which may come in the next batch and clear it).
        sim.send(to_copy_1(Command::SetCopyDt(-1.0)));
        let s = wait(&sim, |s| {
            s.error.is_some() && s.error != Some(SimError::NoCopy { copy: 2 })
        });
        assert_eq!(s.lab[0].params.dt, 0.008, "a negative dt was taken");
        sim.send(Command::Step);
        let s = wait(&sim, |s| s.step == step + 2);
        assert_eq!(s.lab[0].params.dt, 0.008);
        let alone = paused_flag();
        alone.send(Command::SetCopyDt(0.004));
        let s = wait(&alone, |s| s.error.is_some());
        assert!(matches!(s.error, Some(SimError::NotInLab { .. })));
        assert_ne!(s.params.dt, 0.004);
    }

    #[test]
    fn a_lab_with_every_copy_diverged_stops_publishing() {
        let mut scene = Scene::load("flag").unwrap();
        scene.params.provot.enabled = false;
        scene.params.dt = 0.008;
        let specs = [
            spec(IntegratorKind::SymplecticEuler, None),
            spec(IntegratorKind::SymplecticEuler, Some(0.009)),
        ];
        let sim = lab(scene, &specs, false);
        let s = wait(&sim, |s| {
            s.divergence.is_some() && s.lab[0].divergence.is_some()
        });
        std::thread::sleep(Duration::from_millis(300));
        let after = sim.latest();
        assert_eq!(after.seq, s.seq, "published with nothing to step");
        assert_eq!(after.step, s.step);
    }
}

/// The thread's GPU mode, on a headless GPU lent as the viewer lends its own: asked for, the
/// cloth steps there (snapshots read back asynchronously), a grab moves it, and asked back,
/// the CPU goes on from the GPU's state. Without a GPU the choice is refused with the reason
/// and the cloth stays on the CPU.
mod on_the_gpu {
    use super::*;
    use flagsim::gpu_sim::GpuProvider;
    use flagsim::render::GpuContext;
    use flagsim::sim::DeviceChoice;

    fn gpu() -> Option<GpuContext> {
        match GpuContext::new_headless() {
            Ok(ctx) => Some(ctx),
            Err(e) => {
                assert!(
                    !std::env::var("CI").is_ok_and(|v| v == "true"),
                    "CI=true but no GPU adapter: {e}"
                );
                eprintln!("SKIPPED: no GPU adapter. {e}");
                None
            }
        }
    }

    #[test]
    fn the_thread_steps_on_the_gpu_when_asked_and_takes_the_state_back() {
        let Some(ctx) = gpu() else { return };
        let mut scene = Scene::load("flag").unwrap();
        scene.params.integrator = IntegratorKind::KangMg;
        let sim = SimThread::spawn(scene, false).unwrap();
        let slot = sim.slot();
        let provider = GpuProvider::new(
            ctx.device.clone(),
            ctx.queue.clone(),
            ctx.adapter.get_info(),
        );
        let nodes = provider.nodes();
        sim.send(Command::ProvideGpu(Arc::new(provider)));
        sim.send(Command::SetDevice(DeviceChoice::Gpu));
        let s = wait_for(&slot, WAIT, |s| s.device.on_gpu).expect("on the GPU");
        let on_gpu_at = std::time::Instant::now();
        assert_eq!(s.device.choice, DeviceChoice::Gpu);
        let name = ctx.adapter.get_info().name;
        assert_eq!(s.device.adapter.as_deref(), Some(name.as_str()));
        // The renderer's buffer: the cloth's nodes as `vec4<f32>`.
        let (buffer, count) = nodes.get(0).expect("the shared node buffer");
        assert_eq!(count as usize, s.x.len());
        assert!(buffer.size() >= u64::from(count) * 16);
        // Snapshots arrive without being asked for, and the cloth moves in them.
        let first_x = s.x.clone();
        let s = wait_for(&slot, WAIT, |s| {
            s.device.read_backs.snapshots >= 3 && s.step > 20
        })
        .expect("snapshots");
        assert_eq!(s.device.read_backs.waited, 0, "{:?}", s.device.read_backs);
        // At most 30 snapshots a second while it steps 60 times a second (one every step
        // would be 60), over at least a second and a half.
        std::thread::sleep(Duration::from_millis(1500));
        let s = sim.latest();
        let seconds = on_gpu_at.elapsed().as_secs_f64();
        let snapshots = s.device.read_backs.snapshots as f64;
        assert!(s.step > 60, "{} steps", s.step);
        assert!(
            snapshots <= 30.0 * seconds + 2.0,
            "{snapshots} in {seconds} s"
        );
        assert!(snapshots >= 5.0, "{snapshots} in {seconds} s");
        let moved = (s.x.iter().zip(&first_x))
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f64::max);
        assert!(moved > 1e-3, "moved {moved} m");
        assert!(s.x.iter().all(|x| x.is_finite()));
        // A grab: built again after one waited read-back; the node goes to the target.
        let node = s.x.len() - 1;
        let target = s.x[node] + DVec3::new(0.0, -0.3, 0.3);
        sim.send(Command::Grab { node, target });
        let s = wait_for(&slot, WAIT, |s| {
            s.grabbed == Some(node) && (s.x[node] - target).length() < 0.02
        })
        .expect("the grabbed node reaches the target");
        assert!(s.device.on_gpu);
        assert!(s.device.read_backs.waited >= 1);
        sim.send(Command::Release);
        // Back to the CPU: the state goes along (a waited read-back), nothing shared any more.
        sim.send(Command::SetDevice(DeviceChoice::Cpu));
        let s = wait_for(&slot, WAIT, |s| {
            !s.device.on_gpu && s.device.choice == DeviceChoice::Cpu
        })
        .expect("back on the CPU");
        assert!(nodes.get(0).is_none(), "the node buffer is still shared");
        let step = s.step;
        let s = wait_for(&slot, WAIT, |s| s.step > step + 10).expect("the CPU steps on");
        assert!(s.x.iter().all(|x| x.is_finite()));
        assert!(s.error.is_none(), "{:?}", s.error);
    }

    #[test]
    fn the_gpu_without_a_gpu_is_refused_with_the_reason_and_the_cpu_goes_on() {
        let sim = SimThread::spawn(Scene::load("flag").unwrap(), false).unwrap();
        let slot = sim.slot();
        sim.send(Command::SetDevice(DeviceChoice::Gpu));
        let s = wait_for(&slot, WAIT, |s| s.error.is_some()).expect("an error");
        assert!(matches!(s.error, Some(SimError::NoGpu)), "{:?}", s.error);
        let s = wait_for(&slot, WAIT, |s| {
            s.device.choice == DeviceChoice::Cpu && s.step > 5
        })
        .expect("the CPU goes on");
        assert!(!s.device.on_gpu);
        // `auto` without a GPU is the CPU, without a word.
        sim.send(Command::SetDevice(DeviceChoice::Auto));
        let step = sim.latest().step;
        let s = wait_for(&slot, WAIT, |s| {
            s.step > step + 5 && s.device.choice == DeviceChoice::Auto
        })
        .expect("auto steps");
        assert!(!s.device.on_gpu && s.error.is_none(), "{:?}", s.error);
    }

    #[test]
    fn the_gpu_switch_in_the_lab_is_refused() {
        let Some(ctx) = gpu() else { return };
        let provider = GpuProvider::new(ctx.device, ctx.queue, ctx.adapter.get_info());
        let copies = flagsim::sim::lab::copies::CopySpec::parse_list("kang-mg,kang").unwrap();
        let sim = SimThread::spawn_lab(Scene::load("flag").unwrap(), &copies, false).unwrap();
        let slot = sim.slot();
        sim.send(Command::ProvideGpu(Arc::new(provider)));
        sim.send(Command::SetDevice(DeviceChoice::Gpu));
        let s = wait_for(&slot, WAIT, |s| s.error.is_some()).expect("an error");
        assert!(matches!(s.error, Some(SimError::GpuInLab)), "{:?}", s.error);
        assert!(!s.device.on_gpu);
    }

    /// A scene of several flags on the GPU (the `flags` preset: four flags, one at half-mast,
    /// a swallowtail, a pennant of another size): each steps there with a stepper of its own
    /// and shares its own node buffer under its index; they fly; asked back, all come back to
    /// the CPU and nothing stays shared.
    #[test]
    fn several_flags_step_on_the_gpu_each_with_its_own_buffer() {
        let Some(ctx) = gpu() else { return };
        let mut scene = Scene::load("flags").unwrap();
        scene.params.integrator = IntegratorKind::KangMg;
        let sim = SimThread::spawn(scene, false).unwrap();
        let slot = sim.slot();
        let provider = GpuProvider::new(ctx.device, ctx.queue, ctx.adapter.get_info());
        let nodes = provider.nodes();
        sim.send(Command::ProvideGpu(Arc::new(provider)));
        sim.send(Command::SetDevice(DeviceChoice::Gpu));
        let s = wait_for(&slot, WAIT, |s| {
            s.all_flags()
                .all(|f| f.device.on_gpu && f.device.read_backs.snapshots >= 3)
        })
        .expect("every flag on the GPU");
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(s.flag_count(), 4);
        let first: Vec<Vec<DVec3>> = s.all_flags().map(|f| f.x.clone()).collect();
        let buffers: Vec<_> = (0..4)
            .map(|k| nodes.get(k).unwrap_or_else(|| panic!("flag {k}'s buffer")))
            .collect();
        for (k, ((buffer, count), flag)) in buffers.iter().zip(s.all_flags()).enumerate() {
            assert_eq!(*count as usize, flag.x.len(), "flag {k}");
            assert!(buffer.size() >= u64::from(*count) * 16, "flag {k}");
            for (other, (b, _)) in buffers.iter().enumerate().skip(k + 1) {
                assert!(buffer != b, "flags {k} and {other} share a buffer");
            }
        }
        assert!(nodes.get(4).is_none());
        // They fly on the GPU: every flag moves, and stays whole.
        let step = s.step;
        let s = wait_for(&slot, WAIT, |s| {
            s.step > step + 30 && s.all_flags().all(|f| f.device.read_backs.snapshots >= 6)
        })
        .expect("the flags step on");
        for (k, (flag, x0)) in s.all_flags().zip(&first).enumerate() {
            assert!(flag.device.on_gpu, "flag {k}");
            assert_eq!(flag.device.read_backs.waited, 0, "flag {k}");
            let moved = (flag.x.iter().zip(x0))
                .map(|(a, b)| (*a - *b).length())
                .fold(0.0, f64::max);
            assert!(moved > 1e-3, "flag {k} moved {moved} m");
            assert!(flag.x.iter().all(|x| x.is_finite()), "flag {k}");
            assert!(
                flag.stats.max_strain < 1.2,
                "flag {k}: {}",
                flag.stats.max_strain
            );
        }
        // Back to the CPU, every flag, its state along.
        sim.send(Command::SetDevice(DeviceChoice::Cpu));
        let s = wait_for(&slot, WAIT, |s| s.all_flags().all(|f| !f.device.on_gpu))
            .expect("back on the CPU");
        assert!(
            (0..4).all(|k| nodes.get(k).is_none()),
            "a buffer is still shared"
        );
        assert!(s.error.is_none(), "{:?}", s.error);
    }

    /// The lab with a `:gpu` copy, the thread started awaiting the GPU as the viewer starts
    /// it: copy 1 steps on the CPU until the GPU is lent, then on it, in lock-step with copy
    /// 0, the two cloths alike.
    #[test]
    fn a_lab_copy_steps_on_the_gpu_once_one_is_lent() {
        let Some(ctx) = gpu() else { return };
        let copies =
            flagsim::sim::lab::copies::CopySpec::parse_list("kang-mg,kang-mg:gpu").unwrap();
        let scene = Scene::load("flag").unwrap();
        let sim = SimThread::spawn_lab_awaiting_gpu(scene, &copies, false).unwrap();
        let slot = sim.slot();
        let s = wait_for(&slot, WAIT, |s| s.step > 5).expect("steps before the GPU");
        assert!(
            !s.lab[0].device.on_gpu && s.error.is_none(),
            "{:?}",
            s.error
        );
        let provider = GpuProvider::new(ctx.device, ctx.queue, ctx.adapter.get_info());
        sim.send(Command::ProvideGpu(Arc::new(provider)));
        let s = wait_for(&slot, WAIT, |s| {
            s.lab[0].device.on_gpu && s.lab[0].device.read_backs.snapshots >= 3
        })
        .expect("copy 1 on the GPU");
        assert!(!s.device.on_gpu, "copy 0 is the CPU's");
        assert_eq!(s.lab[0].device.choice, DeviceChoice::Gpu);
        // The same time; the same cloth up to the snapshot's lag (≤ 33 ms of motion), the
        // solve's tolerance and f32.
        sim.send(Command::Pause(true));
        let s = wait_for(&slot, WAIT, |s| s.paused).expect("paused");
        std::thread::sleep(Duration::from_millis(200));
        sim.send(Command::SetCompare(false)); // a command that keeps the GPU: one more publish
        let s = wait_for(&slot, WAIT, |n| n.seq > s.seq).expect("published");
        let gpu = &s.lab[0];
        assert_eq!(gpu.time, s.time);
        let apart = (gpu.x.iter().zip(&s.x))
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f64::max);
        assert!(apart < 0.01, "{apart} m apart");
    }

    /// A scene the GPU step does not take is refused with its reason (here: not a grid), and
    /// `auto` uses this adapter for a 128² `kang-mg` cloth only if it is a hardware GPU.
    #[test]
    fn the_gpu_refuses_what_it_cannot_step_and_auto_skips_a_cpu_adapter() {
        let Some(ctx) = gpu() else { return };
        let info = ctx.adapter.get_info();
        let provider: Arc<dyn flagsim::sim::runtime::device::DeviceProvider> =
            Arc::new(GpuProvider::new(ctx.device, ctx.queue, info.clone()));
        let sim = SimThread::spawn(Scene::load("two-masses").unwrap(), false).unwrap();
        let slot = sim.slot();
        sim.send(Command::ProvideGpu(provider.clone()));
        sim.send(Command::SetDevice(DeviceChoice::Gpu));
        let s = wait_for(&slot, WAIT, |s| s.error.is_some()).expect("an error");
        match &s.error {
            Some(SimError::Gpu { reason }) => assert!(reason.contains("grid"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.device.choice, DeviceChoice::Cpu);
        assert!(!s.device.on_gpu);

        let mut scene = Scene::load("flag").unwrap();
        scene.params.integrator = IntegratorKind::KangMg;
        let grid = scene.cloth.grid.as_mut().unwrap();
        (grid.nx, grid.ny) = (128, 128);
        let sim = SimThread::spawn(scene, false).unwrap();
        let slot = sim.slot();
        sim.send(Command::ProvideGpu(provider));
        sim.send(Command::SetDevice(DeviceChoice::Auto));
        let s = wait_for(&slot, WAIT, |s| {
            s.step > 3 && s.device.choice == DeviceChoice::Auto
        })
        .expect("auto steps");
        let hardware = info.device_type != wgpu::DeviceType::Cpu;
        assert_eq!(s.device.on_gpu, hardware, "{info:?}");
        assert!(s.error.is_none(), "{:?}", s.error);
    }
}

/// The page's way to run the worker: a turn each frame, on the caller's clock.
mod in_frames {
    use std::time::Instant;

    use super::*;
    use flagsim::sim_thread::Runner;

    fn flag(paused: bool) -> SimThread {
        let sim = SimThread::spawn_on(Scene::load("flag").unwrap(), &[], paused, Runner::InFrames)
            .unwrap();
        assert_eq!(sim.runner(), Runner::InFrames);
        sim
    }

    #[test]
    fn a_pump_takes_the_steps_its_wall_time_owes_and_nothing_moves_between_pumps() {
        let mut sim = flag(false);
        let dt = sim.latest().params.dt;
        assert_eq!(dt, 1.0 / 60.0, "the flag preset's step");
        let t0 = Instant::now();
        // The first turn has no last one to count from.
        sim.pump_at(t0);
        assert_eq!(sim.latest().step, 0);
        // 0.105 s at 60 steps a second: ⌊6.3⌋ = 6 steps, 0.3 of a step owed.
        sim.pump_at(t0 + Duration::from_secs_f64(0.105));
        let s = sim.latest();
        assert_eq!(s.step, 6);
        assert!(!s.behind);
        assert!((s.time - 6.0 * dt).abs() < 1e-12);
        // Nothing runs between pumps.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(sim.latest().step, 6);
        // 0.2 s more: (0.3 + 12) of a step owed, ⌊12.3⌋ = 12 due, the cap takes 8 and drops
        // the rest, as the thread's stepper does.
        let cap = FixedStepper::default().max_steps_per_update;
        assert_eq!(cap, 8);
        sim.pump_at(t0 + Duration::from_secs_f64(0.305));
        let s = sim.latest();
        assert_eq!(s.step, 6 + 8);
        assert!(s.behind);
    }

    #[test]
    fn commands_wait_for_the_next_pump_and_leave_the_cloth_the_thread_leaves() {
        let mut frames = flag(true);
        let thread = paused_flag();
        for sim in [&frames, &thread] {
            sim.send(Command::SetTotalMass(0.5));
            sim.send(Command::Grab {
                node: 99,
                target: DVec3::new(1.5, 2.0, 0.3),
            });
            for _ in 0..3 {
                sim.send(Command::Step);
            }
        }
        assert_eq!(frames.latest().step, 0, "applied before the pump");
        frames.pump_at(Instant::now());
        let a = frames.latest();
        let b = wait_for(&thread.slot(), WAIT, |s| s.step == 3).expect("the thread stepped");
        assert_eq!(a.step, 3);
        assert!((a.total_mass - 0.5).abs() < 1e-12);
        assert_eq!(a.grabbed, Some(99));
        assert!(a.paused);
        assert_eq!(a.x, b.x, "the same steps, the same cloth");
        assert_eq!(a.v, b.v);
    }

    #[test]
    fn a_failed_command_is_told_until_the_next_batch() {
        let mut sim = flag(true);
        sim.send(Command::SetTotalMass(-1.0));
        sim.pump_at(Instant::now());
        assert!(sim.latest().error.is_some(), "a negative mass was taken");
        sim.pump_at(Instant::now());
        assert!(
            sim.latest().error.is_some(),
            "the message went with no new command"
        );
        sim.send(Command::Step);
        sim.pump_at(Instant::now());
        assert!(sim.latest().error.is_none());
    }

    #[test]
    fn a_pump_on_the_wall_clock_takes_the_commands_sent() {
        let mut sim = flag(true);
        sim.send(Command::Step);
        assert_eq!(sim.latest().step, 0);
        sim.pump();
        assert_eq!(sim.latest().step, 1, "the page's pump took no turn");
    }

    #[test]
    fn after_a_shutdown_commands_report_the_worker_gone() {
        let mut sim = flag(true);
        let slot = sim.slot();
        assert!(sim.send(Command::Shutdown));
        sim.pump_at(Instant::now());
        assert!(
            !sim.send(Command::Step),
            "a command to a stopped worker arrived"
        );
        assert_eq!(
            Arc::strong_count(&slot),
            2,
            "the worker still holds the slot"
        );
        sim.pump_at(Instant::now());
        let mut other = flag(true);
        other.shutdown();
        assert!(!other.send(Command::Step));
    }
}
