//! Kang et al.'s approximate implicit update (paper eqs. 6–10, docs/method.md §2).
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
//!
//! The last iteration is fused with the position update (eq. 1), so a step makes one pass over
//! the nodes per iteration and no other.

use glam::DVec3;

use super::{Integrator, Next, Step, StepInput, kinematic_next};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::model::par::{for_each_node, for_each_node3};

/// The scratch of the Jacobi iterations.
#[derive(Debug, Clone, Default)]
pub(crate) struct Jacobi {
    dv: Vec<DVec3>,
    tmp: Vec<DVec3>,
    near_held: Vec<bool>,
}

/// `kang`: eq. 10 (`params.jacobi_iterations` Jacobi iterations, 2 by default).
#[derive(Debug, Clone, Default)]
pub(crate) struct Kang {
    jacobi: Jacobi,
}

/// How the end of a Jacobi step advances positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Update {
    /// `v' = v + Δv`, `x' = x + h v'` (eq. 1).
    Implicit,
    /// `x' = x + h v`, then `v' = v + Δv` (chi-2007 §4.3, `hybrid`).
    OldVelocity,
}

impl Jacobi {
    /// `params.jacobi_iterations` Jacobi iterations from `Δv⁰` (the held nodes' `Δv`, zero
    /// elsewhere), the last one fused with the position update `update`. External forces are
    /// added unfiltered after the sweeps (docs/method.md §2) unless `params.filter_external`.
    pub(crate) fn step(&mut self, step: &Step, update: Update, next: &mut Next) {
        let StepInput {
            cloth,
            kinematic,
            h,
            parallel,
            ..
        } = step.input;
        let (held, held_dv, skip) = (step.held, step.held_dv, step.skip);
        let (params, ext, force, target) = (step.params, step.ext, step.force, step.target_x);
        let n = cloth.node_count();
        self.dv.resize(n, DVec3::ZERO);
        self.tmp.resize(n, DVec3::ZERO);
        next.dv.resize(n, DVec3::ZERO);
        // Nodes with a held neighbour: only they see a non-zero `Σ_j k_ij Δv⁰_j`.
        self.near_held.clear();
        self.near_held.resize(n, false);
        for i in (0..n).filter(|&i| held[i]) {
            for l in cloth.links(i) {
                self.near_held[l.node as usize] = true;
            }
        }
        let near_held = &self.near_held;
        let h2 = h * h;
        let filter_external = params.filter_external;
        // One row of eq. 10 in general-stiffness form; `prev = None` is `Δv⁰`.
        let (topology, stiffness) = (&*cloth.topology, cloth.stiffness());
        let row = |i: usize, prev: Option<&[DVec3]>| {
            let range = topology.link_start[i]..topology.link_start[i + 1];
            let mut sum_k_dv = DVec3::ZERO;
            let links = topology.links[range.clone()]
                .iter()
                .zip(&stiffness.link_k()[range]);
            match prev {
                Some(prev) => {
                    for (l, &k) in links {
                        sum_k_dv += k * prev[l.node as usize];
                    }
                }
                None if near_held[i] => {
                    for (l, &k) in links {
                        let j = l.node as usize;
                        if held[j] {
                            sum_k_dv += k * held_dv[j];
                        }
                    }
                }
                None => {}
            }
            let f = if filter_external {
                force[i] + ext.as_force(i, cloth.m[i])
            } else {
                force[i]
            };
            (h * f + h2 * sum_k_dv) * (1.0 / (cloth.m[i] + h2 * stiffness.k_sum()[i]))
        };
        let iterations = params.jacobi_iterations.max(1);
        for it in 1..iterations {
            let prev = (it > 1).then_some(&self.dv[..]);
            for_each_node(parallel, &mut self.tmp, |i, out| {
                *out = if held[i] { held_dv[i] } else { row(i, prev) };
            });
            std::mem::swap(&mut self.dv, &mut self.tmp);
        }
        let prev = (iterations > 1).then_some(&self.dv[..]);
        let interpolated = |i: usize| !skip.is_empty() && skip[i];
        for_each_node3(parallel, next.x, next.v, next.dv, |i, x, v, dv| {
            let (x0, v0) = (cloth.x[i], cloth.v[i]);
            if kinematic[i] {
                (*x, *v) = kinematic_next(x0, target[i], h);
                *dv = held_dv[i];
                return;
            }
            if interpolated(i) {
                // Filled in from the region's edges after the step.
                (*x, *v, *dv) = (x0, v0, held_dv[i]);
                return;
            }
            let mut d = row(i, prev);
            if !filter_external {
                d += ext.delta_v(i, cloth.m[i], h);
            }
            *dv = d;
            match update {
                Update::Implicit => {
                    *v = v0 + d;
                    *x = x0 + h * *v;
                }
                Update::OldVelocity => {
                    *x = x0 + h * v0;
                    *v = v0 + d;
                }
            }
        });
    }
}

impl Integrator for Kang {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Kang
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        self.jacobi.step(step, Update::Implicit, next);
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}
