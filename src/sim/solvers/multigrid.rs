//! A geometric multigrid solver for Kang's system `(D − h² K) Δv = b` on a grid cloth
//! (docs/method.md §2; the solver `kang-mg` uses in place of eq. 10's two Jacobi sweeps).
//!
//! The matrix is the same for the three components of `Δv` (Desbrun's approximate Hessian is a
//! scalar per spring), so the unknowns are `DVec3`s and every coefficient a scalar:
//!
//! ```text
//! A_ii = m_i + h² Σ_j k_ij (+ extra_i),   A_ij = −h² k_ij   (j free)
//! ```
//!
//! Held nodes (pins, the pole, the grab) are not unknowns: their rows are left out and the caller
//! moves their known `Δv` to the right-hand side. `A` does not depend on the state, so the
//! hierarchy is built once and again only when `h`, a stiffness, a mass or the held set changes.
//!
//! - Level 0 is the cloth's own adjacency. Level `l + 1` keeps every other node along each grid
//!   direction (fine index `2I`, and the last node, so both ends stay) and is the
//!   Galerkin product `Pᵀ A P` with bilinear interpolation `P`, whose rows are zero at held
//!   nodes (a correction never moves a pin). A coarse node all of whose fine neighbours are held
//!   has an empty row and stays at zero.
//! - The coarsest level (at most [`COARSEST_NODES`] nodes) is solved exactly (dense Cholesky).
//! - One V-cycle: the residual restricted by `Pᵀ`, the coarse correction (recursively),
//!   prolonged by `P`, then [`POST_SMOOTH`] Gauss–Seidel sweeps with grid rows coloured
//!   `y mod 3` (rows three apart never couple, so the rayon path gives the serial answer bit for
//!   bit). No sweep before the coarse correction: each step starts from the last step's
//!   solution, whose error is already smooth, and a sweep there cost as much as it gained.
//!   Measured on 17² to 48² sheets at `h²k/m` in the thousands: each cycle cuts the residual 4
//!   to 5 times.
//!
//! Grid springs reach at most two nodes along each direction, so each coarse row couples at most
//! a 5 × 5 block of coarse nodes; the stencil's reach is computed, not assumed.

use glam::DVec3;

use crate::sim::model::cloth::Cloth;
use crate::sim::model::par::{MIN_PARALLEL_CHUNK, for_each_node, for_each_node2};

/// Smallest level whose loops run on the rayon pool when the caller asks for it: below this a
/// loop is too short to pay for handing work to another thread. (A 64² cloth's first coarse
/// level, 33², is above it, and its loops pay for the threads.)
pub(crate) const PARALLEL_LEVEL: usize = 1024;

/// Largest level solved directly.
pub(crate) const COARSEST_NODES: usize = 64;
/// Gauss–Seidel sweeps after the coarse correction.
pub(crate) const POST_SMOOTH: u32 = 1;
/// Jacobi damping `ω`: `x += ω D⁻¹ r`. The operator is a mass matrix plus a weighted graph
/// Laplacian, `D⁻¹A`'s spectrum lies in (0, 2), and 2/3 damps its upper half by at least 3×.
pub(crate) const JACOBI_WEIGHT: f64 = 2.0 / 3.0;

/// One level's matrix: the diagonal and the off-diagonal entries row by row (CSR).
#[derive(Debug, Clone, Default)]
struct Level {
    nx: usize,
    ny: usize,
    /// `A_ii`; 0 on rows that are not unknowns.
    diag: Vec<f64>,
    /// `1 / A_ii` (0 on rows that are not unknowns): a sweep multiplies, as a division would
    /// be the slowest step of its chain. Kept by [`Level::set_inverse_diagonal`].
    inv_diag: Vec<f64>,
    start: Vec<u32>,
    col: Vec<u32>,
    val: Vec<f64>,
    /// How far (in nodes, along either grid direction) a row reaches.
    reach: usize,
    /// Interpolation to this level from the next coarser one, and its transpose.
    transfer: GridTransfer,
    /// Per grid row, the squared residual its last Gauss–Seidel update met (parallel sweeps).
    row_r2: Vec<f64>,
    /// Work vectors: solution, right-hand side, residual, Jacobi scratch.
    x: Vec<DVec3>,
    b: Vec<DVec3>,
    r: Vec<DVec3>,
    tmp: Vec<DVec3>,
    /// Conjugate gradients' search direction (a cloth that is not a grid).
    p: Vec<DVec3>,
}

impl Level {
    fn len(&self) -> usize {
        self.diag.len()
    }

    fn active(&self, i: usize) -> bool {
        self.diag[i] > 0.0
    }

    /// Puts each row's entries for the nodes just before it in its grid row (which a
    /// Gauss–Seidel sweep has only just updated) last, nearest last: the sum of the others does
    /// not wait for the update before, so a sweep waits only for its last few additions and
    /// the multiplication by `1 / A_ii` (`inv_diag`), not for the whole row and a division.
    /// The order of every other entry is kept.
    fn order_for_sweeps(&mut self) {
        let nx = self.nx;
        let mut late: Vec<(u32, f64)> = Vec::new();
        for i in 0..self.len() {
            let range = self.start[i] as usize..self.start[i + 1] as usize;
            let row_start = i - i % nx;
            let just_before = |j: usize| j >= row_start && j < i;
            late.clear();
            let mut kept = range.start;
            for e in range.clone() {
                let (j, v) = (self.col[e], self.val[e]);
                if just_before(j as usize) {
                    late.push((j, v));
                } else {
                    self.col[kept] = j;
                    self.val[kept] = v;
                    kept += 1;
                }
            }
            late.sort_by_key(|&(j, _)| j);
            for (e, &(j, v)) in (kept..range.end).zip(&late) {
                self.col[e] = j;
                self.val[e] = v;
            }
        }
    }

    /// Sets `inv_diag` from `diag`.
    fn set_inverse_diagonal(&mut self) {
        self.inv_diag.clear();
        self.inv_diag.extend(
            self.diag
                .iter()
                .map(|&d| if d > 0.0 { 1.0 / d } else { 0.0 }),
        );
    }

    fn resize_work(&mut self) {
        self.transfer = GridTransfer::new(self.nx, self.ny);
        self.row_r2 = vec![0.0; self.ny];
        let n = self.len();
        for v in [
            &mut self.x,
            &mut self.b,
            &mut self.r,
            &mut self.tmp,
            &mut self.p,
        ] {
            v.clear();
            v.resize(n, DVec3::ZERO);
        }
    }
}

/// The exact solve of the coarsest level: a Cholesky factor over its active nodes.
#[derive(Debug, Clone, Default)]
struct Dense {
    /// The level's nodes that are unknowns, in factor order.
    nodes: Vec<usize>,
    /// The lower-triangular factor's rows packed: row `i`'s entries left of the diagonal,
    /// `L_i0 … L_i(i−1)`, at `i (i − 1) / 2`: both substitutions walk them contiguously.
    l: Vec<f64>,
    /// `1 / L_ii`.
    inv_diag: Vec<f64>,
    /// The matrix being factored, row-major `nodes.len()²` (scratch of [`Dense::factor`]).
    a: Vec<f64>,
    y: Vec<DVec3>,
    /// Each level node's place in `nodes` (`usize::MAX`: not an unknown).
    pos: Vec<usize>,
}

impl Dense {
    fn new(level: &Level) -> Self {
        let mut dense = Self::default();
        dense.factor(level);
        dense
    }

    /// Factors `level`'s matrix (as its diagonal is now), reusing the buffers: once they have
    /// their size, nothing is allocated.
    fn factor(&mut self, level: &Level) {
        self.nodes.clear();
        self.nodes
            .extend((0..level.len()).filter(|&i| level.active(i)));
        let n = self.nodes.len();
        self.pos.clear();
        self.pos.resize(level.len(), usize::MAX);
        for (p, &i) in self.nodes.iter().enumerate() {
            self.pos[i] = p;
        }
        let a = &mut self.a;
        a.clear();
        a.resize(n * n, 0.0);
        for (p, &i) in self.nodes.iter().enumerate() {
            a[p * n + p] = level.diag[i];
            for e in level.start[i] as usize..level.start[i + 1] as usize {
                let q = self.pos[level.col[e] as usize];
                if q != usize::MAX {
                    a[p * n + q] += level.val[e];
                }
            }
        }
        // In-place Cholesky, lower triangle. The matrix is symmetric and strictly diagonally
        // dominant on its active rows (a mass on every diagonal), so every pivot is positive.
        for j in 0..n {
            let mut d = a[j * n + j];
            for k in 0..j {
                d -= a[j * n + k] * a[j * n + k];
            }
            let d = d.max(f64::MIN_POSITIVE).sqrt();
            a[j * n + j] = d;
            for i in j + 1..n {
                let mut s = a[i * n + j];
                for k in 0..j {
                    s -= a[i * n + k] * a[j * n + k];
                }
                a[i * n + j] = s / d;
            }
        }
        self.l.clear();
        self.inv_diag.clear();
        for i in 0..n {
            self.l.extend_from_slice(&a[i * n..i * n + i]);
            self.inv_diag.push(1.0 / a[i * n + i]);
        }
        self.y.clear();
        self.y.resize(n, DVec3::ZERO);
    }

    /// `x = A⁻¹ b` on the active nodes; the others are left at zero: `L y = b` row by row
    /// (each row's sum in two halves, even and odd columns, so that it is two chains of
    /// dependent additions instead of one), then `Lᵀ x = y` with each solved unknown taken
    /// from the ones before it along its row.
    fn solve(&mut self, b: &[DVec3], x: &mut [DVec3]) {
        let y = &mut self.y;
        let mut row_start = 0;
        for (i, (&node, &inv)) in self.nodes.iter().zip(&self.inv_diag).enumerate() {
            let row = &self.l[row_start..row_start + i];
            let (mut even, mut odd) = (b[node], DVec3::ZERO);
            let (pairs, last) = row.as_chunks::<2>();
            let (y_pairs, y_last) = y[..i].as_chunks::<2>();
            for ([l0, l1], [y0, y1]) in pairs.iter().zip(y_pairs) {
                even -= *l0 * *y0;
                odd -= *l1 * *y1;
            }
            if let (Some(&l0), Some(&y0)) = (last.first(), y_last.first()) {
                even -= l0 * y0;
            }
            y[i] = (even + odd) * inv;
            row_start += i;
        }
        for (i, &inv) in self.inv_diag.iter().enumerate().rev() {
            row_start -= i;
            let row = &self.l[row_start..row_start + i];
            let (before, rest) = y.split_at_mut(i);
            let yi = rest[0] * inv;
            rest[0] = yi;
            for (&lk, yk) in row.iter().zip(before.iter_mut()) {
                *yk -= lk * yi;
            }
        }
        x.fill(DVec3::ZERO);
        for (p, &i) in self.nodes.iter().enumerate() {
            x[i] = self.y[p];
        }
    }
}

/// Nodes of the next coarser level along a direction of `n` nodes: every even node, and the
/// last one when `n` is even (so both ends of the cloth are coarse nodes).
pub fn coarse_len(n: usize) -> usize {
    n / 2 + 1
}

/// The coarse nodes fine node `i` of `n` interpolates from, along one direction, and their
/// weights: an even node is coarse node `i / 2`; the last node of an even count is the last
/// coarse node; any other odd node lies halfway between `(i − 1) / 2` and `(i + 1) / 2`.
/// Linear interpolation along each direction, exact at both ends.
#[inline]
pub fn parents(i: usize, n: usize) -> ([(usize, f64); 2], usize) {
    if i.is_multiple_of(2) {
        ([(i / 2, 1.0), (0, 0.0)], 1)
    } else if i + 1 == n {
        ([(n / 2, 1.0), (0, 0.0)], 1)
    } else {
        ([(i / 2, 0.5), (i / 2 + 1, 0.5)], 2)
    }
}

/// What a hierarchy was built from; any change rebuilds it.
#[derive(Debug, Clone, Default, PartialEq)]
struct Inputs {
    h: f64,
    k: Vec<f64>,
    m: Vec<f64>,
    held: Vec<bool>,
}

/// How a solve went.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolveReport {
    /// V-cycles run.
    pub cycles: u32,
    /// `|b − A x| / scale` at the end.
    pub relative_residual: f64,
}

/// The multigrid hierarchy of one cloth's system, and its work vectors.
#[derive(Debug, Clone, Default)]
pub struct Multigrid {
    levels: Vec<Level>,
    /// Level 0's diagonal without the per-step extra (drag).
    base_diag: Vec<f64>,
    coarsest: Dense,
    inputs: Inputs,
    /// Whether the last [`Multigrid::set_extra_diagonal`] added anything: a level-0 direct
    /// solve must then factor the matrix as it is for this step.
    extra: bool,
    /// Whether the direct solve's factor holds an extra diagonal (it must be factored again
    /// once there is none).
    factored_extra: bool,
    /// How many times the hierarchy was built.
    pub builds: u64,
    /// Whether the V-cycle smooths in the GPU's order ([`node_coloured_sweep`]) instead of
    /// by coloured grid rows ([`Multigrid::set_node_colours`]).
    node_colours: bool,
}

/// One level's matrix, read-only, as the GPU's solver takes it ([`Multigrid::level_matrix`]):
/// `A_ii = diag[i]` (0 on rows that are not unknowns), `1 / A_ii`, and row `i`'s off-diagonal
/// entries `val[e]` at columns `col[e]`, `e` in `start[i]..start[i + 1]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LevelMatrix<'a> {
    pub nx: usize,
    pub ny: usize,
    pub diag: &'a [f64],
    pub inv_diag: &'a [f64],
    pub start: &'a [u32],
    pub col: &'a [u32],
    pub val: &'a [f64],
    /// How far, in nodes along either grid direction, a row reaches.
    pub reach: usize,
}

/// The coarsest level's Cholesky factor `A = L Lᵀ` over its unknowns
/// ([`Multigrid::coarsest_factor`]): `nodes[p]` is the level node of factor row `p`; row `p`'s
/// entries left of the diagonal are `l[p (p − 1) / 2 ..][..p]`, and `inv_diag[p] = 1 / L_pp`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CoarsestFactor<'a> {
    pub nodes: &'a [usize],
    pub l: &'a [f64],
    pub inv_diag: &'a [f64],
}

/// Colours along each grid direction of [`node_coloured_sweep`]: nodes three apart along both
/// directions share a colour, and no row of a grid level reaches farther than two.
pub(crate) const NODE_COLOURS: usize = 3;

/// One Gauss–Seidel sweep in the GPU's order: nodes coloured by `(x mod 3, y mod 3)`, colour
/// `3 (y mod 3) + (x mod 3)` in turn, `x_i = (b_i − Σ_j A_ij x_j) / A_ii` on each unknown of the
/// colour with its neighbours as they are then. No two nodes of a colour are coupled (a row
/// reaches at most two nodes along each direction), so every order within a colour, and the
/// GPU's invocations all at once, give this answer. Returns `Σ |r_i|²` of the residuals met.
/// The twin of `shaders/sim_solve.wgsl`'s `sweep`.
pub(crate) fn node_coloured_sweep(m: &LevelMatrix, b: &[DVec3], x: &mut [DVec3]) -> f64 {
    assert!(
        m.reach < NODE_COLOURS,
        "a row reaching {} nodes couples nodes of one colour",
        m.reach
    );
    let mut r2 = 0.0;
    for oy in 0..NODE_COLOURS {
        for ox in 0..NODE_COLOURS {
            for y in (oy..m.ny).step_by(NODE_COLOURS) {
                for i in (ox..m.nx).step_by(NODE_COLOURS).map(|c| y * m.nx + c) {
                    if m.diag[i] > 0.0 {
                        let ax = off_diagonal_times(DVec3::ZERO, m.start, m.col, m.val, i, x);
                        r2 += (b[i] - ax - m.diag[i] * x[i]).length_squared();
                        x[i] = (b[i] - ax) * m.inv_diag[i];
                    }
                }
            }
        }
    }
    r2
}

impl Multigrid {
    /// Levels in the hierarchy (1: the cloth is solved directly).
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Level `l`'s matrix (level 0 with the extra diagonal of the last
    /// [`Multigrid::set_extra_diagonal`]).
    pub(crate) fn level_matrix(&self, l: usize) -> LevelMatrix<'_> {
        let level = &self.levels[l];
        LevelMatrix {
            nx: level.nx,
            ny: level.ny,
            diag: &level.diag,
            inv_diag: &level.inv_diag,
            start: &level.start,
            col: &level.col,
            val: &level.val,
            reach: level.reach,
        }
    }

    /// Level 0's diagonal without the extra, as the hierarchy was built.
    pub(crate) fn base_diagonal(&self) -> &[f64] {
        &self.base_diag
    }

    /// The coarsest level's factor (of its matrix as built: with a single level, without
    /// the extra diagonal). Empty when a single level is too large to factor (conjugate
    /// gradients solve it).
    pub(crate) fn coarsest_factor(&self) -> CoarsestFactor<'_> {
        CoarsestFactor {
            nodes: &self.coarsest.nodes,
            l: &self.coarsest.l,
            inv_diag: &self.coarsest.inv_diag,
        }
    }

    /// Smooths in the GPU's order ([`node_coloured_sweep`]) from now on (`true`), or by
    /// coloured grid rows (`false`, the default: faster on the CPU, since a row's updates
    /// follow each other in memory). Both solve the same system; with the GPU's order a V-cycle
    /// is the f64 twin of the GPU's.
    #[cfg(test)]
    pub(crate) fn set_node_colours(&mut self, on: bool) {
        self.node_colours = on;
    }

    /// Builds the hierarchy for `cloth` (which must be a grid) with step `h` and the held set,
    /// unless it was built from the same inputs. Returns whether it built.
    pub fn prepare(&mut self, cloth: &Cloth, held: &[bool], h: f64) -> bool {
        let same = !self.levels.is_empty()
            && self.inputs.h == h
            && self.inputs.k == cloth.k()
            && self.inputs.m == cloth.m
            && self.inputs.held == held;
        if same {
            return false;
        }
        self.inputs = Inputs {
            h,
            k: cloth.k().to_vec(),
            m: cloth.m.clone(),
            held: held.to_vec(),
        };
        let (nx, ny) = cloth
            .grid()
            .map_or((cloth.node_count(), 1), |g| (g.nx, g.ny));
        let mut levels = vec![fine_level(cloth, held, h, nx, ny)];
        while cloth.grid().is_some() {
            let last = levels.last().expect("level 0 is there");
            let (cx, cy) = (coarse_len(last.nx), coarse_len(last.ny));
            if last.len() <= COARSEST_NODES || cx * cy == last.len() {
                break;
            }
            let next = galerkin(last);
            levels.push(next);
        }
        for level in &mut levels {
            level.resize_work();
        }
        self.base_diag.clone_from(&levels[0].diag);
        let last = levels.last().expect("level 0 is there");
        self.coarsest = if last.len() <= COARSEST_NODES || levels.len() > 1 {
            Dense::new(last)
        } else {
            Dense::default()
        };
        self.levels = levels;
        (self.extra, self.factored_extra) = (false, false);
        self.builds += 1;
        true
    }

    /// Adds `extra(i) ≥ 0` to level 0's diagonal for this solve (the implicit drag `h c_i`); the
    /// coarse levels keep the operator they were built with, which only slows convergence a
    /// little when the extra is small against `h² Σ k`.
    pub(crate) fn set_extra_diagonal(
        &mut self,
        extra: impl Fn(usize) -> f64 + Sync,
        parallel: bool,
    ) {
        let had = self.extra;
        self.extra = (0..self.base_diag.len()).any(|i| self.base_diag[i] > 0.0 && extra(i) != 0.0);
        if !self.extra && !had {
            return;
        }
        let base = &self.base_diag;
        let level = &mut self.levels[0];
        for_each_node2(
            parallel,
            &mut level.diag,
            &mut level.inv_diag,
            |i, d, inv| {
                (*d, *inv) = if base[i] > 0.0 {
                    let d = base[i] + extra(i);
                    (d, 1.0 / d)
                } else {
                    (0.0, 0.0)
                };
            },
        );
    }

    /// Solves `A x = b` on the free nodes: V-cycles from the `x` given (a warm start) until
    /// `|b − A x| ≤ tolerance · scale` or `max_cycles`, at least one (so a cloth at rest keeps
    /// converging to the springs' own equilibrium, past the tolerance; stopping before the
    /// first cycle would save a few cycles but leave nodes at rest with part of their weight
    /// unbalanced). Held nodes' `x` is left as it is. The residual a
    /// cycle is judged by is the one its last smoothing sweep starts from (computed there at no
    /// cost): the sweep itself only lowers it further.
    /// With a single level the solve is direct when it is small, and conjugate gradients
    /// preconditioned by the diagonal (at most `10 · max_cycles` iterations) when it is not: a
    /// large cloth that is not a grid has no coarse levels.
    pub fn solve(
        &mut self,
        b: &[DVec3],
        x: &mut [DVec3],
        scale: f64,
        tolerance: f64,
        max_cycles: u32,
        parallel: bool,
    ) -> SolveReport {
        let n = self.levels[0].len();
        assert_eq!(b.len(), n, "right-hand side of the wrong size");
        assert_eq!(x.len(), n, "solution of the wrong size");
        self.levels[0].b.copy_from_slice(b);
        self.levels[0].x.copy_from_slice(x);
        let scale = if scale > 0.0 { scale } else { 1.0 };
        let mut report = SolveReport::default();
        if self.levels.len() == 1 && self.levels[0].len() > COARSEST_NODES {
            report = pcg(
                &mut self.levels[0],
                scale,
                tolerance,
                10 * max_cycles,
                parallel,
            );
        } else if self.levels.len() == 1 {
            if self.extra || self.factored_extra {
                self.coarsest.factor(&self.levels[0]);
                self.factored_extra = self.extra;
            }
            let level = &mut self.levels[0];
            let mut out = std::mem::take(&mut level.x);
            self.coarsest.solve(&level.b, &mut out);
            level.x = out;
            report.relative_residual = residual(level, parallel).sqrt() / scale;
            report.cycles = 1;
        } else {
            loop {
                let r2 = self.v_cycle(0, parallel);
                report.cycles += 1;
                report.relative_residual = r2.sqrt() / scale;
                if report.relative_residual <= tolerance || report.cycles >= max_cycles {
                    break;
                }
            }
        }
        let level = &self.levels[0];
        for (i, xi) in x.iter_mut().enumerate() {
            if level.active(i) {
                *xi = level.x[i];
            }
        }
        report
    }

    /// The coarse-grid correction of a two-grid preconditioner for a system on level 0's nodes
    /// whose matrix is close to this one: `e = P A₁⁻¹ Pᵀ r`, `A₁⁻¹` taken by one V-cycle from
    /// level 1 (exactly when level 1 is the coarsest). `e` is written on level 0's active
    /// nodes and zero elsewhere; with a single level there is no coarser grid and `e = 0`.
    pub(crate) fn coarse_correction(&mut self, r: &[DVec3], e: &mut [DVec3], parallel: bool) {
        e.fill(DVec3::ZERO);
        if self.levels.len() < 2 {
            return;
        }
        let parallel = parallel && self.levels[0].len() >= PARALLEL_LEVEL;
        let level = &mut self.levels[0];
        for (i, ri) in level.r.iter_mut().enumerate() {
            *ri = if level.diag[i] > 0.0 {
                r[i]
            } else {
                DVec3::ZERO
            };
        }
        let (fine, coarse) = self.levels.split_at_mut(1);
        let (fine, coarse) = (&fine[0], &mut coarse[0]);
        fine.transfer
            .restrict(&fine.r, &coarse.diag, &mut coarse.b, parallel);
        coarse.x.fill(DVec3::ZERO);
        self.v_cycle(1, parallel);
        let (fine, coarse) = self.levels.split_at_mut(1);
        let fine = &mut fine[0];
        fine.x.fill(DVec3::ZERO);
        fine.transfer
            .prolong(&coarse[0].x, &fine.diag, &mut fine.x, parallel);
        e.copy_from_slice(&fine.x);
    }

    /// One V-cycle from level `l` down; returns `Σ |r_i|²` of the residual the last smoothing
    /// sweep started from (0 at the coarsest level, which is solved exactly).
    fn v_cycle(&mut self, l: usize, parallel: bool) -> f64 {
        if l + 1 == self.levels.len() {
            let level = &mut self.levels[l];
            let mut out = std::mem::take(&mut level.x);
            self.coarsest.solve(&level.b, &mut out);
            level.x = out;
            return 0.0;
        }
        let parallel = parallel && self.levels[l].len() >= PARALLEL_LEVEL;
        residual(&mut self.levels[l], parallel);
        let (fine, coarse) = self.levels.split_at_mut(l + 1);
        let (fine, coarse) = (&fine[l], &mut coarse[0]);
        fine.transfer
            .restrict(&fine.r, &coarse.diag, &mut coarse.b, parallel);
        coarse.x.fill(DVec3::ZERO);
        self.v_cycle(l + 1, parallel);
        let (fine, coarse) = self.levels.split_at_mut(l + 1);
        let fine = &mut fine[l];
        fine.transfer
            .prolong(&coarse[0].x, &fine.diag, &mut fine.x, parallel);
        let mut r2 = 0.0;
        for _ in 0..POST_SMOOTH {
            r2 = if self.node_colours && self.levels[l].reach < NODE_COLOURS {
                let level = &mut self.levels[l];
                let mut x = std::mem::take(&mut level.x);
                let r2 = node_coloured_sweep(&self.level_matrix(l), &self.levels[l].b, &mut x);
                self.levels[l].x = x;
                r2
            } else {
                gauss_seidel(&mut self.levels[l], parallel)
            };
        }
        r2
    }
}

/// Level 0 from the cloth's links: `A_ii = m_i + h² Σ_j k_ij` on free rows (springs to held
/// nodes count in the diagonal), `−h² k_ij` to free neighbours.
fn fine_level(cloth: &Cloth, held: &[bool], h: f64, nx: usize, ny: usize) -> Level {
    let n = cloth.node_count();
    let h2 = h * h;
    let mut level = Level {
        nx,
        ny,
        diag: vec![0.0; n],
        start: Vec::with_capacity(n + 1),
        ..Level::default()
    };
    level.start.push(0);
    for i in 0..n {
        if !held[i] {
            level.diag[i] = cloth.m[i] + h2 * cloth.stiffness().k_sum()[i];
            let range = cloth.topology.link_start[i]..cloth.topology.link_start[i + 1];
            for (l, &k) in cloth.topology.links[range.clone()]
                .iter()
                .zip(&cloth.stiffness().link_k()[range])
            {
                let j = l.node as usize;
                if !held[j] && k != 0.0 {
                    level.col.push(l.node);
                    level.val.push(-h2 * k);
                    let (dx, dy) = ((i % nx).abs_diff(j % nx), (i / nx).abs_diff(j / nx));
                    level.reach = level.reach.max(dx.max(dy));
                }
            }
        }
        level.start.push(level.col.len() as u32);
    }
    level.order_for_sweeps();
    level.set_inverse_diagonal();
    level
}

/// The next coarser level: `Pᵀ A P`, accumulated into each coarse row's stencil of
/// `(2R + 1)²` neighbours, `R = ⌈(reach + 2) / 2⌉`, then stored as CSR.
fn galerkin(fine: &Level) -> Level {
    let (nx, ny) = (fine.nx, fine.ny);
    let (cx, cy) = (coarse_len(nx), coarse_len(ny));
    let reach = (fine.reach + 2).div_ceil(2);
    let width = 2 * reach + 1;
    let slots = width * width;
    let mut acc = vec![0.0; cx * cy * slots];
    let mut add = |i: usize, j: usize, a: f64| {
        let (px, nx_p) = parents(i % nx, nx);
        let (py, ny_p) = parents(i / nx, ny);
        let (qx, nx_q) = parents(j % nx, nx);
        let (qy, ny_q) = parents(j / nx, ny);
        for &(ix, wx) in &px[..nx_p] {
            for &(iy, wy) in &py[..ny_p] {
                let row = (iy * cx + ix) * slots;
                for &(jx, vx) in &qx[..nx_q] {
                    for &(jy, vy) in &qy[..ny_q] {
                        let slot = (jy + reach - iy) * width + (jx + reach - ix);
                        acc[row + slot] += wx * wy * a * vx * vy;
                    }
                }
            }
        }
    };
    for i in 0..fine.len() {
        if !fine.active(i) {
            continue;
        }
        add(i, i, fine.diag[i]);
        for e in fine.start[i] as usize..fine.start[i + 1] as usize {
            add(i, fine.col[e] as usize, fine.val[e]);
        }
    }
    let n = cx * cy;
    let mut coarse = Level {
        nx: cx,
        ny: cy,
        diag: vec![0.0; n],
        start: Vec::with_capacity(n + 1),
        ..Level::default()
    };
    coarse.start.push(0);
    let center = reach * width + reach;
    for c in 0..n {
        let row = &acc[c * slots..(c + 1) * slots];
        // A row is an unknown when some active fine node interpolates from it; then its
        // diagonal is positive (a sum of positive masses with the Laplacian's non-negative
        // quadratic form).
        if row[center] > 0.0 {
            coarse.diag[c] = row[center];
            let (ix, iy) = (c % cx, c / cx);
            for (s, &a) in row.iter().enumerate() {
                if s == center || a == 0.0 {
                    continue;
                }
                let (jx, jy) = (
                    (ix + s % width).wrapping_sub(reach),
                    (iy + s / width).wrapping_sub(reach),
                );
                if jx < cx && jy < cy && row_active(&acc, jy * cx + jx, slots, center) {
                    coarse.col.push((jy * cx + jx) as u32);
                    coarse.val.push(a);
                    coarse.reach = coarse.reach.max(ix.abs_diff(jx).max(iy.abs_diff(jy)));
                }
            }
        }
        coarse.start.push(coarse.col.len() as u32);
    }
    coarse.order_for_sweeps();
    coarse.set_inverse_diagonal();
    coarse
}

fn row_active(acc: &[f64], c: usize, slots: usize, center: usize) -> bool {
    acc[c * slots + center] > 0.0
}

/// `(A x)_i` of an active row `i`, from the diagonal and the row's off-diagonal entries.
#[allow(clippy::inline_always)] // reason: the innermost loop of kang-mg
#[inline(always)]
fn row_times(
    diag: &[f64],
    start: &[u32],
    col: &[u32],
    val: &[f64],
    i: usize,
    x: &[DVec3],
) -> DVec3 {
    off_diagonal_times(diag[i] * x[i], start, col, val, i, x)
}

/// `first + Σ_j A_ij x_j` over row `i`'s off-diagonal entries, summed in storage order, in one
/// chain of additions (two chains, even and odd places apart, are no faster on the peer's
/// sheets).
#[allow(clippy::inline_always)] // reason: the innermost loop of kang-mg
#[inline(always)]
fn off_diagonal_times(
    first: DVec3,
    start: &[u32],
    col: &[u32],
    val: &[f64],
    i: usize,
    x: &[DVec3],
) -> DVec3 {
    let range = start[i] as usize..start[i + 1] as usize;
    let mut ax = first;
    for (&c, &v) in col[range.clone()].iter().zip(&val[range]) {
        ax += v * x[c as usize];
    }
    ax
}

/// `r = b − A x` on the active rows (0 elsewhere); returns `Σ |r_i|²`.
fn residual(level: &mut Level, parallel: bool) -> f64 {
    let Level {
        diag,
        start,
        col,
        val,
        x,
        b,
        r,
        ..
    } = level;
    let (diag, start, col, val, x, b) = (&*diag, &*start, &*col, &*val, &*x, &*b);
    for_each_node(parallel, r, |i, ri| {
        *ri = if diag[i] > 0.0 {
            b[i] - row_times(diag, start, col, val, i, x)
        } else {
            DVec3::ZERO
        };
    });
    r.iter().map(|v| v.length_squared()).sum()
}

/// Rows `y` and `y + 3` are never coupled: a row of the matrix reaches at most two grid rows.
const COLOURS: usize = 3;

/// One Gauss–Seidel sweep, grid rows coloured by `y mod 3`: colour by colour, each row of the
/// colour from left to right, `x_i = (b_i − Σ_j A_ij x_j) / A_ii` with the neighbours as they
/// are then. Rows of a colour do not read each other, so the rayon path (the rows of a colour in
/// parallel, each updated in a copy and written back after the colour) gives the serial answer.
/// Returns `Σ |r_i|²` of the residuals met at the updates. A level whose rows reach farther
/// (never a grid cloth's) gets a damped Jacobi sweep instead.
fn gauss_seidel(level: &mut Level, parallel: bool) -> f64 {
    if level.reach >= COLOURS {
        return jacobi(level, parallel);
    }
    let mut r2 = 0.0;
    for colour in 0..COLOURS {
        r2 += if parallel {
            colour_parallel(level, colour)
        } else {
            colour_serial(level, colour)
        };
    }
    r2
}

/// One Gauss–Seidel update of node `i`: `A_ii x_i = b_i − Σ_j A_ij x_j`, the off-diagonal sum
/// read from `row` for nodes of row `y` (which starts at node `y0`) and from `x` for the others.
/// Returns `r_i` before the update.
#[inline]
fn gs_update(level: &Level, i: usize, y0: usize, row: &mut [DVec3]) -> DVec3 {
    let nx = level.nx;
    let mut ax = DVec3::ZERO;
    for e in level.start[i] as usize..level.start[i + 1] as usize {
        let j = level.col[e] as usize;
        let xj = if j >= y0 && j < y0 + nx {
            row[j - y0]
        } else {
            level.x[j]
        };
        ax += level.val[e] * xj;
    }
    let own = &mut row[i - y0];
    let r = level.b[i] - ax - level.diag[i] * *own;
    *own = (level.b[i] - ax) * level.inv_diag[i];
    r
}

/// The rows of `colour` updated in place, in order. (No copies: a row reads only itself and
/// rows of other colours, so updating `x` directly gives what the parallel sweep's copies do.)
fn colour_serial(level: &mut Level, colour: usize) -> f64 {
    let (nx, ny) = (level.nx, level.ny);
    let Level {
        diag,
        inv_diag,
        start,
        col,
        val,
        x,
        b,
        ..
    } = level;
    let mut r2 = 0.0;
    for y in (colour..ny).step_by(COLOURS) {
        // Summed row by row, as the parallel sweep sums.
        let mut row_r2 = 0.0;
        for i in y * nx..(y + 1) * nx {
            if diag[i] > 0.0 {
                let ax = off_diagonal_times(DVec3::ZERO, start, col, val, i, x);
                let r = b[i] - ax - diag[i] * x[i];
                x[i] = (b[i] - ax) * inv_diag[i];
                row_r2 += r.length_squared();
            }
        }
        r2 += row_r2;
    }
    r2
}

/// The rows of `colour` updated in parallel in copies (`tmp`), then written back.
fn colour_parallel(level: &mut Level, colour: usize) -> f64 {
    use rayon::prelude::*;
    let nx = level.nx;
    let mut tmp = std::mem::take(&mut level.tmp);
    let mut row_r2 = std::mem::take(&mut level.row_r2);
    let lv = &*level;
    // Blocks of three rows, the colour's row in each; jobs of at least MIN_PARALLEL_CHUNK
    // nodes: smaller ones cost more to hand over than they save.
    let block = COLOURS * nx;
    let blocks_per_job = MIN_PARALLEL_CHUNK.div_ceil(block);
    tmp.par_chunks_mut(block)
        .zip(row_r2.par_chunks_mut(COLOURS))
        .enumerate()
        .with_min_len(blocks_per_job)
        .for_each(|(k, (rows, r2))| {
            let y = k * COLOURS + colour;
            if colour >= r2.len() {
                return;
            }
            let y0 = y * nx;
            let row = &mut rows[colour * nx..(colour + 1) * nx];
            row.copy_from_slice(&lv.x[y0..y0 + nx]);
            r2[colour] = 0.0;
            for i in y0..y0 + nx {
                if lv.diag[i] > 0.0 {
                    r2[colour] += gs_update(lv, i, y0, row).length_squared();
                }
            }
        });
    // Summed in row order, as the serial sweep sums.
    let r2: f64 = row_r2.iter().skip(colour).step_by(COLOURS).sum();
    level.row_r2 = row_r2;
    level
        .x
        .par_chunks_mut(block)
        .zip(tmp.par_chunks(block))
        .with_min_len(blocks_per_job)
        .for_each(|(x, new)| {
            let range = colour * nx..(colour + 1) * nx;
            if range.end <= x.len() {
                x[range.clone()].copy_from_slice(&new[range]);
            }
        });
    level.tmp = tmp;
    r2
}

/// One damped Jacobi sweep: `x += ω D⁻¹ (b − A x)` on the active rows. Returns `Σ |r_i|²` of
/// the residual it started from.
fn jacobi(level: &mut Level, parallel: bool) -> f64 {
    let r2 = {
        let Level {
            diag,
            start,
            col,
            val,
            x,
            b,
            r,
            tmp,
            ..
        } = &mut *level;
        let (diag, start, col, val, x, b) = (&*diag, &*start, &*col, &*val, &*x, &*b);
        for_each_node2(parallel, tmp, r, |i, t, ri| {
            if diag[i] > 0.0 {
                *ri = b[i] - row_times(diag, start, col, val, i, x);
                *t = x[i] + (JACOBI_WEIGHT / diag[i]) * *ri;
            } else {
                *ri = DVec3::ZERO;
                *t = x[i];
            }
        });
        r.iter().map(|v| v.length_squared()).sum()
    };
    std::mem::swap(&mut level.x, &mut level.tmp);
    r2
}

/// Along one direction of `n` fine nodes, per coarse node, the fine nodes that interpolate
/// from it and their weights (`Pᵀ`'s rows along that direction): at most three.
fn children_1d(n: usize) -> Vec<([(u32, f64); 3], usize)> {
    let nc = coarse_len(n);
    let mut out = vec![([(0, 0.0); 3], 0); nc];
    for i in 0..n {
        let (p, count) = parents(i, n);
        for &(c, w) in &p[..count] {
            let (list, len) = &mut out[c];
            list[*len] = (i as u32, w);
            *len += 1;
        }
    }
    out
}

/// `f(y, row)` for each grid row `y` of a level `nx` nodes wide (`out` is the level's per-node
/// array), in parallel when asked: the loops below then know each node's column without an
/// integer division per node (which cost a tenth of `prolong` on a 32² sheet).
fn for_each_row<T: Send>(
    parallel: bool,
    out: &mut [T],
    nx: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    if parallel {
        use rayon::prelude::*;
        out.par_chunks_mut(nx)
            .with_min_len(MIN_PARALLEL_CHUNK.div_ceil(nx))
            .enumerate()
            .for_each(|(y, row)| f(y, row));
    } else {
        out.chunks_mut(nx)
            .enumerate()
            .for_each(|(y, row)| f(y, row));
    }
}

/// The transfers between a grid of `nx × ny` nodes (row-major) and the next coarser one
/// ([`coarse_len`] along each direction): linear interpolation along each direction
/// ([`parents`]) and its transpose, each per node of the grid it writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct GridTransfer {
    nx: usize,
    cx: usize,
    /// Per fine index along x and y, its parents ([`parents`]).
    parents_x: Vec<([(usize, f64); 2], usize)>,
    parents_y: Vec<([(usize, f64); 2], usize)>,
    /// Per coarse index along x and y, its children ([`children_1d`]).
    children_x: Vec<([(u32, f64); 3], usize)>,
    children_y: Vec<([(u32, f64); 3], usize)>,
}

impl GridTransfer {
    pub(crate) fn new(nx: usize, ny: usize) -> Self {
        Self {
            nx,
            cx: coarse_len(nx),
            parents_x: (0..nx).map(|i| parents(i, nx)).collect(),
            parents_y: (0..ny).map(|i| parents(i, ny)).collect(),
            children_x: children_1d(nx),
            children_y: children_1d(ny),
        }
    }

    /// `b = Pᵀ r` on the coarse nodes whose `coarse_diag` is positive (zero on the others),
    /// gathered per coarse node from the fine nodes that interpolate from it (the tensor
    /// product of `children_1d` along both directions, y outside, x inside).
    pub(crate) fn restrict(
        &self,
        r: &[DVec3],
        coarse_diag: &[f64],
        b: &mut [DVec3],
        parallel: bool,
    ) {
        let (nx, cx) = (self.nx, self.cx);
        let (kx, ky) = (&self.children_x, &self.children_y);
        for_each_row(parallel, b, cx, |cy, row| {
            let (ly, nly) = ky[cy];
            for (ix, bc) in row.iter_mut().enumerate() {
                if coarse_diag[cy * cx + ix] <= 0.0 {
                    *bc = DVec3::ZERO;
                    continue;
                }
                let (lx, nlx) = kx[ix];
                let mut sum = DVec3::ZERO;
                for &(fy, wy) in &ly[..nly] {
                    let fine_row = fy as usize * nx;
                    let mut part = DVec3::ZERO;
                    for &(fx, wx) in &lx[..nlx] {
                        part += wx * r[fine_row + fx as usize];
                    }
                    sum += wy * part;
                }
                *bc = sum;
            }
        });
    }

    /// `x += P x_coarse` on the fine nodes whose `fine_diag` is positive (the others keep
    /// their `x`).
    pub(crate) fn prolong(
        &self,
        x_coarse: &[DVec3],
        fine_diag: &[f64],
        x: &mut [DVec3],
        parallel: bool,
    ) {
        let (nx, cx) = (self.nx, self.cx);
        let (px, py) = (&self.parents_x, &self.parents_y);
        for_each_row(parallel, x, nx, |y, row| {
            let (ly, nly) = py[y];
            for (ix, xi) in row.iter_mut().enumerate() {
                if fine_diag[y * nx + ix] <= 0.0 {
                    continue;
                }
                let (lx, nlx) = px[ix];
                let mut add = DVec3::ZERO;
                for &(iy, wy) in &ly[..nly] {
                    let coarse_row = iy * cx;
                    let mut part = DVec3::ZERO;
                    for &(jx, wx) in &lx[..nlx] {
                        part += wx * x_coarse[coarse_row + jx];
                    }
                    add += wy * part;
                }
                *xi += add;
            }
        });
    }
}

/// Conjugate gradients on level 0 from its `x`, preconditioned by the diagonal, until
/// `|r| ≤ tolerance · scale` or `max_iterations`. Uses `r` and `tmp`, and `b` as the search
/// direction's scratch once the residual is formed.
fn pcg(
    level: &mut Level,
    scale: f64,
    tolerance: f64,
    max_iterations: u32,
    parallel: bool,
) -> SolveReport {
    let mut rr = residual(level, parallel);
    let n = level.len();
    let mut p = std::mem::take(&mut level.p);
    for (i, pi) in p.iter_mut().enumerate() {
        *pi = if level.active(i) {
            level.r[i] / level.diag[i]
        } else {
            DVec3::ZERO
        };
    }
    let mut rz: f64 = (0..n).map(|i| level.r[i].dot(p[i])).sum();
    let mut report = SolveReport {
        cycles: 0,
        relative_residual: rr.sqrt() / scale,
    };
    while report.relative_residual > tolerance && report.cycles < max_iterations && rz > 0.0 {
        {
            let Level {
                diag,
                start,
                col,
                val,
                tmp,
                ..
            } = &mut *level;
            let (diag, start, col, val, pr) = (&*diag, &*start, &*col, &*val, &p);
            for_each_node(parallel, tmp, |i, ap| {
                *ap = if diag[i] > 0.0 {
                    row_times(diag, start, col, val, i, pr)
                } else {
                    DVec3::ZERO
                };
            });
        }
        let pap: f64 = (0..n).map(|i| p[i].dot(level.tmp[i])).sum();
        if pap <= 0.0 {
            break;
        }
        let alpha = rz / pap;
        rr = 0.0;
        for (((x, r), ap), pi) in level.x.iter_mut().zip(&mut level.r).zip(&level.tmp).zip(&p) {
            *x += alpha * *pi;
            *r -= alpha * *ap;
            rr += r.length_squared();
        }
        let mut rz_new = 0.0;
        for i in 0..n {
            let z = if level.active(i) {
                level.r[i] / level.diag[i]
            } else {
                DVec3::ZERO
            };
            rz_new += level.r[i].dot(z);
            level.b[i] = z;
        }
        let beta = rz_new / rz;
        rz = rz_new;
        for (pi, z) in p.iter_mut().zip(&level.b) {
            *pi = *z + beta * *pi;
        }
        report.cycles += 1;
        report.relative_residual = rr.sqrt() / scale;
    }
    level.p = p;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::format::scene::Scene;

    /// An `nx × ny` sheet with bend springs, pinned at its top corners: rows reach two nodes
    /// each way.
    fn sheet(nx: usize, ny: usize) -> (Cloth, Vec<bool>) {
        let json = format!(
            r#"{{ "cloth": {{ "grid": {{ "nx": {nx}, "ny": {ny}, "width": 1, "height": 0.8,
            "mass": 0.3, "bend": true, "pins": "top-corners" }} }} }}"#
        );
        let sim = Scene::from_json(&json, "test")
            .unwrap()
            .simulation()
            .unwrap();
        let held = sim.cloth.pinned.clone();
        (sim.cloth, held)
    }

    /// Each row as a sorted list of `(column, value)`.
    fn rows(level: &Level) -> Vec<Vec<(u32, f64)>> {
        (0..level.len())
            .map(|i| {
                let range = level.start[i] as usize..level.start[i + 1] as usize;
                let mut row: Vec<_> = level.col[range.clone()]
                    .iter()
                    .copied()
                    .zip(level.val[range].iter().copied())
                    .collect();
                row.sort_by_key(|e| e.0);
                row
            })
            .collect()
    }

    /// The fine level's matrix written out from the springs: `−h² k` to each free neighbour.
    fn expected_rows(cloth: &Cloth, held: &[bool], h: f64) -> Vec<Vec<(u32, f64)>> {
        let mut rows = vec![Vec::new(); cloth.node_count()];
        for (s, &[a, b]) in cloth.topology.ends.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            if !held[a] && !held[b] {
                rows[a].push((b as u32, -h * h * cloth.k()[s]));
                rows[b].push((a as u32, -h * h * cloth.k()[s]));
            }
        }
        for row in &mut rows {
            row.sort_by_key(|e| e.0);
        }
        rows
    }

    #[test]
    fn rows_keep_their_entries_with_the_nodes_just_before_them_last_nearest_last() {
        let (cloth, held) = sheet(7, 6);
        let h = 0.01;
        let g = cloth.grid().unwrap();
        let level = fine_level(&cloth, &held, h, g.nx, g.ny);
        assert_eq!(rows(&level), expected_rows(&cloth, &held, h));
        let mut reordered = 0;
        for i in 0..level.len() {
            let cols: Vec<usize> = (level.start[i]..level.start[i + 1])
                .map(|e| level.col[e as usize] as usize)
                .collect();
            if held[i] {
                continue;
            }
            // The springs reach two nodes along a row: i − 2 and i − 1, where free and in it.
            let expected: Vec<usize> = (i.saturating_sub(2).max(i - i % g.nx)..i)
                .filter(|&j| !held[j])
                .collect();
            assert_eq!(
                &cols[cols.len() - expected.len()..],
                &expected[..],
                "row {i}: {cols:?}"
            );
            if !expected.is_empty() && cols.len() > expected.len() {
                reordered += 1;
            }
        }
        assert!(reordered > 20, "only {reordered} rows checked");
        // Each coarse level too: its row reaches two nodes back along its grid row at most.
        let coarse = galerkin(&level);
        for i in 0..coarse.len() {
            let cols: Vec<usize> = (coarse.start[i]..coarse.start[i + 1])
                .map(|e| coarse.col[e as usize] as usize)
                .collect();
            let row_start = i - i % coarse.nx;
            let late = cols.iter().filter(|&&j| j >= row_start && j < i).count();
            let tail = &cols[cols.len() - late..];
            assert!(
                tail.iter().all(|&j| j >= row_start && j < i),
                "coarse row {i}: {cols:?}"
            );
            assert!(
                tail.windows(2).all(|w| w[0] < w[1]),
                "coarse row {i}: {cols:?}"
            );
        }
    }

    #[test]
    fn the_inverse_diagonal_is_one_over_the_diagonal_and_zero_off_the_unknowns() {
        // 120 nodes: above COARSEST_NODES, so a coarse level is built.
        let (cloth, held) = sheet(12, 10);
        let h = 0.01;
        let mut mg = Multigrid::default();
        assert!(mg.prepare(&cloth, &held, h));
        let check = |mg: &Multigrid, extra: f64| {
            for level in &mg.levels {
                for i in 0..level.len() {
                    if level.diag[i] > 0.0 {
                        assert!((level.inv_diag[i] * level.diag[i] - 1.0).abs() < 1e-15);
                    } else {
                        assert_eq!(level.inv_diag[i], 0.0);
                    }
                }
            }
            let fine = &mg.levels[0];
            for (i, &is_held) in held.iter().enumerate() {
                let expected = if is_held {
                    0.0
                } else {
                    cloth.m[i] + h * h * cloth.stiffness().k_sum()[i] + extra
                };
                assert!(
                    (fine.diag[i] - expected).abs() <= 1e-15 * expected,
                    "node {i}"
                );
            }
        };
        assert!(mg.levels.len() > 1);
        check(&mg, 0.0);
        mg.set_extra_diagonal(|_| 0.25, false);
        check(&mg, 0.25);
        mg.set_extra_diagonal(|_| 0.0, false);
        check(&mg, 0.0);
    }
}
