//! `hybrid` (chi-2007 §4.3): `kang`'s `Δv` (eq. 10), but positions advance with the *old*
//! velocity, `x' = x + h v`, and only then `v' = v + Δv`.

use glam::DVec3;

use super::kang::{Jacobi, Update, filter_forces};
use super::{ForceWork, Integrator, Next, Step, StepInput};
use crate::sim::params::{IntegratorKind, Params};

#[derive(Debug, Clone, Default)]
pub struct Hybrid {
    jacobi: Jacobi,
}

impl Integrator for Hybrid {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Hybrid
    }

    fn supports_wavelet(&self) -> bool {
        true
    }

    fn internal_forces(
        &mut self,
        input: &StepInput,
        params: &Params,
        skip: &[bool],
        work: &mut ForceWork,
        force: &mut [DVec3],
    ) {
        filter_forces(input, params, skip, work, force);
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), String> {
        self.jacobi.step(step, Update::OldVelocity, next);
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}
