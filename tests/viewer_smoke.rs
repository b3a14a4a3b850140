//! The viewer as a user starts it, on a real (virtual) display: it opens, renders frames, saves a
//! screenshot showing the flag and the panels, and exits 0. Needs an X display (`xvfb-run`, as
//! the README's test command provides) and a GPU adapter (lavapipe in CI); without a display
//! it prints SKIPPED, except under `CI=true` where that is a failure.

use std::io::Write;
use std::process::Command;

mod process;

/// The viewer with a settings folder of its own (never the real home's), fresh each call.
fn viewer() -> Command {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "flagsim-config-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flagsim"));
    cmd.env("FLAGSIM_CONFIG_DIR", dir)
        .env("RUST_BACKTRACE", "0");
    cmd
}

fn have_display() -> bool {
    let ok = std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but no display: run the tests under xvfb-run"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: no display for the viewer smoke test"
        );
    }
    ok
}

#[test]
fn the_viewer_starts_renders_saves_a_screenshot_and_exits_cleanly() {
    if !have_display() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flagsim-viewer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("viewer.png");
    let out = process::output_within(
        viewer()
            .args([
                "view",
                "flag",
                "--size",
                "1024x640",
                "--exit-after-frames",
                "90",
                // The view drawn at half size and stretched; the screenshot still full size.
                "--render-scale",
                "50%",
            ])
            .arg("--screenshot")
            .arg(&shot)
            .env("RUST_BACKTRACE", "0"),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "viewer exited with {:?}: {err}",
        out.status
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("viewer.png"));
    let img = image::open(&shot).expect("screenshot written").to_rgba8();
    assert!(
        img.width() >= 1024 && img.height() >= 640,
        "{:?}",
        img.dimensions()
    );
    // The flag's navy field is in the picture …
    let navy = img
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0;
            b < 140 && b as i32 > r as i32 + 25 && b as i32 > g as i32 + 10
        })
        .count();
    assert!(navy > 2000, "only {navy} flag pixels");
    // … and so is the dark egui panel on the left (and the sky is not there).
    let column: Vec<_> = (0..img.height()).map(|y| img.get_pixel(40, y).0).collect();
    let dark = column
        .iter()
        .filter(|p| p[0] < 60 && p[1] < 60 && p[2] < 60)
        .count();
    assert!(
        dark > column.len() / 2,
        "no panel on the left ({dark} dark pixels)"
    );
    // The camera frames the part of the window right of the panel, not the whole window
    // behind it: the flag sits nearer the middle of that part than the window's middle (it
    // was hidden behind a wide panel). The panel ends where the middle row leaves its grey.
    let y = img.height() / 2;
    let edge = (0..img.width())
        .find(|&x| {
            img.get_pixel(x, y).0[..3]
                .iter()
                .map(|&c| u32::from(c))
                .sum::<u32>()
                > 200
        })
        .expect("the view right of the panel");
    let navy_x: Vec<u32> = img
        .enumerate_pixels()
        .filter(|(_, _, p)| {
            let [r, g, b, _] = p.0;
            b < 140 && b as i32 > r as i32 + 25 && b as i32 > g as i32 + 10
        })
        .map(|(x, _, _)| x)
        .collect();
    let centre = navy_x.iter().map(|&x| f64::from(x)).sum::<f64>() / navy_x.len() as f64;
    let free_middle = f64::from(edge + img.width()) / 2.0;
    let window_middle = f64::from(img.width()) / 2.0;
    assert!(
        (centre - free_middle).abs() < (centre - window_middle).abs(),
        "the flag's centre is at x = {centre:.0}: the view right of the panel (from {edge}) has \
         its middle at {free_middle}, the window at {window_middle}"
    );
    // Frames were really rendered: the run reports its frame rate, at the scale asked for.
    assert!(err.contains("frames at"), "{err}");
    assert!(err.contains("render scale 50 % (fixed)"), "{err}");
}

#[test]
fn the_lab_shows_one_cloth_per_copy_side_by_side() {
    if !have_display() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flagsim-lab-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("lab.png");
    let out = process::output_within(
        viewer()
            .args([
                "view",
                "flag",
                "--compare",
                "kang,xpbd",
                "--size",
                "1024x640",
                "--exit-after-frames",
                "60",
                "--render-scale",
                "50%",
            ])
            .arg("--screenshot")
            .arg(&shot)
            .env("RUST_BACKTRACE", "0"),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "viewer exited with {:?}: {err}",
        out.status
    );
    let img = image::open(&shot).expect("screenshot written").to_rgba8();
    // Columns with the flag's navy in them, then the runs of such columns: one flag per copy,
    // with sky between them.
    let navy_column: Vec<bool> = (0..img.width())
        .map(|x| {
            (0..img.height())
                .filter(|&y| {
                    let [r, g, b, _] = img.get_pixel(x, y).0;
                    b < 140 && b as i32 > r as i32 + 25 && b as i32 > g as i32 + 10
                })
                .count()
                >= 3
        })
        .collect();
    let mut runs = Vec::new();
    let mut start = None;
    for (x, on) in navy_column.iter().chain([&false]).enumerate() {
        match (on, start) {
            (true, None) => start = Some(x),
            (false, Some(s)) => {
                runs.push((s, x));
                start = None;
            }
            _ => {}
        }
    }
    let flags: Vec<_> = runs.iter().filter(|(a, b)| b - a >= 20).collect();
    assert_eq!(flags.len(), 2, "navy column runs {runs:?}");
    // One in each half of the view right of the panel.
    assert!(flags[0].1 < 700 && flags[1].0 > 650, "{flags:?}");
}

#[test]
fn the_viewer_rejects_a_bad_scene_before_opening_a_window() {
    let out = process::output_within(
        viewer().args(["view", "no-such-scene"]),
        std::time::Duration::from_mins(5),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown preset"));
    let out = process::output_within(
        viewer().args(["view", "--render-scale", "0.3"]),
        std::time::Duration::from_mins(5),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected `auto` or a scale from 0.5 to 1"),
        "{err}"
    );
}

#[test]
fn a_failed_screenshot_shows_its_notice_in_the_visible_view() {
    if !have_display() {
        return;
    }
    // `screenshots` is a regular file in the working folder, so F12 cannot create the folder
    // its PNG goes to.
    let dir = std::env::temp_dir().join(format!("flagsim-notice-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("screenshots"), b"not a folder").unwrap();
    let shot = dir.join("out").join("notice.png");
    let out = process::output_within(
        viewer()
            .current_dir(&dir)
            .args([
                "view",
                "flag",
                "--size",
                "1024x640",
                "--no-persist",
                // F12 at frame 20 goes through the key's own code; 20 frames later the window,
                // panels and notices included, is saved where it can be.
                "--press-f12-at-frame",
                "20",
                "--exit-after-frames",
                "40",
            ])
            .arg("--screenshot")
            .arg(&shot)
            .env("RUST_BACKTRACE", "0"),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exited with {:?}: {err}", out.status);
    let img = image::open(&shot).expect("screenshot written").to_rgba8();
    // The error notice's own fill colour, pixel by pixel (egui paints a flat fill exactly).
    let fill = flagsim::ui::notices::ERROR_FILL;
    let is_fill = |p: &image::Rgba<u8>| {
        let [r, g, b, _] = p.0;
        r.abs_diff(fill.r()) <= 3 && g.abs_diff(fill.g()) <= 3 && b.abs_diff(fill.b()) <= 3
    };
    let found: Vec<(u32, u32)> = img
        .enumerate_pixels()
        .filter(|(_, _, p)| is_fill(p))
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(
        found.len() > 3000,
        "only {} pixels of the error notice's colour",
        found.len()
    );
    // All of it right of the side panel (320 points wide at this scale), in the top part of
    // the view.
    let left = found.iter().map(|p| p.0).min().unwrap();
    let bottom = found.iter().map(|p| p.1).max().unwrap();
    assert!(
        left > 330,
        "the notice reaches x = {left}, under the side panel"
    );
    assert!(
        bottom < 200,
        "the notice reaches y = {bottom}, not at the view's top"
    );
    // The side panel is there, on the left: mostly dark egui background.
    let dark = (0..img.height())
        .filter(|&y| img.get_pixel(40, y).0[..3].iter().all(|&c| c < 60))
        .count();
    assert!(dark as u32 > img.height() / 2, "no panel on the left");
}

/// Runs the viewer for a few frames with `config` as its settings folder and returns its
/// stderr and the size of the last frame.
fn run_with_settings(config: &std::path::Path, args: &[&str]) -> (String, (u32, u32)) {
    let shot = config.with_extension("png");
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .env("FLAGSIM_CONFIG_DIR", config)
            .env("RUST_BACKTRACE", "0")
            .arg("view")
            .args(args)
            .args([
                "--exit-after-frames",
                "5",
                "--render-scale",
                "0.5",
                "--screenshot",
            ])
            .arg(&shot),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{args:?} exited with {:?}: {err}",
        out.status
    );
    let size = image::image_dimensions(&shot).expect("screenshot written");
    (err, size)
}

#[test]
fn settings_are_kept_between_runs_and_no_persist_neither_reads_nor_writes() {
    if !have_display() {
        return;
    }
    let config = std::env::temp_dir().join(format!("flagsim-keep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&config);
    let file = config.join("settings.json");
    // A first run writes the settings when it closes …
    let (err, size) = run_with_settings(&config, &["flag", "--size", "700x500"]);
    assert_eq!(size, (700, 500));
    assert!(!err.contains("warning"), "{err}");
    let written = std::fs::read_to_string(&file).expect("settings written at exit");
    assert!(written.contains("\"scene\""), "{written}");
    // … and the next one, with no size and no scene named, takes them back.
    let (_, size) = run_with_settings(&config, &[]);
    assert_eq!(size, (700, 500), "the window size was not remembered");

    // --no-persist: a size in the file is not read, and the file is not touched.
    let mut settings: serde_json::Value = serde_json::from_str(&written).unwrap();
    settings["window"] = serde_json::json!([640, 480]);
    std::fs::write(&file, settings.to_string()).unwrap();
    let before = std::fs::read(&file).unwrap();
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    let (_, size) = run_with_settings(&config, &["--no-persist"]);
    assert_ne!(size, (640, 480), "--no-persist read the settings");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "--no-persist wrote the settings"
    );
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        modified
    );
    let names: Vec<_> = std::fs::read_dir(&config)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["settings.json"], "--no-persist left files");

    // A broken file: a warning, the defaults, a normal start; then it is replaced.
    std::fs::write(&file, b"{ not json").unwrap();
    let (err, _) = run_with_settings(&config, &["flag"]);
    assert!(err.contains("warning: settings: not JSON"), "{err}");
    let replaced = std::fs::read_to_string(&file).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&replaced).is_ok(),
        "{replaced}"
    );
    std::fs::remove_dir_all(&config).unwrap();
}

#[test]
fn the_capture_panel_records_a_gif_in_lock_step_with_the_simulation() {
    if !have_display() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flagsim-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = process::output_within(
        viewer().current_dir(&dir).args([
            "view",
            "flag",
            "--size",
            "960x600",
            "--no-persist",
            "--record-format",
            "gif",
            // Record (the panel's button, through the action it sends) from frame 10 to 70.
            "--toggle-recording-at-frame",
            "10",
            "--toggle-recording-at-frame",
            "70",
            "--exit-after-frames",
            "80",
        ]),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exited with {:?}: {err}", out.status);
    let gifs: Vec<_> = std::fs::read_dir(dir.join("screenshots"))
        .expect("screenshots/ made")
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(gifs.len(), 1, "{gifs:?}");
    let gif = &gifs[0];
    let name = gif.file_name().unwrap().to_string_lossy();
    assert!(
        name.starts_with("flagsim-") && name.ends_with(".gif"),
        "{name}"
    );
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(gif).unwrap())
        .unwrap();
    // The window's frames, at 30 frames per simulated second (3 or 4 hundredths each).
    assert!(decoder.width() >= 960 && decoder.height() >= 600);
    let mut delays = Vec::new();
    let mut changed = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        delays.push(frame.delay);
        // A later frame stores what changed; a frame of one transparent pixel changed nothing.
        if delays.len() > 1 && u32::from(frame.width) * u32::from(frame.height) > 1 {
            changed += 1;
        }
    }
    // One frame per drawn frame at most (60 drawn while recording), and the flag moved.
    assert!(
        (5..=60).contains(&delays.len()),
        "{} frames: {delays:?}",
        delays.len()
    );
    assert!(delays.iter().all(|d| (3..=4).contains(d)), "{delays:?}");
    assert!(
        changed >= delays.len() / 2,
        "{changed} of {} frames changed",
        delays.len()
    );
}

/// With no render scale asked for, a software adapter (lavapipe) starts the view at 75 %,
/// *auto*'s lowest, and climbs only while frames are quick (so within the 30 frames *auto*
/// leaves uncounted it is still there); a GPU draws every pixel.
#[test]
fn the_default_render_scale_starts_at_three_quarters_on_a_software_adapter() {
    if !have_display() {
        return;
    }
    let software = flagsim::render::GpuContext::new_headless()
        .is_ok_and(|g| g.adapter.get_info().device_type == wgpu::DeviceType::Cpu);
    let out = process::output_within(
        viewer().args(["view", "flag", "--exit-after-frames", "20", "--no-persist"]),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let expected = if software {
        "render scale 75 % (auto)"
    } else {
        "render scale 100 % (fixed)"
    };
    assert!(err.contains(expected), "{err}");
}

/// The viewer's GPU mode as a user starts it (`--device gpu`): the flag is drawn from the
/// simulation's node buffer on the device, and nothing is read back but the small snapshots
/// (the key nodes' positions and velocities, at most 30 a second): counted by the viewer and
/// printed at exit.
#[test]
fn the_viewers_gpu_mode_draws_the_gpus_nodes_and_reads_back_only_snapshots() {
    if !have_display() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flagsim-viewer-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("gpu.png");
    let frames = 150;
    let out = process::output_within(
        viewer()
            .args(["view", "flag", "--device", "gpu", "--size", "960x600"])
            .args(["--exit-after-frames", &frames.to_string(), "--no-persist"])
            .arg("--screenshot")
            .arg(&shot),
        std::time::Duration::from_mins(5),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {err}", out.status);
    let line = err
        .lines()
        .find(|l| l.contains("simulation on the GPU"))
        .unwrap_or_else(|| panic!("no GPU line: {err}"));
    // "… N steps, F frames (D drawn from its node buffer), S snapshots and W waited
    // read-backs of K key nodes, B bytes in all"
    let number_before = |word: &str| -> u64 {
        let at = line
            .find(word)
            .unwrap_or_else(|| panic!("{word:?} in {line}"));
        line[..at]
            .split(|c: char| !c.is_ascii_digit())
            .rfind(|t| !t.is_empty())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("a number before {word:?} in {line}"))
    };
    let steps = number_before(" steps");
    let drawn = number_before(" drawn");
    let snapshots = number_before(" snapshots");
    let waited = number_before(" waited");
    let nodes = number_before(" key nodes");
    let bytes = number_before(" bytes");
    assert_eq!(number_before(" frames"), frames, "{line}");
    assert_eq!(nodes, 100, "{line}");
    // Most frames drew the GPU's nodes (the first few come before the GPU is lent).
    assert!(drawn >= frames / 2, "{line}");
    assert!(snapshots >= 1 && waited == 0, "{line}");
    // Only the snapshots were read back: each is the key nodes' x and v, two vec4<f32>, and
    // the GPU guard's report, 12 words.
    assert_eq!(bytes, snapshots * (nodes * 2 * 16 + 12 * 4), "{line}");
    // At most one a step, and at most 30 a second over the run.
    let seconds: f64 = line
        .rsplit("over ")
        .next()
        .and_then(|t| t.trim_end_matches(" s").parse().ok())
        .unwrap_or_else(|| panic!("the seconds in {line}"));
    assert!(snapshots <= steps, "{line}");
    assert!(snapshots as f64 <= 30.0 * seconds + 1.0, "{line}");
    let img = image::open(&shot).expect("screenshot written").to_rgba8();
    let navy = img
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0;
            b < 140 && b as i32 > r as i32 + 25 && b as i32 > g as i32 + 10
        })
        .count();
    assert!(navy > 1500, "only {navy} flag pixels");
}
