//! `flagsim bench --quick --json` runs and reports every section (the numbers themselves are
//! machine-dependent; docs/performance.md's come from a full run).

use std::process::Command;

mod process;

/// `flagsim ARGS`, within five minutes.
fn flagsim(args: &[&str]) -> std::process::Output {
    process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args(args),
        std::time::Duration::from_mins(5),
    )
}

/// The JSON a GPU bench `flagsim ARGS` printed, the run asserted successful; `None` (the test
/// is skipped) where there is no GPU adapter, except under `CI=true`.
fn gpu_bench_json(args: &[&str]) -> Option<serde_json::Value> {
    let out = flagsim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !out.status.success() && !ci && err.contains("no GPU adapter") {
        eprintln!("SKIPPED: no GPU adapter ({err})");
        return None;
    }
    assert!(out.status.success(), "{err}");
    Some(serde_json::from_slice(&out.stdout).expect("JSON"))
}

#[test]
fn bench_quick_json_has_every_section() {
    let plot = std::env::temp_dir().join(format!("flagsim-bench-{}.svg", std::process::id()));
    let _ = std::fs::remove_file(&plot);
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(["bench", "--quick", "--json", "--plot"])
            .arg(&plot),
        std::time::Duration::from_mins(10),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for key in [
        "machine",
        "step_cost",
        "publish_cost",
        "kang_10x10_seconds",
        "ratios",
        "scaling",
        "parallel",
        "stability",
        "accuracy_vs_h2k_over_m",
        "accuracy_vs_resolution",
        "upsampling",
        "wavelet",
    ] {
        assert!(v.get(key).is_some(), "missing section {key}");
    }
    // A publish cost per quick size (10 and 16), each a positive time.
    let publish = v["publish_cost"].as_array().unwrap();
    assert_eq!(
        publish
            .iter()
            .map(|p| p["n"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [10, 16]
    );
    for p in publish {
        let median = p["seconds"]["median"].as_f64().unwrap();
        assert!(median > 0.0 && median < 0.01, "{p}");
    }
    // The wavelet section reports time saved and the fraction interpolated per integrator.
    let wavelet = v["wavelet"].as_array().unwrap();
    for name in ["hybrid", "kang"] {
        let row = wavelet.iter().find(|w| w["integrator"] == name).unwrap();
        assert!(row["time_saved"].as_f64().unwrap().is_finite());
        let f = row["interpolated_fraction"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&f), "{name}: {f}");
    }
    // Every integrator has a cost row, and a stability row per preset with strain limiting on
    // and off (2 × 2).
    for name in [
        "kang",
        "explicit-euler",
        "symplectic-euler",
        "verlet",
        "implicit-cg",
        "desbrun",
        "hybrid",
        "xpbd",
        "choi-ko",
    ] {
        let costs = v["step_cost"].as_array().unwrap();
        assert!(
            costs.iter().any(|c| c["integrator"] == name),
            "no cost for {name}"
        );
        let stab = v["stability"].as_array().unwrap();
        assert_eq!(
            stab.iter().filter(|s| s["integrator"] == name).count(),
            4,
            "{name}"
        );
    }
    assert_eq!(v["parallel"]["bit_identical"], true);
    // The Fig. 8 accuracy degrades as h²k/m grows.
    let acc = v["accuracy_vs_h2k_over_m"].as_array().unwrap();
    let errs: Vec<f64> = acc
        .iter()
        .map(|a| a["relative_error"].as_f64().unwrap())
        .collect();
    assert!(errs.windows(2).all(|w| w[1] > w[0]), "{errs:?}");
    // With a GPU (always in CI) the GPU sections are there.
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        assert!(v.get("frame").is_some(), "no viewer-frame section");
        assert!(v["upsampling"][0]["gpu_seconds"].is_object());
    }
    // `--plot`: the scaling plot, a whole SVG document with a line for kang.
    let svg = std::fs::read_to_string(&plot).expect("--plot wrote its file");
    assert!(svg.trim_start().starts_with("<svg") || svg.trim_start().starts_with("<?xml"));
    assert!(svg.trim_end().ends_with("</svg>"), "truncated SVG");
    assert!(
        svg.contains("kang") && svg.contains("<polyline"),
        "no kang line"
    );
}

#[test]
fn bench_rejects_a_plot_that_is_not_svg() {
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args(["bench", "--quick", "--plot", "x.png"]),
        std::time::Duration::from_mins(10),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_plot_that_cannot_be_written_loses_no_measurement() {
    // The report is printed first; then the failed write is reported and the exit code is 1.
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args([
            "bench",
            "--quick",
            "--json",
            "--plot",
            "/nonexistent-flagsim-dir/plot.svg",
        ]),
        std::time::Duration::from_mins(10),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("plot.svg: cannot write"), "{err}");
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("the report, whole, on stdout");
    assert!(report.is_object());
}

#[test]
fn bench_frame_times_the_viewers_frame_alone_with_the_gpus_share() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let Some(v) = gpu_bench_json(&["bench", "--frame", "--quick", "--json"]) else {
        return;
    };
    // Only the frame split: its parts, and the plots in both kinds of frame.
    assert!(v.get("step_cost").is_none(), "the whole suite ran");
    let mut parts = 0.0;
    for part in ["simulation", "upload", "upsampling", "drawing", "ui"] {
        let median = v[part]["median"].as_f64().unwrap();
        assert!(median > 0.0, "{part}");
        parts += median;
    }
    // The whole frame is the parts added frame by frame: its median is not their medians'
    // sum, but it lies between the largest part's median and, with room for how the parts
    // vary from frame to frame, twice the sum of them.
    let frame = v["frame"]["median"].as_f64().unwrap();
    let largest = ["simulation", "upload", "upsampling", "drawing", "ui"]
        .iter()
        .map(|p| v[*p]["median"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(
        frame >= largest && frame <= 2.0 * parts,
        "whole frame {frame}, parts {parts}"
    );
    for frame in ["refresh", "between"] {
        let p = &v["plots"][frame];
        let (cpu, whole) = (p["cpu"]["median"].as_f64(), p["whole"]["median"].as_f64());
        let (cpu, whole) = (cpu.unwrap(), whole.unwrap());
        // The whole frame is the CPU part, then the submit and the wait.
        assert!(
            cpu > 0.0 && whole > cpu,
            "{frame}: cpu {cpu}, whole {whole}"
        );
    }
    assert!(v["plots"]["vertices"].as_u64().unwrap() > 0);
    // The plots are laid out where the viewer puts them: under the view, right of the
    // 320-point control panel, in a 1280-pixel-wide frame.
    let strip = &v["plots"]["strip"];
    let (w, h) = (strip[0].as_u64().unwrap(), strip[1].as_u64().unwrap());
    assert!(
        w == 1280 - 320 && h > 0 && h < 800 / 2,
        "plots in {w} × {h}"
    );
    if ci {
        // lavapipe has timestamp queries: the GPU's own times are there, each less than the
        // wall clock that holds it (which adds the submit and the wait).
        let gpu = &v["gpu"];
        for part in ["upsampling", "drawing", "ui"] {
            let g = gpu[part]["median"].as_f64().unwrap();
            let wall = v[part]["median"].as_f64().unwrap();
            assert!(g > 0.0 && g < wall, "{part}: GPU {g}, wall {wall}");
        }
        for frame in ["refresh", "between"] {
            let g = v["plots"][frame]["gpu"]["median"].as_f64().unwrap();
            let whole = v["plots"][frame]["whole"]["median"].as_f64().unwrap();
            assert!(g > 0.0 && g < whole, "{frame}: GPU {g}, whole {whole}");
        }
    }
    // The table says what each column is.
    let out = flagsim(&["bench", "--frame", "--quick"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for heading in [
        "GPU time (timestamps)",
        "whole frame",
        "fps (the median), before presenting",
        "refreshing them",
        "between refreshes",
    ] {
        assert!(text.contains(heading), "no {heading:?} in\n{text}");
    }
}

#[test]
fn the_quick_tables_have_every_section() {
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args(["bench", "--quick"]),
        std::time::Duration::from_mins(10),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut headings = vec![
        "Cost per published step",
        "Upsampling",
        "Wavelet interpolation",
    ];
    // With a GPU (always in CI) the viewer's frame closes the report.
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        headings.extend([
            "Viewer frame at 1280×800",
            "GPU time (timestamps)",
            "between refreshes",
        ]);
    }
    for heading in headings {
        assert!(text.contains(heading), "no {heading:?} in\n{text}");
    }
}

/// `bench --frame --device gpu`: every frame steps the flag on the GPU (`kang-mg`, the
/// viewer's GPU mode), and the report says so: its state came back in asynchronous snapshots,
/// one a frame at most, never in a waited read-back. A cloth the GPU step does not take is
/// refused with the reason, and `--device` alone belongs to no measurement.
#[test]
fn bench_frame_steps_the_flags_on_the_gpu_when_asked() {
    let Some(v) = gpu_bench_json(&["bench", "--frame", "--quick", "--device", "gpu", "--json"])
    else {
        return;
    };
    assert_eq!(v["device"], "gpu");
    assert!(v["simulation"]["median"].as_f64().unwrap() > 0.0);
    let frames = v["simulation"]["runs"].as_u64().unwrap();
    let r = &v["read_backs"];
    let snapshots = r["snapshots"].as_u64().unwrap();
    assert!(
        snapshots <= frames,
        "{snapshots} snapshots in {frames} frames"
    );
    // A snapshot is asked for 33 ms after the last at the earliest: frames that took twice
    // that (their parts added, less than their wall clock) brought one at least.
    let span = v["frame"]["median"].as_f64().unwrap() * frames as f64;
    assert!(
        snapshots >= 1 || span < 2.0 * 0.033,
        "no snapshot in {frames} frames of {span} s"
    );
    assert_eq!(r["waited"].as_u64(), Some(0), "{r}");
    // Each snapshot is the flag's 100 key nodes' positions and velocities at least.
    assert!(
        r["bytes"].as_u64().unwrap() >= snapshots * 100 * 2 * 12,
        "{r}"
    );
    // On the CPU (the default) there is nothing read back.
    let v = gpu_bench_json(&["bench", "--frame", "--quick", "--json"]).expect("a GPU");
    assert_eq!(v["device"], "cpu");
    assert!(v["read_backs"].is_null(), "{}", v["read_backs"]);
    // The two masses on springs are no grid: the GPU step refuses them, and says why.
    let out = flagsim(&[
        "bench",
        "--frame",
        "--quick",
        "--device",
        "gpu",
        "--scene",
        "two-masses",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("two-masses") && err.contains("grid cloths only"),
        "{err}"
    );
    let out = flagsim(&["bench", "--device", "gpu"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--device goes with --frame or --gpu-sim"),
        "{err}"
    );
}

#[test]
fn bench_frame_has_no_plot_to_write() {
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args(["bench", "--frame", "--plot", "x.svg"]),
        std::time::Duration::from_mins(1),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--plot") && err.contains("--frame"), "{err}");
}

/// `bench --gpu-sim --quick --json`: each size on the CPU and the GPU, the GPU's cloth within
/// f32's reach of the CPU's (the quick sizes' Provot corrects nothing, so the two sweep orders
/// agree), both the same shape, real numbers throughout.
#[test]
fn bench_gpu_sim_runs_the_cpu_and_the_gpu_side_by_side() {
    if std::env::var("CI").is_err() && flagsim::render::GpuContext::new_headless().is_err() {
        eprintln!("SKIPPED: no GPU adapter");
        return;
    }
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args([
            "bench",
            "--gpu-sim",
            "--quick",
            "--json",
        ]),
        std::time::Duration::from_mins(5),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["stopped"].is_null(), "{}", v["stopped"]);
    let rows = v["rows"].as_array().expect("rows");
    let on = |device: &str, side: u64| {
        rows.iter()
            .find(|r| r["device"] == device && r["side"] == side)
            .unwrap_or_else(|| panic!("no {device} row for {side}²"))
    };
    for side in [32, 64] {
        let (cpu, gpu) = (on("cpu", side), on("gpu", side));
        assert_eq!(gpu["nodes"], side * side);
        for r in [cpu, gpu] {
            let per_step = r["seconds_per_step"].as_f64().expect("time");
            let rate = r["node_steps_per_second"].as_f64().expect("rate");
            assert!(per_step > 0.0 && (rate * per_step - (side * side) as f64).abs() < 1e-6 * rate);
            let real_time = r["real_time"].as_f64().expect("real time");
            assert!(
                (real_time * per_step - 1.0 / 60.0).abs() < 1e-9,
                "{real_time}"
            );
        }
        let distance = gpu["distance_from_cpu"].as_f64().expect("distance");
        assert!(distance < 1e-4, "{side}²: {distance} m");
        for key in ["stretch", "shortest_edge"] {
            let (c, g) = (cpu[key].as_f64().unwrap(), gpu[key].as_f64().unwrap());
            assert!((c - g).abs() < 1e-3, "{side}² {key}: CPU {c}, GPU {g}");
        }
        // Each stage's GPU time, where the adapter has timestamps (lavapipe has): the eight
        // stages in the step's order, each a time, the solve one that takes some.
        assert!(cpu.get("stages").is_none());
        let has_timestamps = flagsim::render::GpuContext::new_headless().is_ok_and(|ctx| {
            ctx.device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
        });
        if has_timestamps {
            let stages = gpu["stages"].as_array().expect("stages");
            let names: Vec<&str> = stages
                .iter()
                .map(|s| s["stage"].as_str().unwrap())
                .collect();
            assert_eq!(
                names,
                [
                    "held",
                    "forces",
                    "air",
                    "rhs",
                    "solve",
                    "end",
                    "strain",
                    "colliders",
                    "guard"
                ]
            );
            for s in stages {
                let ms = s["ms"].as_f64().expect("ms");
                assert!(ms.is_finite() && ms >= 0.0, "{s}");
            }
            assert!(stages[4]["ms"].as_f64().unwrap() > 0.0, "{stages:?}");
        }
    }
}

/// `bench --gpu-sim --integrator implicit-mg`: the same sheet stepped by `implicit-mg` on both
/// devices, the GPU's cloth within 1e-4 m of the CPU's; an integrator the GPU does not step is
/// refused with the two it does.
#[test]
fn bench_gpu_sim_runs_implicit_mg_on_both_devices() {
    if std::env::var("CI").is_err() && flagsim::render::GpuContext::new_headless().is_err() {
        eprintln!("SKIPPED: no GPU adapter");
        return;
    }
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args([
            "bench",
            "--gpu-sim",
            "--quick",
            "--sizes",
            "32",
            "--integrator",
            "implicit-mg",
            "--json",
        ]),
        std::time::Duration::from_mins(5),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["integrator"], "implicit-mg");
    assert!(
        v["scene"].as_str().unwrap().contains("implicit-mg"),
        "{}",
        v["scene"]
    );
    let rows = v["rows"].as_array().expect("rows");
    let devices: Vec<&str> = rows.iter().map(|r| r["device"].as_str().unwrap()).collect();
    assert_eq!(devices, ["cpu", "gpu"], "{v}");
    let distance = rows[1]["distance_from_cpu"].as_f64().expect("distance");
    assert!(distance < 1e-4, "{distance} m");

    let out = Command::new(env!("CARGO_BIN_EXE_flagsim"))
        .args(["bench", "--gpu-sim", "--integrator", "kang"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kang-mg and implicit-mg"), "{err}");
}

/// A size past a scene's largest grid is refused before anything runs.
#[test]
fn bench_gpu_sim_refuses_a_size_past_1024() {
    let out = Command::new(env!("CARGO_BIN_EXE_flagsim"))
        .args(["bench", "--gpu-sim", "--sizes", "64,2048"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2048") && err.contains("--sizes"), "{err}");
}

/// `bench --gpu-sim --device cpu|gpu`: one device's rows only (cpu: at every size, no GPU
/// opened); a plain `bench --device` is refused (the option belongs to `--gpu-sim`).
#[test]
fn bench_gpu_sim_measures_one_device_when_asked() {
    let run = |device: &str| {
        let out = process::output_within(
            Command::new(env!("CARGO_BIN_EXE_flagsim")).args([
                "bench",
                "--gpu-sim",
                "--quick",
                "--json",
                "--sizes",
                "16,24",
                "--device",
                device,
            ]),
            std::time::Duration::from_mins(5),
        );
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out, err)
    };
    let (out, err) = run("cpu");
    assert!(out.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let devices: Vec<&str> = (v["rows"].as_array().expect("rows").iter())
        .map(|r| r["device"].as_str().expect("device"))
        .collect();
    assert_eq!(devices, ["cpu", "cpu"], "{v}");
    assert!(
        v["adapter"].as_str().expect("adapter").starts_with("none"),
        "{v}"
    );
    if std::env::var("CI").is_ok() || flagsim::render::GpuContext::new_headless().is_ok() {
        let (out, err) = run("gpu");
        assert!(out.status.success(), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let devices: Vec<&str> = (v["rows"].as_array().expect("rows").iter())
            .map(|r| r["device"].as_str().expect("device"))
            .collect();
        assert_eq!(devices, ["gpu", "gpu"], "{v}");
    }
    let out = process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim")).args(["bench", "--device", "gpu"]),
        std::time::Duration::from_mins(1),
    );
    assert_eq!(out.status.code(), Some(2));
}
