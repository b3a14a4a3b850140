//! The settings file: read back equal, and never a failed start.
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use crate::render::RenderQuality;
use crate::render::drawing::view::ViewSettings;
use crate::sim::format::scene::Scene;
use crate::ui::UiState;
use crate::ui::recent::RecentFiles;

use super::*;
use crate::ui::recent::FileKind;

/// Settings with every field away from its default.
fn changed() -> Settings {
    let mut scene = Scene::load("flag").unwrap();
    scene.params.dt = 0.01;
    scene.params.wind.velocity = [1.0, 0.0, 3.0];
    scene.render.texture = Some(PathBuf::from("/tmp/some flag.png"));
    let mut recent = RecentFiles::default();
    recent.add(FileKind::Scene, Path::new("/tmp/a.json"));
    recent.add(FileKind::Image, Path::new("/tmp/b.png"));
    let mut view = ViewSettings {
        key_wireframe: true,
        dv_overlay: true,
        dv_scale: 2.5,
        compare: true,
        ..ViewSettings::default()
    };
    view.render.wrinkle_c = 3.0;
    Settings {
        window: [900, 700],
        camera: Some(CameraSettings {
            target: [0.1, 1.5, -0.2],
            yaw: 0.7,
            pitch: -0.3,
            distance: 2.5,
        }),
        scene: Some(scene),
        scene_size_written: [false, true],
        view,
        quality: Some(RenderQuality {
            msaa_samples: 4,
            anisotropy: 8,
            fxaa: false,
        }),
        render_scale: Some("0.75".into()),
        time_scale: 0.5,
        record_fps: 24.0,
        record_format: "gif".into(),
        screenshot_panels: false,
        live_plots: true,
        plot_window: 45.0,
        lab: vec!["choi-ko".into(), "verlet".into()],
        scene_path: "/tmp/x.json".into(),
        image_path: "/tmp/y.png".into(),
        csv_path: "out.csv".into(),
        recent,
    }
}

#[test]
fn settings_written_read_back_equal() {
    let s = changed();
    // Every field differs from the default, so a field that is not read back shows.
    let d = Settings::default();
    let (a, b) = (
        serde_json::to_value(&s).unwrap(),
        serde_json::to_value(&d).unwrap(),
    );
    for (name, value) in a.as_object().unwrap() {
        assert_ne!(Some(value), b.get(name), "{name} is at its default");
    }
    let (back, warnings) = Settings::from_json(&s.to_json());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(back, s);
    assert_eq!(Settings::from_json(&d.to_json()), (d, vec![]));
}

#[test]
fn a_file_that_is_not_json_gives_the_defaults_and_a_warning() {
    for text in [
        "",
        "garbage \u{0}\u{7f}",
        "[1, 2]",
        "null",
        "{\"window\": [900,",
    ] {
        let (s, warnings) = Settings::from_json(text);
        assert_eq!(s, Settings::default(), "{text:?}");
        assert_eq!(warnings.len(), 1, "{text:?}: {warnings:?}");
    }
}

#[test]
fn each_wrong_or_out_of_range_field_takes_its_default_with_a_warning() {
    let good = serde_json::to_value(changed()).unwrap();
    let d = serde_json::to_value(Settings::default()).unwrap();
    let bad: &[(&str, Value)] = &[
        ("window", serde_json::json!("big")),
        ("window", serde_json::json!([8, 600])),
        ("window", serde_json::json!([900, 99999])),
        (
            "camera",
            serde_json::json!({"target": [0, 0, 0], "yaw": 0, "pitch": 3, "distance": 2}),
        ),
        (
            "camera",
            serde_json::json!({"target": [0, 0, 0], "yaw": 0, "pitch": 0, "distance": -1}),
        ),
        ("view", serde_json::json!({"dv_scale": 0})),
        (
            "view",
            serde_json::json!({"render": {"resolution": [1, 1]}}),
        ),
        (
            "quality",
            serde_json::json!({"msaa_samples": 3, "anisotropy": 1}),
        ),
        ("render_scale", serde_json::json!("0.1")),
        ("render_scale", serde_json::json!(0.75)),
        ("time_scale", serde_json::json!(1e9)),
        ("time_scale", serde_json::json!("fast")),
        ("record_fps", serde_json::json!(0)),
        ("record_format", serde_json::json!("avi")),
        ("plot_window", serde_json::json!(5)),
        ("lab", serde_json::json!(["kang", "no-such"])),
        ("screenshot_panels", serde_json::json!(1)),
        ("recent", serde_json::json!(3)),
        (
            "recent",
            serde_json::json!([{"kind": "video", "path": "/x"}]),
        ),
        ("scene_path", serde_json::json!(42)),
    ];
    for (name, value) in bad {
        let mut file = good.clone();
        file[*name] = value.clone();
        let (s, warnings) = Settings::from_json(&file.to_string());
        assert_eq!(warnings.len(), 1, "{name} = {value}: {warnings:?}");
        assert!(warnings[0].contains(name), "{}", warnings[0]);
        let mut expected = good.clone();
        expected[*name] = d[*name].clone();
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            expected,
            "{name} = {value}"
        );
    }
}

#[test]
fn a_refused_scene_gives_the_flag_preset_with_a_warning() {
    let mut file = serde_json::to_value(changed()).unwrap();
    file["scene"]["params"]["dt"] = serde_json::json!(-1.0);
    let (s, warnings) = Settings::from_json(&file.to_string());
    assert_eq!(s.scene, None);
    assert!(
        warnings.len() == 1 && warnings[0].contains("params.dt"),
        "{warnings:?}"
    );
    file["scene"] = serde_json::json!("a string");
    let (s, warnings) = Settings::from_json(&file.to_string());
    assert_eq!((s.scene, warnings.len()), (None, 1));
}

#[test]
fn the_defaults_are_a_fresh_viewers_panels() {
    let ui = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let mut taken = Settings::default();
    taken.take_panels(&ui);
    assert_eq!(
        Settings {
            scene: None,
            scene_size_written: [false; 2],
            quality: None,
            ..taken
        },
        Settings::default()
    );
    // And giving the defaults to a fresh viewer changes none of its panels.
    let mut given = UiState::new(Scene::load("flag").unwrap(), 0.12);
    Settings::default().give_panels(&mut given);
    let mut again = Settings::default();
    again.take_panels(&given);
    assert_eq!(again, {
        let mut t = Settings::default();
        t.take_panels(&ui);
        t
    });
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsim-settings-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_change_is_written_once_it_has_stood_and_read_back_at_the_next_start() {
    let dir = folder("store");
    let path = dir.join("deeper").join(FILE_NAME);
    let mut opened = Store::open(Some(Place::File(path.clone())));
    assert!(opened.warnings.is_empty());
    assert_eq!(opened.settings, Settings::default());
    let t = Instant::now();
    opened.store.observe(changed(), t);
    assert_eq!(opened.store.save_if_due(t + SAVE_DELAY / 2), None);
    assert!(!path.exists(), "written before the change stood");
    assert_eq!(opened.store.save_if_due(t + SAVE_DELAY), None);
    assert!(path.exists(), "not written");
    let again = Store::open(Some(Place::File(path.clone())));
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert_eq!(again.settings, changed());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_broken_file_is_read_as_defaults_with_a_warning_and_replaced_on_save() {
    let dir = folder("broken");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(FILE_NAME);
    std::fs::write(&path, b"{\"window\": \"huge\", \"time_scale\": 2}").unwrap();
    let mut opened = Store::open(Some(Place::File(path.clone())));
    assert_eq!(opened.settings.time_scale, 2.0);
    assert_eq!(opened.settings.window, DEFAULT_WINDOW);
    assert!(opened.warnings.iter().any(|w| w.contains("window")));
    // The last warning names the file it rewrites.
    let path_text = path.display().to_string();
    assert!(
        opened
            .warnings
            .last()
            .is_some_and(|w| w.contains(&path_text)),
        "{:?}",
        opened.warnings
    );
    assert_eq!(opened.store.place(), Some(&Place::File(path.clone())));
    // Even unchanged, the good values are written over the broken file.
    opened.store.save(opened.settings.clone()).unwrap();
    let again = Store::open(Some(Place::File(path)));
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn without_a_file_nothing_is_read_or_written() {
    let mut opened = Store::open(None);
    assert_eq!(opened.settings, Settings::default());
    assert!(opened.store.place().is_none());
    assert_eq!(opened.store.save(changed()), Ok(()));
    assert_eq!(Store::location(true), None);
}

#[test]
fn kept_settings_go_to_a_settings_file() {
    // `FLAGSIM_CONFIG_DIR` or the platform's config folder (a home is set wherever the tests
    // run); either way the file is `settings.json`.
    let Some(Place::File(path)) = Store::location(false) else {
        panic!("no settings file: {:?}", Store::location(false));
    };
    assert_eq!(path.file_name(), Some(std::ffi::OsStr::new(FILE_NAME)));
}

#[test]
fn a_settings_file_that_cannot_be_read_gives_the_defaults_and_says_why() {
    // A folder where the file should be: reading it fails, and not as a missing file.
    let dir = folder("unreadable");
    let path = dir.join(FILE_NAME);
    std::fs::create_dir_all(&path).unwrap();
    let opened = Store::open(Some(Place::File(path.clone())));
    assert_eq!(opened.settings, Settings::default());
    assert!(
        opened
            .warnings
            .first()
            .is_some_and(|w| w.contains("cannot read them")),
        "{:?}",
        opened.warnings
    );
    // And it is not written over: saving tells why it failed.
    let mut store = opened.store;
    assert!(store.save(changed()).is_err());
    std::fs::remove_dir_all(dir).unwrap();
}
