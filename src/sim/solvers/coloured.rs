//! `implicit-mg`'s system solved in the GPU's order: the CPU twin of
//! `shaders/sim_implicit.wgsl` (docs/gpu.md, "implicit-mg on the GPU").
//!
//! The system is `implicit-mg`'s (per-spring true blocks `S_s`, each node's diagonal block
//! `(m + h c_air + h c_drag) I + Σ_s S_s`, held nodes not unknowns: docs/method.md §2). The CPU
//! solves it with Gauss–Seidel sweeps in node order, each node after the one before it; on the
//! GPU every node of a colour is updated at once, so the sweeps go colour by colour over the
//! grid's `3 × 3` node colours (a spring reaches at most two nodes along each direction, so no
//! two nodes of a colour share a spring and any order within a colour gives one answer):
//!
//! ```text
//! z = M⁻¹ r:  z = 0; forward sweeps over the colours (0, 0), (1, 0), …, (2, 2);
//!             t = r − A z; z += P (two-grid correction of t from level 1); backward sweeps
//! ```
//!
//! with every spring to a free node in the sweeps (the CPU leaves the weak ones out, an
//! economy of its node-order loops). Around it flexible CG with one direction kept, stopped
//! where the CPU stops (`|r| ≤ tolerance · scale`, at least one iteration, at most a given
//! count), every scalar computed from the vectors as the GPU's reductions do.

use glam::{DMat3, DVec3};

use super::integrators::implicit_cg::CgReport;
use super::jacobian::SpringBlock;
use super::multigrid::{Multigrid, NODE_COLOURS};
use crate::sim::model::cloth::Topology;

/// One step's system as the GPU holds it.
pub(crate) struct ColouredSystem<'a> {
    pub topology: &'a Topology,
    /// The grid's nodes along `i` and `j` (row-major, `i` fastest).
    pub nx: usize,
    pub ny: usize,
    pub held: &'a [bool],
    /// Per spring, `h² K_s` and `S_s` ([`SpringBlock`]).
    pub blocks: &'a [SpringBlock],
    /// Per node, `m + h (c_air + c_drag)`, kg.
    pub mass: &'a [f64],
    /// Per node, the inverse of its diagonal block (zero where held).
    pub diag_inv: &'a [DMat3],
}

fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
}

impl ColouredSystem<'_> {
    /// `out = A x` on the free nodes (held neighbours count as zero), zero on the held ones:
    /// the twin of the kernel `product`.
    pub(crate) fn product(&self, x: &[DVec3], out: &mut [DVec3]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = if self.held[i] {
                DVec3::ZERO
            } else {
                self.row(i, x)
            };
        }
    }

    /// `out = b − A x` on the free nodes, zero on the held ones: the twin of `residual`.
    pub(crate) fn residual(&self, b: &[DVec3], x: &[DVec3], out: &mut [DVec3]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = if self.held[i] {
                DVec3::ZERO
            } else {
                b[i] - self.row(i, x)
            };
        }
    }

    fn row(&self, i: usize, x: &[DVec3]) -> DVec3 {
        let mut sum = DVec3::ZERO;
        for l in self.topology.links(i) {
            let j = l.node as usize;
            let xj = if self.held[j] { DVec3::ZERO } else { x[j] };
            sum += self.blocks[l.spring as usize].times(x[i] - xj);
        }
        self.mass[i] * x[i] + sum
    }

    /// The nodes `(ox + 3 kx, oy + 3 ky)`, each `z_i = D_i⁻¹ (r_i + Σ S_s z_j)` over its springs
    /// (a held neighbour's `z_j` is zero: the sweeps never update a held node): the twin of
    /// `sweep`.
    pub(crate) fn sweep_colour(&self, r: &[DVec3], z: &mut [DVec3], ox: usize, oy: usize) {
        for y in (oy..self.ny).step_by(NODE_COLOURS) {
            for i in (ox..self.nx).step_by(NODE_COLOURS).map(|c| y * self.nx + c) {
                if self.held[i] {
                    continue;
                }
                let mut sum = r[i];
                for l in self.topology.links(i) {
                    sum += self.blocks[l.spring as usize].times(z[l.node as usize]);
                }
                z[i] = self.diag_inv[i] * sum;
            }
        }
    }

    /// Every colour once, forward (`(0, 0)`, `(1, 0)`, …) or backward.
    pub(crate) fn sweeps(&self, r: &[DVec3], z: &mut [DVec3], forward: bool) {
        let colours = NODE_COLOURS * NODE_COLOURS;
        for k in 0..colours {
            let c = if forward { k } else { colours - 1 - k };
            self.sweep_colour(r, z, c % NODE_COLOURS, c / NODE_COLOURS);
        }
    }

    /// `z = M⁻¹ r`, the preconditioner (the module's comment); `t` and `e` are scratch.
    pub(crate) fn precondition(
        &self,
        mg: &mut Multigrid,
        r: &[DVec3],
        z: &mut [DVec3],
        t: &mut [DVec3],
        e: &mut [DVec3],
    ) {
        z.fill(DVec3::ZERO);
        self.sweeps(r, z, true);
        self.residual(r, z, t);
        mg.coarse_correction(t, e, false);
        for ((zi, ei), &held) in z.iter_mut().zip(e.iter()).zip(self.held) {
            if !held {
                *zi += *ei;
            }
        }
        self.sweeps(r, z, false);
    }

    /// Flexible CG from `y` (zero on the held nodes) towards `A y = b`, stopped at
    /// `|r|² ≤ tolerance² scale²` after at least one iteration, or after `max_iterations`, or
    /// at a direction of no curvature. `scale` is at least `|b|`: the CPU's rule.
    pub(crate) fn solve(
        &self,
        mg: &mut Multigrid,
        b: &[DVec3],
        y: &mut [DVec3],
        scale: f64,
        tolerance: f64,
        max_iterations: u32,
    ) -> CgReport {
        let n = b.len();
        let mut r = vec![DVec3::ZERO; n];
        let (mut z, mut p, mut q) = (r.clone(), r.clone(), r.clone());
        let (mut t, mut e) = (r.clone(), r.clone());
        self.residual(b, y, &mut r);
        let scale = scale.max(dot(b, b).sqrt()).max(f64::MIN_POSITIVE);
        let mut report = CgReport {
            iterations: 0,
            relative_residual: dot(&r, &r).sqrt() / scale,
        };
        let mut pq = 0.0;
        while report.iterations < max_iterations.max(1) {
            self.precondition(mg, &r, &mut z, &mut t, &mut e);
            let beta = if report.iterations > 0 && pq > 0.0 {
                -dot(&z, &q) / pq
            } else {
                0.0
            };
            for (pi, zi) in p.iter_mut().zip(&z) {
                *pi = *zi + beta * *pi;
            }
            self.product(&p, &mut q);
            pq = dot(&p, &q);
            if pq.is_nan() || pq <= 0.0 {
                break;
            }
            let alpha = dot(&p, &r) / pq;
            for i in 0..n {
                y[i] += alpha * p[i];
                r[i] -= alpha * q[i];
            }
            report.iterations += 1;
            report.relative_residual = dot(&r, &r).sqrt() / scale;
            if report.relative_residual <= tolerance {
                break;
            }
        }
        report
    }
}
