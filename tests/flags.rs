//! Several flags in one scene: the scene's `flags` list, each flag placed
//! on its own pole and simulated beside the others, one snapshot for all, commands that add,
//! remove and change one flag while the others fly on, picking that selects the flag clicked,
//! and a render that shows each flag with its own image.
//!
//! The numbers come from the `flag` preset: a 1.2 m × 0.8 m flag whose hoist runs from
//! y = 1.6 m to 2.4 m at x = 0, z = 0, the ground at 0: its pole is 2.4 m tall.

mod common;

use std::time::Duration;

use flagsim::app::controls::{Button, Controls, Input};
use flagsim::render::OrbitCamera;
use flagsim::render::drawing::view::ViewSettings;
use flagsim::sim::Scene;
use flagsim::sim::format::error::SimError;
use flagsim::sim::format::flag_spec::{FlagSpec, PoleSpec};
use flagsim::sim::format::outline::FlagShape;
use flagsim::sim::format::params::Hoist;
use flagsim::sim::format::scene::SceneError;
use flagsim::sim::runtime::flags::FlagSet;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::sim_thread::{Command, SimThread, wait_for};
use glam::{DVec3, Vec2, Vec3};

const POLE: f64 = 2.4;
const HOIST: f64 = 0.8;
const WIDTH: f64 = 1.2;

fn scene(json: &str) -> Scene {
    Scene::from_json(json, "test").unwrap()
}

/// The hoist edge of a flag's cloth, bottom first: nodes `i = 0` of each row.
fn hoist_edge(snap: &Snapshot) -> Vec<DVec3> {
    let g = snap.grid.unwrap();
    (0..g.ny).map(|j| snap.x[j * g.nx]).collect()
}

#[test]
fn a_scene_without_flags_is_its_one_flag_unchanged() {
    let old = Scene::load("flag").unwrap();
    assert!(old.flags.is_empty());
    assert_eq!(old.flag_count(), 1);
    assert_eq!(old.flag_scene(0), old);
    // Written back without a `flags` field, as the preset has none.
    assert!(!old.to_json().contains("\"flags\""));
    let set = FlagSet::new(&old).unwrap();
    assert_eq!(set.flags.len(), 1);
    assert_eq!(set.snapshot().flag_count(), 1);
    assert_eq!(set.first().cloth.x, old.simulation().unwrap().cloth.x);
}

#[test]
fn each_flag_stands_on_its_own_pole_where_its_entry_says() {
    let s = scene(
        r#"{"flags": [
            {},
            {"pole": {"position": [5, 0, -2], "height": 4}, "size": [1.5, 1.0]},
            {"name": "third"}
        ]}"#,
    );
    assert_eq!(s.flag_count(), 3);
    let snap = FlagSet::new(&s).unwrap().snapshot();
    assert_eq!(snap.flag_count(), 3);
    // Flag 0 where the scene's own flag is: its hoist's top at the top of a 2.4 m pole at x = 0.
    let edge = hoist_edge(&snap);
    assert!((edge[9] - DVec3::new(0.0, POLE, 0.0)).length() < 1e-9);
    assert!((edge[0] - DVec3::new(0.0, POLE - HOIST, 0.0)).length() < 1e-9);
    // Flag 1: the top of its hoist 4 m above its foot at (5, 0, −2); 1 m high, 1.5 m wide.
    let one = snap.flag(1).unwrap();
    let edge = hoist_edge(one);
    assert!(
        (edge[9] - DVec3::new(5.0, 4.0, -2.0)).length() < 1e-9,
        "{edge:?}"
    );
    assert!((edge[0] - DVec3::new(5.0, 3.0, -2.0)).length() < 1e-9);
    let fly_top = one.x[9 * 10 + 9];
    assert!((fly_top - DVec3::new(6.5, 4.0, -2.0)).length() < 1e-9);
    // Flag 2 says nothing: the next place along the row, 1.5 widest widths from the first:
    // the widest flag is 1.5 m, so 2 × 2.25 m along x, as tall as the scene's own.
    let two = snap.flag(2).unwrap();
    let edge = hoist_edge(two);
    assert!(
        (edge[9] - DVec3::new(4.5, POLE, 0.0)).length() < 1e-9,
        "{edge:?}"
    );
    // Each flag's own mass: the scene's 0.12 kg.
    assert!((one.total_mass - 0.12).abs() < 1e-12 && (two.total_mass - 0.12).abs() < 1e-12);
}

#[test]
fn a_list_of_flags_round_trips_through_the_file() {
    let s = scene(
        r##"{"flags": [
            {"name": "left", "hoist": {"height": 0.5, "speed": 0.2}},
            {"name": "right", "image": "a.png", "size": [1.5, 1.0],
             "shape": {"swallowtail": {"notch": 0.25}},
             "pole": {"position": [3, 0, 1], "height": 5, "color": "#ff0000",
                      "finial": "spear", "finial_color": "#00ff00"}}
        ]}"##,
    );
    let again = Scene::from_json(&s.to_json(), "again").unwrap();
    assert_eq!(again.flags, s.flags);
    assert_eq!(again.to_json(), s.to_json());
    let right = &again.flags[1];
    assert_eq!(right.name, "right");
    assert_eq!(right.size, Some([1.5, 1.0]));
    assert_eq!(right.shape, Some(FlagShape::Swallowtail { notch: 0.25 }));
    assert_eq!(right.pole.position, Some([3.0, 0.0, 1.0]));
    assert_eq!(right.pole.height, Some(5.0));
    assert_eq!(
        again.flags[0].hoist,
        Some(Hoist {
            height: 0.5,
            speed: 0.2
        })
    );
    // Each flag's scene carries its own image, shape, hoist and pole colours.
    let alone = again.flag_scene(1);
    assert_eq!(alone.render.texture.as_deref(), Some("a.png".as_ref()));
    assert_eq!(alone.render.setting.pole_color.0, [1.0, 0.0, 0.0]);
    assert_eq!(
        alone.cloth.grid.unwrap().shape,
        FlagShape::Swallowtail { notch: 0.25 }
    );
    assert_eq!(again.flag_scene(0).params.hoist.height, 0.5);
    assert!(alone.flags.is_empty());
}

#[test]
fn a_flags_image_is_relative_to_the_scene_file() {
    let dir = std::env::temp_dir().join(format!("flagsim-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.json");
    std::fs::write(&path, r#"{"flags": [{}, {"image": "pics/b.png"}]}"#).unwrap();
    let s = Scene::from_file(&path).unwrap();
    assert_eq!(
        s.flags[1].image.as_deref(),
        Some(dir.join("pics/b.png").as_path())
    );
    assert_eq!(s.flags[0].image, None);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The message of a scene refused, which must name `field`.
fn refused(json: &str) -> String {
    match Scene::from_json(json, "bad.json") {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted: {json}"),
    }
}

#[test]
fn bad_flags_are_refused_naming_the_field() {
    for (json, field) in [
        (r#"{"flags": [{}, {"size": [0, 1]}]}"#, "flags[1].size[0]"),
        (r#"{"flags": [{"size": [1, -2]}]}"#, "flags[0].size[1]"),
        (
            r#"{"flags": [{}, {"shape": {"swallowtail": {"notch": 2}}}]}"#,
            "flags[1].shape: swallowtail.notch: must be a depth from 0.05 to 0.9",
        ),
        (r#"{"flags": [{"shape": "oval"}]}"#, "flags[0].shape"),
        (
            r#"{"flags": [{}, {}, {"hoist": {"height": 1.5}}]}"#,
            "flags[2].hoist.height",
        ),
        (
            r#"{"flags": [{"hoist": {"speed": 0}}]}"#,
            "flags[0].hoist.speed",
        ),
        (
            r#"{"flags": [{"pole": {"height": 0}}]}"#,
            "flags[0].pole.height",
        ),
        (
            r#"{"flags": [{"pole": {"position": [1e9, 0, 0]}}]}"#,
            "flags[0].pole.position",
        ),
        (r#"{"flags": [{"colour": "red"}]}"#, "flags[0]"),
        (
            r#"{"flags": [{"pole": {"finial": "star"}}]}"#,
            "flags[0].pole.finial",
        ),
    ] {
        let message = refused(json);
        assert!(message.starts_with("bad.json: "), "{message}");
        assert!(message.contains(field), "{json}: {message}");
        assert_eq!(message.lines().count(), 1, "{message}");
    }
    // A pin the flag's shape cuts away: the flag and the pin are named.
    let e = Scene::from_json(
        r#"{"cloth": {"grid": {"pins": [[9, 9]]}},
            "flags": [{}, {"shape": "pennant"}]}"#,
        "pins.json",
    )
    .unwrap_err();
    match e {
        SceneError::Invalid { error, .. } => {
            assert!(
                matches!(&error, SimError::InFlag { flag: 1, error } if matches!(**error, SimError::PinOutsideShape { .. })),
                "{error:?}"
            );
        }
        e => panic!("{e}"),
    }
    // Too many flags.
    let many = format!("{{\"flags\": [{}]}}", vec!["{}"; 65].join(","));
    assert!(refused(&many).contains("flags: must be in 0..=64, got 65"));
    // Several flags need a grid.
    let explicit = r#"{"cloth": {"nodes": [{"x": [0,0,0], "m": 1}]}, "flags": [{}, {}]}"#;
    assert!(refused(explicit).contains("flags: several flags need a grid cloth"));
}

#[test]
fn flags_share_the_parameters_and_step_together_each_at_its_own_hoist() {
    let s = scene(
        r#"{"params": {"wind": {"velocity": [0, 0, 0]}},
            "flags": [{}, {"hoist": {"height": 0.5}}]}"#,
    );
    let mut set = FlagSet::new(&s).unwrap();
    // A sixth of a second: the lower flag falls nowhere near the ground.
    for _ in 0..10 {
        assert!(set.step());
    }
    let snap = set.snapshot();
    let (a, b) = (&snap, snap.flag(1).unwrap());
    assert_eq!((a.step, b.step), (10, 10));
    assert_eq!(a.time, b.time);
    assert_eq!(a.params.dt, b.params.dt);
    assert_eq!(a.params.integrator, b.params.integrator);
    // Flag 1 at half-mast: its hoist's middle at half its 2.4 m pole, flag 0 at the top.
    let mid = |s: &Snapshot| {
        let e = hoist_edge(s);
        e.iter().map(|x| x.y).sum::<f64>() / e.len() as f64
    };
    assert!((mid(a) - (POLE - HOIST / 2.0)).abs() < 1e-9);
    assert!((mid(b) - POLE / 2.0).abs() < 1e-9, "{}", mid(b));
    // Without wind the two flags hang alike, one 2.4 m along x from the other, 1.2 m lower.
    for (p, q) in a.x.iter().zip(&b.x) {
        let d = *q - *p - DVec3::new(1.5 * WIDTH, -(POLE / 2.0 - HOIST / 2.0), 0.0);
        assert!(d.length() < 1e-6, "{d}");
    }
}

fn two_flags_thread() -> SimThread {
    let s = scene(r#"{"flags": [{}, {"hoist": {"height": 0.5}}]}"#);
    SimThread::spawn(s, false).unwrap()
}

#[test]
fn the_thread_publishes_every_flag_in_one_snapshot_and_routes_commands_to_one() {
    let sim = two_flags_thread();
    let slot = sim.slot();
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.step >= 3).unwrap();
    assert_eq!(snap.flag_count(), 2);
    assert_eq!(snap.flags[0].step, snap.step);
    // A hoist for flag 1 moves flag 1 only; flag 0 keeps its own.
    let mut p = snap.params.clone();
    p.hoist.height = 0.0;
    sim.send(Command::Flag(
        1,
        Box::new(Command::SetParams(Box::new(p.clone()))),
    ));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| {
        s.flags[0].params.hoist.height == 0.0
    })
    .unwrap();
    assert_eq!(snap.params.hoist.height, 1.0);
    // A stiffness sent to flag 1 is every flag's.
    p.stiffness.structural = 77.0;
    sim.send(Command::Flag(1, Box::new(Command::SetParams(Box::new(p)))));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| {
        s.params.stiffness.structural == 77.0
    })
    .unwrap();
    assert_eq!(snap.flags[0].params.stiffness.structural, 77.0);
    assert_eq!(snap.params.hoist.height, 1.0);
    // A grab of flag 1's node goes to flag 1.
    sim.send(Command::Flag(
        1,
        Box::new(Command::Grab {
            node: 55,
            target: DVec3::new(3.0, 2.0, 1.0),
        }),
    ));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| {
        s.flags[0].grabbed == Some(55)
    })
    .unwrap();
    assert_eq!(snap.grabbed, None);
    // A flag the scene does not have is refused, naming it.
    sim.send(Command::Flag(5, Box::new(Command::Release)));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.error.is_some()).unwrap();
    assert_eq!(snap.error, Some(SimError::NoFlag { flag: 5, count: 2 }));
}

#[test]
fn flags_are_added_changed_and_removed_while_the_others_fly_on() {
    let sim = two_flags_thread();
    let slot = sim.slot();
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.step >= 10).unwrap();
    let generation = snap.generation;
    let first = snap.x.clone();
    sim.send(Command::AddFlag(Box::new(FlagSpec {
        shape: Some(FlagShape::Pennant),
        pole: PoleSpec {
            position: Some([-3.0, 0.0, 0.0]),
            ..PoleSpec::default()
        },
        ..FlagSpec::default()
    })));
    // In the very next snapshot: three flags, the new one at its pole, the first flown on.
    let snap = wait_for(&slot, Duration::from_secs(10), |s| {
        s.generation != generation
    })
    .unwrap();
    assert_eq!(snap.flag_count(), 3);
    let new = snap.flag(2).unwrap();
    assert_eq!(new.grid.unwrap().shape, FlagShape::Pennant);
    let top = hoist_edge(new)[9];
    assert!((top - DVec3::new(-3.0, POLE, 0.0)).length() < 0.05, "{top}");
    assert!(new.time >= snap.time - snap.params.dt);
    // Flag 0 went on from where it was (a restart would put it back at its start, step 0).
    assert!(snap.step >= 10 && snap.x.len() == first.len());
    let start = FlagSet::new(&Scene::load("flag").unwrap())
        .unwrap()
        .snapshot();
    assert_ne!(snap.x, start.x, "flag 0 was restarted");
    // Flag 1 becomes a swallowtail: it alone starts afresh.
    let before = snap.clone();
    sim.send(Command::SetFlag(
        1,
        Box::new(FlagSpec {
            shape: Some(FlagShape::Swallowtail { notch: 0.3 }),
            ..FlagSpec::default()
        }),
    ));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| {
        s.generation != before.generation
    })
    .unwrap();
    assert_eq!(
        snap.flags[0].grid.unwrap().shape,
        FlagShape::Swallowtail { notch: 0.3 }
    );
    assert!(snap.step >= before.step, "flag 0 went back to its start");
    // Flag 0 removed: the swallowtail and the pennant are flags 0 and 1.
    let before = snap.generation;
    sim.send(Command::RemoveFlag(0));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.generation != before).unwrap();
    assert_eq!(snap.flag_count(), 2);
    assert_eq!(
        snap.grid.unwrap().shape,
        FlagShape::Swallowtail { notch: 0.3 }
    );
    assert_eq!(snap.flags[0].grid.unwrap().shape, FlagShape::Pennant);
    // Reset puts back the flags as they are now, each at its start.
    sim.send(Command::Reset);
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.step <= 1).unwrap();
    assert_eq!(snap.flag_count(), 2);
    assert!((hoist_edge(&snap.flags[0])[9] - DVec3::new(-3.0, POLE, 0.0)).length() < 1e-9);
    // The last flag stays.
    sim.send(Command::RemoveFlag(1));
    let g = wait_for(&slot, Duration::from_secs(10), |s| s.flag_count() == 1)
        .unwrap()
        .generation;
    sim.send(Command::RemoveFlag(0));
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.error.is_some()).unwrap();
    assert_eq!(snap.error, Some(SimError::LastFlag));
    assert_eq!((snap.flag_count(), snap.generation), (1, g));
}

#[test]
fn a_bad_flag_is_refused_and_changes_nothing() {
    let sim = two_flags_thread();
    let slot = sim.slot();
    let snap = wait_for(&slot, Duration::from_secs(10), |s| s.step >= 2).unwrap();
    sim.send(Command::SetFlag(
        0,
        Box::new(FlagSpec {
            size: Some([-1.0, 1.0]),
            ..FlagSpec::default()
        }),
    ));
    let after = wait_for(&slot, Duration::from_secs(10), |s| s.error.is_some()).unwrap();
    assert!(
        after
            .error
            .as_ref()
            .unwrap()
            .to_string()
            .contains("flags[0].size[0]"),
        "{:?}",
        after.error
    );
    assert_eq!(after.generation, snap.generation);
    assert_eq!(after.flag_count(), 2);
    sim.send(Command::RemoveFlag(7));
    let after = wait_for(&slot, Duration::from_secs(10), |s| {
        s.error == Some(SimError::NoFlag { flag: 7, count: 2 })
    });
    assert!(after.is_some());
}

/// Two flags facing +Z side by side, flat (no wind, no gravity), seen from straight ahead.
fn facing_flags() -> (Snapshot, Controls) {
    let s = scene(
        r#"{"params": {"gravity": [0, 0, 0], "wind": {"velocity": [0, 0, 0]}},
            "flags": [{}, {}]}"#,
    );
    let snap = FlagSet::new(&s).unwrap().snapshot();
    // Between the two: flag 0 spans x 0…1.2, flag 1 x 1.8…3.0, both y 1.6…2.4.
    let camera = OrbitCamera {
        target: Vec3::new(1.5, 2.0, 0.0),
        yaw: 0.0,
        pitch: 0.0,
        distance: 5.0,
        ..OrbitCamera::default()
    };
    (snap, Controls::new(camera, Vec2::new(1280.0, 800.0)))
}

/// The pixel where world point `p` is seen.
fn pixel(controls: &Controls, p: Vec3) -> Vec2 {
    let vp =
        flagsim::render::CameraMatrices::from_orbit(&controls.camera, 1280.0 / 800.0).view_proj;
    let c = vp * p.extend(1.0);
    let ndc = c.truncate() / c.w;
    Vec2::new((ndc.x + 1.0) * 640.0, (1.0 - ndc.y) * 400.0)
}

#[test]
fn a_click_on_a_flag_selects_it_and_grabs_its_node() {
    let (snap, mut controls) = facing_flags();
    let view = ViewSettings::default();
    // The middle of flag 1.
    let at = pixel(&controls, Vec3::new(2.4, 2.0, 0.0));
    let (flag, node, point) = controls.pick(at, &snap, &view).expect("on flag 1");
    assert_eq!(flag, 1);
    assert!(
        (point - Vec3::new(2.4, 2.0, 0.0)).length() < 0.02,
        "{point}"
    );
    assert!((4..=5).contains(&(node % 10)) && (4..=5).contains(&(node / 10)));
    // The gap between the flags is neither.
    let gap = pixel(&controls, Vec3::new(1.5, 2.0, 0.0));
    assert!(controls.pick(gap, &snap, &view).is_none());
    // A press there selects flag 1 and grabs its node through `Command::Flag(1, …)`.
    controls.handle(Input::CursorMoved(at), false, &snap, &view);
    let out = controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    assert_eq!(controls.flag, 1);
    assert!(
        matches!(&out[..], [Command::Flag(1, c)] if matches!(**c, Command::Grab { node: n, .. } if n == node)),
        "{out:?}"
    );
    let out = controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: false,
        },
        false,
        &snap,
        &view,
    );
    assert!(matches!(&out[..], [Command::Flag(1, c)] if matches!(**c, Command::Release)));
    // And a click on flag 0 selects it again.
    let at = pixel(&controls, Vec3::new(0.6, 2.0, 0.0));
    controls.handle(Input::CursorMoved(at), false, &snap, &view);
    let out = controls.handle(
        Input::Button {
            button: Button::Left,
            pressed: true,
        },
        false,
        &snap,
        &view,
    );
    assert_eq!(controls.flag, 0);
    assert!(matches!(&out[..], [Command::Flag(0, _)]), "{out:?}");
}

#[test]
fn the_nearer_of_two_flags_in_line_is_picked() {
    // Flag 1 stands 2 m behind flag 0 (−z), so the ray through flag 0 meets both.
    let s = scene(
        r#"{"params": {"gravity": [0, 0, 0], "wind": {"velocity": [0, 0, 0]}},
            "flags": [{}, {"pole": {"position": [0, 0, -2]}}]}"#,
    );
    let snap = FlagSet::new(&s).unwrap().snapshot();
    let camera = OrbitCamera {
        target: Vec3::new(0.6, 2.0, 0.0),
        yaw: 0.0,
        pitch: 0.0,
        distance: 4.0,
        ..OrbitCamera::default()
    };
    let controls = Controls::new(camera, Vec2::new(1280.0, 800.0));
    let at = pixel(&controls, Vec3::new(0.6, 2.0, 0.0));
    let (flag, _, point) = controls.pick(at, &snap, &ViewSettings::default()).unwrap();
    assert_eq!(flag, 0);
    assert!(point.z.abs() < 1e-3, "{point}");
}

#[test]
fn two_flags_in_one_render_show_two_cloth_regions_with_their_own_images() {
    let Some(mut headless) = common::headless_or_skip(480, 240) else {
        return;
    };
    // Still air and no gravity: each flag stays a flat rectangle facing the camera.
    let s = scene(
        r##"{"params": {"gravity": [0, 0, 0], "wind": {"velocity": [0, 0, 0]}},
            "render": {"setting": {"sky": "#000000", "ground": false,
                                  "pole_color": "#000000", "finial": "none"}},
            "flags": [{}, {}]}"##,
    );
    let snap = FlagSet::new(&s).unwrap().snapshot();
    let solid = |rgb: [u8; 3]| {
        image::RgbaImage::from_pixel(8, 8, image::Rgba([rgb[0], rgb[1], rgb[2], 255]))
    };
    headless
        .set_flag_image_of(0, Some(&solid([255, 0, 0])))
        .unwrap();
    headless
        .set_flag_image_of(1, Some(&solid([0, 0, 255])))
        .unwrap();
    let camera = OrbitCamera {
        target: Vec3::new(1.5, 2.0, 0.0),
        yaw: 0.0,
        pitch: 0.0,
        distance: 4.0,
        ..OrbitCamera::default()
    };
    let view = ViewSettings {
        render: s.render.clone(),
        ..ViewSettings::default()
    };
    let image = headless.render(&snap, &view, &camera).unwrap();
    let vp = flagsim::render::CameraMatrices::from_orbit(&camera, 2.0).view_proj;
    let px = |p: Vec3| {
        let c = vp * p.extend(1.0);
        let ndc = c.truncate() / c.w;
        (
            ((ndc.x + 1.0) * 240.0) as u32,
            ((1.0 - ndc.y) * 120.0) as u32,
        )
    };
    // Reddish and bluish: the lit colour of each image, whatever the shading.
    let channel = |p: &image::Rgba<u8>, c: usize| u16::from(p[c]);
    let red = |p: &image::Rgba<u8>| {
        channel(p, 0) > 60 && channel(p, 0) > 3 * channel(p, 1).max(channel(p, 2)).max(10)
    };
    let blue = |p: &image::Rgba<u8>| {
        channel(p, 2) > 60 && channel(p, 2) > 3 * channel(p, 0).max(channel(p, 1)).max(10)
    };
    let count = |f: &dyn Fn(&image::Rgba<u8>) -> bool, x0: u32, x1: u32| {
        (0..240)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| f(image.get_pixel(x, y)))
            .count()
    };
    let (gap, _) = px(Vec3::new(1.5, 2.0, 0.0));
    // Left of the gap only red, right of it only blue, each a region of the flag's size.
    let (l0, _) = px(Vec3::new(0.0, 2.0, 0.0));
    let (l1, _) = px(Vec3::new(1.2, 2.0, 0.0));
    let area = |x0: u32, x1: u32| {
        let (_, y0) = px(Vec3::new(0.0, 2.4, 0.0));
        let (_, y1) = px(Vec3::new(0.0, 1.6, 0.0));
        ((x1 - x0) * (y1 - y0)) as usize
    };
    let reds = count(&red, 0, gap);
    let blues = count(&blue, gap, 480);
    assert!(
        reds as f64 > 0.8 * area(l0, l1) as f64,
        "{reds} red of {}",
        area(l0, l1)
    );
    assert!(blues as f64 > 0.8 * area(l0, l1) as f64, "{blues} blue");
    assert_eq!(count(&blue, 0, gap), 0);
    assert_eq!(count(&red, gap, 480), 0);
    // Each flag's middle in its own colour, and the gap between them the black sky.
    let at = |p: Vec3| {
        let (x, y) = px(p);
        *image.get_pixel(x, y)
    };
    assert!(red(&at(Vec3::new(0.6, 2.0, 0.0))));
    assert!(blue(&at(Vec3::new(2.4, 2.0, 0.0))));
    let g = at(Vec3::new(1.5, 2.0, 0.0));
    assert!(g[0] < 10 && g[1] < 10 && g[2] < 10, "{g:?}");
}

// ---- the Flags panel and the panels that edit the selected flag ----------------------------

use flagsim::ui::{UiAction, UiState, panels::flags as flags_panel, panels::scene_files};

fn sent(actions: &[UiAction]) -> Vec<&Command> {
    actions
        .iter()
        .filter_map(|a| match a {
            UiAction::Sim(c) => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn the_panel_adds_a_flag_a_spacing_past_the_last_and_selects_it() {
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let mut actions = Vec::new();
    flags_panel::add_flag(&mut state, &mut actions);
    // A scene of one flag became a list of two: the first where it was, the second 1.5 widths
    // (1.8 m) along x, as tall (2.4 m).
    assert_eq!(state.scene.flags.len(), 2);
    assert_eq!(state.selected_flag, 1);
    assert_eq!(state.scene.flags[0].pole.position, Some([0.0, 0.0, 0.0]));
    let pole = &state.scene.flags[1].pole;
    assert_eq!(pole.position, Some([1.5 * WIDTH, 0.0, 0.0]));
    assert!((pole.height.unwrap() - POLE).abs() < 1e-12);
    match sent(&actions)[..] {
        [Command::AddFlag(flag)] => assert_eq!(**flag, state.scene.flags[1]),
        ref other => panic!("{other:?}"),
    }
    // With its image (the built-in flag's, for this scene) and a framing that shows it.
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, UiAction::FlagImage(1, i) if i.width() > 0))
    );
    assert!(actions.iter().any(|a| matches!(a, UiAction::ResetCamera)));
    // The third goes past the second, even when the second was moved back towards the first.
    state.scene.flags[1].pole.position = Some([5.0, 0.0, 0.0]);
    let mut actions = Vec::new();
    flags_panel::add_flag(&mut state, &mut actions);
    assert_eq!(
        state.scene.flags[2].pole.position,
        Some([5.0 + 1.5 * WIDTH, 0.0, 0.0])
    );
}

#[test]
fn the_panel_removes_the_selected_flag_and_selects_the_next() {
    let mut state = UiState::new(Scene::load("flags").unwrap(), 0.12);
    assert_eq!(state.scene.flags.len(), 4);
    state.selected_flag = 1;
    let mut actions = Vec::new();
    flags_panel::remove_flag(&mut state, &mut actions, 1);
    assert_eq!(state.scene.flags.len(), 3);
    assert_eq!(state.scene.flags[1].name, "swallowtail");
    assert_eq!(state.selected_flag, 1);
    assert!(matches!(sent(&actions)[..], [Command::RemoveFlag(1)]));
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, UiAction::FlagRemoved(1)))
    );
    // The last one selected: the one before it is.
    state.selected_flag = 2;
    flags_panel::remove_flag(&mut state, &mut Vec::new(), 2);
    assert_eq!(state.selected_flag, 1);
    // A scene keeps its last flag.
    flags_panel::remove_flag(&mut state, &mut Vec::new(), 0);
    let mut actions = Vec::new();
    flags_panel::remove_flag(&mut state, &mut actions, 0);
    assert_eq!(state.scene.flag_count(), 1);
    assert!(actions.is_empty());
}

#[test]
fn the_shape_and_image_panels_change_the_selected_flag_only() {
    let mut state = UiState::new(Scene::load("flags").unwrap(), 0.12);
    state.selected_flag = 3;
    let mut actions = Vec::new();
    scene_files::set_shape(&mut state, &mut actions, FlagShape::Burgee { notch: 0.3 });
    match sent(&actions)[..] {
        [Command::SetFlag(3, flag)] => {
            assert_eq!(flag.shape, Some(FlagShape::Burgee { notch: 0.3 }));
            assert_eq!(flag.name, "pennant");
        }
        ref other => panic!("{other:?}"),
    }
    assert_eq!(state.scene.flags[0].shape, None);
    assert_eq!(
        state.scene.flags[3].shape,
        Some(FlagShape::Burgee { notch: 0.3 })
    );
    // An image 3:1 on flag 2: it keeps its 0.8 m height, takes a 2.4 m width, its own image;
    // the other flags keep theirs.
    let path = std::env::temp_dir().join(format!("flagsim-flags-wide-{}.png", std::process::id()));
    image::RgbaImage::from_pixel(300, 100, image::Rgba([0, 200, 0, 255]))
        .save(&path)
        .unwrap();
    state.selected_flag = 2;
    let mut actions = Vec::new();
    scene_files::set_flag_image(&mut state, &mut actions, Some(&path));
    match sent(&actions)[..] {
        [Command::SetFlag(2, flag)] => {
            assert_eq!(flag.image.as_deref(), Some(path.as_path()));
            let [w, h] = flag.size.unwrap();
            assert!((w - 3.0 * HOIST).abs() < 1e-9 && (h - HOIST).abs() < 1e-9);
        }
        ref other => panic!("{other:?}"),
    }
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, UiAction::FlagImage(2, i) if i.dimensions() == (300, 100)))
    );
    assert_eq!(state.scene.flags[1].image, None);
    assert_eq!(state.scene.render.texture, None);
    // A shape the flag's pins do not fit is refused with a message; nothing is sent.
    let mut pinned = Scene::load("flags").unwrap();
    pinned.cloth.grid.as_mut().unwrap().pins =
        flagsim::sim::format::scene::Pins::List(vec![[9, 9], [0, 0]]);
    let mut state = UiState::new(pinned, 0.12);
    let mut actions = Vec::new();
    scene_files::set_shape(&mut state, &mut actions, FlagShape::Pennant);
    assert!(sent(&actions).is_empty());
    assert!(state.notices.last().is_some());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_scene_of_several_flags_saves_each_flags_own_hoist_and_loads_again() {
    let mut state = UiState::new(Scene::load("flags").unwrap(), 0.12);
    // The panels show flag 1's hoist (at half-mast); flag 0's stays in its entry.
    state.selected_flag = 1;
    state.params.hoist.height = 0.5;
    state.scene.flags[1].hoist = Some(Hoist {
        height: 0.25,
        speed: 0.3,
    });
    let path = std::env::temp_dir().join(format!("flagsim-flags-save-{}.json", std::process::id()));
    scene_files::save_scene(&mut state, &path);
    let saved = Scene::from_file(&path).unwrap();
    assert_eq!(saved.flags.len(), 4);
    assert_eq!(saved.params.hoist.height, 1.0, "the scene's own hoist");
    assert_eq!(saved.flags[1].hoist.unwrap().height, 0.25);
    assert_eq!(saved.flags[2].name, "swallowtail");
    // Loading it puts up all four, each with its image.
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let mut actions = Vec::new();
    scene_files::open_scene_file(&mut state, &mut actions, &path);
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, UiAction::FlagImages(v) if v.len() == 4))
    );
    assert!(matches!(sent(&actions)[..], [Command::LoadScene(s)] if s.flags.len() == 4));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_flag_is_named_by_its_entry_or_its_place_and_written_without_empty_fields() {
    let named = FlagSpec {
        name: "harbour".into(),
        ..FlagSpec::default()
    };
    assert_eq!(named.label(4), "harbour");
    assert_eq!(FlagSpec::default().label(0), "flag 1");
    assert_eq!(FlagSpec::default().label(2), "flag 3");
    let blank = FlagSpec {
        name: "  ".into(),
        ..FlagSpec::default()
    };
    assert_eq!(blank.label(1), "flag 2");
    // An entry that changes nothing is written `{}`; a pole only when it says something.
    assert_eq!(serde_json::to_string(&FlagSpec::default()).unwrap(), "{}");
    assert!(PoleSpec::default().is_default());
    let placed = FlagSpec {
        pole: PoleSpec {
            height: Some(3.0),
            ..PoleSpec::default()
        },
        ..FlagSpec::default()
    };
    assert!(!placed.pole.is_default());
    assert_eq!(
        serde_json::to_string(&placed).unwrap(),
        r#"{"pole":{"height":3.0}}"#
    );
}

#[test]
fn the_panels_start_on_the_first_flag_with_its_own_hoist() {
    let s = scene(r#"{"flags": [{"hoist": {"height": 0.25}}, {}]}"#);
    let state = UiState::new(s.clone(), 0.12);
    assert_eq!(state.selected_flag, 0);
    assert_eq!(state.params.hoist.height, 0.25);
    // And a scene of one flag starts on its own.
    let mut one = Scene::load("flag").unwrap();
    one.params.hoist.height = 0.5;
    assert_eq!(UiState::new(one, 0.12).params.hoist.height, 0.5);
}

#[test]
fn a_grid_with_initial_positions_moves_whole_to_each_flags_pole() {
    // A 3 × 3 grid squeezed to half its width, a little off z = 0: node (i, j) at
    // (0.3 i, 1.6 + 0.4 j, 0.1); the top of its hoist, node (0, 2), at (0, 2.4, 0.1).
    let positions: Vec<String> = (0..9)
        .map(|k| {
            format!(
                "[{}, {}, 0.1]",
                0.3 * (k % 3) as f64,
                1.6 + 0.4 * (k / 3) as f64
            )
        })
        .collect();
    let s = scene(&format!(
        r#"{{"cloth": {{"grid": {{"nx": 3, "ny": 3, "width": 1.2, "height": 0.8,
              "positions": [{}]}}}},
            "flags": [{{}}, {{"pole": {{"position": [5, 0, 0], "height": 3}}}}]}}"#,
        positions.join(", ")
    ));
    // Flag 0 stays where the positions put it; flag 1's hoist top goes to (5, 3, 0): every
    // node moves by (5, 0.6, −0.1).
    let set = FlagSet::new(&s).unwrap();
    let (a, b) = (&set.flags[0].cloth.x, &set.flags[1].cloth.x);
    for k in 0..9 {
        let p = DVec3::new(0.3 * (k % 3) as f64, 1.6 + 0.4 * (k / 3) as f64, 0.1);
        assert!((a[k] - p).length() < 1e-12, "{k}: {}", a[k]);
        assert!(
            (b[k] - p - DVec3::new(5.0, 0.6, -0.1)).length() < 1e-12,
            "{k}: {}",
            b[k]
        );
    }
}

#[test]
fn a_pole_not_placed_stands_on_the_ground_collider() {
    // The ground at 0.5 m: the scene's own pole stands on it, 1.9 m up to the hoist's top at
    // 2.4 m; the next place is 1.8 m along x, as tall.
    let s = scene(r#"{"params": {"colliders": [{"ground": {"height": 0.5}}]}, "flags": [{}, {}]}"#);
    let (foot, height) = s.default_pole(0);
    assert_eq!(foot, [0.0, 0.5, 0.0]);
    assert!((height - (POLE - 0.5)).abs() < 1e-12);
    let (foot, height) = s.default_pole(1);
    assert_eq!(foot, [1.5 * WIDTH, 0.5, 0.0]);
    assert!((height - (POLE - 0.5)).abs() < 1e-12);
    // Placed, the poles say so; the flags stay where they were.
    let mut placed = s.clone();
    placed.place_flags();
    assert_eq!(placed.flags[1].pole.position, Some([1.5 * WIDTH, 0.5, 0.0]));
    let top = hoist_edge(&FlagSet::new(&placed).unwrap().snapshot().flags[0])[9];
    assert!(
        (top - DVec3::new(1.5 * WIDTH, POLE, 0.0)).length() < 1e-9,
        "{top}"
    );
}

#[test]
fn a_flag_with_its_own_opaque_image_is_not_cut_to_the_scenes_image() {
    // The scene cuts its flag to its image's opaque half (the left half of a 4 × 2 image);
    // flag 1 has an image of its own, opaque (no transparency set): it stays whole.
    let mut s =
        scene(r#"{"cloth": {"grid": {"shape": "image"}}, "flags": [{}, {"image": "opaque.png"}]}"#);
    let alpha = [255, 255, 0, 0, 255, 255, 0, 0];
    s.set_flag_alpha(4, 2, &alpha);
    for k in 0..2 {
        s.set_alpha_of_flag(k, 4, 2, if k == 0 { &alpha } else { &[255; 8] });
    }
    let whole = s.flag_scene(1).build_cloth();
    let cut = s.flag_scene(0).build_cloth();
    assert!(s.flag_scene(1).cloth.grid.unwrap().alpha.is_none());
    assert!(s.flag_scene(0).cloth.grid.unwrap().alpha.is_some());
    let cut_nodes = |c: &flagsim::sim::Cloth| {
        (0..c.node_count())
            .filter(|&i| c.topology.mesh.is_cut(i))
            .count()
    };
    assert_eq!(cut_nodes(&whole), 0);
    assert!(cut_nodes(&cut) >= 30, "{}", cut_nodes(&cut));
}

#[test]
fn the_list_of_flags_and_their_scenes() {
    let s = scene(r#"{"flags": [{"name": "a"}, {"name": "b"}, {"shape": "pennant"}]}"#);
    let scenes = s.flag_scenes();
    assert_eq!(scenes.len(), 3);
    for (k, alone) in scenes.iter().enumerate() {
        assert_eq!(*alone, s.flag_scene(k));
    }
    assert_eq!(
        scenes[2].cloth.grid.as_ref().unwrap().shape,
        FlagShape::Pennant
    );
    assert_eq!(s.flag_list(), s.flags);
    // A scene of one flag lists one entry that changes nothing.
    let one = Scene::load("flag").unwrap();
    assert_eq!(one.flag_list(), vec![FlagSpec::default()]);
    assert_eq!(one.flag_scenes(), vec![one.clone()]);
    // Exactly 64 flags are taken.
    let many = format!("{{\"flags\": [{}]}}", vec!["{}"; 64].join(","));
    assert_eq!(scene(&many).flag_count(), 64);
}

#[test]
fn each_flags_image_sets_its_own_transparency_and_proportions() {
    let mut s = scene(
        r#"{"cloth": {"grid": {"shape": "image"}},
            "flags": [{"image": "a.png"}, {"image": "b.png", "size": [2, 1]}]}"#,
    );
    // Alpha under 128 is transparent: a mask only where some value is.
    s.set_alpha_of_flag(0, 2, 1, &[128, 255]);
    assert!(s.flags[0].alpha.is_none());
    s.set_alpha_of_flag(0, 2, 1, &[127, 255]);
    assert!(s.flags[0].alpha.is_some());
    assert!(s.flags[1].alpha.is_none());
    assert!(s.flag_scene(0).cloth.grid.unwrap().alpha.is_some());
    // A 3:1 image: flag 0 keeps its 0.8 m height and takes 2.4 m of width; flag 1 wrote its
    // size and keeps it; so does flag 0 once fitted (its size is written now).
    assert!(s.fit_flag_to_image(0, 300, 100));
    let [w, h] = s.flags[0].size.unwrap();
    assert!((w - 3.0 * HOIST).abs() < 1e-9 && (h - HOIST).abs() < 1e-12);
    assert!(!s.fit_flag_to_image(0, 300, 100));
    assert!(!s.fit_flag_to_image(1, 300, 100));
    assert_eq!(s.flags[1].size, Some([2.0, 1.0]));
    assert!(!s.fit_flag_to_image(7, 300, 100));
}

#[test]
fn a_flag_set_says_which_flag_diverged_and_stops_when_every_flag_has() {
    // The flags preset with explicit Euler at 4 × its 1/60 s step: every flag blows up within
    // a few steps (the guard stops each, keeping its last good state).
    let mut s = Scene::load("flags").unwrap();
    s.params.integrator = flagsim::sim::IntegratorKind::ExplicitEuler;
    s.params.dt *= 4.0;
    let mut set = FlagSet::new(&s).unwrap();
    assert!(set.divergence().is_none());
    let mut steps = 0;
    while set.step() {
        steps += 1;
        assert!(steps < 600, "never stopped");
    }
    assert!(set.flags.iter().all(|f| f.divergence.is_some()));
    let (k, d) = set.divergence().expect("a divergence");
    assert_eq!(k, 0);
    assert_eq!(d, set.flags[0].divergence.as_ref().unwrap());
    // With flag 0 healthy again, the first stopped flag is flag 1.
    set.flags[0].clear_divergence();
    assert_eq!(set.divergence().map(|(k, _)| k), Some(1));
}

#[test]
fn a_shift_drag_moves_the_selected_flags_pole() {
    let (snap, mut controls) = facing_flags();
    let view = ViewSettings::default();
    controls.flag = 1;
    // Press beside flag 1's pole top (x = 1.8, y = 2.4), with shift, and drag 40 px right.
    let at = pixel(&controls, Vec3::new(1.8, 2.4, 0.0));
    controls.handle(Input::Shift(true), false, &snap, &view);
    controls.handle(Input::CursorMoved(at), false, &snap, &view);
    let press = Input::Button {
        button: Button::Left,
        pressed: true,
    };
    assert!(controls.handle(press, false, &snap, &view).is_empty());
    let out = controls.handle(
        Input::CursorMoved(at + Vec2::new(40.0, 0.0)),
        false,
        &snap,
        &view,
    );
    match &out[..] {
        [Command::Flag(1, c)] => match **c {
            Command::SetPoleOffset(offset) => {
                assert!(offset.x > 0.05 && offset.y.abs() < 1e-3, "{offset}");
            }
            ref other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(controls.flag, 1);
}
