//! The layering ARCHITECTURE.md promises, checked on the source: each folder imports only the
//! folders below it (top-level folders of `src/`, the folders of `src/sim/` and of
//! `src/render/`), there is no circle of imports among folders or among the files of the
//! simulation and the renderer, the simulation core imports none of the desktop program, and
//! nothing in the simulation returns a `String` error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The product's source files under `dir`: a `tests.rs` is a folder's `#[cfg(test)]` module
/// (its unit tests may reach anywhere, as the integration tests do) and is left out.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its `#[cfg(test)]` module (tests may reach
/// anywhere).
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a file under `src/` (`src/sim/model/cloth.rs` → `["sim", "model",
/// "cloth"]`, `src/ui/mod.rs` → `["ui"]`, `src/lib.rs` → `[]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap();
    let stem = file.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// Every path a file's code names, made absolute (`crate::sim::model::cloth::Cloth`,
/// `super::forces` from `sim::model::cloth` → `sim::model::forces`), as segments. Paths in a
/// `{…}` group are expanded one level (`crate::sim::{model::cloth, format}`).
fn named_paths(code: &str, module: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let at_start = i == 0 || !(ident(bytes[i - 1]) || bytes[i - 1] == ':');
        if !at_start || !(code_at(&bytes, i, "crate::") || code_at(&bytes, i, "super::")) {
            i += 1;
            continue;
        }
        // Read segments joined by `::`.
        let mut segs: Vec<String> = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            if start == j {
                break;
            }
            segs.push(bytes[start..j].iter().collect());
            if code_at(&bytes, j, "::") {
                j += 2;
            } else {
                break;
            }
        }
        // A group after the last `::`: one path per item's first segment.
        let mut tails: Vec<Vec<String>> = vec![vec![]];
        if j < bytes.len() && bytes[j] == '{' {
            let mut depth = 0;
            let mut k = j;
            let mut item = String::new();
            let mut items = Vec::new();
            while k < bytes.len() {
                match bytes[k] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => items.push(std::mem::take(&mut item)),
                    c if depth >= 1 => item.push(c),
                    _ => {}
                }
                k += 1;
            }
            items.push(item);
            tails = items
                .iter()
                .map(|it| {
                    it.trim()
                        .split("::")
                        .map(|s| s.trim().to_string())
                        .take_while(|s| !s.is_empty() && s.chars().all(ident))
                        .collect()
                })
                .collect();
        }
        let mut base: Vec<String> = Vec::new();
        let mut rest = segs.as_slice();
        if rest.first().is_some_and(|s| s == "crate") {
            rest = &rest[1..];
        } else {
            // `super::` from `a::b::c` (a file) names `a::b::…`; from `a::b`'s mod.rs, `a::…`.
            base = module.to_vec();
            if !is_mod_file || base.is_empty() {
                base.pop();
            }
            while rest.first().is_some_and(|s| s == "super") {
                rest = &rest[1..];
                if rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                }
            }
            // The first `super` was the pop above for a file; for a mod.rs, pop once here.
            if is_mod_file {
                base.pop();
            }
        }
        for tail in &tails {
            let mut p = base.clone();
            p.extend(rest.iter().cloned());
            p.extend(tail.iter().cloned());
            out.push(p);
        }
        i = j.max(i + 1);
    }
    out
}

fn code_at(chars: &[char], i: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| chars.get(i + k) == Some(&c))
}

struct Source {
    /// Each file's module path and the module paths its code names.
    files: Vec<(Vec<String>, Vec<Vec<String>>)>,
    /// Per module, the names its own file re-exports and the child module each comes from
    /// (`sim` → `IntegratorKind` → `format`), so that `crate::sim::IntegratorKind` counts as
    /// an import of `sim::format`.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, String>>,
}

/// The names a module file re-exports with `pub use child::…::{A, B}` or `pub use child::…::A`
/// (also `pub(crate) use`), and the child each comes from.
fn reexports_of(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for stmt in flat.split(';') {
        let stmt = stmt.trim();
        let Some(rest) = stmt
            .strip_prefix("pub use ")
            .or_else(|| stmt.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let child = rest.split("::").next().unwrap_or("").to_string();
        let names = match rest.find('{') {
            Some(at) => rest[at + 1..].trim_end_matches('}').to_string(),
            None => rest.rsplit("::").next().unwrap_or("").to_string(),
        };
        for name in names.split(',') {
            let name = name.rsplit(" as ").next().unwrap_or("").trim();
            let name = name.rsplit("::").next().unwrap_or("").trim();
            if !name.is_empty() && name != "*" {
                out.insert(name.to_string(), child.clone());
            }
        }
    }
    out
}

fn source() -> Source {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let mut reexports = BTreeMap::new();
    let files = paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap();
            let module = module_of(rel);
            let is_mod = p.file_name().is_some_and(|n| n == "mod.rs");
            let text = code(&std::fs::read_to_string(p).unwrap());
            let named = named_paths(&text, &module, is_mod);
            if is_mod || module.is_empty() {
                reexports.insert(module.clone(), reexports_of(&text));
            }
            (module, named)
        })
        .collect();
    Source { files, reexports }
}

/// The graph between the children of `parent` (`[]`: the top-level modules; `["sim"]`: sim's
/// folders and files), at the depth of those children.
fn graph(source: &Source, parent: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let depth = parent.len();
    let under = |m: &[String]| m.len() > depth && m.iter().zip(parent).all(|(a, b)| a == b);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, named) in &source.files {
        if !under(module) {
            continue;
        }
        let from = module[depth].clone();
        let deps = g.entry(from.clone()).or_default();
        let through = source
            .reexports
            .get(&parent.iter().map(|s| (*s).to_string()).collect::<Vec<_>>());
        for path in named {
            if !under(path) {
                continue;
            }
            // `parent::Name` where `Name` is re-exported by the parent from one of its children.
            let to = through
                .and_then(|r| r.get(&path[depth]))
                .unwrap_or(&path[depth]);
            if *to != from {
                deps.insert(to.clone());
            }
        }
    }
    g
}

/// A circle in `graph`, as the list of modules around it, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut Vec::new(), &mut done))
}

/// The imports of `graph` that go from a layer to a higher one (`layers` lowest first; a
/// module not listed is a failure of its own).
fn upward(graph: &BTreeMap<String, BTreeSet<String>>, layers: &[&[&str]]) -> Vec<String> {
    let layer_of = |m: &str| layers.iter().position(|l| l.contains(&m));
    let known = |m: &str| graph.contains_key(m);
    let mut bad = Vec::new();
    for (from, deps) in graph {
        let Some(lf) = layer_of(from) else {
            bad.push(format!("{from} is in no layer"));
            continue;
        };
        for to in deps.iter().filter(|t| known(t) || layer_of(t).is_some()) {
            match layer_of(to) {
                Some(lt) if lt < lf => {}
                Some(_) => bad.push(format!("{from} imports {to}")),
                None => bad.push(format!("{to} (imported by {from}) is in no layer")),
            }
        }
    }
    bad
}

#[test]
fn the_path_reader_resolves_crate_super_and_groups() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let text = "use crate::sim::{model::cloth, format};\nuse super::forces::X;\nfn f() { \
                super::super::lab::g() }";
    let got = named_paths(&code(text), &m("sim::model::cloth"), false);
    assert_eq!(
        got,
        vec![
            m("sim::model::cloth"),
            m("sim::format"),
            m("sim::model::forces::X"),
            m("sim::lab::g")
        ]
    );
    // From a folder's mod.rs, `super::` is the folder's parent.
    let got = named_paths("use super::format::X;", &m("sim::model"), true);
    assert_eq!(got, vec![m("sim::format::X")]);
    // A folder's re-exports say which child a name comes from.
    let r = reexports_of("pub use format::scene::Scene;\npub use model::cloth::{Cloth, GridInfo};");
    assert_eq!(r["Scene"], "format");
    assert_eq!(r["GridInfo"], "model");
    // Comments and the test module are not code.
    assert!(named_paths(&code("// crate::app::x\n"), &[], false).is_empty());
    assert!(named_paths(&code("#[cfg(test)]\nuse crate::app::x;"), &[], false).is_empty());
}

#[test]
fn the_circle_and_layer_checks_find_what_is_wrong() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(circle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    assert_eq!(
        circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let layers: &[&[&str]] = &[&["c"], &["b"], &["a"]];
    assert!(upward(&graph(&[("a", "b"), ("b", "c")]), layers).is_empty());
    assert_eq!(
        upward(&graph(&[("c", "a")]), layers),
        vec!["c imports a".to_string()]
    );
    assert_eq!(
        upward(&graph(&[("d", "a")]), layers),
        vec!["d is in no layer".to_string()]
    );
}

/// The top-level folders, lowest first. The first two are the simulation core, which builds
/// for `wasm32-unknown-unknown` without the `desktop` feature.
const TOP_LAYERS: &[&[&str]] = &[
    &["sim"],
    &["upsample"],
    &["files", "lab_report", "gpu_sim", "sim_thread"],
    &["signals", "video", "render"],
    &["ui"],
    &["app"],
    &["bench", "web"],
    &["cli"],
    &["main", "web_main"],
];

#[test]
fn each_top_level_folder_imports_only_the_ones_below_it() {
    let source = source();
    let mut g = graph(&source, &[]);
    // `lib.rs` declares the modules; `main.rs` is a module path of its own here.
    g.remove("lib");
    let bad = upward(&g, TOP_LAYERS);
    assert!(bad.is_empty(), "imports against the layering: {bad:?}");
    assert_eq!(circle(&g), None);
    // ARCHITECTURE.md's rule, said plainly: the simulation core imports none of the desktop
    // program.
    for desktop in [
        "render",
        "app",
        "ui",
        "upsample",
        "gpu_sim",
        "video",
        "cli",
        "sim_thread",
    ] {
        assert!(
            !g["sim"].contains(desktop),
            "the simulation core imports {desktop}"
        );
    }
    assert!(!g["bench"].contains("cli"), "bench imports cli");
    // The page and the desktop program are two entries over the same viewer.
    assert!(!g["web"].contains("cli") && !g["cli"].contains("web"));
}

#[test]
fn the_simulations_folders_import_only_the_ones_below_them() {
    let layers: &[&[&str]] = &[
        &["format"],
        &["model"],
        &["solvers"],
        &["constraints"],
        &["runtime"],
        &["lab"],
    ];
    let g = graph(&source(), &["sim"]);
    assert!(g.len() >= 6, "only {g:?}");
    let bad = upward(&g, layers);
    assert!(bad.is_empty(), "sim: imports against the layering: {bad:?}");
}

#[test]
fn the_renderers_folders_import_only_the_ones_below_them() {
    let layers: &[&[&str]] = &[&["device"], &["camera"], &["passes"], &["drawing"]];
    let g = graph(&source(), &["render"]);
    let bad = upward(&g, layers);
    assert!(
        bad.is_empty(),
        "render: imports against the layering: {bad:?}"
    );
}

#[test]
fn no_file_of_a_folder_imports_one_that_imports_it_back() {
    let source = source();
    for parent in [
        &["sim", "format"][..],
        &["sim", "model"],
        &["sim", "solvers"],
        &["sim", "constraints"],
        &["sim", "runtime"],
        &["sim", "lab"],
        &["render", "device"],
        &["render", "camera"],
        &["render", "passes"],
        &["render", "drawing"],
        &["gpu_sim"],
        &["ui"],
        &["app"],
        &["cli"],
    ] {
        let g = graph(&source, parent);
        assert!(!g.is_empty(), "{parent:?}: no files read");
        if let Some(c) = circle(&g) {
            panic!("{parent:?}: a circle of imports: {}", c.join(" → "));
        }
    }
}

#[test]
fn the_graph_is_read_right() {
    // The step imports the integrators, not the other way round; the integrators the forces.
    let source = source();
    let sim = graph(&source, &["sim"]);
    assert!(sim["runtime"].contains("solvers"), "{:?}", sim["runtime"]);
    assert!(!sim["solvers"].contains("runtime"));
    let solvers = graph(&source, &["sim", "solvers"]);
    assert!(solvers["integrators"].contains("multigrid"), "{solvers:?}");
    let top = graph(&source, &[]);
    assert!(top["app"].contains("render") && top["render"].contains("sim"));
}

#[test]
fn the_simulation_returns_no_string_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code(&text).lines().enumerate() {
            if line.contains("Result<") && line.contains(", String>") {
                found.push(format!("{}:{}", file.display(), n + 1));
            }
        }
    }
    assert!(files.len() > 20);
    assert!(found.is_empty(), "Result<_, String> in {found:?}");
}
