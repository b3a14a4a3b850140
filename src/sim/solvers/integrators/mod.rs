//! One file per scheme, each a complete [`Integrator`]: what it needs from the shared force path,
//! how it turns forces into the next state, and the statistics it reports.
//!
//! The step that calls them is one short pipeline in [`crate::sim::simulation`]: kinematic nodes
//! → normals and external forces → [`Integrator::internal_forces`] → [`Integrator::advance`] →
//! strain limiting and colliders → [`Integrator::finish`] → the guard. Every integrator sees the
//! same forces (from [`crate::sim::forces`]); they differ only in how they turn them into `Δv`
//! and `Δx`.

pub mod choi_ko;
pub mod desbrun;
pub mod explicit;
pub mod explicit_euler;
pub mod hybrid;
pub mod implicit_cg;
pub mod implicit_mg;
pub mod kang;
pub mod kang_mg;
pub mod symplectic_euler;
pub mod verlet;
pub mod xpbd;

use glam::DVec3;

use self::implicit_cg::CgReport;
use super::cloth::Cloth;
use super::forces::{self, External};
use super::params::{IntegratorKind, Params};
use crate::sim::error::SimError;

/// What every integrator reads for one physics step. The cloth holds the state at the start of
/// the step; nothing here is written.
#[derive(Debug, Clone, Copy)]
pub struct StepInput<'a> {
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
pub struct Step<'a> {
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
    /// Nodes the wavelet interpolation fills in this step (empty: none); see
    /// [`Integrator::supports_wavelet`].
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
pub struct Next<'a> {
    pub x: &'a mut [DVec3],
    pub v: &'a mut [DVec3],
    pub dv: &'a mut Vec<DVec3>,
}

/// What the internal forces of a step are computed from.
#[derive(Debug, Clone, Copy)]
pub struct ForceInput<'a> {
    pub input: &'a StepInput<'a>,
    pub params: &'a Params,
    /// Nodes the wavelet interpolation takes out of the step (no force needed); may be empty.
    pub skip: &'a [bool],
}

pub use crate::sim::forces::ForceWork;

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

/// A time-integration scheme.
pub trait Integrator: std::fmt::Debug + Send {
    fn kind(&self) -> IntegratorKind;

    /// Whether the thesis's wavelet interpolation applies (its `skip` and `held` are honoured).
    fn supports_wavelet(&self) -> bool {
        false
    }

    /// The internal forces into `force`. By default the shared Hooke springs with damping, plus
    /// for the filter family (`kang`, `desbrun`, `hybrid`) the viscosity term of eq. 4 when
    /// `params.viscosity`, making the force their `F̃`. `xpbd` and `choi-ko` replace this.
    fn internal_forces(&mut self, at: &ForceInput<'_>, work: &mut ForceWork, force: &mut [DVec3]) {
        let ForceInput {
            input,
            params,
            skip,
        } = *at;
        let viscosity = self.kind().uses_filter_system() && params.viscosity;
        forces::spring_forces(
            input.cloth,
            params.damping,
            viscosity.then_some(input.h),
            input.parallel,
            skip,
            work,
            force,
        );
    }

    /// One physics step: the state at its end into `next`. An error (a cloth the scheme cannot
    /// take) leaves the simulation as it was.
    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError>;

    /// Called after strain limiting and colliders with the final state of the step.
    fn finish(&mut self, _cloth: &Cloth, _h: f64) {}

    /// The scheme's own figures for its last step (solver iterations, precompute time); the
    /// simulation keeps them in `StepStats::solver`.
    fn report(&self) -> SolverReport {
        SolverReport::None
    }

    /// Keeps what the next step reads of the last one (a warm start, a BDF2 history), before
    /// a published step that the guard may discard. Called before every step; it must cost a
    /// copy, not an allocation, after the first.
    fn checkpoint(&mut self) {}

    /// Puts back what [`Self::checkpoint`] kept: the guard discarded the step, and the next one
    /// must run as if it had never been taken.
    fn rollback(&mut self) {}

    /// A copy of whatever history the next step reads (choi-ko's BDF2 state), so that a probe
    /// step can be undone; `None` for schemes without history.
    fn save_history(&self) -> Option<Box<dyn Integrator>> {
        None
    }

    fn clone_box(&self) -> Box<dyn Integrator>;
}

impl Clone for Box<dyn Integrator> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A fresh integrator of `kind`.
pub fn make(kind: IntegratorKind) -> Box<dyn Integrator> {
    match kind {
        IntegratorKind::Kang => Box::new(kang::Kang::default()),
        IntegratorKind::ExplicitEuler => Box::new(explicit_euler::ExplicitEuler),
        IntegratorKind::SymplecticEuler => Box::new(symplectic_euler::SymplecticEuler),
        IntegratorKind::Verlet => Box::new(verlet::Verlet),
        IntegratorKind::ImplicitCg => Box::new(implicit_cg::ImplicitCg::default()),
        IntegratorKind::Desbrun => Box::new(desbrun::Desbrun::default()),
        IntegratorKind::Hybrid => Box::new(hybrid::Hybrid::default()),
        IntegratorKind::Xpbd => Box::new(xpbd::Xpbd::default()),
        IntegratorKind::ChoiKo => Box::new(choi_ko::ChoiKo::default()),
        IntegratorKind::KangMg => Box::new(kang_mg::KangMg::default()),
        IntegratorKind::ImplicitMg => Box::new(implicit_mg::ImplicitMg::default()),
    }
}

/// Writes the kinematic nodes' end-of-step state: at their targets, with the velocity that got
/// them there. Free nodes are left to the caller.
#[inline]
pub fn kinematic_next(x0: DVec3, target: DVec3, h: f64) -> (DVec3, DVec3) {
    (target, (target - x0) / h)
}

/// One node's end of an implicit or symplectic step from `(x0, v0)`: a kinematic node to its
/// target ([`kinematic_next`]), a free one `v' = v + Δv`, `x' = x + h v'` (eq. 1). The GPU's
/// twin is `shaders/sim_step_end.wgsl`.
#[inline]
pub fn symplectic_next(
    x0: DVec3,
    v0: DVec3,
    dv: DVec3,
    kinematic: bool,
    target: DVec3,
    h: f64,
) -> (DVec3, DVec3) {
    if kinematic {
        kinematic_next(x0, target, h)
    } else {
        let v = v0 + dv;
        (x0 + h * v, v)
    }
}

/// The usual end of an implicit or symplectic step: `v' = v + Δv`, `x' = x + h v'` for free
/// nodes (eq. 1), kinematic nodes to their targets ([`symplectic_next`] on every node).
pub fn advance_symplectic(step: &Step, dv: &[DVec3], next: &mut Next) {
    let StepInput {
        cloth,
        kinematic,
        h,
        parallel,
        ..
    } = step.input;
    let target = step.target_x;
    crate::sim::par::for_each_node2(parallel, next.x, next.v, |i, x, v| {
        (*x, *v) = symplectic_next(cloth.x[i], cloth.v[i], dv[i], kinematic[i], target[i], h);
    });
}
