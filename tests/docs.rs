//! The documents as a user reads them: README.md and every `docs/*.md` describe the program, not
//! the work that made it (no dated headings, no work-log words, no issue numbers); every
//! `cargo run … -- COMMAND …` line in the README names a real subcommand and real options of it;
//! and every relative link in the README reaches a file, with every document in `docs/` linked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod process;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// README.md and every Markdown file in `docs/`, sorted.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("a docs/ folder")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, repo().join("README.md"));
    docs
}

/// `path` as written from the repository's root (`docs/gpu.md`).
fn name_of(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Runs flagsim; a run still going after two minutes is killed and fails the test.
fn flagsim(args: &[&str]) -> Output {
    process::output_within(
        Command::new(env!("CARGO_BIN_EXE_flagsim"))
            .args(args)
            .env("RUST_BACKTRACE", "0"),
        std::time::Duration::from_mins(2),
    )
}

// ---- what a document must not say ----

const MONTHS: [&str; 24] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// The words of `line`, lower case: runs of letters and digits.
fn words(line: &str) -> Vec<String> {
    line.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn is_year(word: &str) -> bool {
    word.len() == 4
        && word.chars().all(|c| c.is_ascii_digit())
        && (word.starts_with("19") || word.starts_with("20"))
}

/// Whether `text` holds an ISO date (`2026-11-28`).
fn has_iso_date(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    (0..b.len().saturating_sub(9)).any(|i| {
        let d = &b[i..i + 10];
        digits(&d[0..4])
            && d[4] == b'-'
            && digits(&d[5..7])
            && d[7] == b'-'
            && digits(&d[8..10])
            && (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 10).is_none_or(|c| !c.is_ascii_digit())
    })
}

/// Whether `text` names a month with a year: `November 2026`, `28 Nov 2026`,
/// `November 28, 2026`.
fn has_month_and_year(text: &str) -> bool {
    let w = words(text);
    w.iter().enumerate().any(|(i, word)| {
        MONTHS.contains(&word.as_str())
            && (w.get(i + 1).is_some_and(|n| is_year(n))
                || (w
                    .get(i + 1)
                    .is_some_and(|n| n.len() <= 2 && n.parse::<u8>().is_ok())
                    && w.get(i + 2).is_some_and(|n| is_year(n))))
    })
}

/// Whether `line` is a Markdown heading (`#` to `######` and a space, up to three spaces in).
fn is_heading(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return false;
    }
    let hashes = t.len() - t.trim_start_matches('#').len();
    (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t'])
}

/// What is wrong with one line of a document outside a code block: a dated heading, a
/// work-log word ("sitting", "session"), or an issue number ("issue 27", "Issue #27").
fn problem(line: &str) -> Option<String> {
    if is_heading(line) && (has_iso_date(line) || has_month_and_year(line)) {
        return Some("a dated heading".into());
    }
    let w = words(line);
    for word in ["sitting", "sittings", "session", "sessions"] {
        if w.iter().any(|x| x == word) {
            return Some(format!("the word \"{word}\""));
        }
    }
    let lower = line.to_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("issue") {
        let start = from + at;
        let after = &lower[start + "issue".len()..];
        let word_start = start == 0 || !lower[..start].ends_with(|c: char| c.is_alphanumeric());
        let number = after
            .strip_prefix([' ', '\u{a0}'])
            .map(|rest| rest.trim_start_matches(' ').trim_start_matches('#'))
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        if word_start && number {
            return Some("an issue number".into());
        }
        from = start + "issue".len();
    }
    None
}

/// Each problem of `text` with its line number; code blocks are skipped for headings only
/// (a `#` there is a shell comment), words are checked everywhere.
fn problems(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~");
        if fence {
            in_code = !in_code;
        }
        let found = if in_code || fence {
            // Not a heading, whatever it starts with; the words still count.
            problem(&format!("x {line}"))
        } else {
            problem(line)
        };
        if let Some(p) = found {
            out.push((n + 1, p, line.trim().to_string()));
        }
    }
    out
}

#[test]
fn the_detector_finds_dated_headings_work_log_words_and_issue_numbers_and_nothing_else() {
    for bad in [
        "## Latest run (2026-11-28)",
        "### Figures of 28 November 2026",
        "# November 2026",
        "## What changed on Nov 27, 2026",
        "The figures of this sitting.",
        "Measured in the eighteenth Sitting.",
        "In this session we ran it.",
        "Sessions of work",
        "See issue 27 for the targets.",
        "Issue #23's targets",
        "(issue  26, item 3)",
    ] {
        assert!(
            problem(bad).is_some(),
            "the detector passed {bad:?}, which it must flag"
        );
    }
    for good in [
        "## The simulation on the GPU",
        "## 10. The wavelet-guided interpolation (Chi's thesis, ch. 4–5)",
        "Kang, Choi, Cho and Lee (2001) and Choi and Ko (2002)",
        "A date in prose, 2026-11-28, is not a heading.",
        "The tests may run in March 2027 or later.",
        "a known issue with wgpu",
        "tissue 3 is not an issue number",
        "## 2048 nodes may cost more",
        "the D-Bus bus of the desktop",
    ] {
        let found = problem(good);
        assert!(
            found.is_none(),
            "the detector flagged {good:?} ({found:?}), which is fine"
        );
    }
    // A `#` line inside a code block is a shell comment, not a heading.
    let text = "```sh\n# built 2026-11-28\ncargo test\n```\n## 2026-11-28\n";
    let found = problems(text);
    assert_eq!(
        found.iter().map(|(n, _, _)| *n).collect::<Vec<_>>(),
        vec![5],
        "expected only line 5's heading, found {found:?}"
    );
    assert!(has_iso_date("x 2026-11-28 y") && !has_iso_date("x 12026-11-28 y"));
    assert!(is_heading("### x") && !is_heading("#x") && !is_heading("    # x"));
}

#[test]
fn no_document_has_a_dated_heading_a_work_log_word_or_an_issue_number() {
    let mut found = Vec::new();
    for path in documents() {
        let name = name_of(&path);
        for (line, what, text) in problems(&read(&path)) {
            found.push(format!("{name}:{line}: {what}: {text}"));
        }
    }
    assert!(
        found.is_empty(),
        "documents describe the program, not the work that made it (history lives in git):\n{}",
        found.join("\n")
    );
}

/// Every source and shader file under `dir` (Rust, WGSL, TOML).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "rs" || e == "wgsl" || e == "toml")
        {
            out.push(path);
        }
    }
}

#[test]
fn no_source_or_shader_names_an_issue_or_a_work_log_word() {
    // The code says what it does and why; how it came to be is in git. (Dates in the source
    // are data: a screenshot's file name, a test's expected value; a "session" there is a
    // D-Bus or Wayland one.)
    let mut files = Vec::new();
    sources(&repo().join("src"), &mut files);
    sources(&repo().join("shaders"), &mut files);
    assert!(files.len() > 100, "only {} files read", files.len());
    let mut found = Vec::new();
    for path in files {
        for (n, line) in read(&path).lines().enumerate() {
            if let Some(what) = problem(&format!("x {line}")).filter(|w| !w.contains("session")) {
                let name = path.strip_prefix(repo()).unwrap_or(&path).display();
                found.push(format!("{name}:{}: {what}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "history in the source:\n{}",
        found.join("\n")
    );
}

// ---- the README's commands ----

/// A command the README shows: its line number, the subcommand and the long options after it.
#[derive(Debug, PartialEq)]
struct Shown {
    line: usize,
    subcommand: String,
    options: Vec<String>,
}

/// Every line with `cargo run` and ` -- ` followed by a word: that word (the subcommand) and the
/// `--options` after it, up to a shell comment. A line whose first word after ` -- ` is an
/// option (`-- --help`) names no subcommand and is left out.
fn shown_commands(text: &str) -> Vec<Shown> {
    let clean = |t: &str| {
        t.trim_matches(['`', ',', ';', ')', '(', '.', ':', '*'])
            .to_string()
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(run) = line.find("cargo run") else {
            continue;
        };
        let Some(dashes) = line[run..].find(" -- ") else {
            continue;
        };
        let rest = &line[run + dashes + " -- ".len()..];
        let mut tokens = rest
            .split_whitespace()
            .take_while(|t| !t.starts_with('#'))
            .map(clean)
            .filter(|t| !t.is_empty());
        let Some(subcommand) = tokens.next() else {
            continue;
        };
        if subcommand.starts_with('-') {
            continue;
        }
        let options = tokens
            .filter(|t| t.starts_with("--") && t.len() > 2)
            .map(|t| t.split('=').next().unwrap_or_default().to_string())
            .collect();
        out.push(Shown {
            line: n + 1,
            subcommand,
            options,
        });
    }
    out
}

#[test]
fn the_command_finder_reads_subcommands_and_options() {
    let text = "cargo run --release\n\
                cargo run --release -- simulate flag --steps 600   # 10 s, JSON\n\
                see `cargo run --release -- view --flag-image photo.jpg`.\n\
                cargo run -- --help\n\
                cargo run --release -- frobnicate --fast\n";
    let shown = shown_commands(text);
    assert_eq!(
        shown,
        vec![
            Shown {
                line: 2,
                subcommand: "simulate".into(),
                options: vec!["--steps".into()],
            },
            Shown {
                line: 3,
                subcommand: "view".into(),
                options: vec!["--flag-image".into()],
            },
            Shown {
                line: 5,
                subcommand: "frobnicate".into(),
                options: vec!["--fast".into()],
            },
        ]
    );
    // And an unknown subcommand is refused by the binary, so the README test would fail on it.
    let out = flagsim(&["frobnicate", "--help"]);
    assert!(
        !out.status.success(),
        "`flagsim frobnicate --help` succeeded; the README check would pass a made-up command"
    );
}

#[test]
fn every_cargo_run_line_of_the_readme_names_a_real_subcommand_and_its_real_options() {
    let readme = read(&repo().join("README.md"));
    let shown = shown_commands(&readme);
    assert!(
        shown.len() >= 3,
        "README shows only {} `cargo run … -- COMMAND` lines; the finder may be broken",
        shown.len()
    );
    let mut wrong = Vec::new();
    for s in &shown {
        let out = flagsim(&[s.subcommand.as_str(), "--help"]);
        if !out.status.success() {
            wrong.push(format!(
                "README.md:{}: `flagsim {} --help` exits {:?}: {}",
                s.line,
                s.subcommand,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let help = String::from_utf8_lossy(&out.stdout);
        for option in &s.options {
            let listed = help
                .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == '=')
                .any(|w| w == option);
            if !listed {
                wrong.push(format!(
                    "README.md:{}: `flagsim {}` has no option {option} (not in its --help)",
                    s.line, s.subcommand
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---- the README's links ----

/// The targets of the Markdown links and images in `text` (`](target)`), with line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            out.push((n + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_readme_reaches_a_file_and_every_document_is_linked() {
    let readme = read(&repo().join("README.md"));
    let links = link_targets(&readme);
    let mut wrong = Vec::new();
    for (line, target) in &links {
        if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
            continue;
        }
        let path = target.split('#').next().unwrap_or(target);
        if !repo().join(path).exists() {
            wrong.push(format!(
                "README.md:{line}: the link ]({target}) points to {path}, which does not exist"
            ));
        }
    }
    for doc in documents().iter().skip(1) {
        let name = name_of(doc);
        if !links
            .iter()
            .any(|(_, t)| t.split('#').next() == Some(name.as_str()))
        {
            wrong.push(format!("README.md links nowhere to {name}"));
        }
    }
    assert!(
        links.iter().any(|(_, t)| t.starts_with("docs/")),
        "README.md has no link into docs/; the link finder may be broken"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
