//! The shape ARCHITECTURE.md promises, checked on the source: no circle of imports among the
//! modules of `src/sim/` or of `src/render/`, and no `String` errors in the simulation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
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

/// The identifiers that follow `prefix` in `code` (`super::forces` → `forces`).
fn after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    code.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// Per top-level module of `root` (`src/sim/forces.rs` → `forces`, `src/sim/integrators/*` →
/// `integrators`), the other top-level modules of `root` its code names.
fn module_graph(root: &str, crate_path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let top_of = |p: &Path| -> String {
        let rel = p.strip_prefix(&root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let tops: BTreeSet<String> = files.iter().map(|p| top_of(p)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let top = top_of(file);
        let depth = file.strip_prefix(&root).unwrap().components().count();
        let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
        let text = code(&std::fs::read_to_string(file).unwrap());
        // `super::` from a file directly in `root` (or a folder's `mod.rs`) names a sibling;
        // from a file one folder down, `super::super::` does.
        let sibling_prefix = if depth == 1 || (depth == 2 && is_mod) {
            "super::"
        } else {
            "super::super::"
        };
        let mut names = after(&text, crate_path);
        names.extend(after(&text, sibling_prefix));
        if sibling_prefix == "super::" {
            // `super::super::x` read with the shorter prefix would name `super`.
            names.retain(|n| *n != "super");
        }
        let deps = graph.entry(top.clone()).or_default();
        for name in names {
            if name != top && tops.contains(name) {
                deps.insert(name.to_string());
            }
        }
    }
    graph
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

#[test]
fn the_circle_finder_finds_a_circle_and_only_one() {
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
    // And the reader of the source sees an import through `super::super::`.
    let text = "use super::super::forces::X; // super::cloth\nfn f() { crate::sim::par::g() }";
    assert_eq!(after(&code(text), "super::super::"), vec!["forces"]);
    assert_eq!(after(&code(text), "crate::sim::"), vec!["par"]);
    assert!(after(&code(text), "super::cloth").is_empty());
}

#[test]
fn no_module_of_the_simulation_or_the_renderer_imports_one_that_imports_it_back() {
    for (root, crate_path) in [
        ("src/sim", "crate::sim::"),
        ("src/render", "crate::render::"),
    ] {
        let graph = module_graph(root, crate_path);
        assert!(graph.len() > 5, "{root}: only {graph:?}");
        if let Some(c) = circle(&graph) {
            panic!("{root}: a circle of imports: {}", c.join(" → "));
        }
    }
    // The graph is read right: the step imports the integrators, not the other way round.
    let sim = module_graph("src/sim", "crate::sim::");
    assert!(
        sim["simulation"].contains("integrators"),
        "{:?}",
        sim["simulation"]
    );
    assert!(!sim["integrators"].contains("simulation"));
    assert!(sim["integrators"].contains("forces"));
}

#[test]
fn the_simulation_returns_no_string_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            if line.contains("Result<") && line.contains(", String>") {
                found.push(format!("{}:{}", file.display(), n + 1));
            }
        }
    }
    assert!(files.len() > 20);
    assert!(found.is_empty(), "Result<_, String> in {found:?}");
}
