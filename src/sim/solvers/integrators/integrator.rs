//! The trait every integrator implements, and the registry of constructors.

use super::{ForceInput, ForceWork, Next, SolverReport, Step};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::model::cloth::Cloth;
use crate::sim::model::forces::{self};
use glam::DVec3;

/// A time-integration scheme.
pub(crate) trait Integrator: std::fmt::Debug + Send {
    fn kind(&self) -> IntegratorKind;

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
pub(crate) fn make(kind: IntegratorKind) -> Box<dyn Integrator> {
    match kind {
        IntegratorKind::Kang => Box::new(super::kang::Kang::default()),
        IntegratorKind::ExplicitEuler => Box::new(super::explicit_euler::ExplicitEuler),
        IntegratorKind::SymplecticEuler => Box::new(super::symplectic_euler::SymplecticEuler),
        IntegratorKind::Verlet => Box::new(super::verlet::Verlet),
        IntegratorKind::ImplicitCg => Box::new(super::implicit_cg::ImplicitCg::default()),
        IntegratorKind::Desbrun => Box::new(super::desbrun::Desbrun::default()),
        IntegratorKind::Hybrid => Box::new(super::hybrid::Hybrid::default()),
        IntegratorKind::Xpbd => Box::new(super::xpbd::Xpbd::default()),
        IntegratorKind::ChoiKo => Box::new(super::choi_ko::ChoiKo::default()),
        IntegratorKind::KangMg => Box::new(super::kang_mg::KangMg::default()),
        IntegratorKind::ImplicitMg => Box::new(super::implicit_mg::ImplicitMg::default()),
    }
}
