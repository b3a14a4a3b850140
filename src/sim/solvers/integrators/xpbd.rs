//! Extended position-based dynamics (Macklin, Müller & Chentanez 2016; Müller's cloth demos):
//! today's usual baseline, for comparison with the paper's method on the same scenes.
//!
//! Each physics step `h` is split into `xpbd_substeps` substeps of `h_s`. A substep predicts
//! `v += h_s F_ext / m`, `x += h_s v`, then makes one Gauss–Seidel pass over every spring as a
//! distance constraint `C = |x_a − x_b| − L` with compliance `α = 1/k` (the same stiffness the
//! other integrators use):
//!
//! ```text
//! α̃ = α / h_s²,   Δλ = (−C − α̃ λ) / (w_a + w_b + α̃),   x_a += w_a Δλ n̂,   x_b −= w_b Δλ n̂
//! ```
//!
//! with `w = 1/m` (0 for kinematic nodes), and finally `v = (x − x_prev) / h_s`. The springs are
//! visited colour by colour (no two springs of a colour share a node), so a colour's projections
//! are independent: computed in parallel on large cloths, bit-identical to the serial order.
//! External forces come from the shared force path; spring forces are replaced by constraints.

use glam::DVec3;

use super::{ForceInput, ForceWork, Integrator, Next, Step};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::model::cloth::Cloth;
use crate::sim::model::forces::External;
use crate::sim::model::par::{for_each_node, for_each_node3};

/// Work arrays, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct XpbdScratch {
    x_prev: Vec<DVec3>,
    lambda: Vec<f64>,
    moves: Vec<Option<(f64, [DVec3; 2])>>,
}

/// One XPBD projection of a distance constraint: `(Δλ, [Δx_a, Δx_b])`, or `None` when the ends
/// coincide or neither can move. `alpha_tilde = α / h_s²`.
#[inline]
pub fn project(
    xa: DVec3,
    xb: DVec3,
    wa: f64,
    wb: f64,
    rest: f64,
    alpha_tilde: f64,
    lambda: f64,
) -> Option<(f64, [DVec3; 2])> {
    let d = xa - xb;
    let len = d.length();
    let denom = wa + wb + alpha_tilde;
    if len == 0.0 || denom == 0.0 {
        return None;
    }
    let n = d / len;
    let c = len - rest;
    let dl = (-c - alpha_tilde * lambda) / denom;
    Some((dl, [wa * dl * n, -wb * dl * n]))
}

/// `xpbd`: distance constraints in substeps; spring forces are not used.
#[derive(Debug, Clone, Default)]
pub(crate) struct Xpbd {
    scratch: XpbdScratch,
}

impl Integrator for Xpbd {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Xpbd
    }

    /// None: the springs are constraints here.
    fn internal_forces(&mut self, _: &ForceInput<'_>, _: &mut ForceWork, _: &mut [DVec3]) {}

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        let input = XpbdInput {
            kinematic: step.input.kinematic,
            target: step.target_x,
            h: step.input.h,
            substeps: step.params.xpbd_substeps,
            parallel: step.input.parallel,
        };
        advance(
            &input,
            step.input.cloth,
            step.ext,
            &mut self.scratch,
            next.x,
            next.v,
        );
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}

/// What one XPBD step reads besides the cloth and the external forces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct XpbdInput<'a> {
    /// Nodes whose motion is prescribed.
    pub kinematic: &'a [bool],
    /// Where each kinematic node must be at the end of the step, m.
    pub target: &'a [DVec3],
    /// Physics step, s.
    pub h: f64,
    /// Substeps per physics step.
    pub substeps: u32,
    pub parallel: bool,
}

/// Advances the state in `cloth` over `h` in `substeps` XPBD substeps into `x` and `v`.
/// Kinematic nodes move linearly to their targets over the step.
pub(crate) fn advance(
    input: &XpbdInput,
    cloth: &Cloth,
    ext: &External,
    s: &mut XpbdScratch,
    x: &mut [DVec3],
    v: &mut [DVec3],
) {
    let XpbdInput {
        kinematic,
        target,
        h,
        substeps,
        parallel,
    } = *input;
    let n_sub = substeps.max(1);
    let hs = h / n_sub as f64;
    s.x_prev.resize(cloth.node_count(), DVec3::ZERO);
    s.lambda.resize(cloth.topology.springs.len(), 0.0);
    for sub in 1..=n_sub {
        let frac = sub as f64 / n_sub as f64;
        let (m, x_start, v_start) = (&cloth.m, &cloth.x, &cloth.v);
        // Predict, remembering where each node started the substep.
        for_each_node3(parallel, x, v, &mut s.x_prev, |i, x, v, x_prev| {
            let (x0, v0) = if sub == 1 {
                (x_start[i], v_start[i])
            } else {
                (*x, *v)
            };
            *x_prev = x0;
            if kinematic[i] {
                *x = x_start[i] + (target[i] - x_start[i]) * frac;
                *v = (target[i] - x_start[i]) / h;
            } else {
                *v = v0 + ext.delta_v(i, m[i], hs);
                *x = x0 + hs * *v;
            }
        });
        s.lambda.fill(0.0);
        for (color, slot) in cloth
            .topology
            .all_colors
            .iter()
            .zip(&cloth.topology.all_color_slot)
        {
            s.moves.resize(color.len(), None);
            let moves = &mut s.moves[..color.len()];
            let (xr, springs, k, lambda) = (&*x, &cloth.topology.springs, cloth.k(), &s.lambda);
            for_each_node(parallel, moves, |j, mv| {
                let si = color[j] as usize;
                let sp = &springs[si];
                if k[si] <= 0.0 {
                    *mv = None;
                    return;
                }
                let w = |i: usize| if kinematic[i] { 0.0 } else { 1.0 / m[i] };
                let alpha_tilde = 1.0 / (k[si] * hs * hs);
                *mv = project(
                    xr[sp.a],
                    xr[sp.b],
                    w(sp.a),
                    w(sp.b),
                    sp.rest,
                    alpha_tilde,
                    lambda[si],
                );
            });
            let moves = &*moves;
            for (j, mv) in moves.iter().enumerate() {
                if let Some((dl, _)) = mv {
                    s.lambda[color[j] as usize] += dl;
                }
            }
            let springs = &cloth.topology.springs;
            for_each_node(parallel, x, |i, xi| {
                let j = slot[i];
                if j == u32::MAX {
                    return;
                }
                if let Some((_, [da, db])) = moves[j as usize] {
                    *xi += if springs[color[j as usize] as usize].a == i {
                        da
                    } else {
                        db
                    };
                }
            });
        }
        let x_prev = &s.x_prev;
        let xr = &*x;
        for_each_node(parallel, v, |i, v| {
            if !kinematic[i] {
                *v = (xr[i] - x_prev[i]) / hs;
            }
        });
    }
}
