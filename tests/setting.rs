//! The setting around the flag: the sky's colour or gradient, a background
//! image, the ground on or off, the pole's colour and its finial. Scene files keep them (relative
//! paths resolved, bad values named); the panel changes them without losing anything; renders
//! (lavapipe in CI) show them. Without a GPU adapter the render tests print `SKIPPED` and pass,
//! except under `CI=true`.

mod common;

use std::path::PathBuf;

use flagsim::render::drawing::headless::HeadlessRenderer;
use flagsim::render::drawing::view::{self, ViewSettings};
use flagsim::render::{Light, OrbitCamera};
use flagsim::sim::Scene;
use flagsim::sim::format::setting::{Color, Finial, Setting, Sky};
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::ui::notices::Level;
use flagsim::ui::{UiAction, UiState, panels::scene_files};
use image::{Rgba, RgbaImage};

const SIZE: [u32; 2] = [480, 320];

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsim-setting-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// An 8 × 2 image of columns: black, black, red, green, green, blue, black, black.
fn bands() -> RgbaImage {
    const COLUMNS: [[u8; 3]; 8] = [
        [0, 0, 0],
        [0, 0, 0],
        [255, 0, 0],
        [0, 255, 0],
        [0, 255, 0],
        [0, 0, 255],
        [0, 0, 0],
        [0, 0, 0],
    ];
    RgbaImage::from_fn(8, 2, |x, _| {
        let [r, g, b] = COLUMNS[x as usize];
        Rgba([r, g, b, 255])
    })
}

#[test]
fn a_scene_keeps_its_setting_with_the_background_relative_to_the_file() {
    let dir = temp("scene-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dusk.json");
    std::fs::write(
        &path,
        r##"{"render": {"setting": {
            "sky": {"zenith": "#102040", "horizon": [1, 0.5, 0.25]},
            "background": "hills.png", "ground": false,
            "pole_color": "#fff", "finial": "spear", "finial_color": [0, 0, 0]}}}"##,
    )
    .unwrap();
    let scene = Scene::from_file(&path).unwrap();
    let setting = &scene.render.setting;
    assert_eq!(
        setting.background.as_deref(),
        Some(dir.join("hills.png").as_path())
    );
    assert_eq!(setting.sky.zenith, Color::from_rgb8([0x10, 0x20, 0x40]));
    assert_eq!(setting.sky.horizon, Color([1.0, 0.5, 0.25]));
    assert!(!setting.ground);
    assert_eq!(setting.pole_color, Color([1.0; 3]));
    assert_eq!(setting.finial, Finial::Spear);
    // Saved and read again: the same setting.
    let again = Scene::from_json(&scene.to_json(), "saved").unwrap();
    assert_eq!(again.render.setting, scene.render.setting);
    // A scene that says nothing about it gets the default, and a saved one leaves it out.
    let plain = Scene::load("flag").unwrap();
    assert!(plain.render.setting.is_default());
    assert!(!plain.to_json().contains("setting"));
}

#[test]
fn a_bad_setting_is_refused_naming_the_field() {
    for (json, field, what) in [
        (
            r#"{"render": {"setting": {"sky": "navy"}}}"#,
            "render.setting.sky",
            "hex colour",
        ),
        (
            r#"{"render": {"setting": {"pole_color": [2, 0, 0]}}}"#,
            "render.setting.pole_color",
            "2 is outside 0–1",
        ),
        (
            r#"{"render": {"setting": {"finial": "eagle"}}}"#,
            "render.setting.finial",
            "ball",
        ),
        (
            r#"{"render": {"setting": {"sun": true}}}"#,
            "render.setting",
            "unknown field `sun`",
        ),
    ] {
        let e = Scene::from_json(json, "t.json").unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(what), "{json}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

fn backgrounds(actions: &[UiAction]) -> Vec<Option<(u32, u32)>> {
    actions
        .iter()
        .filter_map(|a| match a {
            UiAction::Background(image) => Some(image.as_ref().map(|i| i.dimensions())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_panel_sets_and_removes_a_background_and_keeps_everything_on_a_bad_one() {
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let good = temp("panel-background.png");
    bands().save(&good).unwrap();
    let mut actions = Vec::new();
    scene_files::set_background(&mut state, &mut actions, Some(&good));
    assert_eq!(backgrounds(&actions), [Some((8, 2))]);
    assert_eq!(
        state.view.render.setting.background.as_deref(),
        Some(good.as_path())
    );
    assert_eq!(state.files.background_path, good.display().to_string());

    // A file that is not an image: a message naming it, nothing else changes.
    let bad = temp("not-an-image.png");
    std::fs::write(&bad, b"plain text").unwrap();
    let before = state.view.render.clone();
    let mut actions = Vec::new();
    scene_files::set_background(&mut state, &mut actions, Some(&bad));
    assert!(actions.is_empty(), "{actions:?}");
    assert_eq!(state.view.render, before);
    let notice = state.notices.last().unwrap();
    assert_eq!(notice.level, Level::Error);
    assert!(
        notice.text.contains("background image") && notice.text.contains("not-an-image.png"),
        "{}",
        notice.text
    );

    // Back to the sky.
    let mut actions = Vec::new();
    scene_files::set_background(&mut state, &mut actions, None);
    assert_eq!(backgrounds(&actions), [None]);
    assert_eq!(state.view.render.setting.background, None);
}

#[test]
fn a_background_from_a_files_bytes_is_drawn_and_one_cut_short_changes_nothing() {
    // A page's file chooser hands the bytes and the file's name, never a path.
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let mut png = Vec::new();
    bands()
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let mut actions = Vec::new();
    scene_files::set_background_bytes(&mut state, &mut actions, "bands.png", png.clone());
    assert_eq!(backgrounds(&actions), [Some((8, 2))]);
    assert_eq!(
        state.view.render.setting.background.as_deref(),
        Some(std::path::Path::new("bands.png"))
    );
    assert_eq!(state.files.background_path, "bands.png");
    assert_eq!(state.notices.last().unwrap().level, Level::Info);

    // The same file cut in half: a message naming it, the background stays.
    let before = state.view.render.clone();
    let mut actions = Vec::new();
    let half = png[..png.len() / 2].to_vec();
    scene_files::set_background_bytes(&mut state, &mut actions, "half.png", half);
    assert!(actions.is_empty(), "{actions:?}");
    assert_eq!(state.view.render, before);
    let notice = state.notices.last().unwrap();
    assert_eq!(notice.level, Level::Error);
    assert!(
        notice.text.contains("background image") && notice.text.contains("half.png"),
        "{}",
        notice.text
    );
}

#[test]
fn a_scene_with_a_missing_background_is_refused_whole_and_a_good_one_brings_its_own() {
    let mut state = UiState::new(Scene::load("flag").unwrap(), 0.12);
    let missing = temp("missing-background.json");
    std::fs::write(
        &missing,
        r#"{"render": {"setting": {"background": "nowhere.png", "ground": false}}}"#,
    )
    .unwrap();
    let before = (state.scene.clone(), state.view.render.clone());
    let mut actions = Vec::new();
    scene_files::open_scene_file(&mut state, &mut actions, &missing);
    assert!(actions.is_empty(), "{actions:?}");
    assert_eq!((state.scene.clone(), state.view.render.clone()), before);
    let text = &state.notices.last().unwrap().text;
    assert!(
        text.contains("not loaded") && text.contains("nowhere.png"),
        "{text}"
    );

    // With the image there, the scene comes with it; a scene without one clears it.
    bands().save(temp("nowhere.png")).unwrap();
    let mut actions = Vec::new();
    scene_files::open_scene_file(&mut state, &mut actions, &missing);
    assert_eq!(backgrounds(&actions), [Some((8, 2))]);
    assert!(!state.view.render.setting.ground);
    assert_eq!(
        state.files.background_path,
        temp("nowhere.png").display().to_string()
    );
    let mut actions = Vec::new();
    assert!(scene_files::load_scene(
        &mut state,
        &mut actions,
        Scene::load("flag").unwrap(),
        "flag"
    ));
    assert_eq!(backgrounds(&actions), [None]);
    assert!(state.view.render.setting.is_default());
}

#[test]
fn the_command_line_refuses_a_missing_background_before_rendering() {
    let scene = temp("cli-background.json");
    std::fs::write(
        &scene,
        r#"{"render": {"setting": {"background": "gone.jpg"}}}"#,
    )
    .unwrap();
    let out_png = temp("cli-never-written.png");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flagsim"))
        .args([
            "render",
            scene.to_str().unwrap(),
            "--out",
            out_png.to_str().unwrap(),
        ])
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("background image") && err.contains("gone.jpg"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!out_png.exists());
}

// ---------------------------------------------------------------------------------------------
// Renders.

fn renderer() -> Option<HeadlessRenderer> {
    common::headless_or_skip(SIZE[0], SIZE[1])
}

/// The flag preset after 30 steps.
fn flag_snapshot() -> Snapshot {
    let mut sim = Scene::load("flag").unwrap().simulation().unwrap();
    for _ in 0..30 {
        assert!(sim.step());
    }
    Snapshot::of(&sim)
}

fn draw(
    headless: &mut HeadlessRenderer,
    snap: &Snapshot,
    setting: &Setting,
    camera: &OrbitCamera,
) -> RgbaImage {
    let mut view = ViewSettings::default();
    view.render.setting = setting.clone();
    headless.render(snap, &view, camera).unwrap()
}

/// A camera 30 m above the flag looking up, away from the sun: nothing but sky in view.
fn sky_camera() -> OrbitCamera {
    let sun = Light::default().direction.normalize();
    let camera = |yaw: f32| OrbitCamera {
        target: glam::Vec3::new(0.0, 30.0, 0.0),
        yaw,
        pitch: -0.7,
        ..OrbitCamera::default()
    };
    // Of four headings, the one looking furthest from the sun (no glow in the picture).
    (0..4)
        .map(|k| camera(k as f32 * std::f32::consts::FRAC_PI_2))
        .min_by(|a, b| {
            let away = |c: &OrbitCamera| (c.target - c.eye()).normalize().dot(sun);
            away(a).total_cmp(&away(b))
        })
        .unwrap()
}

fn rgb(image: &RgbaImage, x: u32, y: u32) -> [i32; 3] {
    let p = image.get_pixel(x, y).0;
    [p[0], p[1], p[2]].map(i32::from)
}

fn near(got: [i32; 3], want: [u8; 3], tolerance: i32) -> bool {
    got.iter()
        .zip(want)
        .all(|(g, w)| (g - i32::from(w)).abs() <= tolerance)
}

#[test]
fn a_plain_sky_is_its_colour_everywhere_and_a_gradient_runs_from_horizon_to_zenith() {
    let Some(mut headless) = renderer() else {
        return;
    };
    let snap = flag_snapshot();
    let camera = sky_camera();
    let plain = Setting {
        sky: Sky::plain(Color::from_rgb8([0x20, 0x40, 0x60])),
        ..Setting::default()
    };
    let image = draw(&mut headless, &snap, &plain, &camera);
    for (x, y, p) in image.enumerate_pixels() {
        assert!(
            near([p[0], p[1], p[2]].map(i32::from), [0x20, 0x40, 0x60], 1),
            "pixel {x}, {y}: {p:?}"
        );
    }
    // A gradient: the picture's top looks higher, so it is nearer the zenith's colour.
    let gradient = Setting {
        sky: Sky {
            zenith: Color::from_rgb8([0, 0, 255]),
            horizon: Color::from_rgb8([255, 255, 255]),
        },
        ..Setting::default()
    };
    let image = draw(&mut headless, &snap, &gradient, &camera);
    let [top, bottom] = [0, SIZE[1] - 1].map(|y| rgb(&image, SIZE[0] / 2, y));
    assert!(top[2] >= 250 && bottom[2] >= 250, "{top:?} {bottom:?}");
    assert!(top[0] + 20 < bottom[0], "top {top:?}, bottom {bottom:?}");
}

#[test]
fn a_background_image_covers_the_view_cropped_not_stretched() {
    let Some(mut headless) = renderer() else {
        return;
    };
    let snap = flag_snapshot();
    let camera = sky_camera();
    headless.set_background(Some(&bands())).unwrap();
    let image = draw(&mut headless, &snap, &Setting::default(), &camera);
    // The view is 1.5 : 1 and the image 4 : 1, so the image's height fills the view and only
    // the middle 1.5 / 4 of its width shows: u from 0.3125 to 0.6875, the centres of the red
    // and the blue column. Stretched, the view's sides would be black. (The edge pixels' centres
    // lie half a pixel inside, where a trace of the next column mixes in: 0.3 % in linear light,
    // about 10 in sRGB.)
    let [w, h] = SIZE;
    for y in [0, h / 2, h - 1] {
        let [left, middle, right] = [0, w / 2, w - 1].map(|x| rgb(&image, x, y));
        assert!(near(left, [255, 0, 0], 16), "left {left:?} at row {y}");
        assert!(
            near(middle, [0, 255, 0], 16),
            "middle {middle:?} at row {y}"
        );
        assert!(near(right, [0, 0, 255], 16), "right {right:?} at row {y}");
    }
    assert!(
        image
            .pixels()
            .all(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]) > 150),
        "a black column of the image shows"
    );
    // Back to the sky.
    headless.set_background(None).unwrap();
    let image = draw(&mut headless, &snap, &Setting::default(), &camera);
    let sky = rgb(&image, w / 2, 0);
    assert!(sky[2] > sky[0] + 40, "{sky:?}");
}

#[test]
fn a_background_behind_the_flag_shows_around_it_and_not_over_it() {
    let Some(mut headless) = renderer() else {
        return;
    };
    let snap = flag_snapshot();
    let camera = view::framing_camera(&[&snap]);
    let sky = draw(&mut headless, &snap, &Setting::default(), &camera);
    headless.set_background(Some(&bands())).unwrap();
    let over = draw(&mut headless, &snap, &Setting::default(), &camera);
    // Where the flag (or the pole) is, the pictures agree; around it they do not.
    let (mut same, mut differ) = (0, 0);
    for (a, b) in sky.pixels().zip(over.pixels()) {
        if a == b {
            same += 1;
        } else {
            differ += 1;
        }
    }
    assert!(same > 5_000, "the flag is hidden: {same} pixels alike");
    assert!(
        differ > 50_000,
        "the background does not show: {differ} pixels differ"
    );
}

#[test]
fn without_the_ground_the_sky_shows_below_the_horizon() {
    let Some(mut headless) = renderer() else {
        return;
    };
    let snap = flag_snapshot();
    let camera = view::framing_camera(&[&snap]);
    let grey = Sky::plain(Color::from_rgb8([0x80; 3]));
    let with = Setting {
        sky: grey,
        ..Setting::default()
    };
    let without = Setting {
        ground: false,
        ..with.clone()
    };
    let [on, off] = [&with, &without].map(|s| draw(&mut headless, &snap, s, &camera));
    let corner = |image: &RgbaImage| rgb(image, 2, SIZE[1] - 3);
    // The ground's checkers are green-grey; the sky below the horizon is the grey sky's haze.
    let ground = corner(&on);
    assert!(ground[1] > ground[2] + 5, "ground {ground:?}");
    let haze = corner(&off);
    assert!(
        (haze[0] - haze[1]).abs() <= 1 && (haze[1] - haze[2]).abs() <= 1 && haze[0] <= 0x80,
        "below the horizon {haze:?}"
    );
}

/// Pixels whose red and blue both exceed green by 60 (a magenta finial, lit).
fn magenta_rows(image: &RgbaImage) -> Vec<u32> {
    image
        .enumerate_pixels()
        .filter(|(_, _, p)| {
            let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
            r > g + 60 && b > g + 60
        })
        .map(|(_, y, _)| y)
        .collect()
}

#[test]
fn the_finial_is_a_ball_a_spear_or_nothing_and_the_pole_takes_its_colour() {
    let Some(mut headless) = renderer() else {
        return;
    };
    let snap = flag_snapshot();
    let camera = view::framing_camera(&[&snap]);
    let with = |finial| Setting {
        finial,
        finial_color: Color::from_rgb8([255, 0, 255]),
        ..Setting::default()
    };
    let rows = Finial::ALL.map(|f| magenta_rows(&draw(&mut headless, &snap, &with(f), &camera)));
    let [ball, spear, none] = &rows;
    assert!(ball.len() > 20, "ball: {} pixels", ball.len());
    assert!(spear.len() > 20, "spear: {} pixels", spear.len());
    assert!(
        none.is_empty(),
        "no finial, yet {} magenta pixels",
        none.len()
    );
    // The spear is 6 pole radii tall, the ball 1.6 radii round: the spear's tip is higher.
    let top = |rows: &[u32]| *rows.iter().min().unwrap();
    assert!(
        top(spear) + 5 < top(ball),
        "spear top {} ball top {}",
        top(spear),
        top(ball)
    );

    // The pole's colour: a green pole shows green where the default grey one shows none.
    let green = |image: &RgbaImage| {
        image
            .pixels()
            .filter(|p| {
                let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
                g > r + 60 && g > b + 60
            })
            .count()
    };
    let grey = green(&draw(&mut headless, &snap, &Setting::default(), &camera));
    let painted = Setting {
        pole_color: Color::from_rgb8([0, 255, 0]),
        ..Setting::default()
    };
    let painted = green(&draw(&mut headless, &snap, &painted, &camera));
    assert!(
        grey < 5 && painted > 100,
        "grey pole {grey}, green pole {painted}"
    );
}
