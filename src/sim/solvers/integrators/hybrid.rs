//! `hybrid` (chi-2007 §4.3): `kang`'s `Δv` (eq. 10), but positions advance with the *old*
//! velocity, `x' = x + h v`, and only then `v' = v + Δv`.

use super::kang::{Jacobi, Update};
use super::{Integrator, Next, Step};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;

#[derive(Debug, Clone, Default)]
pub(crate) struct Hybrid {
    jacobi: Jacobi,
}

impl Integrator for Hybrid {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Hybrid
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        self.jacobi.step(step, Update::OldVelocity, next);
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}
