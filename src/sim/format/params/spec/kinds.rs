//! The kinds of parameter: a real in a range, a whole number, a switch, a vector, a choice of
//! names, a group, a seed; each with its check.

use crate::sim::format::error::SimError;

/// A real number in `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Real {
    /// Where it sits in a scene file (`params.wind.drag`), as error messages name it.
    pub path: &'static str,
    /// Its name on the panel.
    pub label: &'static str,
    /// Unit, as written after a value (`m/s`); empty for a dimensionless number.
    pub unit: &'static str,
    pub min: f64,
    pub max: f64,
    pub default: f64,
    /// How the default is written in the documentation (`1/60` rather than 0.01666…).
    pub default_text: &'static str,
    /// Whether the panel's slider spans decades (logarithmic).
    pub log: bool,
    /// What it does: the panel's tooltip and the documentation.
    pub help: &'static str,
}

/// A whole number in `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Whole {
    pub path: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    pub log: bool,
    pub help: &'static str,
}

/// An on/off switch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Switch {
    pub path: &'static str,
    pub label: &'static str,
    pub default: bool,
    pub help: &'static str,
}

/// A 3-vector whose components each lie in `-bound..=bound`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Vector {
    pub path: &'static str,
    pub unit: &'static str,
    pub bound: f64,
    pub default: [f64; 3],
    pub help: &'static str,
}

/// One of a few names (an enum in the scene file).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Choice {
    pub path: &'static str,
    pub names: &'static [&'static str],
    pub default: &'static str,
    pub help: &'static str,
}

/// A group of fields documented as one row (a collider's fields).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Group {
    pub path: &'static str,
    pub unit: &'static str,
    /// The default as the documentation writes it; `none` when the entry gives none.
    pub default_text: &'static str,
    pub help: &'static str,
}

/// A random-number seed: any `u64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Seed {
    pub path: &'static str,
    pub default: u64,
    pub help: &'static str,
}

impl Real {
    pub(crate) fn range(&self) -> std::ops::RangeInclusive<f64> {
        self.min..=self.max
    }

    /// Whether `v` is a finite number in range.
    pub(crate) fn accepts(&self, v: f64) -> bool {
        v.is_finite() && v >= self.min && v <= self.max
    }

    /// `Ok` in range; otherwise the failure naming the field.
    pub(crate) fn check(&self, v: f64) -> Result<(), SimError> {
        self.check_at("", v)
    }

    /// [`Self::check`] for a field inside a list entry: `prefix` goes before the path.
    pub(crate) fn check_at(&self, prefix: &str, v: f64) -> Result<(), SimError> {
        if self.accepts(v) {
            Ok(())
        } else {
            Err(SimError::OutOfRange {
                field: format!("{prefix}{}", self.path),
                value: v,
                min: self.min,
                max: self.max,
                unit: self.unit,
            })
        }
    }
}

impl Whole {
    pub(crate) fn range(&self) -> std::ops::RangeInclusive<u32> {
        self.min..=self.max
    }

    pub(crate) fn check(&self, v: u32) -> Result<(), SimError> {
        if self.range().contains(&v) {
            Ok(())
        } else {
            Err(SimError::CountOutOfRange {
                field: self.path.to_string(),
                value: v.into(),
                min: self.min.into(),
                max: self.max.into(),
            })
        }
    }
}

impl Vector {
    pub(crate) fn check(&self, v: [f64; 3]) -> Result<(), SimError> {
        self.check_at("", v)
    }

    /// Each component in `-bound..=bound`; the failure names the first that is not.
    pub(crate) fn check_at(&self, prefix: &str, v: [f64; 3]) -> Result<(), SimError> {
        for (c, x) in ["x", "y", "z"].iter().zip(v) {
            if !(x.is_finite() && x.abs() <= self.bound) {
                return Err(SimError::OutOfRange {
                    field: format!("{prefix}{}.{c}", self.path),
                    value: x,
                    min: -self.bound,
                    max: self.bound,
                    unit: self.unit,
                });
            }
        }
        Ok(())
    }
}
