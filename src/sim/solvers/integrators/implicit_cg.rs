//! Linearised backward Euler (Baraff & Witkin 1998) solved by conjugate gradients: the
//! "general implicit integration" the paper compares against (docs/method.md §3).
//!
//! ```text
//! (M - h ∂f/∂v - h² ∂f/∂x) Δv = h (f + h ∂f/∂x v)
//! ```
//!
//! with the full spring Jacobian `∂f_a/∂x_b = k [P + (1 - L/|x|)(I - P)]`, `P = x̂ x̂ᵀ`, whose second
//! term is dropped while the spring is compressed so the matrix stays symmetric positive definite.
//! Spring damping contributes `c P` to `-∂f/∂v`, the semi-implicit drag and air `c_i I`. Kinematic nodes
//! are removed from the unknowns; their known `Δv` moves to the right-hand side. The system is
//! applied matrix-free as a gather over each node's springs and solved with Jacobi-preconditioned
//! CG ([`pcg`], shared with `choi-ko`) to a relative residual.

use glam::DVec3;

use super::SolverReport;
use super::{Integrator, Next, Step, StepInput, advance_symplectic};
use crate::sim::format::error::SimError;
use crate::sim::format::params::{CgSettings, IntegratorKind};
use crate::sim::model::forces::External;
use crate::sim::model::par::for_each_node;
use crate::sim::solvers::jacobian::{RhsInput, SpringBlock, right_hand_side, spring_blocks};

/// `implicit-cg`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImplicitCg {
    scratch: CgScratch,
    dv: Vec<DVec3>,
    report: CgReport,
}

impl Integrator for ImplicitCg {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::ImplicitCg
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        self.dv.resize(step.input.cloth.node_count(), DVec3::ZERO);
        self.report = solve(
            &step.input,
            step.params.damping,
            step.force,
            step.ext,
            &step.params.cg,
            &mut self.scratch,
            &mut self.dv,
        );
        advance_symplectic(step, &self.dv, next);
        Ok(())
    }

    fn report(&self) -> SolverReport {
        SolverReport::Iterative(self.report)
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}

/// Work arrays, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct CgScratch {
    /// Per spring: `S_s = h c P + h² K_s` (the off-diagonal block is `-S_s`) and `h² K_s`,
    /// for the right-hand side's `h² ∂f/∂x v`.
    pub blocks: Vec<SpringBlock>,
    pub b: Vec<DVec3>,
    pub r: Vec<DVec3>,
    pub z: Vec<DVec3>,
    pub p: Vec<DVec3>,
    pub ap: Vec<DVec3>,
    pub diag: Vec<DVec3>,
}

/// Result of one solve.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CgReport {
    pub iterations: u32,
    /// `|r| / |b|` at the end.
    pub relative_residual: f64,
}

/// Solves for `Δv` (kinematic nodes get their known value). `damping` is the spring damping
/// coefficient, N·s/m.
pub(crate) fn solve(
    input: &StepInput,
    damping: f64,
    force: &[DVec3],
    ext: &External,
    settings: &CgSettings,
    s: &mut CgScratch,
    dv: &mut [DVec3],
) -> CgReport {
    let StepInput {
        cloth,
        kinematic,
        known_dv,
        h,
        parallel,
    } = *input;
    let n = cloth.node_count();
    for v in [
        &mut s.b,
        &mut s.r,
        &mut s.z,
        &mut s.p,
        &mut s.ap,
        &mut s.diag,
    ] {
        v.resize(n, DVec3::ZERO);
    }
    spring_blocks(cloth, h, damping, parallel, &mut s.blocks);
    let rhs = RhsInput {
        cloth,
        kinematic,
        known_dv,
        h,
        force,
        ext,
        parallel,
    };
    right_hand_side(&rhs, &s.blocks, &mut s.b);
    let topology = &*cloth.topology;
    let blocks = &s.blocks;
    // The preconditioner's diagonal.
    for_each_node(parallel, &mut s.diag, |i, d| {
        let mut diag = DVec3::splat(cloth.m[i] + ext.implicit_air(i, h));
        for l in topology.links(i) {
            diag += blocks[l.spring as usize].diagonal();
        }
        *d = diag;
    });

    let apply = |x: &[DVec3], out: &mut [DVec3]| {
        for_each_node(parallel, out, |i, o| {
            if kinematic[i] {
                *o = DVec3::ZERO;
                return;
            }
            let mut y = (cloth.m[i] + ext.implicit_air(i, h)) * x[i];
            for l in topology.links(i) {
                let j = l.node as usize;
                let xj = if kinematic[j] { DVec3::ZERO } else { x[j] };
                y += blocks[l.spring as usize].times(x[i] - xj);
            }
            *o = y;
        });
    };
    let diag = &s.diag;
    let precond = |r: &[DVec3], z: &mut [DVec3]| {
        for (i, zi) in z.iter_mut().enumerate() {
            *zi = r[i] / diag[i];
        }
    };
    // Preconditioned CG from Δv = 0 (kinematic nodes hold their known Δv).
    for (i, d) in dv.iter_mut().enumerate() {
        *d = if kinematic[i] {
            known_dv[i]
        } else {
            DVec3::ZERO
        };
    }
    pcg(
        apply, precond, &s.b, kinematic, settings, dv, &mut s.r, &mut s.z, &mut s.p, &mut s.ap,
    )
}

/// Preconditioned conjugate gradients on `A y = b` for `y`, shared by `implicit-cg` (Jacobi
/// preconditioner) and `choi-ko` (3 × 3 block-diagonal). Starts from the `y` given and stops at
/// a relative residual `|b − A y| / |b| ≤ settings.tolerance` or after
/// `settings.max_iterations`. `apply` computes `A y`, `precond` applies the preconditioner's
/// inverse. Rows with `fixed[i]` (kinematic nodes; an empty slice fixes none) keep their value
/// in `y`: they must be zero in `b`, in `A`'s output and in the preconditioner's, and `A` must
/// treat them as zero in its input. Dot products are summed serially in node order, so the
/// result does not depend on the thread count.
#[allow(clippy::too_many_arguments)]
pub fn pcg(
    apply: impl Fn(&[DVec3], &mut [DVec3]),
    precond: impl Fn(&[DVec3], &mut [DVec3]),
    b: &[DVec3],
    fixed: &[bool],
    settings: &CgSettings,
    y: &mut [DVec3],
    r: &mut Vec<DVec3>,
    z: &mut Vec<DVec3>,
    p: &mut Vec<DVec3>,
    ap: &mut Vec<DVec3>,
) -> CgReport {
    let n = b.len();
    for v in [&mut *r, &mut *z, &mut *p, &mut *ap] {
        v.resize(n, DVec3::ZERO);
    }
    let dot = |a: &[DVec3], b: &[DVec3]| a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum::<f64>();
    let b_norm = dot(b, b).sqrt();
    if b_norm == 0.0 {
        for (i, v) in y.iter_mut().enumerate() {
            if fixed.is_empty() || !fixed[i] {
                *v = DVec3::ZERO;
            }
        }
        return CgReport::default();
    }
    apply(y, ap);
    for i in 0..n {
        r[i] = b[i] - ap[i];
    }
    let mut report = CgReport {
        iterations: 0,
        relative_residual: dot(r, r).sqrt() / b_norm,
    };
    if report.relative_residual <= settings.tolerance {
        return report;
    }
    precond(r, z);
    p.copy_from_slice(z);
    let mut rz = dot(r, z);
    for it in 1..=settings.max_iterations {
        apply(p, ap);
        let pap = dot(p, ap);
        if pap.is_nan() || pap <= 0.0 {
            break;
        }
        let alpha = rz / pap;
        for i in 0..n {
            y[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        report.iterations = it;
        report.relative_residual = dot(r, r).sqrt() / b_norm;
        if report.relative_residual <= settings.tolerance {
            break;
        }
        precond(r, z);
        let rz_new = dot(r, z);
        let beta = rz_new / rz;
        rz = rz_new;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
    }
    report
}
