//! Desbrun et al.'s precomputed filter (paper eq. 5, docs/method.md §3): `Δv = (D - h² K)⁻¹ h F̃`
//! with the same `D`, `K` and `F̃` as `kang`, as a true dense inverse over the free nodes.
//!
//! Kinematic rows are removed and their known `Δv` moves to the right-hand side. The inverse is
//! computed once (Cholesky, the matrix is symmetric and strictly diagonally dominant) and again
//! whenever `h`, any `k`, any `m` or the kinematic set changes; a fingerprint of those inputs
//! decides. Memory is `n²` doubles, so the size is capped at [`MAX_DESBRUN_NODES`].

use std::hash::{Hash, Hasher};
use web_time::Instant;

use glam::DVec3;
use rayon::prelude::*;

use super::SolverReport;
use super::{Integrator, Next, Step, StepInput, advance_symplectic};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::model::cloth::Cloth;
use crate::sim::model::par::for_each_node;

/// `desbrun`: the filter itself, then eq. 1.
#[derive(Debug, Clone, Default)]
pub(crate) struct Desbrun {
    filter: DesbrunFilter,
    ftilde: Vec<DVec3>,
    dv: Vec<DVec3>,
}

impl Desbrun {
    /// Whether a cloth with these pinned nodes fits the dense filter.
    pub(crate) fn check_fits(pinned: &[bool]) -> Result<(), SimError> {
        let free = pinned.iter().filter(|k| !**k).count();
        if free > MAX_DESBRUN_NODES {
            return Err(SimError::FilterTooLarge {
                free,
                limit: MAX_DESBRUN_NODES,
            });
        }
        Ok(())
    }
}

impl Integrator for Desbrun {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Desbrun
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        let StepInput {
            cloth,
            kinematic,
            known_dv,
            h,
            parallel,
        } = step.input;
        let (ext, params) = (step.ext, step.params);
        self.filter.prepare(cloth, kinematic, h)?;
        let n = cloth.node_count();
        self.ftilde.resize(n, DVec3::ZERO);
        self.dv.resize(n, DVec3::ZERO);
        let force = step.force;
        for_each_node(parallel, &mut self.ftilde, |i, f| {
            *f = if params.filter_external {
                force[i] + ext.as_force(i, cloth.m[i])
            } else {
                force[i]
            };
        });
        self.filter.apply(
            cloth,
            kinematic,
            h,
            &self.ftilde,
            known_dv,
            &mut self.dv,
            parallel,
        );
        if !params.filter_external {
            for_each_node(parallel, &mut self.dv, |i, d| {
                if !kinematic[i] {
                    *d += ext.delta_v(i, cloth.m[i], h);
                }
            });
        }
        advance_symplectic(step, &self.dv, next);
        Ok(())
    }

    fn report(&self) -> SolverReport {
        SolverReport::Filter {
            precompute_seconds: self.filter.precompute_seconds,
            builds: self.filter.builds,
        }
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}

/// Largest free-node count for the dense filter (4096² doubles = 128 MiB).
pub(crate) const MAX_DESBRUN_NODES: usize = 4096;

/// The cached inverse and what it was built from.
#[derive(Debug, Clone, Default)]
pub(crate) struct DesbrunFilter {
    fingerprint: u64,
    /// Free nodes in row order.
    free: Vec<usize>,
    /// Row-major `(D - h² K)⁻¹` over the free nodes.
    inverse: Vec<f64>,
    /// Wall time of the last (re)computation, s.
    pub precompute_seconds: f64,
    /// How many times the inverse was computed.
    pub builds: u64,
    rhs: Vec<DVec3>,
    rows: Vec<DVec3>,
}

fn fingerprint(cloth: &Cloth, kinematic: &[bool], h: f64) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    h.to_bits().hash(&mut hasher);
    for k in cloth.k() {
        k.to_bits().hash(&mut hasher);
    }
    for m in &cloth.m {
        m.to_bits().hash(&mut hasher);
    }
    kinematic.hash(&mut hasher);
    cloth.node_count().hash(&mut hasher);
    hasher.finish()
}

impl DesbrunFilter {
    /// Rebuilds the inverse if its inputs changed. Returns whether it did.
    pub(crate) fn prepare(
        &mut self,
        cloth: &Cloth,
        kinematic: &[bool],
        h: f64,
    ) -> Result<bool, SimError> {
        let fp = fingerprint(cloth, kinematic, h);
        if fp == self.fingerprint && !self.inverse.is_empty() {
            return Ok(false);
        }
        let free: Vec<usize> = (0..cloth.node_count()).filter(|&i| !kinematic[i]).collect();
        if free.len() > MAX_DESBRUN_NODES {
            return Err(SimError::FilterTooLarge {
                free: free.len(),
                limit: MAX_DESBRUN_NODES,
            });
        }
        let start = Instant::now();
        let n = free.len();
        let mut row_of = vec![usize::MAX; cloth.node_count()];
        for (r, &i) in free.iter().enumerate() {
            row_of[i] = r;
        }
        let h2 = h * h;
        let mut a = vec![0.0; n * n];
        for (r, &i) in free.iter().enumerate() {
            let mut diag = cloth.m[i];
            for l in cloth.links(i) {
                let k = cloth.k()[l.spring as usize];
                diag += h2 * k;
                let c = row_of[l.node as usize];
                if c != usize::MAX {
                    a[r * n + c] -= h2 * k;
                }
            }
            a[r * n + r] += diag;
        }
        self.inverse = spd_inverse(a, n);
        self.free = free;
        self.fingerprint = fp;
        self.precompute_seconds = start.elapsed().as_secs_f64();
        self.builds += 1;
        Ok(true)
    }

    /// `Δv` for the free nodes: `(D - h² K)⁻¹ (h F̃ + h² Σ_{j kinematic} k_ij Δv_j)`.
    /// Call [`prepare`](Self::prepare) first with the same inputs.
    #[allow(clippy::too_many_arguments)] // reason: the filter's inputs, each used once
    pub(crate) fn apply(
        &mut self,
        cloth: &Cloth,
        kinematic: &[bool],
        h: f64,
        ftilde: &[DVec3],
        known_dv: &[DVec3],
        dv: &mut [DVec3],
        parallel: bool,
    ) {
        let h2 = h * h;
        self.rhs.clear();
        for &i in &self.free {
            let mut b = h * ftilde[i];
            for l in cloth.links(i) {
                let j = l.node as usize;
                if kinematic[j] {
                    b += h2 * cloth.k()[l.spring as usize] * known_dv[j];
                }
            }
            self.rhs.push(b);
        }
        for (i, d) in dv.iter_mut().enumerate() {
            if kinematic[i] {
                *d = known_dv[i];
            }
        }
        let n = self.free.len();
        let inverse = &self.inverse;
        let rhs = &self.rhs;
        self.rows.resize(n, DVec3::ZERO);
        for_each_node(parallel, &mut self.rows, |r, out| {
            let row = &inverse[r * n..(r + 1) * n];
            *out = row
                .iter()
                .zip(rhs)
                .fold(DVec3::ZERO, |acc, (a, b)| acc + *a * *b);
        });
        for (r, &i) in self.free.iter().enumerate() {
            dv[i] = self.rows[r];
        }
    }
}

/// Inverse of a symmetric positive-definite `n × n` row-major matrix by Cholesky factorisation
/// `A = L Lᵀ` and one forward/back substitution per column (columns in parallel).
pub(crate) fn spd_inverse(mut a: Vec<f64>, n: usize) -> Vec<f64> {
    // In-place Cholesky: lower triangle of `a` becomes L.
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = d.max(f64::MIN_POSITIVE).sqrt();
        a[j * n + j] = d;
        let (head, tail) = a.split_at_mut((j + 1) * n);
        let row_j = &head[j * n..j * n + j];
        tail.par_chunks_mut(n).for_each(|row_i| {
            let mut s = row_i[j];
            for k in 0..j {
                s -= row_i[k] * row_j[k];
            }
            row_i[j] = s / d;
        });
    }
    let l = &a;
    let columns: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .map(|c| {
            // L y = e_c
            let mut y = vec![0.0; n];
            for i in c..n {
                let mut s = if i == c { 1.0 } else { 0.0 };
                for k in c..i {
                    s -= l[i * n + k] * y[k];
                }
                y[i] = s / l[i * n + i];
            }
            // Lᵀ x = y
            let mut x = vec![0.0; n];
            for i in (0..n).rev() {
                let mut s = y[i];
                for k in i + 1..n {
                    s -= l[k * n + i] * x[k];
                }
                x[i] = s / l[i * n + i];
            }
            x
        })
        .collect();
    let mut inv = vec![0.0; n * n];
    for (c, col) in columns.iter().enumerate() {
        for (r, v) in col.iter().enumerate() {
            inv[r * n + c] = *v;
        }
    }
    inv
}
