//! Symplectic (semi-implicit) Euler: `v' = v + h F/m`, then `x' = x + h v'` (docs/method.md §3).

use super::explicit::advance_explicit;
use super::{Integrator, Next, Step};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;

#[derive(Debug, Clone, Default)]
pub(crate) struct SymplecticEuler;

impl Integrator for SymplecticEuler {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::SymplecticEuler
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        advance_explicit(step, next, |x, v, dv, h| {
            let v1 = v + dv;
            (x + h * v1, v1)
        });
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}
