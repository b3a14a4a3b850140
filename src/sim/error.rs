//! What can go wrong in the simulation: one variant a failure, with the fields it concerns.
//! Nothing here is put into words until it is shown: the command line prints an error once
//! (`flagsim: error: …`), the viewer shows it once as a notice, each through `Display`.
//!
//! A divergence is not an error: the guard records it as the step's
//! [`Divergence`](crate::sim::Divergence), with its reason, and the cloth keeps its last good
//! state.

use glam::DVec3;

use super::integrators::desbrun::TooLarge;
use super::lab::{MAX_COPIES, MIN_COPIES};
use super::params::IntegratorKind;
use super::params::spec::{number, unit_suffix};

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
    /// A name that is no integrator; `nearest` is the known name it is probably a typo of.
    #[error("unknown integrator '{name}'{}; known: {}",
        nearest.map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default(), known_integrators())]
    UnknownIntegrator {
        name: String,
        nearest: Option<&'static str>,
    },
    /// `desbrun`'s dense filter cannot hold the cloth.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),

    // ---- the lab --------------------------------------------------------------------------
    /// A lab of too few or too many copies.
    #[error("the lab compares {MIN_COPIES} to {MAX_COPIES} copies, got {count}")]
    CopyCount { count: usize },
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

fn known_integrators() -> String {
    let names: Vec<&str> = IntegratorKind::ALL.iter().map(|k| k.name()).collect();
    names.join(", ")
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
        };
        let text = e.to_string();
        assert!(
            text.starts_with("unknown integrator 'kagn' (did you mean 'kang'?); known: kang, ")
        );
        assert_eq!(text.matches(", ").count() + 1, IntegratorKind::ALL.len());
        let e = SimError::UnknownIntegrator {
            name: "zzz".into(),
            nearest: None,
        };
        assert!(
            e.to_string()
                .starts_with("unknown integrator 'zzz'; known: ")
        );
        let e = SimError::CopyCount { count: 5 }.in_copy("kang@0.01");
        assert_eq!(
            e.to_string(),
            "kang@0.01: the lab compares 2 to 4 copies, got 5"
        );
        let e = SimError::PoleOffsetNotFinite.in_reference();
        assert_eq!(e.to_string(), "reference: pole offset must be finite");
    }
}
