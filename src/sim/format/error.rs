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
    /// A pinned grid node a shaped flag cuts away.
    #[error("cloth.grid.pins[{index}]: [{i}, {j}] is outside the {shape}'s shape")]
    PinOutsideShape {
        index: usize,
        i: usize,
        j: usize,
        shape: &'static str,
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
    /// A copy written `NAME#NX` or `NAME#NXxNY` whose key grid is not whole numbers of nodes
    /// in `min..=max`.
    #[error("'{text}': the key grid after '#' is NX or NXxNY, each {min} to {max} nodes")]
    CopyGrid {
        text: String,
        min: usize,
        max: usize,
    },
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

    // ---- several flags --------------------------------------------------------------------
    /// Flag `flag` of a scene's `flags` (0 is the first) does not make a cloth: `error`.
    #[error("flags[{flag}]: {error}")]
    InFlag { flag: usize, error: Box<SimError> },
    /// A command for a flag the scene does not have (`count` flags).
    #[error("there is no flag {} (the scene has {count})", .flag + 1)]
    NoFlag { flag: usize, count: usize },
    /// The last flag of a scene removed: a scene keeps at least one.
    #[error("a scene keeps at least one flag")]
    LastFlag,
    /// More flags than a scene takes.
    #[error("a scene flies at most {limit} flags")]
    TooManyFlags { limit: usize },
    /// Flags added to, removed from or changed in the lab, which compares copies of one flag.
    #[error("the integrator lab compares copies of one flag: close it to change the flags")]
    FlagsInLab,

    // ---- commands to the simulation thread ------------------------------------------------
    /// A grab of a node the cloth does not have, or towards a point that is not finite.
    #[error("grab: node {node} or target {target} is invalid")]
    InvalidGrab { node: usize, target: DVec3 },
    /// A pole offset that is not finite.
    #[error("pole offset must be finite")]
    PoleOffsetNotFinite,
    /// A command that means something only in the lab, sent outside it.
    #[error("{command} is set in the integrator lab only")]
    NotInLab { command: String },
    /// A command for the whole simulation sent to one copy (`command` is its name).
    #[error("{command} is not a command for one copy")]
    NotACopyCommand { command: String },
    /// The `desbrun` comparison of the viewer's overlay, refused for `0`.
    #[error("compare: {0}")]
    Compare(Box<SimError>),
    /// The operating system refused a thread (`reason` is its message).
    #[error("cannot start the simulation thread: {reason}")]
    ThreadStart { reason: String },

    // ---- the device the simulation runs on ------------------------------------------------
    /// A lab copy's device that is not `cpu` or `gpu`, or `gpu` for an integrator the GPU does
    /// not step (it steps `kang-mg` and `implicit-mg`).
    #[error(
        "{text}: a copy's device is :cpu, :gpu or :auto, the last two for kang-mg and implicit-mg only (got :{device})"
    )]
    CopyDevice { text: String, device: String },
    /// `"device": "gpu"` (or the panel's switch) where no GPU was opened for the simulation.
    #[error("device gpu: no GPU adapter is open for the simulation")]
    NoGpu,
    /// The GPU step refused the scene, or failed (`reason` says why, in words for the user).
    #[error("device gpu: {reason}")]
    Gpu { reason: String },
    /// The device switch is for the scene's flags: in the lab each copy names its own
    /// (`kang-mg:gpu`).
    #[error(
        "device gpu: in the integrator lab, a copy goes to the GPU by its own name (kang-mg:gpu)"
    )]
    GpuInLab,
}

impl SimError {
    /// `self` as the failure of lab copy `copy` (its label).
    #[must_use]
    pub(crate) fn in_copy(self, copy: impl ToString) -> Self {
        Self::Copy {
            copy: copy.to_string(),
            source: Box::new(self),
        }
    }

    /// `self` with a field named `from…` renamed `to…` (a value checked by a parameter's
    /// range, reported where a flag's entry wrote it).
    #[must_use]
    pub(crate) fn with_field_prefix(mut self, from: &str, to: &str) -> Self {
        if let Self::OutOfRange { field, .. }
        | Self::CountOutOfRange { field, .. }
        | Self::BadNumber { field, .. }
        | Self::NotFinite3 { field, .. } = &mut self
            && let Some(rest) = field.strip_prefix(from)
        {
            *field = format!("{to}{rest}");
        }
        self
    }

    /// `self` as the failure of the reference copy.
    #[must_use]
    pub(crate) fn in_reference(self) -> Self {
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

/// The known name nearest to `name`, if it is near enough to be a typo: at most a third of
/// its letters (and at least one) inserted, deleted, replaced or swapped with the next.
pub(crate) fn nearest_name<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The fewest insertions, deletions, substitutions and swaps of two neighbouring letters from
/// `a` to `b` (the optimal string alignment distance: `xpdb` is one swap from `xpbd`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: the distance between the first i letters of a and the first j of b.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn edit_distance_counts_single_edits_and_swaps() {
        use super::edit_distance;
        assert_eq!(edit_distance("kang", "kang"), 0);
        assert_eq!(edit_distance("kangg", "kang"), 1);
        assert_eq!(edit_distance("kng", "kang"), 1);
        assert_eq!(edit_distance("kbng", "kang"), 1);
        assert_eq!(edit_distance("xpdb", "xpbd"), 1, "one swap");
        assert_eq!(edit_distance("akng", "kang"), 1, "one swap at the start");
        assert_eq!(edit_distance("kagn", "kang"), 1, "one swap at the end");
        assert_eq!(edit_distance("", "xpbd"), 4);
        assert_eq!(edit_distance("xpbd", ""), 4);
        assert_eq!(edit_distance("verlet", "xpbd"), 6);
        // Two swaps, or a swap and a substitution.
        assert_eq!(edit_distance("akgn", "kang"), 2);
        assert_eq!(edit_distance("xpdc", "xpbd"), 2);
    }

    #[test]
    fn the_nearest_name_is_a_typo_away_or_none() {
        use super::nearest_name;
        let known = ["flag", "paper-fig7", "waving", "hanging"];
        assert_eq!(nearest_name("flagg", &known), Some("flag"));
        assert_eq!(nearest_name("falg", &known), Some("flag"));
        assert_eq!(nearest_name("hangign", &known), Some("hanging"));
        // A third of the letters: "wavnig" (6 letters) is one swap away, "wxxing" two edits.
        assert_eq!(nearest_name("wavnig", &known), Some("waving"));
        assert_eq!(nearest_name("wxxing", &known), Some("waving"));
        assert_eq!(nearest_name("wxxxng", &known), None);
        assert_eq!(nearest_name("banana", &known), None);
        // The nearest of two candidates.
        assert_eq!(
            nearest_name("hangng", &["hanging", "hangs"]),
            Some("hanging")
        );
    }

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
