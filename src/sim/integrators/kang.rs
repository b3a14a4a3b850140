//! Kang et al.'s approximate implicit update (paper eqs. 6–10, method.md §2).
//!
//! Implicit Euler with Desbrun's approximate Hessian gives `(D - h² K) Δv = h F̃` with
//! `D_i = m_i + h² Σ_j k_ij`. Eq. 10 is two Jacobi iterations of that system from `Δv = 0`:
//!
//! ```text
//! Δv⁰ = 0,   Δvᵖ⁺¹_i = (h F̃_i + h² Σ_j k_ij Δvᵖ_j) / D_i
//! ```
//!
//! One iteration is eq. 9; more converge to the precomputed filter (`desbrun`). Kinematic
//! neighbours enter with their known `Δv` in every iteration. O(nodes + springs), nothing
//! precomputed, so `m`, `k` and `h` may change between any two steps.

use glam::DVec3;

use super::StepInput;
use crate::sim::forces::for_each_node;

/// `Δv` from `iterations` Jacobi sweeps. Kinematic nodes keep their known `Δv`.
/// `dv` receives the result; `tmp` is scratch of the same length.
pub fn jacobi_delta_v(
    input: &StepInput,
    iterations: u32,
    ftilde: &[DVec3],
    dv: &mut Vec<DVec3>,
    tmp: &mut Vec<DVec3>,
) {
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
            DVec3::ZERO
        };
    });
    let h2 = h * h;
    for _ in 0..iterations {
        let prev = &**dv;
        for_each_node(parallel, tmp, |i, out| {
            if kinematic[i] {
                *out = known_dv[i];
                return;
            }
            let mut sum_k = 0.0;
            let mut sum_k_dv = DVec3::ZERO;
            for l in cloth.links(i) {
                let k = cloth.k[l.spring as usize];
                sum_k += k;
                sum_k_dv += k * prev[l.node as usize];
            }
            // eq. 10 in general-stiffness form
            *out = (h * ftilde[i] + h2 * sum_k_dv) / (cloth.m[i] + h2 * sum_k);
        });
        std::mem::swap(dv, tmp);
    }
}
