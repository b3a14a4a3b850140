//! The command line as a user meets it: valid runs produce valid JSON, every kind of bad input
//! is exit code 2 with one message naming the problem, never a panic.

use std::path::PathBuf;
use std::process::{Command, Output};

mod process;

/// Runs flagsim; a run still going after two minutes is killed and fails the test.
fn flagsim(args: &[&str]) -> Output {
    process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(args)
            .env("RUST_BACKTRACE", "0"),
        std::time::Duration::from_mins(2),
    )
}

fn scene_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

#[test]
fn simulate_flag_prints_the_final_state_as_json() {
    let out = flagsim(&["simulate", "flag", "--steps", "600"]);
    let v = json(&out);
    assert_eq!(v["steps"], 600);
    assert_eq!(v["integrator"], "implicit-mg");
    assert!((v["time"].as_f64().unwrap() - 10.0).abs() < 1e-9);
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 100);
    for n in nodes {
        for key in ["x", "v", "dv"] {
            let a = n[key].as_array().unwrap();
            assert_eq!(a.len(), 3);
            assert!(a.iter().all(|c| c.as_f64().unwrap().is_finite()));
        }
    }
    assert_eq!(v["stats"]["diverged"], false);
    assert!(v.get("frames").is_none());
}

#[test]
fn simulate_output_is_bit_identical_across_runs_and_frames_match_shorter_runs() {
    let a = flagsim(&["simulate", "waving", "--steps", "90", "--every", "30"]);
    let b = flagsim(&["simulate", "waving", "--steps", "90", "--every", "30"]);
    let (long, again) = (json(&a), json(&b));
    // Everything but the wall-clock time is identical.
    assert!(long["nodes"] == again["nodes"] && long["frames"] == again["frames"]);
    let short = json(&flagsim(&["simulate", "waving", "--steps", "60"]));
    let frames = long["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[1]["step"], 60);
    assert_eq!(frames[1]["nodes"], short["nodes"]);
}

#[test]
fn steps_zero_writes_the_initial_state_with_zero_velocity_change() {
    let v = json(&flagsim(&["simulate", "hanging", "--steps", "0"]));
    assert_eq!(v["steps"], 0);
    let n0 = &v["nodes"][0];
    assert_eq!(n0["x"], serde_json::json!([-0.5, 1.0, 0.0]));
    assert_eq!(n0["dv"], serde_json::json!([0.0, 0.0, 0.0]));
}

#[test]
fn numbers_round_trip_an_f64() {
    let v = json(&flagsim(&["simulate", "two-masses", "--steps", "1"]));
    // Paper eq. 13 with m = 1, k = 10, h = 0.1: the separation 1 becomes 1 - 0.2 / 1.21.
    let x0 = v["nodes"][0]["x"][0].as_f64().unwrap();
    let x1 = v["nodes"][1]["x"][0].as_f64().unwrap();
    let expected = 1.0 - 2.0 * 0.1 / (1.1 * 1.1);
    assert!(((x1 - x0) - expected).abs() < 1e-15, "{}", x1 - x0);
}

#[test]
fn integrator_override_is_used() {
    let v = json(&flagsim(&[
        "simulate",
        "flag",
        "--steps",
        "5",
        "--integrator",
        "implicit-cg",
    ]));
    assert_eq!(v["integrator"], "implicit-cg");
}

#[test]
fn presets_lists_every_preset_with_a_line() {
    let out = flagsim(&["presets"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Every file in assets/presets/ is a preset named after it.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/presets");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "json").then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    assert_eq!(
        text.lines().filter(|l| !l.trim().is_empty()).count(),
        names.len(),
        "one line per preset: {text}"
    );
    for name in &names {
        let name = name.as_str();
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name));
        assert!(
            line.is_some_and(|l| l.len() > name.len() + 10),
            "{name} missing: {text}"
        );
    }
}

/// Runs `simulate` on a file with `text` and expects exit 2 with `needle` in the one message.
fn rejects(file: &str, text: &str, needle: &str) {
    let path = scene_file(file, text);
    let out = flagsim(&["simulate", path.to_str().unwrap(), "--steps", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{file}: {err}");
    assert!(out.stdout.is_empty(), "{file}: wrote output");
    assert!(
        err.contains(needle),
        "{file}: message lacks '{needle}': {err}"
    );
    assert!(
        err.contains(file),
        "{file}: message does not name the file: {err}"
    );
    assert!(!err.contains("panicked"), "{file}: {err}");
    assert_eq!(
        err.trim().lines().count(),
        1,
        "{file}: not one message: {err}"
    );
}

#[test]
fn bad_scene_files_are_rejected_with_exit_code_2_and_a_named_problem() {
    rejects(
        "syntax.json",
        r#"{ "cloth": { "grid": { "nx": 10, } }"#,
        "line 1",
    );
    rejects(
        "unknown.json",
        r#"{ "cloth": { "grid": { "nx": 10, "nxx": 3 } } }"#,
        "unknown field `nxx`",
    );
    rejects(
        "typo-param.json",
        r#"{ "cloth": { "grid": {} }, "params": { "stifness": {} } }"#,
        "unknown field `stifness`",
    );
    rejects(
        "index.json",
        r#"{ "cloth": { "nodes": [ { "x": [0,0,0], "m": 1 } ], "springs": [ { "a": 0, "b": 5, "k": 1 } ] } }"#,
        "cloth.springs[0].b: node index 5 is out of range",
    );
    rejects(
        "mass.json",
        r#"{ "cloth": { "nodes": [ { "x": [0,0,0], "m": -1 } ] } }"#,
        "cloth.nodes[0].m",
    );
    rejects(
        "nan.json",
        r#"{ "cloth": { "grid": { "width": NaN } } }"#,
        "cloth.grid.width",
    );
    rejects(
        "inf.json",
        r#"{ "cloth": { "grid": {} }, "params": { "dt": 1e999 } }"#,
        "params.dt",
    );
    rejects(
        "triangles.json",
        r#"{ "cloth": { "triangles": [[0, 1, 2]] } }"#,
        "cloth.triangles: only for an explicit cloth",
    );
    rejects("nothing.json", "", "EOF");
    rejects(
        "huge.json",
        r#"{ "cloth": { "grid": { "nx": 100000, "ny": 100000 } } }"#,
        "cloth.grid.nx: must be in 2..=1024",
    );
    rejects(
        "pins.json",
        r#"{ "cloth": { "grid": { "pins": [[0, 0], [12, 3]] } } }"#,
        "cloth.grid.pins[1]",
    );
    rejects(
        "dt.json",
        r#"{ "cloth": { "grid": {} }, "params": { "dt": -0.01 } }"#,
        "params.dt",
    );
    rejects(
        "positions.json",
        r#"{ "cloth": { "grid": { "nx": 2, "ny": 2, "positions": [[0,0,0]] } } }"#,
        "expected nx × ny = 4 positions",
    );
    rejects(
        "res.json",
        r#"{ "cloth": { "grid": {} }, "render": { "resolution": [1, 50] } }"#,
        "render.resolution",
    );
    rejects(
        "integrator.json",
        r#"{ "cloth": { "grid": {} }, "params": { "integrator": "rk4" } }"#,
        "params.integrator",
    );
    rejects(
        "threshold.json",
        r#"{ "cloth": { "grid": {} }, "params": { "wavelet": { "threshold": 2 } } }"#,
        "params.wavelet.threshold: must be a finite number in 0..=1, got 2",
    );
    rejects(
        "kb.json",
        r#"{ "cloth": { "grid": {} }, "params": { "choi_ko": { "flexural_rigidity": -1 } } }"#,
        "params.choi_ko.flexural_rigidity",
    );
    rejects(
        "kb-name.json",
        r#"{ "cloth": { "grid": {} }, "params": { "choi_ko": { "k_b": 1 } } }"#,
        "unknown field `k_b`",
    );
}

#[test]
fn bad_command_line_values_are_exit_code_2() {
    for (args, needle) in [
        (
            vec!["simulate", "no-such-preset", "--steps", "1"],
            "unknown preset",
        ),
        (
            vec!["simulate", "/nonexistent/scene.json", "--steps", "1"],
            "cannot read",
        ),
        (
            vec!["simulate", "flag", "--steps", "1", "--integrator", "rk4"],
            "invalid value 'rk4' for '--integrator",
        ),
        (vec!["simulate", "flag", "--steps", "-3"], "--steps"),
        (
            vec!["simulate", "flag", "--steps", "3", "--every", "0"],
            "--every",
        ),
    ] {
        let out = flagsim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn simulate_out_writes_the_json_there_and_nothing_to_stdout() {
    let path = scene_file("out-target.json", "").with_file_name("simulated.json");
    let _ = std::fs::remove_file(&path);
    let out = flagsim(&[
        "simulate",
        "flag",
        "--steps",
        "5",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "wrote to stdout as well");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("file written")).unwrap();
    // The same run to stdout gives the same state (timings aside).
    let direct = json(&flagsim(&["simulate", "flag", "--steps", "5"]));
    assert_eq!(written["steps"], 5);
    assert_eq!(written["nodes"], direct["nodes"]);
}

#[test]
fn simulate_to_an_unwritable_path_fails_with_one_message() {
    let path = "/nonexistent-flagsim-dir/out.json";
    let out = flagsim(&["simulate", "flag", "--steps", "1", "--out", path]);
    assert!(!out.status.success());
    assert_ne!(out.status.code(), Some(101), "panicked");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(path) && !err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!std::path::Path::new(path).exists());
}

#[test]
fn a_diverged_simulate_is_a_result_not_an_error() {
    // Symplectic Euler is stable on the flag up to about 0.0047 s (bench); at 0.008 s without
    // strain limiting it blows up, and the guard stops it.
    let scene = scene_file(
        "diverging.json",
        r#"{ "cloth": { "grid": {} },
             "params": { "integrator": "symplectic-euler", "dt": 0.008,
                         "provot": { "enabled": false } } }"#,
    );
    let out = flagsim(&["simulate", scene.to_str().unwrap(), "--steps", "2000"]);
    let v = json(&out); // exit 0
    assert_eq!(v["stats"]["diverged"], true, "{}", v["stats"]);
    let nodes = v["nodes"].as_array().unwrap();
    for n in nodes {
        for c in n["x"].as_array().unwrap() {
            assert!(
                c.as_f64().is_some_and(f64::is_finite),
                "non-finite position {n}"
            );
        }
    }
}

#[test]
fn a_closed_stdout_pipe_ends_the_run_quietly() {
    use std::process::Stdio;
    // 200 frames of 100 nodes: far more JSON than a pipe holds, so the writes hit the closed end.
    let mut child = Command::new(env!("CARGO_BIN_EXE_flagsim"))
        .args(["simulate", "flag", "--steps", "200", "--every", "1"])
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = process::wait_within(&mut child, std::time::Duration::from_mins(2), "simulate");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.success(), "exit {status:?}: {err}");
}

/// The first column of `flagsim params --markdown`: every documented parameter's path.
fn documented_parameters() -> Vec<String> {
    let out = flagsim(&["params", "--markdown"]);
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(2)
        .map(|l| {
            l.split('`')
                .nth(1)
                .expect("a `path` in each row")
                .to_string()
        })
        .collect()
}

#[test]
fn the_scene_documents_parameter_table_is_the_one_flagsim_params_prints() {
    let out = flagsim(&["params", "--markdown"]);
    assert!(out.status.success(), "`flagsim params --markdown` failed");
    let table = String::from_utf8(out.stdout).unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenes.md");
    let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let (begin, end) = ("<!-- params:begin -->", "<!-- params:end -->");
    let documented = doc
        .split_once(begin)
        .and_then(|(_, rest)| rest.split_once(end))
        .map_or_else(
            || panic!("docs/scenes.md has no table between {begin} and {end}"),
            |(inside, _)| inside,
        );
    assert_eq!(
        documented.trim(),
        table.trim(),
        "the parameter table between {begin} and {end} in docs/scenes.md differs from \
         `flagsim params --markdown`; paste the command's output there"
    );
}

#[test]
fn every_field_a_scene_file_takes_is_documented_and_nothing_else() {
    // The fields as serde writes a scene's `params` and `render` sections, leaf by leaf
    // (vectors and the list of colliders are leaves).
    fn leaves(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    leaves(&format!("{prefix}{k}."), v, out);
                }
            }
            _ => out.push(prefix.trim_end_matches('.').to_string()),
        }
    }
    let mut fields = Vec::new();
    let params = serde_json::to_value(flagsim::sim::Params::default()).unwrap();
    leaves("", &params, &mut fields);
    let render = serde_json::to_value(flagsim::upsample::RenderSettings::default()).unwrap();
    leaves("render.", &render, &mut fields);
    // The setting is left out of a scene while it is the default, and so is an absent
    // background; with both written, a gradient sky is one documented field.
    let setting = flagsim::sim::format::setting::Setting {
        background: Some("hills.jpg".into()),
        ..flagsim::sim::format::setting::Setting::default()
    };
    let mut setting_fields = Vec::new();
    leaves(
        "render.setting.",
        &serde_json::to_value(setting).unwrap(),
        &mut setting_fields,
    );
    for field in setting_fields {
        let field = (field
            .strip_suffix(".zenith")
            .or(field.strip_suffix(".horizon")))
        .unwrap_or(&field)
        .to_string();
        if !fields.contains(&field) {
            fields.push(field);
        }
    }
    let mut documented: Vec<String> = documented_parameters()
        .into_iter()
        .map(|p| {
            p.strip_suffix("[].sphere")
                .or(p.strip_suffix("[].ground"))
                .unwrap_or(&p)
                .to_string()
        })
        .collect();
    documented.dedup();
    fields.sort();
    documented.sort();
    assert_eq!(documented, fields);
}

#[test]
fn a_mistyped_integrator_is_bad_input_and_the_right_name_is_suggested() {
    let out = flagsim(&["simulate", "flag", "--steps", "1", "--integrator", "kangg"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a similar value exists: 'kang'"), "{err}");
    // Every integrator is listed.
    for name in [
        "explicit-euler",
        "symplectic-euler",
        "verlet",
        "implicit-cg",
        "desbrun",
        "hybrid",
        "xpbd",
        "choi-ko",
    ] {
        assert!(err.contains(name), "{name} not offered: {err}");
    }
}

#[test]
fn a_write_that_fails_is_a_failure_not_bad_input() {
    // The input is fine; the folder to write into does not exist: exit 1, one message.
    let out = flagsim(&[
        "simulate",
        "flag",
        "--steps",
        "1",
        "--out",
        "/nonexistent-flagsim-dir/out.json",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/nonexistent-flagsim-dir/out.json: cannot write"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `v` without its wall-clock time, the one field two runs may differ in.
fn without_wall_time(mut v: serde_json::Value) -> serde_json::Value {
    v["stats"].as_object_mut().unwrap().remove("wall_seconds");
    v
}

#[test]
fn streamed_json_lines_and_the_file_hold_the_same_frames_and_final_state() {
    let whole = json(&flagsim(&[
        "simulate", "flag", "--steps", "12", "--every", "4",
    ]));
    // The frames are the states of shorter runs (every run is deterministic).
    let frames = whole["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    for (frame, steps) in frames.iter().zip([4, 8, 12]) {
        assert_eq!(frame["step"], steps);
        let short = json(&flagsim(&[
            "simulate",
            "flag",
            "--steps",
            &steps.to_string(),
        ]));
        assert_eq!(frame["nodes"], short["nodes"], "step {steps}");
        assert_eq!(frame["time"], short["time"], "step {steps}");
    }
    // Without --every: the same document less the frames.
    let plain = json(&flagsim(&["simulate", "flag", "--steps", "12"]));
    let mut expected = whole.clone();
    expected.as_object_mut().unwrap().remove("frames");
    assert_eq!(
        without_wall_time(plain),
        without_wall_time(expected.clone())
    );

    // --format jsonl: a line per frame, then the rest.
    let out = flagsim(&[
        "simulate", "flag", "--steps", "12", "--every", "4", "--format", "jsonl",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[..3], frames[..]);
    assert_eq!(
        without_wall_time(lines[3].clone()),
        without_wall_time(expected)
    );

    // --out: the same document as stdout.
    let path = scene_file("streamed.json", "");
    let out = flagsim(&[
        "simulate",
        "flag",
        "--steps",
        "12",
        "--every",
        "4",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success() && out.stdout.is_empty());
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(without_wall_time(file), without_wall_time(whole));
}

#[test]
fn completions_are_written_for_each_shell_and_name_the_subcommands() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef flagsim"),
        ("fish", "complete -c flagsim"),
    ] {
        let out = flagsim(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: no {marker}");
        for sub in ["simulate", "render", "compare", "view", "bench"] {
            assert!(script.contains(sub), "{shell}: {sub} missing");
        }
    }
    let out = flagsim(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bash_completes_preset_names_where_a_scene_goes() {
    let out = flagsim(&["completions", "bash"]);
    let script =
        std::env::temp_dir().join(format!("flagsim-completion-{}.bash", std::process::id()));
    std::fs::write(&script, &out.stdout).unwrap();
    // Completes `line` as bash would at its end; the candidates, one per line.
    let complete = |line: &str| -> Vec<String> {
        let program = format!(
            r#"source "$1"; COMP_WORDS=({line}); [[ "{line}" == *" " ]] && COMP_WORDS+=("");
            COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}};
            _flagsim_scenes flagsim "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}";
            printf '%s\n' "${{COMPREPLY[@]}}""#
        );
        let out = Command::new("bash")
            .args(["-c", &program, "bash"])
            .arg(&script)
            .current_dir(std::env::temp_dir())
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    };
    let has = |words: &[String], w: &str| words.iter().any(|x| x == w);
    let view = complete("flagsim view fl");
    assert!(has(&view, "flag"), "{view:?}");
    assert!(!has(&view, "hanging"), "{view:?}");
    let compare = complete("flagsim compare wav");
    assert!(
        has(&compare, "waving") && has(&compare, "wavelet"),
        "{compare:?}"
    );
    let all = complete("flagsim simulate ");
    for preset in [
        "flag",
        "paper-fig7",
        "hanging",
        "drop-on-ball",
        "two-masses",
    ] {
        assert!(has(&all, preset), "{preset}: {all:?}");
    }
    // An option's value is not a scene; options still complete as options.
    assert!(!has(&complete("flagsim render --out fl"), "flag"));
    assert!(has(&complete("flagsim view --"), "--no-persist"));
    let _ = std::fs::remove_file(&script);
}

#[test]
fn piped_runs_draw_no_progress_and_quiet_silences_the_notes() {
    // stderr is a pipe here: no progress bar, and a clean run of simulate says nothing.
    let out = flagsim(&["simulate", "flag", "--steps", "30"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // A diverged run warns (in flagsim's own words), quiet or not.
    let args = [
        "simulate",
        "flag",
        "--steps",
        "200",
        "--integrator",
        "explicit-euler",
    ];
    for quiet in [false, true] {
        let mut args = args.to_vec();
        if quiet {
            args.push("-q");
        }
        let out = flagsim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("flagsim: warning: "), "{err}");
    }
    // -q and -v together are a contradiction.
    assert_eq!(flagsim(&["-q", "-v", "presets"]).status.code(), Some(2));
}

/// An interrupted run (Ctrl+C, `kill`) leaves neither the file nor its hidden temporary, and
/// ends as the signal ends it (the shell's "killed by SIGINT", not a normal exit).
#[test]
fn an_interrupted_write_leaves_nothing_and_ends_as_the_signal_does() {
    use std::os::unix::process::ExitStatusExt;
    // A signal this test was started ignoring (`nohup` ignores HUP, a background job INT) is
    // ignored by flagsim too, as it should be: it cannot be tested here.
    let ignored = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let mask = s.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .unwrap_or(0);
    for (signal, name) in [(2, "INT"), (15, "TERM"), (1, "HUP")] {
        if ignored & (1 << (signal - 1)) != 0 {
            eprintln!("SKIPPED: SIG{name} is ignored by this process, so by flagsim too");
            continue;
        }
        let dir =
            std::env::temp_dir().join(format!("flagsim-signal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("run.json");
        let mut child = Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(["-q", "simulate", "flag", "--steps", "100000000", "--out"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let listing = || -> Vec<String> {
            std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        };
        let start = std::time::Instant::now();
        while !listing().iter().any(|n| n.starts_with(".run.json.")) {
            assert!(start.elapsed().as_secs() < 20, "no temporary appeared");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let kill = Command::new("bash")
            .args(["-c", &format!("kill -{name} {}", child.id())])
            .status()
            .unwrap();
        assert!(kill.success());
        // Bounded: a flagsim that did not end would run 10⁸ steps.
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed().as_secs() > 30 {
                let _ = child.kill();
                panic!("SIG{name} did not end flagsim");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(status.signal(), Some(signal), "SIG{name}: {status:?}");
        assert_eq!(
            listing(),
            Vec::<String>::new(),
            "SIG{name} left files behind"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
