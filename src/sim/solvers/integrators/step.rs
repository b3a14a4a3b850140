//! What an integrator reads and writes for one step, and what it reports of it.

use super::implicit_cg::CgReport;
use crate::sim::format::params::Params;
use crate::sim::model::cloth::Cloth;
use crate::sim::model::forces::External;
use glam::DVec3;

/// What every integrator reads for one physics step. The cloth holds the state at the start of
/// the step; nothing here is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepInput<'a> {
    pub cloth: &'a Cloth,
    /// Nodes whose motion is prescribed (pins, the pole, the mouse grab).
    pub kinematic: &'a [bool],
    /// The known `Δv = v^{t+h} - v^t` of kinematic nodes, m/s (ignored for free nodes).
    pub known_dv: &'a [DVec3],
    /// Physics step `h`, s.
    pub h: f64,
    /// Run per-node loops on the rayon pool (bit-identical either way).
    pub parallel: bool,
}

/// Everything [`Integrator::advance`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step<'a> {
    pub input: StepInput<'a>,
    pub params: &'a Params,
    /// Where each kinematic node must be at the end of the step, m.
    pub target_x: &'a [DVec3],
    /// The internal forces [`Integrator::internal_forces`] wrote, N (`F̃` for the filter family).
    pub force: &'a [DVec3],
    /// Per spring, `1 / |x_ab|` at the step's positions where the shared force path computed
    /// it ([`ForceWork::inv_len`]; every integrator that keeps [`Integrator::internal_forces`]),
    /// empty otherwise.
    pub inv_len: &'a [f64],
    /// External forces (gravity, air) evaluated at the start of the step.
    pub ext: &'a External,
    /// Nodes the wavelet interpolation fills in this step (empty: none).
    pub skip: &'a [bool],
    /// Nodes the local solves hold at `held_dv`: the kinematic nodes, plus the interpolated ones
    /// (at their last `Δv`) when the wavelet interpolation runs.
    pub held: &'a [bool],
    pub held_dv: &'a [DVec3],
}

/// Where [`Integrator::advance`] writes the state at the end of the step. Every node of `x` and
/// `v` must be written (kinematic nodes: their targets); `dv` is the step's `Δv` where the
/// scheme has one (the wavelet interpolation fills it in for interpolated nodes).
#[derive(Debug)]
pub(crate) struct Next<'a> {
    pub x: &'a mut [DVec3],
    pub v: &'a mut [DVec3],
    pub dv: &'a mut Vec<DVec3>,
}

/// What the internal forces of a step are computed from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ForceInput<'a> {
    pub input: &'a StepInput<'a>,
    pub params: &'a Params,
    /// Nodes the wavelet interpolation takes out of the step (no force needed); may be empty.
    pub skip: &'a [bool],
}

pub(crate) use crate::sim::model::forces::ForceWork;

/// What one integrator says about its last step, beyond what every step reports: owned by
/// the integrators, read by the panels and the output files through the accessors.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum SolverReport {
    /// Nothing beyond the common figures (the explicit schemes, `kang`, `hybrid`, `xpbd`).
    #[default]
    None,
    /// An iterative solve (`implicit-cg`'s CG iterations, `kang-mg`'s V-cycles,
    /// `implicit-mg`'s preconditioned iterations) and the residual it stopped at.
    Iterative(CgReport),
    /// `choi-ko`: its PCG solve, and whether the step was BDF2 (false: a BDF1 start).
    Buckling { solve: CgReport, bdf2: bool },
    /// `desbrun`: the dense inverse's last build time, s, and how many builds so far.
    Filter {
        precompute_seconds: f64,
        builds: u64,
    },
}

impl SolverReport {
    /// The last solve, for the integrators that solve iteratively.
    pub fn solve(&self) -> Option<CgReport> {
        match *self {
            Self::Iterative(solve) | Self::Buckling { solve, .. } => Some(solve),
            Self::None | Self::Filter { .. } => None,
        }
    }

    /// Iterations (or cycles) of the last solve; 0 without one.
    pub fn iterations(&self) -> u32 {
        self.solve().map_or(0, |s| s.iterations)
    }

    /// Whether the last step was a `choi-ko` BDF2 step.
    pub fn bdf2(&self) -> bool {
        matches!(self, Self::Buckling { bdf2: true, .. })
    }
}
