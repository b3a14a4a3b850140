//! The end-of-step updates several integrators share.

use super::{Next, Step, StepInput};
use glam::DVec3;

/// Writes the kinematic nodes' end-of-step state: at their targets, with the velocity that got
/// them there. Free nodes are left to the caller.
#[inline]
pub(crate) fn kinematic_next(x0: DVec3, target: DVec3, h: f64) -> (DVec3, DVec3) {
    (target, (target - x0) / h)
}

/// One node's end of an implicit or symplectic step from `(x0, v0)`: a kinematic node to its
/// target ([`kinematic_next`]), a free one `v' = v + Δv`, `x' = x + h v'` (eq. 1). The GPU's
/// twin is `shaders/sim_step_end.wgsl`.
#[inline]
pub(crate) fn symplectic_next(
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
pub(crate) fn advance_symplectic(step: &Step, dv: &[DVec3], next: &mut Next) {
    let StepInput {
        cloth,
        kinematic,
        h,
        parallel,
        ..
    } = step.input;
    let target = step.target_x;
    crate::sim::model::par::for_each_node2(parallel, next.x, next.v, |i, x, v| {
        (*x, *v) = symplectic_next(cloth.x[i], cloth.v[i], dv[i], kinematic[i], target[i], h);
    });
}
