//! One parameter, whatever its kind, as the documentation lists it.

use super::{Choice, Group, Real, Seed, Switch, Vector, Whole};
use crate::sim::format::error::number;

/// One parameter, whatever its kind, for the documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Entry {
    Real(&'static Real),
    Whole(&'static Whole),
    Switch(&'static Switch),
    Vector(&'static Vector),
    Choice(&'static Choice),
    Group(&'static Group),
    Seed(&'static Seed),
}

fn vector_text(v: [f64; 3]) -> String {
    let c = |x: f64| {
        if x < 0.0 {
            format!("−{}", number(-x))
        } else {
            number(x)
        }
    };
    format!("({}, {}, {})", c(v[0]), c(v[1]), c(v[2]))
}

impl Entry {
    /// `(path, unit, range, default, meaning)` as the documentation writes them; the path
    /// without its `params.` prefix, as a scene's `params` section spells it.
    pub(crate) fn row(&self) -> [String; 5] {
        let short = |p: &str| p.strip_prefix("params.").unwrap_or(p).to_string();
        let range = |lo: f64, hi: f64| format!("{} – {}", number(lo), number(hi));
        match self {
            Entry::Real(s) => [
                short(s.path),
                s.unit.into(),
                range(s.min, s.max),
                s.default_text.into(),
                s.help.into(),
            ],
            Entry::Whole(s) => [
                short(s.path),
                s.unit.into(),
                format!("{} – {}", s.min, s.max),
                s.default.to_string(),
                s.help.into(),
            ],
            Entry::Switch(s) => [
                short(s.path),
                String::new(),
                "bool".into(),
                s.default.to_string(),
                s.help.into(),
            ],
            Entry::Vector(s) => [
                short(s.path),
                s.unit.into(),
                format!("±{} each", number(s.bound)),
                vector_text(s.default),
                s.help.into(),
            ],
            Entry::Choice(s) => [
                short(s.path),
                String::new(),
                s.names.join(", "),
                s.default.into(),
                s.help.into(),
            ],
            Entry::Group(s) => [
                short(s.path),
                s.unit.into(),
                String::new(),
                s.default_text.into(),
                s.help.into(),
            ],
            Entry::Seed(s) => [
                short(s.path),
                String::new(),
                "any integer ≥ 0".into(),
                s.default.to_string(),
                s.help.into(),
            ],
        }
    }
}
