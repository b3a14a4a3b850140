//! The parameter table as Markdown and as plain text.

use super::TABLE;
use std::fmt::Write as _;

/// The parameter table as Markdown (`docs/scenes.md`'s *Parameters*).
pub(crate) fn markdown() -> String {
    let mut out =
        String::from("| parameter | unit | range | default | meaning |\n|---|---|---|---|---|\n");
    for e in TABLE {
        let [path, unit, range, default, help] = e.row();
        let _ = writeln!(out, "| `{path}` | {unit} | {range} | {default} | {help} |");
    }
    out
}

/// The parameter table as plain text for a terminal: a line per parameter with its unit,
/// range and default, then its meaning wrapped and indented.
pub fn text() -> String {
    let mut out = String::new();
    for e in TABLE {
        let [path, unit, range, default, help] = e.row();
        let facts: Vec<&str> = [unit.as_str(), range.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let _ = writeln!(out, "{path}  ({}; default {default})", facts.join(", "));
        let mut line = String::from("    ");
        for word in help.split_whitespace() {
            if line.len() > 4 && line.chars().count() + 1 + word.chars().count() > 92 {
                let _ = writeln!(out, "{line}");
                line = String::from("    ");
            }
            if line.len() > 4 {
                line.push(' ');
            }
            line.push_str(word);
        }
        let _ = writeln!(out, "{line}");
    }
    out
}
