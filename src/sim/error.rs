//! What can go wrong in the simulation: one variant a failure, with the fields it concerns.
//! Nothing here is put into words until it is shown: the command line prints an error once
//! (`flagsim: error: …`), the viewer shows it once as a notice, each through `Display`.
//!
//! A divergence is not an error: the guard records it as the step's
//! [`Divergence`](crate::sim::Divergence), with its reason, and the cloth keeps its last good
//! state.

use glam::DVec3;

/// A failure of the simulation: a value out of range, a scene that does not make a cloth, a
/// command that does not apply, an integrator that cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    // ---- numbers out of range -------------------------------------------------------------
    /// A real number (a parameter, a scene field, a vector's component) outside its documented
    /// range, or not finite.
    #[error("{field}: must be a finite number in {}..={}{}, got {value}",
        number(*.min), number(*.max), unit_suffix(.unit))]
    OutOfRange {
        field: String,
        value: f64,
        min: f64,
        max: f64,
        unit: &'static str,
    },
    /// A whole number outside its range.
    #[error("{field}: must be in {min}..={max}, got {value}")]
    CountOutOfRange {
        field: String,
        value: u64,
        min: u64,
        max: u64,
    },
    /// A scene number that is not what its field takes (`expected` says what it takes, with
    /// its range and unit).
    #[error("{field}: must be {expected}, got {value}")]
    BadNumber {
        field: String,
        expected: &'static str,
        value: f64,
    },
    /// A scene point or velocity with a component that is not finite or beyond ±1e6.
    #[error("{field}: must be finite numbers within ±1e6, got {value:?}")]
    NotFinite3 { field: String, value: [f64; 3] },

    // ---- scenes that do not make a cloth --------------------------------------------------
    /// A part of the cloth's description missing, doubled or out of place.
    #[error("{field}: {problem}")]
    Structure {
        field: &'static str,
        problem: &'static str,
    },
    /// A grid of more nodes than a simulation takes.
    #[error("cloth.grid: {nx} × {ny} nodes exceed the limit of {limit}")]
    GridTooLarge { nx: usize, ny: usize, limit: usize },
    /// An explicit cloth of more nodes or springs (`what`) than a simulation takes.
    #[error("{field}: {count} {what} exceed the limit of {limit}")]
    TooMany {
        field: &'static str,
        what: &'static str,
        count: usize,
        limit: usize,
    },
    /// A pinned grid node outside the grid.
    #[error("cloth.grid.pins[{index}]: [{i}, {j}] is outside the {nx} × {ny} grid")]
    PinOutsideGrid {
        index: usize,
        i: usize,
        j: usize,
        nx: usize,
        ny: usize,
    },
    /// A list of grid positions of the wrong length.
    #[error("cloth.grid.positions: expected nx × ny = {expected} positions, got {got}")]
    PositionCount { expected: usize, got: usize },
    /// A spring's or a triangle's node index past the last node.
    #[error("{field}: node index {index} is out of range (there are {count} nodes)")]
    NodeIndex {
        field: String,
        index: usize,
        count: usize,
    },
    /// A spring from a node to itself.
    #[error("cloth.springs[{spring}]: connects node {node} to itself")]
    SelfSpring { spring: usize, node: usize },

    // ---- integrators ----------------------------------------------------------------------
    /// A name that is no integrator; `nearest` is the known name it is probably a typo of,
    /// `known` every name.
    #[error("unknown integrator '{name}'{}; known: {}",
        nearest.map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default(), known.join(", "))]
    UnknownIntegrator {
        name: String,
        nearest: Option<&'static str>,
        known: Vec<&'static str>,
    },
    /// `desbrun`'s dense filter cannot hold the cloth: `free` nodes, at most `limit`.
    #[error("desbrun: {free} free nodes exceed the dense filter's limit of {limit}")]
    FilterTooLarge { free: usize, limit: usize },

    // ---- the lab --------------------------------------------------------------------------
    /// A lab of too few or too many copies (it takes `min..=max`).
    #[error("the lab compares {min} to {max} copies, got {count}")]
    CopyCount {
        count: usize,
        min: usize,
        max: usize,
    },
    /// A copy written `NAME@DT` whose `DT` is not a number.
    #[error("'{text}': the dt after '@' must be a number")]
    CopyDtNotANumber { text: String },
    /// A copy as written (`NAME@DT`) that is refused for `source`.
    #[error("'{text}': {source}")]
    CopyText { text: String, source: Box<SimError> },
    /// A lab copy (named by its label) that cannot be made or changed.
    #[error("{copy}: {source}")]
    Copy { copy: String, source: Box<SimError> },
    /// A command for a copy the lab does not have.
    #[error("there is no copy {copy}")]
    NoCopy { copy: usize },
    /// The reference copy, refused for `0`.
    #[error("reference: {0}")]
    Reference(Box<SimError>),
    /// A reference copy asked for after the lab's first step.
    #[error("the reference copy starts with the lab, not part-way")]
    ReferenceLate,
    /// A reference copy asked for outside the lab.
    #[error("the reference copy runs in the lab: open it with 2 to 4 integrators")]
    ReferenceOutsideLab,

    // ---- commands to the simulation thread ------------------------------------------------
    /// A grab of a node the cloth does not have, or towards a point that is not finite.
    #[error("grab: node {node} or target {target} is invalid")]
    InvalidGrab { node: usize, target: DVec3 },
    /// A pole offset that is not finite.
    #[error("pole offset must be finite")]
    PoleOffsetNotFinite,
    /// A command for the whole simulation sent to one copy (`command` is its name).
    #[error("{command} is not a command for one copy")]
    NotACopyCommand { command: String },
    /// The `desbrun` comparison of the viewer's overlay, refused for `0`.
    #[error("compare: {0}")]
    Compare(Box<SimError>),
    /// The operating system refused a thread (`reason` is its message).
    #[error("cannot start the simulation thread: {reason}")]
    ThreadStart { reason: String },
}

impl SimError {
    /// `self` as the failure of lab copy `copy` (its label).
    #[must_use]
    pub fn in_copy(self, copy: impl ToString) -> Self {
        Self::Copy {
            copy: copy.to_string(),
            source: Box::new(self),
        }
    }

    /// `self` as the failure of the reference copy.
    #[must_use]
    pub fn in_reference(self) -> Self {
        Self::Reference(Box::new(self))
    }
}

/// `x` as the documentation writes it: `1e-5` and `1e6` in exponent form, `0.5` plainly.
pub(crate) fn number(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e4 || x.abs() < 1e-3) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// ` unit` after a value, nothing for a dimensionless one.
pub(crate) fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words are the ones the command line and the viewer have always shown (the tests of
    /// the command line look for them).
    #[test]
    fn each_failure_reads_as_its_field_and_what_is_wrong() {
        let e = SimError::OutOfRange {
            field: "params.dt".into(),
            value: 2.0,
            min: 1e-5,
            max: 0.5,
            unit: "s",
        };
        assert_eq!(
            e.to_string(),
            "params.dt: must be a finite number in 1e-5..=0.5 s, got 2"
        );
        let e = SimError::NodeIndex {
            field: "cloth.springs[0].b".into(),
            index: 5,
            count: 4,
        };
        assert_eq!(
            e.to_string(),
            "cloth.springs[0].b: node index 5 is out of range (there are 4 nodes)"
        );
        let e = SimError::UnknownIntegrator {
            name: "kagn".into(),
            nearest: Some("kang"),
            known: vec!["kang", "xpbd"],
        };
        assert_eq!(
            e.to_string(),
            "unknown integrator 'kagn' (did you mean 'kang'?); known: kang, xpbd"
        );
        let e = SimError::UnknownIntegrator {
            name: "zzz".into(),
            nearest: None,
            known: vec!["kang", "xpbd"],
        };
        assert_eq!(e.to_string(), "unknown integrator 'zzz'; known: kang, xpbd");
        let e = SimError::CopyCount {
            count: 5,
            min: 2,
            max: 4,
        }
        .in_copy("kang@0.01");
        assert_eq!(
            e.to_string(),
            "kang@0.01: the lab compares 2 to 4 copies, got 5"
        );
        let e = SimError::FilterTooLarge {
            free: 5000,
            limit: 4096,
        };
        assert_eq!(
            e.to_string(),
            "desbrun: 5000 free nodes exceed the dense filter's limit of 4096"
        );
        let e = SimError::PoleOffsetNotFinite.in_reference();
        assert_eq!(e.to_string(), "reference: pole offset must be finite");
    }
}
