//! Position Verlet: `x' = 2x - x_prev + h² F/m`, `v' = (x' - x)/h` (docs/method.md §3).
//!
//! `x_prev = x - h v`: after every step `v` is `(x - x_prev)/h`, so a switch to Verlet mid-run
//! needs no history.

use super::explicit::advance_explicit;
use super::{Integrator, Next, Step};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;

#[derive(Debug, Clone, Default)]
pub(crate) struct Verlet;

impl Integrator for Verlet {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Verlet
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        // `dv` is `h F / m`, so `h · dv` is `h² F / m`.
        advance_explicit(step, next, |x, v, dv, h| {
            let x_prev = x - h * v;
            let x_new = 2.0 * x - x_prev + h * dv;
            (x_new, (x_new - x) / h)
        });
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}
