//! What the explicit schemes share: forward Euler, symplectic Euler and position Verlet see
//! spring forces, the optional spring damping, gravity and air, and turn them into
//! `Δv = h F / m` (external forces through [`External::delta_v`], so the semi-implicit drag is
//! shared). They differ only in how positions advance, which each scheme's file says.
//!
//! [`External::delta_v`]: crate::sim::model::forces::External::delta_v

use glam::DVec3;

use super::{Next, Step, StepInput, kinematic_next};
use crate::sim::model::par::for_each_node3;

/// One explicit step in one pass: `Δv_i = h F_i / m_i + Δv_ext,i` for free nodes, then
/// `update(x, v, Δv) -> (x', v')`; kinematic nodes go to their targets.
pub(crate) fn advance_explicit(
    step: &Step,
    next: &mut Next,
    update: impl Fn(DVec3, DVec3, DVec3, f64) -> (DVec3, DVec3) + Sync,
) {
    let StepInput {
        cloth,
        kinematic,
        known_dv,
        h,
        parallel,
    } = step.input;
    let (force, ext, target) = (step.force, step.ext, step.target_x);
    next.dv.resize(cloth.node_count(), DVec3::ZERO);
    for_each_node3(parallel, next.x, next.v, next.dv, |i, x, v, dv| {
        let (x0, v0) = (cloth.x[i], cloth.v[i]);
        if kinematic[i] {
            (*x, *v) = kinematic_next(x0, target[i], h);
            *dv = known_dv[i];
        } else {
            *dv = h * force[i] / cloth.m[i] + ext.delta_v(i, cloth.m[i], h);
            (*x, *v) = update(x0, v0, *dv, h);
        }
    });
}
