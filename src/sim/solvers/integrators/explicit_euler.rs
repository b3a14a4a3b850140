//! Forward Euler: `v' = v + h F/m`, `x' = x + h v` with the *old* `v` (docs/method.md §3).

use super::explicit::advance_explicit;
use super::{Integrator, Next, Step};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;

#[derive(Debug, Clone, Default)]
pub(crate) struct ExplicitEuler;

impl Integrator for ExplicitEuler {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::ExplicitEuler
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        advance_explicit(step, next, |x, v, dv, h| (x + h * v, v + dv));
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}
