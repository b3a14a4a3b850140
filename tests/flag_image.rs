//! Any image as the flag: decoding and its errors, the cloth taking the image's shape, the
//! panels keeping everything as it was when an image or a dropped scene cannot be used, and
//! renders (lavapipe in CI) that show the image's colours on both sides, mirrored on the back.
//! Without a GPU adapter the render tests print `SKIPPED` and pass, except under `CI=true`.
#![allow(clippy::trivially_copy_pass_by_ref)] // reason: pixel predicates take `&Rgba` as iterators hand them out

mod common;

use std::path::{Path, PathBuf};

use flagsim::render::drawing::headless::HeadlessRenderer;
use flagsim::render::drawing::view::{self, ViewSettings};
use flagsim::render::passes::flag_texture::{MAX_DECODE_SIDE, MAX_FLAG_SIDE, load_flag_image};
use flagsim::sim::Scene;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::sim_thread::Command;
use flagsim::ui::notices::Level;
use flagsim::ui::{UiAction, UiState, panels::scene_files};
use image::{Rgba, RgbaImage};

const RED: [u8; 3] = [220, 30, 30];
const GREEN: [u8; 3] = [30, 200, 30];

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsim-flag-image-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `w × h` pixels: the left half (the hoist, u < ½) red, the right half green.
fn two_colour(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, _| {
        let [r, g, b] = if 2 * x < w { RED } else { GREEN };
        Rgba([r, g, b, 255])
    })
}

fn write_png(name: &str, image: &RgbaImage) -> PathBuf {
    let path = temp(name);
    image.save(&path).unwrap();
    path
}

/// The CRC-32 of a PNG chunk (ISO 3309, polynomial 0xEDB88320), for hand-made headers.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG whose header says `w × h` RGBA pixels and whose only data is an empty IDAT.
fn png_header_only(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let chunk = |out: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend(data);
        out.extend(&body);
        out.extend(crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &[]);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn error_of(path: &Path) -> String {
    load_flag_image(path)
        .expect_err("the image must be refused")
        .to_string()
}

#[test]
fn the_crc_matches_the_png_specification() {
    // The IEND chunk's CRC, as every PNG file ends: AE 42 60 82.
    assert_eq!(crc32(b"IEND"), 0xAE42_6082);
}

#[test]
fn png_jpeg_and_webp_decode_to_their_size() {
    let img = two_colour(64, 32);
    for ext in ["png", "jpg", "webp"] {
        let path = temp(&format!("two.{ext}"));
        image::DynamicImage::ImageRgba8(img.clone())
            .to_rgb8()
            .save(&path)
            .unwrap();
        let loaded = load_flag_image(&path).unwrap();
        assert_eq!(loaded.dimensions(), (64, 32), "{ext}");
        // Both colours survive (JPEG only approximately).
        let left = loaded.get_pixel(8, 16).0;
        let right = loaded.get_pixel(56, 16).0;
        assert!(left[0] > 180 && left[1] < 80, "{ext}: left {left:?}");
        assert!(right[1] > 160 && right[0] < 80, "{ext}: right {right:?}");
    }
}

#[test]
fn the_format_comes_from_the_content_not_the_name() {
    let path = temp("really-a-png.jpg");
    two_colour(20, 10)
        .save_with_format(&path, image::ImageFormat::Png)
        .unwrap();
    assert_eq!(load_flag_image(&path).unwrap().dimensions(), (20, 10));
}

#[test]
fn a_large_image_is_downscaled_keeping_its_shape() {
    // 5000 × 1000 → 2048 × 409.6, rounded.
    let path = write_png("wide.png", &two_colour(5000, 1000));
    let loaded = load_flag_image(&path).unwrap();
    assert_eq!(MAX_FLAG_SIDE, 2048);
    assert_eq!(loaded.dimensions(), (2048, 410));
    // Small ones stay as they are.
    let small = write_png("small.png", &two_colour(300, 200));
    assert_eq!(load_flag_image(&small).unwrap().dimensions(), (300, 200));
    // Exactly the limit stays too.
    let exact = write_png("exact.png", &two_colour(2048, 16));
    assert_eq!(load_flag_image(&exact).unwrap().dimensions(), (2048, 16));
}

#[test]
fn bad_images_are_refused_with_a_message_naming_the_file() {
    let missing = temp("no-such-flag.png");
    let e = error_of(&missing);
    assert!(
        e.contains("no-such-flag.png") && e.contains("cannot read"),
        "{e}"
    );

    let corrupt = temp("corrupt.png");
    std::fs::write(&corrupt, b"this is not an image at all, just some words").unwrap();
    let e = error_of(&corrupt);
    assert!(
        e.contains("corrupt.png") && e.contains("not a PNG, JPEG or WebP"),
        "{e}"
    );

    // A real PNG cut short.
    let mut bytes = Vec::new();
    two_colour(64, 64)
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    let truncated = temp("truncated.png");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let e = error_of(&truncated);
    assert!(
        e.contains("truncated.png") && e.contains("cut short"),
        "{e}"
    );

    let bmp = temp("picture.bmp");
    two_colour(8, 8).save(&bmp).unwrap_or_else(|_| {
        // No BMP encoder built in: a BMP header is enough to be recognised.
        std::fs::write(&bmp, b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0").unwrap();
    });
    let e = error_of(&bmp);
    assert!(
        e.contains("picture.bmp") && e.contains("not supported"),
        "{e}"
    );

    let empty = temp("empty.png");
    std::fs::write(&empty, png_header_only(0, 0)).unwrap();
    let e = error_of(&empty);
    assert!(e.contains("empty.png"), "{e}");

    let huge = temp("huge.png");
    std::fs::write(&huge, png_header_only(MAX_DECODE_SIDE + 1, 100)).unwrap();
    let e = error_of(&huge);
    assert!(e.contains("huge.png") && e.contains("too large"), "{e}");
}

/// The grid's width and height, rounded to µm (0.8 × 3 is 2.4000000000000004).
fn grid_size(scene: &Scene) -> (f64, f64) {
    let g = scene.cloth.grid.as_ref().unwrap();
    let um = |x: f64| (x * 1e6).round() / 1e6;
    (um(g.width), um(g.height))
}

#[test]
fn the_flag_takes_the_image_shape_keeping_what_the_scene_wrote() {
    // The default flag writes only its height (0.8 m, along the pole): the width follows.
    let mut flag = Scene::load("flag").unwrap();
    assert_eq!(grid_size(&flag), (1.2, 0.8));
    assert!(flag.fit_to_image(400, 100));
    assert_eq!(grid_size(&flag), (3.2, 0.8));
    // Mass, stiffness and the key grid stay.
    let g = flag.cloth.grid.as_ref().unwrap();
    assert_eq!((g.nx, g.ny, g.mass), (10, 10, 0.12));

    let scene = |grid: &str| {
        Scene::from_json(&format!(r#"{{"cloth": {{"grid": {{{grid}}}}}}}"#), "test").unwrap()
    };
    // Both written: nothing changes.
    let mut both = scene(r#""width": 2.0, "height": 0.5"#);
    assert!(!both.fit_to_image(100, 100));
    assert_eq!(grid_size(&both), (2.0, 0.5));
    // Only the width written: the height follows it.
    let mut width = scene(r#""width": 2.0"#);
    assert!(width.fit_to_image(400, 100));
    assert_eq!(grid_size(&width), (2.0, 0.5));
    // Neither: the default height stays.
    let mut neither = scene(r#""nx": 10"#);
    assert!(neither.fit_to_image(100, 200));
    assert_eq!(grid_size(&neither), (0.4, 0.8));
    // Already the image's shape: no change reported.
    let mut same = scene(r#""height": 0.8"#);
    assert!(!same.fit_to_image(3, 2));
}

#[test]
fn a_scene_texture_is_relative_to_the_scene_file() {
    let dir = temp("scene-dir");
    std::fs::create_dir_all(&dir).unwrap();
    two_colour(200, 100).save(dir.join("banner.png")).unwrap();
    let path = dir.join("banner.json");
    std::fs::write(
        &path,
        r#"{"cloth": {"grid": {"height": 0.5}}, "render": {"texture": "banner.png"}}"#,
    )
    .unwrap();
    let scene = Scene::from_file(&path).unwrap();
    assert_eq!(
        scene.render.texture.as_deref(),
        Some(dir.join("banner.png").as_path())
    );
    // The command line's path: decoded and fitted (2:1 at 0.5 m high).
    let mut scene = scene;
    let image = flagsim::cli::flag_image(&mut scene, None).unwrap().unwrap();
    assert_eq!(image.dimensions(), (200, 100));
    assert_eq!(grid_size(&scene), (1.0, 0.5));
    // `--flag-image` replaces the scene's own.
    let square = write_png("square.png", &two_colour(50, 50));
    let mut scene = Scene::from_file(&path).unwrap();
    flagsim::cli::flag_image(&mut scene, Some(&square)).unwrap();
    assert_eq!(grid_size(&scene), (0.5, 0.5));
    // A scene whose image is missing is bad input.
    std::fs::remove_file(dir.join("banner.png")).unwrap();
    let mut scene = Scene::from_file(&path).unwrap();
    let e = flagsim::cli::flag_image(&mut scene, None).unwrap_err();
    assert!(e.to_string().contains("banner.png"), "{e}");
}

fn panel_state() -> UiState {
    UiState::new(Scene::load("flag").unwrap(), 0.12)
}

fn loads(actions: &[UiAction]) -> Vec<&Scene> {
    actions
        .iter()
        .filter_map(|a| match a {
            UiAction::Sim(Command::LoadScene(scene)) => Some(&**scene),
            _ => None,
        })
        .collect()
}

fn flag_images(actions: &[UiAction]) -> Vec<(u32, u32)> {
    actions
        .iter()
        .filter_map(|a| match a {
            UiAction::FlagImage(0, image) => Some(image.dimensions()),
            UiAction::FlagImages(images) if images.len() == 1 => Some(images[0].dimensions()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_panel_puts_an_image_on_the_flag_and_restarts_it_at_the_new_shape() {
    let mut state = panel_state();
    let path = write_png("panel-wide.png", &two_colour(300, 100));
    let mut actions = Vec::new();
    scene_files::set_flag_image(&mut state, &mut actions, Some(&path));
    assert_eq!(flag_images(&actions), [(300, 100)]);
    let loaded = loads(&actions);
    assert_eq!(loaded.len(), 1);
    assert_eq!(grid_size(loaded[0]), (2.4, 0.8));
    assert_eq!(grid_size(&state.scene), (2.4, 0.8));
    assert_eq!(state.view.render.texture.as_deref(), Some(path.as_path()));
    assert!(state.notices.last().is_some_and(|n| n.level == Level::Info));

    // An image of the same shape: the motion goes on, only the texture changes.
    let same = write_png("panel-same.png", &two_colour(600, 200));
    let mut actions = Vec::new();
    scene_files::set_flag_image(&mut state, &mut actions, Some(&same));
    assert!(loads(&actions).is_empty());
    assert_eq!(flag_images(&actions), [(600, 200)]);

    // Back to the built-in flag: 3:2 again.
    let mut actions = Vec::new();
    scene_files::set_flag_image(&mut state, &mut actions, None);
    assert_eq!(flag_images(&actions), [(512, 341)]);
    assert_eq!(grid_size(loads(&actions)[0]), (1.2, 0.8));
    assert_eq!(state.view.render.texture, None);
}

#[test]
fn a_bad_image_or_dropped_scene_leaves_everything_as_it_was() {
    let mut state = panel_state();
    let good = write_png("kept.png", &two_colour(200, 100));
    scene_files::set_flag_image(&mut state, &mut Vec::new(), Some(&good));
    let before = (
        state.scene.clone(),
        state.view.render.clone(),
        state.params.clone(),
    );

    let corrupt = temp("dropped-corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\nnot really").unwrap();
    let bad_scene = temp("dropped-bad.json");
    std::fs::write(&bad_scene, r#"{"cloth": {"grid": {"nx": 1}}}"#).unwrap();
    let missing_image_scene = temp("dropped-missing-image.json");
    std::fs::write(
        &missing_image_scene,
        r#"{"cloth": {"grid": {}}, "render": {"texture": "nowhere.png"}}"#,
    )
    .unwrap();
    let [(cut_jpeg, _), ..] = &cut_short_files()[..] else {
        unreachable!()
    };
    for (path, says) in [
        (cut_jpeg.clone(), "cut short"),
        (corrupt, "dropped-corrupt.png"),
        (temp("dropped-missing.webp"), "dropped-missing.webp"),
        (bad_scene, "cloth.grid.nx"),
        (missing_image_scene, "nowhere.png"),
    ] {
        let mut actions = Vec::new();
        scene_files::drop_file(&mut state, &mut actions, &path);
        assert!(actions.is_empty(), "{}: {actions:?}", path.display());
        let last = state.notices.last().expect("a message");
        assert!(
            last.level == Level::Error && last.text.contains(says),
            "{}",
            last.text
        );
        assert_eq!(
            (
                state.scene.clone(),
                state.view.render.clone(),
                state.params.clone()
            ),
            before,
            "{}",
            path.display()
        );
    }

    // A good dropped scene loads, with its image.
    let dir = temp("dropped-good");
    std::fs::create_dir_all(&dir).unwrap();
    two_colour(100, 100).save(dir.join("square.png")).unwrap();
    let scene_path = dir.join("good.json");
    std::fs::write(
        &scene_path,
        r#"{"cloth": {"grid": {"height": 0.6}}, "render": {"texture": "square.png"}}"#,
    )
    .unwrap();
    let mut actions = Vec::new();
    scene_files::drop_file(&mut state, &mut actions, &scene_path);
    assert_eq!(flag_images(&actions), [(100, 100)]);
    assert_eq!(grid_size(loads(&actions)[0]), (0.6, 0.6));
}

#[test]
fn a_pages_file_by_its_bytes_goes_where_a_dropped_file_goes() {
    let mut state = panel_state();
    let png = std::fs::read(write_png("page-wide.png", &two_colour(300, 100))).unwrap();
    let mut actions = Vec::new();
    assert!(scene_files::drop_bytes(
        &mut state,
        &mut actions,
        "wide.png",
        png.clone()
    ));
    assert_eq!(flag_images(&actions), [(300, 100)]);
    assert_eq!(grid_size(loads(&actions)[0]), (2.4, 0.8));

    // A scene by its bytes.
    let mut actions = Vec::new();
    let scene = br#"{"cloth": {"grid": {"height": 0.5}}}"#.to_vec();
    assert!(scene_files::drop_bytes(
        &mut state,
        &mut actions,
        "tall.JSON",
        scene
    ));
    // No image in it: the format's default width, 1.2 m.
    assert_eq!(grid_size(loads(&actions)[0]), (1.2, 0.5));

    // What cannot be used: a message naming it, nothing done, the flag as it was.
    let before = (state.scene.clone(), state.view.render.clone());
    for (name, bytes, says) in [
        ("half.png", png[..png.len() / 2].to_vec(), "cut short"),
        ("noise.png", b"not an image".to_vec(), "noise.png"),
        (
            "latin1.json",
            vec![b'{', 0xe9, b'}'],
            "latin1.json is not text",
        ),
        (
            "bad.json",
            br#"{"cloth": {"grid": {"nx": 1}}}"#.to_vec(),
            "cloth.grid.nx",
        ),
    ] {
        let mut actions = Vec::new();
        assert!(!scene_files::drop_bytes(
            &mut state,
            &mut actions,
            name,
            bytes
        ));
        assert!(actions.is_empty(), "{name}: {actions:?}");
        let last = state.notices.last().expect("a message");
        assert!(
            last.level == Level::Error && last.text.contains(says),
            "{name}: {}",
            last.text
        );
        assert_eq!((state.scene.clone(), state.view.render.clone()), before);
    }
}

/// Pixels of each colour of [`two_colour`] in `image` and the mean x of each.
fn colour_spread(image: &RgbaImage) -> ((usize, f64), (usize, f64)) {
    let (mut red, mut green) = ((0, 0.0), (0, 0.0));
    for (x, _, p) in image.enumerate_pixels() {
        let [r, g, b, _] = p.0.map(f64::from);
        if r > 60.0 && r > 1.8 * g && r > 1.8 * b {
            red.0 += 1;
            red.1 += f64::from(x);
        }
        if g > 60.0 && g > 1.8 * r && g > 1.8 * b {
            green.0 += 1;
            green.1 += f64::from(x);
        }
    }
    let mean = |(n, sum): (usize, f64)| (n, sum / n.max(1) as f64);
    (mean(red), mean(green))
}

fn renderer() -> Option<HeadlessRenderer> {
    common::headless_or_skip(480, 320)
}

/// Renders `scene` after 30 steps, from the front (the automatic framing) or from behind.
fn render(
    headless: &mut HeadlessRenderer,
    scene: &Scene,
    image: Option<&RgbaImage>,
) -> [RgbaImage; 2] {
    if let Some(image) = image {
        headless.set_flag_image(image).unwrap();
    }
    let mut sim = scene.simulation().unwrap();
    for _ in 0..30 {
        assert!(sim.step());
    }
    let snap = Snapshot::of(&sim);
    let settings = ViewSettings {
        render: scene.render.clone(),
        ..ViewSettings::default()
    };
    let front = view::framing_camera(&[&snap]);
    let back = flagsim::render::OrbitCamera {
        yaw: front.yaw + std::f32::consts::PI,
        ..front
    };
    [front, back].map(|camera| headless.render(&snap, &settings, &camera).unwrap())
}

#[test]
fn a_two_colour_image_shows_both_colours_on_both_sides_mirrored_on_the_back() {
    let Some(mut headless) = renderer() else {
        return;
    };
    // Control: the built-in flag has neither colour.
    let flag = Scene::load("flag").unwrap();
    for side in render(&mut headless, &flag, None) {
        let ((red, _), (green, _)) = colour_spread(&side);
        assert!(
            red < 50 && green < 50,
            "built-in flag: {red} red, {green} green"
        );
    }
    let mut scene = Scene::load("flag").unwrap();
    let path = write_png("render-two.png", &two_colour(300, 200));
    let image = flagsim::cli::flag_image(&mut scene, Some(&path))
        .unwrap()
        .unwrap();
    let [front, back] = render(&mut headless, &scene, Some(&image));
    let ((red_f, red_fx), (green_f, green_fx)) = colour_spread(&front);
    let ((red_b, red_bx), (green_b, green_bx)) = colour_spread(&back);
    for (side, n) in [
        ("front red", red_f),
        ("front green", green_f),
        ("back red", red_b),
        ("back green", green_b),
    ] {
        assert!(n > 1500, "{side}: only {n} pixels");
    }
    // The hoist half (red) is on the other side of the fly half (green) seen from behind.
    assert!(
        (red_fx - green_fx).signum() != (red_bx - green_bx).signum(),
        "front: red at x {red_fx:.0}, green at {green_fx:.0}; back: red {red_bx:.0}, green {green_bx:.0}"
    );
}

#[test]
fn the_rendered_flag_is_as_wide_as_its_image() {
    let Some(mut headless) = renderer() else {
        return;
    };
    // Bounding box width / height of the flag's two colours, at step 0 seen from the front.
    let mut aspect = |w: u32, h: u32| {
        let mut scene = Scene::load("flag").unwrap();
        let path = write_png(&format!("aspect-{w}x{h}.png"), &two_colour(w, h));
        let image = flagsim::cli::flag_image(&mut scene, Some(&path))
            .unwrap()
            .unwrap();
        headless.set_flag_image(&image).unwrap();
        let sim = scene.simulation().unwrap();
        let snap = Snapshot::of(&sim);
        let settings = ViewSettings {
            render: scene.render.clone(),
            ..ViewSettings::default()
        };
        let camera = flagsim::render::OrbitCamera {
            yaw: 0.0,
            pitch: 0.0,
            ..view::framing_camera(&[&snap])
        };
        let shot = headless.render(&snap, &settings, &camera).unwrap();
        let (mut x0, mut x1, mut y0, mut y1) = (u32::MAX, 0, u32::MAX, 0);
        for (x, y, p) in shot.enumerate_pixels() {
            let [r, g, b, _] = p.0.map(f64::from);
            let coloured = (r > 60.0 && r > 1.8 * g && r > 1.8 * b)
                || (g > 60.0 && g > 1.8 * r && g > 1.8 * b);
            if coloured {
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        }
        assert!(x1 > x0 && y1 > y0, "no flag in the {w}×{h} render");
        f64::from(x1 - x0) / f64::from(y1 - y0)
    };
    let square = aspect(100, 100);
    let wide = aspect(400, 100);
    // Seen straight on, the picture's ratio is the flag's: 1 and 4, within the perspective.
    assert!(
        (0.75..1.3).contains(&square),
        "square flag drawn at {square:.2}"
    );
    assert!((3.0..5.0).contains(&wide), "4:1 flag drawn at {wide:.2}");
}

/// `assets/custom-flag.jpg` (a whole JPEG of 35 361 bytes), the two-colour image as PNG and
/// as WebP, each cut short: the JPEG at 10 000 bytes (the decoder fills the rest with grey
/// without a word), the PNG just before its `IEND` chunk (every pixel is there), the WebP at
/// half.
fn cut_short_files() -> Vec<(PathBuf, &'static str)> {
    let encode = |format| {
        let mut bytes = Vec::new();
        two_colour(64, 64)
            .write_to(&mut std::io::Cursor::new(&mut bytes), format)
            .unwrap();
        bytes
    };
    let jpeg = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/custom-flag.jpg"
    ))
    .unwrap();
    let png = encode(image::ImageFormat::Png);
    let webp = encode(image::ImageFormat::WebP);
    let files = [
        ("cut.jpg", jpeg[..10_000].to_vec()),
        ("cut.png", png[..png.len() - 12].to_vec()),
        ("cut.webp", webp[..webp.len() / 2].to_vec()),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let path = temp(name);
            std::fs::write(&path, bytes).unwrap();
            (path, name)
        })
        .collect()
}

#[test]
fn a_file_cut_short_is_refused_whatever_its_format() {
    // The whole files load.
    let jpeg = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/custom-flag.jpg");
    assert!(load_flag_image(Path::new(jpeg)).is_ok());
    for (path, name) in cut_short_files() {
        let e = error_of(&path);
        assert!(e.contains(name) && e.contains("cut short"), "{e}");
    }
}

#[test]
fn the_command_line_refuses_a_file_cut_short_with_exit_2_and_one_line() {
    for (path, name) in cut_short_files() {
        let out_png = temp(&format!("cli-{name}-never-written.png"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(["render", "flag", "--flag-image", path.to_str().unwrap()])
            .args(["--out", out_png.to_str().unwrap()])
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(name) && err.contains("cut short") && err.trim().lines().count() == 1,
            "{name}: {err}"
        );
        assert!(!out_png.exists(), "{name}");
    }
}

#[test]
fn the_command_line_refuses_a_bad_image_with_exit_2_before_opening_anything() {
    let corrupt = temp("cli-corrupt.jpg");
    std::fs::write(&corrupt, b"\xff\xd8\xff\xe0 cut short").unwrap();
    let out_png = temp("cli-never-written.png");
    for args in [
        vec![
            "render",
            "flag",
            "--flag-image",
            corrupt.to_str().unwrap(),
            "--out",
            out_png.to_str().unwrap(),
        ],
        vec!["view", "flag", "--flag-image", "/nonexistent/flag.webp"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(&args)
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("flag image") && err.trim().lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!out_png.exists());
}
