//! Video out: `flagsim render --video` as a user runs it (GIF decoded frame by frame, MP4 read
//! back with ffprobe), its refusals, and the GIF writer on frames made here (no GPU needed).
//! Without a GPU adapter the rendering tests print `SKIPPED` and pass, except under `CI=true`;
//! without ffmpeg the MP4 test prints `SKIPPED`, except under `CI=true` (CI installs it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use flagsim::video::{Encoder, VideoError, VideoWriter};
use image::{Rgba, RgbaImage};

mod process;

fn flagsim(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flagsim"));
    cmd.args(args).env("RUST_BACKTRACE", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    process::output_within(&mut cmd, std::time::Duration::from_mins(3))
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsim-video-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted (temporary files included: they start with a dot).
fn entries(dir: &Path) -> Vec<String> {
    let names: std::collections::BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.into_iter().collect()
}

/// Held by every test that starts ffmpeg inside this test process (the `-version` probes and the
/// abandoned encode), so that counting this process's ffmpeg children sees only one test's.
static IN_PROCESS_FFMPEG: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether `ffmpeg -version` (and each other program named) runs, started under the lock.
fn runs(programs: &[&str]) -> bool {
    let _only_us = IN_PROCESS_FFMPEG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    programs.iter().all(|p| {
        Command::new(p)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether a failed run failed for want of a GPU adapter (then SKIPPED, except under CI).
fn no_adapter(out: &Output) -> bool {
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && err.contains("adapter") {
        assert!(!under_ci(), "CI=true but no GPU adapter: {err}");
        let _ = writeln!(std::io::stderr(), "SKIPPED: no GPU adapter. {err}");
        return true;
    }
    false
}

/// A decoded GIF: its frames as they appear on screen (each drawn over the one before, as the
/// format's "keep" disposal says), their delays in hundredths of a second, and whether it loops.
struct Decoded {
    frames: Vec<RgbaImage>,
    delays: Vec<u16>,
    loops: bool,
}

fn decode_gif(path: &Path) -> Decoded {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (w, h) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let mut screen = RgbaImage::new(w, h);
    let (mut frames, mut delays) = (Vec::new(), Vec::new());
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.dispose, gif::DisposalMethod::Keep);
        let (fw, left, top) = (usize::from(frame.width), frame.left, frame.top);
        for (i, px) in frame.buffer.chunks(4).enumerate() {
            // Transparent pixels (alpha 0) show what was there.
            if px[3] != 0 {
                let (x, y) = (
                    u32::from(left) + (i % fw) as u32,
                    u32::from(top) + (i / fw) as u32,
                );
                screen.put_pixel(x, y, Rgba([px[0], px[1], px[2], 255]));
            }
        }
        frames.push(screen.clone());
        delays.push(frame.delay);
    }
    let loops = decoder.repeat() == gif::Repeat::Infinite;
    Decoded {
        frames,
        delays,
        loops,
    }
}

fn differing_pixels(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
}

/// A frame of a `w × h` clip: a grey background and a red square at `x`.
fn moving_square(w: u32, h: u32, x: u32) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(w, h, Rgba([200, 210, 220, 255]));
    for y in 10..30 {
        for dx in 0..20 {
            img.put_pixel(x + dx, y, Rgba([220, 30, 40, 255]));
        }
    }
    img
}

#[test]
fn the_gif_writer_stores_each_frame_as_it_looks_with_delays_from_the_fps() {
    let dir = folder("writer");
    let path = dir.join("square.gif");
    let mut writer = VideoWriter::create(&path, 96, 40, 25.0).unwrap();
    let xs = [2, 10, 10, 30, 60];
    for x in xs {
        writer.push(&moving_square(96, 40, x)).unwrap();
    }
    // Nothing is where the clip goes before it is finished.
    assert!(!path.exists());
    assert_eq!(writer.finish().unwrap(), 5);
    assert_eq!(entries(&dir), ["square.gif"]);
    let gif = decode_gif(&path);
    assert!(gif.loops);
    // 25 fps: 4 hundredths a frame.
    assert_eq!(gif.delays, [4; 5]);
    assert_eq!(gif.frames.len(), 5);
    for (frame, x) in gif.frames.iter().zip(xs) {
        let want = moving_square(96, 40, x);
        // Colours through the shared palette: within a few levels of what was drawn.
        for (p, q) in frame.pixels().zip(want.pixels()) {
            for c in 0..3 {
                assert!(p[c].abs_diff(q[c]) <= 12, "{p:?} for {q:?}");
            }
        }
    }
    // The repeated frame is the same picture; the others differ.
    assert_eq!(differing_pixels(&gif.frames[1], &gif.frames[2]), 0);
    assert!(differing_pixels(&gif.frames[2], &gif.frames[3]) > 0);
}

/// A `w × h` frame of varied colours (slow to quantize: a palette must be learnt), shifted by
/// `k`.
fn busy_frame(w: u32, h: u32, k: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let v = (x * 7 + y * 13 + k * 29) % 256;
        Rgba([v as u8, (v * 3 % 256) as u8, ((x + y + k) % 256) as u8, 255])
    })
}

#[test]
fn the_encoder_thread_writes_every_frame_handed_over_finished_or_dropped() {
    let dir = folder("encoder");
    // Finished: the count of frames, and the file in place when `finish` returns.
    let path = dir.join("finished.gif");
    let mut encoder = Encoder::start(VideoWriter::create(&path, 320, 240, 25.0).unwrap());
    for k in 0..3 {
        encoder.push(busy_frame(320, 240, k)).unwrap();
    }
    assert_eq!(encoder.finish().unwrap(), 3);
    assert_eq!(decode_gif(&path).frames.len(), 3);
    // Dropped (a viewer closed while recording): the frames handed over are still written, and
    // the file is in place when the drop returns.
    let path = dir.join("dropped.gif");
    let mut encoder = Encoder::start(VideoWriter::create(&path, 320, 240, 25.0).unwrap());
    for k in 0..2 {
        encoder.push(busy_frame(320, 240, k)).unwrap();
    }
    drop(encoder);
    assert_eq!(decode_gif(&path).frames.len(), 2);
    assert_eq!(entries(&dir), ["dropped.gif", "finished.gif"]);
}

/// Processes named ffmpeg whose parent is this test process, running or not yet reaped (from
/// `/proc/PID/stat`: "pid (comm) state ppid …").
fn ffmpeg_children() -> usize {
    let me = std::process::id().to_string();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            let (comm, rest) = stat.split_once(") ").unwrap_or_default();
            comm.ends_with("(ffmpeg") && rest.split(' ').nth(1) == Some(me.as_str())
        })
        .count()
}

#[test]
fn an_abandoned_video_leaves_the_file_that_was_there_and_nothing_beside_it() {
    let dir = folder("abandoned");
    let mut names = vec!["clip.gif"];
    if runs(&["ffmpeg"]) {
        names.push("clip.mp4");
    }
    // Another test's `ffmpeg -version` would be counted as ours (CI once saw it).
    let _only_us = IN_PROCESS_FFMPEG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for name in names {
        let path = dir.join(name);
        std::fs::write(&path, b"the previous clip").unwrap();
        let mut encoder = Encoder::start(VideoWriter::create(&path, 320, 240, 25.0).unwrap());
        for k in 0..3 {
            encoder.push(busy_frame(320, 240, k)).unwrap();
        }
        encoder.abandon();
        // ffmpeg is stopped and reaped, not left to finish a file beside the old one.
        assert_eq!(ffmpeg_children(), 0, "{name}");
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"the previous clip",
            "{name}"
        );
    }
    assert!(
        entries(&dir).iter().all(|n| !n.starts_with('.')),
        "{:?}",
        entries(&dir)
    );
}

#[test]
fn a_video_with_a_bad_name_rate_or_size_is_refused_and_nothing_is_written() {
    let dir = folder("refused");
    for (name, fps) in [
        ("clip.avi", 30.0),
        ("clip", 30.0),
        ("clip.gif", 60.0),
        ("clip.gif", 0.0),
    ] {
        let e = VideoWriter::create(&dir.join(name), 64, 64, fps)
            .err()
            .unwrap();
        assert!(e.is_bad_input(), "{name} at {fps}: {e}");
    }
    // A frame of another size, and a clip with no frames.
    let mut writer = VideoWriter::create(&dir.join("a.gif"), 64, 64, 30.0).unwrap();
    assert!(writer.push(&RgbaImage::new(32, 64)).is_err());
    drop(writer);
    let writer = VideoWriter::create(&dir.join("b.gif"), 64, 64, 30.0).unwrap();
    assert!(matches!(writer.finish(), Err(VideoError::Empty(_))));
    drop(VideoWriter::create(&dir.join("c.gif"), 64, 64, 30.0).unwrap());
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
}

/// Runs `flagsim render flag --video NAME --seconds 0.5 --fps FPS --size SIZE` into a folder of
/// its own and checks that it succeeded and wrote that one file; `None` when there is no adapter.
fn render_clip(name: &str, fps: &str, size: &str) -> Option<PathBuf> {
    let dir = folder(name);
    let path = dir.join(name);
    let video = path.to_str().unwrap();
    let args = [
        "render",
        "flag",
        "--video",
        video,
        "--seconds",
        "0.5",
        "--fps",
        fps,
        "--size",
        size,
    ];
    let out = flagsim(&args, &[]);
    if no_adapter(&out) {
        return None;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(entries(&dir), [name]);
    Some(path)
}

/// `render --video --device gpu`: the clip steps on the GPU (the log says so) and shows the
/// flag the CPU's `kang-mg` clip shows: every frame nearly the CPU clip's own (the two steps
/// part by f32's rounding), the flag moving from frame to frame.
#[test]
fn render_video_on_the_gpu_shows_the_cpus_clip() {
    let clip = |device: &str| -> Option<(Decoded, String)> {
        let name = format!("flag-{device}.gif");
        let dir = folder(&name);
        let path = dir.join(&name);
        let args = [
            "render",
            "flag",
            "--video",
            path.to_str().unwrap(),
            "--seconds",
            "0.4",
            "--fps",
            "10",
            "--size",
            "200x120",
            "--integrator",
            "kang-mg",
            "--device",
            device,
        ];
        let out = flagsim(&args, &[("RUST_LOG", "info")]);
        if no_adapter(&out) {
            return None;
        }
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{device}: {err}");
        assert_eq!(entries(&dir), [name.as_str()]);
        Some((decode_gif(&path), err))
    };
    let Some((gpu, log)) = clip("gpu") else {
        return;
    };
    assert!(log.contains("stepped on the GPU"), "{log}");
    let (cpu, log) = clip("cpu").expect("the CPU clip");
    assert!(log.contains("stepped on the CPU"), "{log}");
    assert_eq!(gpu.frames.len(), 4);
    assert_eq!(cpu.frames.len(), 4);
    let pixels = 200 * 120;
    // Pixels of another colour, not another shade (the GIF's palette is each clip's own).
    let far = |p: &Rgba<u8>, q: &Rgba<u8>| (0..3).any(|c| p.0[c].abs_diff(q.0[c]) > 40);
    for (k, (g, c)) in gpu.frames.iter().zip(&cpu.frames).enumerate() {
        let apart = g
            .pixels()
            .zip(c.pixels())
            .filter(|(p, q)| far(p, q))
            .count();
        assert!(
            apart < pixels / 50,
            "frame {k}: {apart} pixels differ from the CPU's"
        );
    }
    for pair in gpu.frames.windows(2) {
        let changed = differing_pixels(&pair[0], &pair[1]);
        assert!(
            changed > 50,
            "the flag stood still: {changed} pixels changed"
        );
    }
}

#[test]
fn render_video_writes_a_looping_gif_of_the_clip_length_at_the_fps() {
    let Some(path) = render_clip("flag.gif", "30", "160x100") else {
        return;
    };
    let gif = decode_gif(&path);
    assert!(gif.loops);
    // 0.5 s at 30 fps: 15 frames, delays of 3 or 4 hundredths adding up to 50.
    assert_eq!(gif.frames.len(), 15);
    assert!(
        gif.delays.iter().all(|d| (3..=4).contains(d)),
        "{:?}",
        gif.delays
    );
    assert_eq!(gif.delays.iter().map(|d| u32::from(*d)).sum::<u32>(), 50);
    assert_eq!(gif.frames[0].dimensions(), (160, 100));
    // The flag moves from frame to frame; the sky stays (most pixels unchanged).
    for pair in gif.frames.windows(2) {
        let changed = differing_pixels(&pair[0], &pair[1]);
        assert!(
            changed > 0 && changed < 160 * 100 / 2,
            "{changed} pixels changed"
        );
    }
}

#[test]
fn render_video_writes_an_h264_mp4_through_ffmpeg() {
    if !runs(&["ffmpeg", "ffprobe"]) {
        assert!(!under_ci(), "CI=true but ffmpeg/ffprobe are not installed");
        let _ = writeln!(std::io::stderr(), "SKIPPED: no ffmpeg on PATH");
        return;
    }
    // An odd height: padded to an even one for H.264's 4:2:0 colour.
    let Some(path) = render_clip("flag.mp4", "24", "160x101") else {
        return;
    };
    // A bare name goes to the working folder.
    let here = folder("mp4-here");
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .current_dir(&here)
            .args(["render", "flag", "--video", "clip.mp4", "--seconds", "0.1"])
            .args(["--size", "64x64"]),
        std::time::Duration::from_mins(2),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(entries(&here), ["clip.mp4"]);
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=codec_name,width,height,r_frame_rate,nb_read_frames",
        ])
        .args(["-of", "default=noprint_wrappers=1"])
        .arg(&path)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&probe.stdout);
    // 0.5 s at 24 fps: 12 frames.
    for line in [
        "codec_name=h264",
        "width=160",
        "height=102",
        "r_frame_rate=24/1",
        "nb_read_frames=12",
    ] {
        assert!(said.lines().any(|l| l == line), "{line} not in:\n{said}");
    }
}

#[test]
fn mp4_without_ffmpeg_names_what_to_install_and_writes_nothing() {
    let dir = folder("no-ffmpeg");
    let path = dir.join("flag.mp4");
    let args = [
        "render",
        "flag",
        "--video",
        path.to_str().unwrap(),
        "--seconds",
        "1",
    ];
    let out = flagsim(&args, &[("FLAGSIM_FFMPEG", "/nonexistent/ffmpeg")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("install ffmpeg") && err.contains(".gif"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(entries(&dir).is_empty());
}

#[test]
fn a_failed_encode_keeps_the_file_that_was_there() {
    let dir = folder("failed-encode");
    let path = dir.join("flag.mp4");
    std::fs::write(&path, b"the previous clip").unwrap();
    // An "ffmpeg" that takes nothing and fails.
    let args = [
        "render",
        "flag",
        "--video",
        path.to_str().unwrap(),
        "--seconds",
        "1",
        "--size",
        "64x64",
    ];
    let out = flagsim(&args, &[("FLAGSIM_FFMPEG", "false")]);
    if no_adapter(&out) {
        return;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("false exited"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"the previous clip");
    assert_eq!(entries(&dir), ["flag.mp4"]);
}

#[test]
fn bad_video_arguments_exit_2_with_a_message() {
    let dir = folder("bad-args");
    let gif = dir.join("x.gif");
    let gif = gif.to_str().unwrap();
    for (args, says) in [
        (
            vec!["render", "flag", "--video", "x.avi", "--seconds", "1"],
            ".gif or .mp4",
        ),
        (
            vec![
                "render",
                "flag",
                "--video",
                gif,
                "--seconds",
                "1",
                "--fps",
                "60",
            ],
            "a GIF plays 1..=50",
        ),
        (
            vec!["render", "flag", "--video", gif, "--seconds", "0"],
            "--seconds",
        ),
        (
            vec!["render", "flag", "--video", gif, "--seconds", "nan"],
            "--seconds",
        ),
        (vec!["render", "flag", "--video", gif], "--seconds"),
        (
            vec![
                "render",
                "flag",
                "--video",
                gif,
                "--seconds",
                "1",
                "--out",
                "a.png",
            ],
            "--out",
        ),
        (vec!["render", "flag"], "--out"),
    ] {
        let out = flagsim(&args, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // An unwritable place is a failure while running: exit 1, said before anything is drawn
    // (for an MP4 too, not in ffmpeg's words about a temporary name).
    for video in ["/nonexistent/dir/x.gif", "/nonexistent/dir/x.mp4"] {
        let args = ["render", "flag", "--video", video, "--seconds", "1"];
        let out = flagsim(&args, &[("FLAGSIM_FFMPEG", "false")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(video) && err.contains("cannot write"), "{err}");
    }
    assert!(entries(&dir).is_empty());
}
