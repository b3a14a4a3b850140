//! The explicit schemes: forward Euler, symplectic Euler and position Verlet. They see spring
//! forces, the optional spring damping, gravity and air, and turn them into `Δv = h F / m`
//! (external forces through [`External::delta_v`], so the semi-implicit drag is shared).
//! The schemes differ only in how positions advance; that lives in the stepper.

use glam::DVec3;

use super::StepInput;
use crate::sim::forces::{External, for_each_node};

/// `Δv_i = h F_i / m_i + Δv_ext,i` for free nodes, the known `Δv` for kinematic ones.
pub fn explicit_delta_v(input: &StepInput, force: &[DVec3], ext: &External, dv: &mut [DVec3]) {
    let StepInput {
        cloth,
        kinematic,
        known_dv,
        h,
        parallel,
    } = *input;
    for_each_node(parallel, dv, |i, d| {
        *d = if kinematic[i] {
            known_dv[i]
        } else {
            h * force[i] / cloth.m[i] + ext.delta_v(i, cloth.m[i], h)
        };
    });
}
