//! The 3-D view's input routing, picking and camera math, without a window or a GPU.

use flagsim::app::controls::{Button, Controls, Input, ViewKey};
use flagsim::render::OrbitCamera;
use flagsim::render::drawing::view::{ViewSettings, framing_camera};
use flagsim::sim::Scene;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::sim_thread::Command;
use glam::{Vec2, Vec3};

const SIZE: Vec2 = Vec2::new(1280.0, 800.0);

/// A flat flag facing +Z (no wind, no gravity, so it stays flat), seen from straight ahead.
fn facing_flag() -> (Snapshot, Controls) {
    let mut scene = Scene::load("flag").unwrap();
    scene.params.gravity = [0.0; 3];
    scene.params.wind.velocity = [0.0; 3];
    let sim = scene.simulation().unwrap();
    let snap = Snapshot::of(&sim);
    let centre = Vec3::new(0.6, 2.0, 0.0); // the middle of the 1.2 m × 0.8 m flag
    let camera = OrbitCamera {
        target: centre,
        yaw: 0.0,
        pitch: 0.0,
        distance: 3.0,
        ..OrbitCamera::default()
    };
    (snap, Controls::new(camera, SIZE))
}

#[test]
fn a_ray_through_the_centre_of_the_view_hits_the_centre_of_a_facing_flag() {
    let (snap, controls) = facing_flag();
    let (origin, dir) = controls
        .camera
        .ray_through_pixel(640.0, 400.0, SIZE.x, SIZE.y);
    // The ray runs along the view direction to the target.
    assert!((dir - controls.camera.forward()).length() < 1e-5);
    let (_, node, point) = controls
        .pick(SIZE / 2.0, &snap, &ViewSettings::default())
        .expect("the flag is under the centre of the view");
    assert!(
        (point - Vec3::new(0.6, 2.0, 0.0)).length() < 1e-3,
        "hit at {point}"
    );
    assert!((origin + dir * (point - origin).length() - point).length() < 1e-3);
    // The nearest key node to the flag's centre: i = 4 or 5 (of 0..9), j = 4 or 5.
    let (i, j) = (node % 10, node / 10);
    assert!(
        (4..=5).contains(&i) && (4..=5).contains(&j),
        "picked node ({i}, {j})"
    );
}

#[test]
fn a_ray_beside_the_flag_picks_nothing() {
    let (snap, controls) = facing_flag();
    assert!(
        controls
            .pick(Vec2::new(20.0, 20.0), &snap, &ViewSettings::default())
            .is_none()
    );
}

#[test]
fn egui_consumed_events_never_reach_the_camera() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let before = controls.camera;
    let events = [
        Input::CursorMoved(Vec2::new(100.0, 100.0)),
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        Input::CursorMoved(Vec2::new(300.0, 200.0)),
        Input::Wheel(3.0),
        Input::Button {
            button: Button::Right,
            pressed: true,
        },
        Input::CursorMoved(Vec2::new(500.0, 400.0)),
        Input::Button {
            button: Button::Right,
            pressed: false,
        },
        Input::Button {
            button: Button::Left,
            pressed: false,
        },
    ];
    for e in events {
        let cmds = controls.handle(e, true, &snap, &view);
        assert!(cmds.is_empty(), "{e:?} sent {cmds:?}");
    }
    assert_eq!(controls.camera.eye(), before.eye());
    assert_eq!(controls.camera.target, before.target);
    assert!(!controls.dragging());
    // The same events, not consumed, do move it.
    for e in events {
        controls.handle(e, false, &snap, &view);
    }
    assert_ne!(controls.camera.eye(), before.eye());
}

#[test]
fn a_drag_on_the_cloth_grabs_moves_and_releases_the_node_under_the_cursor() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    controls.handle(Input::CursorMoved(SIZE / 2.0), false, &snap, &view);
    let grab = controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    let Some(Command::Grab { node, target }) = grab.first() else {
        panic!("no grab: {grab:?}");
    };
    assert_eq!(
        *target, snap.x[*node],
        "the node must not jump when grabbed"
    );
    assert_eq!(controls.grabbed(), Some(*node));
    let camera_before = controls.camera.eye();
    // 100 px to the right moves the target right, in the view plane (z stays 0).
    let moved = controls.handle(
        Input::CursorMoved(SIZE / 2.0 + Vec2::new(100.0, 0.0)),
        false,
        &snap,
        &view,
    );
    let Some(Command::MoveGrab(t)) = moved.first() else {
        panic!("no move: {moved:?}");
    };
    assert!(
        t.x > target.x + 0.05 && (t.z - target.z).abs() < 1e-4 && (t.y - target.y).abs() < 1e-3
    );
    assert_eq!(
        controls.camera.eye(),
        camera_before,
        "grabbing must not orbit"
    );
    // Releasing over a panel (consumed) still ends the drag.
    let released = controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: false,
        },
        true,
        &snap,
        &view,
    );
    assert!(matches!(released.first(), Some(Command::Release)));
    assert!(!controls.dragging());
}

#[test]
fn a_drag_beside_the_cloth_orbits_and_home_resets_the_view() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let home = controls.camera.eye();
    controls.handle(
        Input::CursorMoved(Vec2::new(30.0, 30.0)),
        false,
        &snap,
        &view,
    );
    let cmds = controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    assert!(cmds.is_empty());
    controls.handle(
        Input::CursorMoved(Vec2::new(130.0, 30.0)),
        false,
        &snap,
        &view,
    );
    controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: false,
        },
        false,
        &snap,
        &view,
    );
    let orbited = controls.camera.eye();
    assert!((orbited - home).length() > 0.1);
    // Orbiting keeps the distance to the target.
    assert!(((orbited - controls.camera.target).length() - 3.0).abs() < 1e-4);
    controls.handle(Input::Key(ViewKey::Home), false, &snap, &view);
    assert!((controls.camera.eye() - home).length() < 1e-6);
}

#[test]
fn shift_drag_moves_the_pole() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    controls.handle(Input::Shift(true), false, &snap, &view);
    controls.handle(
        Input::CursorMoved(Vec2::new(600.0, 300.0)),
        false,
        &snap,
        &view,
    );
    controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    let cmds = controls.handle(
        Input::CursorMoved(Vec2::new(600.0, 200.0)),
        false,
        &snap,
        &view,
    );
    let Some(Command::SetPoleOffset(offset)) = cmds.first() else {
        panic!("no pole move: {cmds:?}");
    };
    assert!(offset.y > 0.05, "dragging up must lift the pole: {offset}");
}

#[test]
fn the_framing_camera_sees_every_preset_in_front_of_it() {
    for (name, _) in flagsim::sim::format::scene::PRESETS {
        let sim = Scene::load(name).unwrap().simulation().unwrap();
        let snap = Snapshot::of(&sim);
        let cam = framing_camera(&[&snap]);
        for x in &snap.x {
            let p = cam
                .project_to_pixel(x.as_vec3(), SIZE.x, SIZE.y)
                .unwrap_or_else(|| panic!("{name}: a node is behind the camera"));
            assert!(
                (0.0..=SIZE.x).contains(&p.0) && (0.0..=SIZE.y).contains(&p.1),
                "{name}: node at pixel {p:?} is off screen"
            );
        }
    }
}

// ---- The snapshot feed: latest wins, and the key positions drawn between two snapshots ----

mod feed {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use flagsim::app::feed::SnapshotFeed;
    use flagsim::sim::Scene;
    use flagsim::sim::runtime::snapshot::Snapshot;
    use flagsim::sim_thread::SnapshotSlot;
    use glam::DVec3;

    /// A snapshot of the flag with every key node at `x`, published at `at`.
    fn snap(seq: u64, generation: u64, x: f64, at: Instant) -> Arc<Snapshot> {
        let sim = Scene::load("flag").unwrap().simulation().unwrap();
        let mut s = Snapshot::of(&sim);
        s.seq = seq;
        s.generation = generation;
        s.x.fill(DVec3::splat(x));
        s.params.dt = 0.02;
        s.time_scale = 1.0;
        s.paused = false;
        s.published_at = at;
        Arc::new(s)
    }

    fn drawn(feed: &SnapshotFeed, now: Instant) -> f64 {
        let s = feed.display(now);
        assert!(
            s.x.iter().all(|x| *x == s.x[0]),
            "nodes interpolated differently"
        );
        s.x[0].x
    }

    #[test]
    fn the_feed_takes_only_a_new_snapshot() {
        let t = Instant::now();
        let mut feed = SnapshotFeed::new(snap(0, 0, 0.0, t));
        assert!(
            !feed.update(snap(0, 0, 5.0, t)),
            "took the same sequence number again"
        );
        assert_eq!(feed.current().x[0].x, 0.0);
        assert!(feed.update(snap(1, 0, 1.0, t)));
        assert_eq!(feed.current().seq, 1);
    }

    #[test]
    fn key_positions_are_interpolated_by_the_wall_time_since_publication() {
        let t = Instant::now();
        let mut feed = SnapshotFeed::new(snap(0, 0, 0.0, t));
        feed.update(snap(1, 0, 1.0, t));
        // interval = dt / time_scale = 20 ms: α = elapsed / 20 ms, clamped to 0..=1.
        let at = |ms: u64| drawn(&feed, t + Duration::from_millis(ms));
        assert_eq!(at(0), 0.0);
        assert!((at(5) - 0.25).abs() < 1e-9, "{}", at(5));
        assert!((at(15) - 0.75).abs() < 1e-9, "{}", at(15));
        assert_eq!(at(40), 1.0);
        // Half speed: the interval between published steps is twice as long.
        let mut slow = (**feed.current()).clone();
        slow.time_scale = 0.5;
        slow.seq = 2;
        slow.x.fill(DVec3::splat(2.0));
        feed.update(Arc::new(slow));
        let at = |ms: u64| drawn(&feed, t + Duration::from_millis(ms));
        assert!((at(10) - 1.25).abs() < 1e-9, "{}", at(10));
    }

    #[test]
    fn no_interpolation_across_a_reset_or_while_paused() {
        let t = Instant::now();
        let later = t + Duration::from_millis(5);
        let mut feed = SnapshotFeed::new(snap(0, 0, 0.0, t));
        feed.update(snap(1, 1, 1.0, t)); // a new generation: a reset or another scene
        assert_eq!(drawn(&feed, later), 1.0);
        feed.update(snap(2, 1, 2.0, t)); // the same generation again: interpolated
        assert!((drawn(&feed, later) - 1.25).abs() < 1e-9);
        let mut paused = (*snap(3, 1, 3.0, t)).clone();
        paused.paused = true;
        feed.update(Arc::new(paused));
        assert_eq!(drawn(&feed, later), 3.0);
    }

    #[test]
    fn the_feed_follows_a_slot_through_its_sequence_numbers() {
        let t = Instant::now();
        let slot = SnapshotSlot::new((*snap(0, 0, 0.0, t)).clone());
        let mut feed = SnapshotFeed::new(slot.latest());
        for k in 1..=3 {
            slot.publish((*snap(0, 0, k as f64, t)).clone()); // the slot numbers it
            assert!(feed.update(slot.latest()), "publish {k} not seen");
            assert_eq!(feed.current().x[0].x, k as f64);
        }
    }
}

// ---- The camera by mouse and keys, picking beyond grids, the key table ----

fn press(controls: &mut Controls, snap: &Snapshot, button: Button, at: Vec2) -> Vec<Command> {
    let view = ViewSettings::default();
    controls.handle(Input::CursorMoved(at), false, snap, &view);
    controls.handle(
        Input::Button {
            button,
            pressed: true,
        },
        false,
        snap,
        &view,
    )
}

fn pixel(controls: &Controls, p: Vec3) -> Vec2 {
    let (x, y) = controls.camera.project_to_pixel(p, SIZE.x, SIZE.y).unwrap();
    Vec2::new(x, y)
}

#[test]
fn a_pan_drag_keeps_the_point_under_the_cursor() {
    for button in [Button::Right, Button::Middle] {
        let (snap, mut controls) = facing_flag();
        let view = ViewSettings::default();
        let centre = controls.camera.target; // on screen at the centre of the view
        let start = SIZE / 2.0;
        press(&mut controls, &snap, button, start);
        let end = start + Vec2::new(100.0, 50.0);
        let cmds = controls.handle(Input::CursorMoved(end), false, &snap, &view);
        assert!(cmds.is_empty(), "a pan sends nothing to the simulation");
        // What was under the cursor (at the target's depth) moved with it.
        let now = pixel(&controls, centre);
        assert!(
            (now - end).length() < 0.5,
            "{button:?}: the point is at {now}, cursor at {end}"
        );
    }
}

#[test]
fn the_wheel_and_the_zoom_keys_zoom_and_home_restores_the_view() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let home = controls.camera;
    let d0 = home.distance;
    controls.handle(Input::Wheel(1.0), false, &snap, &view);
    let d1 = controls.camera.distance;
    assert!(d1 < d0, "wheel away from the user zooms in: {d0} → {d1}");
    controls.handle(Input::Wheel(-1.0), false, &snap, &view);
    assert!(
        (controls.camera.distance - d0).abs() < 1e-5 * d0,
        "one line in, one out"
    );
    controls.handle(Input::Key(ViewKey::ZoomIn), false, &snap, &view);
    assert!(controls.camera.distance < d0);
    controls.handle(Input::Key(ViewKey::ZoomOut), false, &snap, &view);
    controls.handle(Input::Key(ViewKey::ZoomOut), false, &snap, &view);
    assert!(controls.camera.distance > d0);
    // Arrow keys orbit: left/right change the yaw, up/down the pitch, in opposite senses.
    controls.handle(Input::Key(ViewKey::Left), false, &snap, &view);
    let yaw_left = controls.camera.yaw;
    controls.handle(Input::Key(ViewKey::Right), false, &snap, &view);
    controls.handle(Input::Key(ViewKey::Right), false, &snap, &view);
    let yaw_right = controls.camera.yaw;
    assert!(yaw_left != home.yaw && yaw_right != home.yaw && yaw_left != yaw_right);
    controls.handle(Input::Key(ViewKey::Up), false, &snap, &view);
    let pitch_up = controls.camera.pitch;
    assert!(pitch_up > home.pitch, "up raises the camera");
    controls.handle(Input::Key(ViewKey::Down), false, &snap, &view);
    controls.handle(Input::Key(ViewKey::Down), false, &snap, &view);
    assert!(controls.camera.pitch < home.pitch);
    // A pan moved the target; Home puts everything back.
    press(&mut controls, &snap, Button::Right, SIZE / 2.0);
    controls.handle(Input::CursorMoved(SIZE / 3.0), false, &snap, &view);
    assert_ne!(controls.camera.target, home.target);
    controls.handle(Input::Key(ViewKey::Home), false, &snap, &view);
    assert_eq!(controls.camera, home);
}

#[test]
fn dragging_a_pinned_node_moves_the_pole_instead_of_grabbing_it() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    // Just inside the hoist edge, at mid-height: the key node nearest is a pinned one (i = 0).
    let at = pixel(&controls, Vec3::new(0.02, 2.0, 0.0));
    let (_, node, _) = controls.pick(at, &snap, &view).expect("on the flag");
    assert!(snap.pinned[node], "picked free node {node}");
    let cmds = press(&mut controls, &snap, Button::Left, at);
    assert!(cmds.is_empty(), "a pinned node was grabbed: {cmds:?}");
    assert_eq!(controls.grabbed(), None);
    let cmds = controls.handle(
        Input::CursorMoved(at - Vec2::new(0.0, 80.0)),
        false,
        &snap,
        &view,
    );
    let Some(Command::SetPoleOffset(offset)) = cmds.first() else {
        panic!("no pole move: {cmds:?}");
    };
    assert!(offset.y > 0.05, "dragging up must lift the pole: {offset}");
}

#[test]
fn picking_works_on_a_cloth_without_a_grid() {
    // The two-masses preset: two free nodes, no grid, no triangles: picked by the node nearest
    // to the ray.
    let sim = Scene::load("two-masses").unwrap().simulation().unwrap();
    let snap = Snapshot::of(&sim);
    assert!(snap.grid.is_none());
    let camera = framing_camera(&[&snap]);
    let controls = Controls::new(camera, SIZE);
    let view = ViewSettings::default();
    for node in 0..snap.x.len() {
        let at = pixel(&controls, snap.x[node].as_vec3());
        let (_, picked, point) = controls
            .pick(at, &snap, &view)
            .expect("a node under the cursor");
        assert_eq!(picked, node);
        assert!((point - snap.x[node].as_vec3()).length() < 1e-4);
    }
    assert!(controls.pick(Vec2::new(5.0, 5.0), &snap, &view).is_none());
}

mod keys {
    use flagsim::app::controls::ViewKey;
    use flagsim::app::keys::{BINDINGS, KeyAction, action_for, help_text};
    use flagsim::sim::IntegratorKind;
    use winit::keyboard::{Key, NamedKey};

    fn ch(c: &str) -> Key {
        Key::Character(c.into())
    }

    #[test]
    fn every_documented_key_does_what_the_help_says() {
        use KeyAction::*;
        use flagsim::app::keys::HoistTo;
        // The heights the hoist keys ask for: the top, half the way, the bottom.
        assert_eq!(HoistTo::Top.height(), 1.0);
        assert_eq!(HoistTo::HalfMast.height(), 0.5);
        assert_eq!(HoistTo::Bottom.height(), 0.0);
        let cases = [
            (Key::Named(NamedKey::Space), Some(TogglePause)),
            (ch("."), Some(Step)),
            (ch("r"), Some(Reset)),
            (ch("R"), Some(Reset)),
            (ch("w"), Some(ToggleWireframe)),
            (ch("v"), Some(ToggleDvOverlay)),
            (ch("h"), Some(ToggleHelp)),
            (ch("?"), Some(ToggleHelp)),
            (Key::Named(NamedKey::F12), Some(Screenshot)),
            (Key::Named(NamedKey::Tab), Some(TogglePanels)),
            (Key::Named(NamedKey::ArrowLeft), Some(View(ViewKey::Left))),
            (Key::Named(NamedKey::ArrowRight), Some(View(ViewKey::Right))),
            (Key::Named(NamedKey::ArrowUp), Some(View(ViewKey::Up))),
            (Key::Named(NamedKey::ArrowDown), Some(View(ViewKey::Down))),
            (Key::Named(NamedKey::PageUp), Some(View(ViewKey::ZoomIn))),
            (Key::Named(NamedKey::PageDown), Some(View(ViewKey::ZoomOut))),
            (Key::Named(NamedKey::Home), Some(View(ViewKey::Home))),
            (ch("+"), Some(Hoist(HoistTo::Top))),
            (ch("="), Some(Hoist(HoistTo::Top))),
            (ch("-"), Some(Hoist(HoistTo::Bottom))),
            (ch("m"), Some(Hoist(HoistTo::HalfMast))),
            (ch("x"), None),
            (ch("0"), Some(SetIntegrator(IntegratorKind::KangMg))),
            (Key::Named(NamedKey::Escape), Some(Quit)),
        ];
        for (key, expected) in cases {
            assert_eq!(action_for(&key), expected, "{key:?}");
        }
    }

    #[test]
    fn tab_and_ctrl_q_are_always_the_viewers_and_a_text_field_keeps_the_rest() {
        use flagsim::app::keys::{Focus, action_with, viewer_takes};
        let (tab, esc) = (Key::Named(NamedKey::Tab), Key::Named(NamedKey::Escape));
        let all = [Focus::None, Focus::Widget, Focus::Text];
        for focus in all {
            assert!(viewer_takes(&tab, false, focus), "{focus:?}");
            assert!(viewer_takes(&ch("q"), true, focus), "{focus:?}");
            assert!(viewer_takes(&ch("Q"), true, focus), "{focus:?}");
        }
        // Esc quits only when nothing has focus; with focus the panels get it and let go.
        assert!(viewer_takes(&esc, false, Focus::None));
        assert!(!viewer_takes(&esc, false, Focus::Widget));
        assert!(!viewer_takes(&esc, false, Focus::Text));
        // After a click on a slider or a button the table's keys still work; in a text field
        // they type.
        let table_keys = [
            ch("h"),
            ch("w"),
            ch("v"),
            ch("r"),
            ch("1"),
            Key::Named(NamedKey::Space),
            Key::Named(NamedKey::F12),
            Key::Named(NamedKey::ArrowLeft),
        ];
        for key in &table_keys {
            assert!(viewer_takes(key, false, Focus::None), "{key:?}");
            assert!(viewer_takes(key, false, Focus::Widget), "{key:?}");
            assert!(!viewer_takes(key, false, Focus::Text), "{key:?}");
        }
        // Keys outside the table, plain q, and other Ctrl chords (copy, paste) are the panels'.
        for focus in all {
            for (key, ctrl) in [
                (ch("x"), false),
                (ch("q"), false),
                (ch("c"), true),
                (ch("v"), true),
            ] {
                assert!(
                    !viewer_takes(&key, ctrl, focus),
                    "{key:?} ctrl {ctrl} {focus:?}"
                );
            }
        }
        assert_eq!(action_with(&ch("q"), true), Some(KeyAction::Quit));
        assert_eq!(action_with(&ch("q"), false), None);
        assert_eq!(
            action_with(&ch("w"), true),
            None,
            "Ctrl+W is not the wireframe"
        );
        assert_eq!(
            action_with(&ch("w"), false),
            Some(KeyAction::ToggleWireframe)
        );
    }

    #[test]
    fn digits_pick_the_integrators_in_the_order_the_help_lists_them() {
        let listed = [
            IntegratorKind::Kang,
            IntegratorKind::ExplicitEuler,
            IntegratorKind::SymplecticEuler,
            IntegratorKind::Verlet,
            IntegratorKind::ImplicitCg,
            IntegratorKind::Desbrun,
            IntegratorKind::Hybrid,
            IntegratorKind::Xpbd,
            IntegratorKind::ChoiKo,
        ];
        for (d, kind) in listed.into_iter().enumerate() {
            let key = ch(&(d + 1).to_string());
            assert_eq!(action_for(&key), Some(KeyAction::SetIntegrator(kind)));
        }
        // The tenth is on 0, the key after 9.
        assert_eq!(
            action_for(&ch("0")),
            Some(KeyAction::SetIntegrator(IntegratorKind::KangMg))
        );
        assert_eq!(action_for(&ch("10")), None);
    }

    #[test]
    fn the_help_has_a_line_for_every_binding_and_the_mouse() {
        let help = help_text();
        for b in BINDINGS.iter().filter(|b| !b.label.is_empty()) {
            let line = help.lines().find(|l| l.starts_with(b.label));
            assert!(
                line.is_some_and(|l| l.contains(b.help)),
                "{}: {help}",
                b.label
            );
        }
        for words in [
            "Space",
            "pause",
            "Tab",
            "F12",
            "1 … 9, 0",
            "Wheel",
            "pan",
            "grab",
        ] {
            assert!(
                help.contains(words),
                "{words} missing from the help:\n{help}"
            );
        }
    }
}

mod recording {
    use flagsim::video::{LockStep, step_of_frame};

    /// Drives `lock` as the viewer does: the display polls many times per step, the simulation
    /// moves only when the recorder asks. Returns the steps captured.
    fn run(mut lock: LockStep, start: u64, frames: usize) -> Vec<u64> {
        let mut step = start;
        let mut captured = Vec::new();
        for _frame_on_screen in 0..4 * frames {
            if captured.len() == frames {
                break;
            }
            if lock.due(step, false) {
                captured.push(step);
                step += lock.captured(step); // the steps the recorder asks for
            }
        }
        assert_eq!(lock.frames as usize, captured.len());
        captured
    }

    #[test]
    fn a_recording_captures_the_step_nearest_each_frame_time_whatever_the_display_does() {
        // 30 frames per simulated second of a 1/60 s simulation: one frame every 2 steps.
        let captured = run(LockStep::new(30.0, 1.0 / 60.0, 5), 5, 40);
        assert_eq!(captured, (0..40).map(|k| 5 + 2 * k).collect::<Vec<_>>());
        // 24 fps: frame k at k / 24 s = step 2.5 k, rounded half away from zero: 3 and 2 steps
        // in turn, and frame 24 exactly one simulated second (60 steps) after frame 0.
        let captured = run(LockStep::new(24.0, 1.0 / 60.0, 0), 0, 25);
        assert_eq!(&captured[..6], &[0, 3, 5, 8, 10, 13]);
        assert_eq!(captured[24], 60);
        // Faster than the steps (120 fps of 60 steps a second): a step is shown twice and the
        // clip still lasts as long as the simulation ran.
        let captured = run(LockStep::new(120.0, 1.0 / 60.0, 0), 0, 9);
        assert_eq!(captured, [0, 1, 1, 2, 2, 3, 3, 4, 4]);
        // Not before its step, and never a diverged snapshot.
        let lock = LockStep::new(30.0, 1.0 / 60.0, 10);
        assert!(!lock.due(9, false));
        assert!(lock.due(10, false));
        assert!(!lock.due(10, true));
    }

    #[test]
    fn frame_steps_are_the_nearest_whole_step_with_no_drift() {
        // round(k / (fps · dt)): dt = 0.01 at 30 fps is 3.33 steps a frame, so frame 3 is at
        // step 10 (not 3 · round(3.33) = 9); no valid rate is one step a frame.
        for (k, fps, dt, expected) in [
            (1, 30.0, 0.01, 3),
            (2, 30.0, 0.01, 7),
            (3, 30.0, 0.01, 10),
            (300, 30.0, 0.01, 1000),
            (1, 25.0, 1.0 / 60.0, 2),
            (5, 25.0, 1.0 / 60.0, 12),
            (7, 30.0, 0.0, 7),
            (7, f64::NAN, 0.01, 7),
        ] {
            assert_eq!(
                step_of_frame(k, fps, dt),
                expected,
                "frame {k}, {fps} fps, dt {dt}"
            );
        }
    }
}

#[test]
fn a_paused_untouched_viewer_draws_nothing_and_anything_new_wakes_it() {
    use flagsim::app::viewer::Redraw;
    use std::time::{Duration, Instant};
    let now = Instant::now();
    let idle = Redraw {
        drawn_seq: 7,
        ..Redraw::default()
    };
    // Paused, no input, the snapshot already drawn, egui content: nothing to draw.
    assert!(!idle.due(false, 7, now));
    // A running cloth, a new snapshot (a single step while paused), an input: draw.
    assert!(idle.due(true, 7, now));
    assert!(idle.due(false, 8, now));
    let touched = Redraw {
        wanted: true,
        ..idle
    };
    assert!(touched.due(false, 7, now));
    // egui's own timers: due once their time has come, and the wait ends no later than them.
    let later = now + Duration::from_millis(20);
    let tooltip = Redraw {
        egui_at: Some(later),
        ..Redraw::default()
    };
    assert!(!tooltip.due(false, 0, now));
    assert!(tooltip.due(false, 0, later));
    assert_eq!(tooltip.next_check(now), later);
    // Idle with no timer: look for a new snapshot again after the poll interval, no sooner.
    assert_eq!(idle.next_check(now), now + Redraw::POLL);
    assert!(
        Redraw::POLL >= Duration::from_millis(10) && Redraw::POLL <= Duration::from_millis(100)
    );
}

#[test]
fn held_camera_keys_repeat_and_held_switches_do_not() {
    use flagsim::app::keys::repeats;
    use winit::keyboard::{Key, NamedKey, SmolStr};
    for k in [
        NamedKey::ArrowLeft,
        NamedKey::ArrowRight,
        NamedKey::ArrowUp,
        NamedKey::ArrowDown,
    ] {
        assert!(repeats(&Key::Named(k)), "{k:?}");
    }
    assert!(!repeats(&Key::Named(NamedKey::Space)));
    for c in ["w", "v", "h", "r", ".", "1"] {
        assert!(!repeats(&Key::Character(SmolStr::new(c))), "{c}");
    }
}

#[test]
fn while_the_view_is_dragged_a_wheel_or_key_over_a_panel_does_nothing() {
    // An orbit drag started in the 3-D view keeps its motion and release even over a panel, but
    // other events egui consumed (the wheel over a panel) stay egui's.
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    controls.handle(
        Input::CursorMoved(Vec2::new(40.0, 40.0)),
        false,
        &snap,
        &view,
    );
    controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    assert!(controls.dragging());
    let distance = controls.camera.distance;
    controls.handle(Input::Wheel(3.0), true, &snap, &view);
    controls.handle(Input::Key(ViewKey::ZoomIn), true, &snap, &view);
    assert_eq!(
        controls.camera.distance, distance,
        "a consumed wheel zoomed"
    );
    assert!(controls.dragging());
}

#[test]
fn an_orbit_drag_turns_the_camera_in_proportion_to_the_cursor_motion() {
    // Pitch changes by a fixed angle per pixel of vertical motion, yaw per pixel of horizontal
    // motion: twice the motion, twice the turn (in either direction).
    let turn = |dx: f32, dy: f32| {
        let (snap, mut controls) = facing_flag();
        let view = ViewSettings::default();
        let start = Vec2::new(40.0, 40.0);
        controls.handle(Input::CursorMoved(start), false, &snap, &view);
        controls.handle(
            Input::Button {
                button: Button::Left,
                pressed: true,
            },
            false,
            &snap,
            &view,
        );
        let before = controls.camera;
        controls.handle(
            Input::CursorMoved(start + Vec2::new(dx, dy)),
            false,
            &snap,
            &view,
        );
        let yaw = (controls.camera.yaw - before.yaw + std::f32::consts::PI)
            .rem_euclid(std::f32::consts::TAU)
            - std::f32::consts::PI;
        (yaw, controls.camera.pitch - before.pitch)
    };
    let (_, p1) = turn(0.0, 10.0);
    let (_, p2) = turn(0.0, 20.0);
    let (_, p3) = turn(0.0, -10.0);
    assert!(p1.abs() > 1e-4, "no pitch from a vertical drag");
    assert!(
        (p2 - 2.0 * p1).abs() < 1e-5 * p1.abs().max(1.0),
        "{p1} then {p2}"
    );
    assert!((p3 + p1).abs() < 1e-6, "{p1} and {p3}");
    let (y1, q1) = turn(10.0, 0.0);
    let (y2, _) = turn(20.0, 0.0);
    assert!(
        q1.abs() < 1e-7,
        "a horizontal drag tilted the camera by {q1}"
    );
    assert!(
        y1.abs() > 1e-4 && (y2 - 2.0 * y1).abs() < 1e-5,
        "{y1} then {y2}"
    );
}

#[test]
fn an_orbit_drag_turns_the_scene_with_the_cursor() {
    // The side of the scene nearer than the target follows the cursor: drag right and a point
    // between the eye and the target moves right on screen; drag down and it moves down.
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let cam = controls.camera;
    let point = cam.target + 0.5 * (cam.eye() - cam.target) + Vec3::new(0.1, 0.1, 0.0);
    let near = |c: &Controls| {
        c.camera
            .project_to_pixel(point, SIZE.x, SIZE.y)
            .expect("in front of the camera")
    };
    let start = Vec2::new(40.0, 40.0);
    controls.handle(Input::CursorMoved(start), false, &snap, &view);
    controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    let (x0, y0) = near(&controls);
    controls.handle(
        Input::CursorMoved(start + Vec2::new(30.0, 0.0)),
        false,
        &snap,
        &view,
    );
    let (x1, y1) = near(&controls);
    assert!(
        x1 > x0 + 1.0,
        "dragging right moved the near side from {x0} to {x1}"
    );
    assert!((y1 - y0).abs() < 0.5 * (x1 - x0), "{y0} → {y1}");
    controls.handle(
        Input::CursorMoved(start + Vec2::new(30.0, 30.0)),
        false,
        &snap,
        &view,
    );
    let (_, y2) = near(&controls);
    assert!(
        y2 > y1 + 1.0,
        "dragging down moved the near side from {y1} to {y2}"
    );
}

#[test]
fn a_pole_drag_moves_the_pole_with_the_point_under_the_cursor() {
    // The pole moves by the displacement of the cursor's point on the plane through the pole
    // top facing the camera: intersect the two cursor rays with that plane here.
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let top = flagsim::render::drawing::view::pole(&snap)
        .expect("the flag has a pole")
        .top;
    let normal = controls.camera.forward();
    let on_plane = |p: Vec2| {
        let (o, d) = controls.camera.ray_through_pixel(p.x, p.y, SIZE.x, SIZE.y);
        o + d * ((top - o).dot(normal) / d.dot(normal))
    };
    let (a, b) = (Vec2::new(600.0, 300.0), Vec2::new(650.0, 200.0));
    let expected = (on_plane(b) - on_plane(a)).as_dvec3();
    controls.handle(Input::Shift(true), false, &snap, &view);
    controls.handle(Input::CursorMoved(a), false, &snap, &view);
    controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    let cmds = controls.handle(Input::CursorMoved(b), false, &snap, &view);
    let Some(Command::SetPoleOffset(offset)) = cmds.first() else {
        panic!("no pole move: {cmds:?}");
    };
    assert!(
        (*offset - expected).length() < 1e-4,
        "pole moved by {offset}, the cursor's point by {expected}"
    );
}

#[test]
fn the_wheel_away_from_the_user_zooms_in_and_towards_zooms_out() {
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let d0 = controls.camera.distance;
    controls.handle(Input::Wheel(2.0), false, &snap, &view);
    let d1 = controls.camera.distance;
    assert!(d1 < d0, "wheel away: {d0} → {d1}");
    controls.handle(Input::Wheel(-2.0), false, &snap, &view);
    assert!(
        (controls.camera.distance - d0).abs() < 1e-5 * d0,
        "back: {}",
        controls.camera.distance
    );
    controls.handle(Input::Wheel(-1.0), false, &snap, &view);
    assert!(controls.camera.distance > d0);
}

#[test]
fn on_a_cloth_without_a_grid_a_node_is_picked_within_three_percent_of_the_view_distance() {
    // Without a surface to hit, a node counts as under the cursor when the cursor's ray passes
    // within 3 % of the camera distance of it: at 2 % it is picked, at 5 % it is not.
    let sim = Scene::load("two-masses").unwrap().simulation().unwrap();
    let snap = Snapshot::of(&sim);
    let camera = framing_camera(&[&snap]);
    let controls = Controls::new(camera, SIZE);
    let view = ViewSettings::default();
    let right = camera.forward().cross(Vec3::Y).normalize();
    let node = snap.x[0].as_vec3();
    let near = pixel(&controls, node + right * (0.02 * camera.distance));
    assert_eq!(controls.pick(near, &snap, &view).map(|p| p.1), Some(0));
    let far = pixel(&controls, node - right * (0.05 * camera.distance));
    assert!(
        controls.pick(far, &snap, &view).is_none_or(|p| p.1 != 0),
        "picked node 0 from 5 % of the distance away"
    );
}

#[test]
fn the_help_overlay_lines_its_descriptions_up_in_one_column_per_block() {
    use flagsim::app::keys::{BINDINGS, MOUSE, help_text};
    let text = help_text();
    let mut blocks = text.split("\n\n");
    let (keys, mouse) = (blocks.next().unwrap(), blocks.next().unwrap());
    // Where each description starts: the line's length less the description's.
    let column = |block: &str, rows: Vec<(&str, &str)>| {
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), rows.len());
        let starts: Vec<usize> = lines
            .iter()
            .zip(&rows)
            .map(|(line, (label, help))| {
                assert!(line.starts_with(label) && line.ends_with(help), "{line}");
                line.chars().count() - help.chars().count()
            })
            .collect();
        let widest = rows.iter().map(|(l, _)| l.chars().count()).max().unwrap();
        assert!(starts.iter().all(|&s| s == widest + 2), "{starts:?}");
    };
    column(
        keys,
        BINDINGS
            .iter()
            .filter(|b| !b.label.is_empty())
            .map(|b| (b.label, b.help))
            .collect(),
    );
    column(mouse, MOUSE.to_vec());
}

#[test]
fn the_arrow_keys_orbit_left_right_up_and_down() {
    // Left turns the view the way a drag to the left does, Right the other way; Up raises the
    // eye over the cloth, Down lowers it; each pair undoes the other.
    let (snap, mut controls) = facing_flag();
    let view = ViewSettings::default();
    let key = |c: &mut Controls, k: ViewKey| {
        c.handle(Input::Key(k), false, &snap, &view);
    };
    let before = controls.camera;
    key(&mut controls, ViewKey::Left);
    let left = controls.camera.eye() - before.eye();
    key(&mut controls, ViewKey::Right);
    assert!((controls.camera.eye() - before.eye()).length() < 1e-5);
    key(&mut controls, ViewKey::Right);
    let right = controls.camera.eye() - before.eye();
    assert!(
        left.dot(right) < 0.0,
        "Left {left} and Right {right} turn the same way"
    );
    // A drag to the left from the same start moves the eye the way Left does.
    let (snap2, mut dragged) = facing_flag();
    let start = Vec2::new(40.0, 40.0);
    dragged.handle(Input::CursorMoved(start), false, &snap2, &view);
    dragged.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap2,
        &view,
    );
    dragged.handle(
        Input::CursorMoved(start - Vec2::new(6.0, 0.0)),
        false,
        &snap2,
        &view,
    );
    assert!((dragged.camera.eye() - before.eye()).dot(left) > 0.0);
    let (_, mut controls) = facing_flag();
    key(&mut controls, ViewKey::Up);
    assert!(
        controls.camera.eye().y > before.eye().y,
        "Up did not raise the eye"
    );
    key(&mut controls, ViewKey::Down);
    key(&mut controls, ViewKey::Down);
    assert!(
        controls.camera.eye().y < before.eye().y,
        "Down did not lower the eye"
    );
}

#[test]
fn every_character_of_the_help_and_the_parameters_has_a_glyph_in_the_fonts() {
    // A character missing from egui's fonts is drawn as a box (as "→" was in the Capture
    // panel); the help is drawn in both the proportional and the monospace family.
    let ctx = egui::Context::default();
    let mut out = ctx.run_ui(egui::RawInput::default(), |_| {});
    out.textures_delta.clear();
    // The help overlay, and every parameter's label, unit and tooltip (the panels draw them
    // from the parameter table).
    // The other panels' labels use these besides ASCII (`grep` of src/ui and src/app).
    let others = "× … ² Δ τ − – µ ° π · — ¹ ±";
    let help =
        flagsim::app::keys::help_text() + &flagsim::sim::format::params::spec::text() + others;
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        let font = egui::FontId::new(14.0, family);
        let missing: Vec<char> = help
            .chars()
            .filter(|c| !c.is_whitespace())
            .filter(|&c| !ctx.fonts_mut(|f| f.has_glyph(&font, c)))
            .collect();
        assert!(missing.is_empty(), "{font:?} lacks {missing:?}");
    }
}
