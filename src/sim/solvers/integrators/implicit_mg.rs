//! `implicit-mg`: backward Euler with the full spring Jacobian (the system `implicit-cg`
//! solves) by multigrid-preconditioned conjugate gradients (docs/method.md §2, "implicit-mg").
//!
//! ```text
//! (M + h C − h² ∂f/∂x − h ∂f/∂v) Δv = h (f + m g + F_air − C v_rel + h ∂f/∂x v)
//! ```
//!
//! Why not `kang-mg`'s system: Desbrun's approximate Hessian gives every spring its stiffness
//! `k` across its length too, where the true Jacobian has `k (1 − L/|x|)`, nearly nothing at
//! rest length. Solved exactly, that system stiffens every bending and flapping motion by
//! `h² k` and damps it: at the default flag's `h² k / m ≈ 23` the flag flies nearly still
//! (docs/method.md §2). The true Jacobian has no
//! such term; solved to a tolerance, this is the accurate solve at one substep.
//!
//! The solver is flexible CG (one search direction kept, Notay 2000) preconditioned by a
//! two-grid cycle: a forward Gauss–Seidel sweep with the true 3 × 3 blocks, the coarse-grid
//! correction of `kang-mg`'s hierarchy ([`Multigrid::coarse_correction`]: Desbrun's matrix is
//! the true one in-plane, where a cloth is stiff, and only too stiff across springs, where the
//! mass dominates and the sweeps converge by themselves), then a backward sweep. The sweeps
//! couple only the springs with `h² k` at least a node's mass ([`COUPLING`]); a weaker one is in
//! the diagonal blocks and the products only. Each step starts from the last step's `Δv`, takes
//! at least one iteration and stops when the residual is `params.multigrid.tolerance` of the
//! step's forces (scaled by `√(100 / n)` on a cloth of `n` > 100 nodes: [`tolerance_scale`]) or
//! after `4 × params.multigrid.max_cycles` iterations. A cloth that is not a grid gets the
//! sweeps alone.

use glam::{DMat3, DVec3};

use super::SolverReport;
use super::implicit_cg::CgReport;
use super::{Integrator, Next, Step, StepInput, advance_symplectic};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::model::cloth::{Cloth, Link, Topology};
use crate::sim::model::par::for_each_node;
use crate::sim::solvers::jacobian::{RhsInput, SpringBlock, right_hand_side, spring_blocks};
use crate::sim::solvers::multigrid::Multigrid;

/// A spring couples its ends in the preconditioner's sweeps when `h² k` is at least this
/// fraction of its lighter end's mass. A weaker spring barely moves a node against its own
/// inertia: its block stays in the diagonal and the product, and the outer iteration accounts
/// for it. On the default flag this leaves out the bending springs (`h² k / m ≈ 0.23`), a third
/// of each sweep's products, and the iterations a step go from 1.164 to 1.173.
pub(crate) const COUPLING: f64 = 1.0;

/// The node count `params.multigrid.tolerance` is stated for: a cloth of more nodes is solved
/// to [`tolerance_scale`] of it.
pub(crate) const TOLERANCE_NODES: usize = 100;

/// The factor on `params.multigrid.tolerance` for a cloth of `n` nodes: `√(100 / n)`, at most 1.
///
/// The residual is measured in the 2-norm over every node, relative to the forces' 2-norm. A
/// residual left at a few nodes (a pinned corner, where the cloth is stiffest) weighs `1 / √n`
/// of the forces whatever its size there, so at a fixed tolerance a finer grid leaves those
/// nodes ever less solved, and a flag in gusts folds in its plane (docs/method.md, "The same
/// flag at every grid"). Scaled, each node's residual stays the same fraction of its forces at
/// every grid, and the 10 × 10 flag's solve is the one the tolerance was chosen on.
pub(crate) fn tolerance_scale(n: usize) -> f64 {
    (TOLERANCE_NODES as f64 / n.max(1) as f64).min(1.0).sqrt()
}

/// `|m|` over the free nodes, kg: with `h |g|`, the smallest scale of the residual (the step's
/// forces at rest), on the CPU and on the GPU.
pub(crate) fn free_mass_norm(m: &[f64], held: &[bool]) -> f64 {
    (0..m.len())
        .filter(|&i| !held[i])
        .map(|i| m[i] * m[i])
        .sum::<f64>()
        .sqrt()
}

/// Preconditioned iterations per step at most, per `params.multigrid.max_cycles`.
pub const ITERATIONS_PER_CYCLE: u32 = 4;

/// `implicit-mg`'s solver state and its warm start.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImplicitMg {
    mg: Multigrid,
    /// Per spring: `h² K_s` (the true stiffness block) and `S_s = h² K_s + h c P` (the
    /// matrix's off-diagonal block is `−S_s`).
    blocks: Vec<SpringBlock>,
    /// Per node: the inverse of the diagonal block `(m + h c_air) I + Σ_s S_s`.
    diag_inv: Vec<DMat3>,
    /// Per node, the diagonal block's distinct entries while the springs are added
    /// ([`ImplicitMg::assemble_by_springs`]).
    diag_sums: Vec<DiagonalSums>,
    /// Per node: `m + h c_air`.
    mass: Vec<f64>,
    /// Per node, the links to free nodes the sweeps follow ([`COUPLING`]):
    /// `coupled[coupled_start[i]..coupled_mid[i]]` to the nodes before it, then
    /// `coupled[coupled_mid[i]..coupled_start[i + 1]]` to the ones after it, each in the
    /// topology's order. Built when the hierarchy is (they depend on `h`, the stiffnesses, the
    /// masses and which nodes are held only).
    coupled_start: Vec<usize>,
    coupled_mid: Vec<usize>,
    coupled: Vec<Link>,
    b: Vec<DVec3>,
    r: Vec<DVec3>,
    z: Vec<DVec3>,
    p: Vec<DVec3>,
    q: Vec<DVec3>,
    t: Vec<DVec3>,
    e: Vec<DVec3>,
    /// The last step's `Δv`: the next solve starts from it.
    dv: Vec<DVec3>,
    /// `dv` before the step the guard may discard ([`Integrator::checkpoint`]).
    dv_kept: Vec<DVec3>,
    free_mass_norm: f64,
    last: CgReport,
}

/// The system of one step: the blocks and the masses, read by the products and the sweeps.
struct System<'a> {
    topology: &'a Topology,
    held: &'a [bool],
    blocks: &'a [SpringBlock],
    diag_inv: &'a [DMat3],
    mass: &'a [f64],
    coupled_start: &'a [usize],
    coupled_mid: &'a [usize],
    coupled: &'a [Link],
}

impl System<'_> {
    /// Node `i`'s links that the sweeps follow, to free nodes before it.
    #[inline]
    fn coupled_before(&self, i: usize) -> &[Link] {
        &self.coupled[self.coupled_start[i]..self.coupled_mid[i]]
    }

    /// Node `i`'s links that the sweeps follow, to free nodes after it.
    #[inline]
    fn coupled_after(&self, i: usize) -> &[Link] {
        &self.coupled[self.coupled_mid[i]..self.coupled_start[i + 1]]
    }

    /// `(A x)_i` for a free node; held neighbours count as zero.
    #[inline]
    fn row(&self, i: usize, x: &[DVec3]) -> DVec3 {
        let mut y = self.mass[i] * x[i];
        for l in self.topology.links(i) {
            let j = l.node as usize;
            let xj = if self.held[j] { DVec3::ZERO } else { x[j] };
            y += self.blocks[l.spring as usize].times(x[i] - xj);
        }
        y
    }

    /// `out = A x` on the free nodes, zero on the held ones.
    fn apply(&self, x: &[DVec3], out: &mut [DVec3], parallel: bool) {
        if !parallel {
            self.apply_by_springs(x, out);
            return;
        }
        for_each_node(parallel, out, |i, o| {
            *o = if self.held[i] {
                DVec3::ZERO
            } else {
                self.row(i, x)
            };
        });
    }

    /// [`System::apply`] on one thread, spring by spring: each spring's `S_s (x_a − x_b)` once,
    /// added to one end and taken from the other. A node's links are in spring order, and
    /// `S (−u)` is `−(S u)` exactly, so each row receives the terms [`System::row`] sums, in
    /// its order: the same bits, with half the block products.
    fn apply_by_springs(&self, x: &[DVec3], out: &mut [DVec3]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = if self.held[i] {
                DVec3::ZERO
            } else {
                self.mass[i] * x[i]
            };
        }
        for (s, &[a, b]) in self.topology.ends.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            let block = &self.blocks[s];
            match (self.held[a], self.held[b]) {
                (false, false) => {
                    let t = block.times(x[a] - x[b]);
                    out[a] += t;
                    out[b] -= t;
                }
                (false, true) => out[a] += block.times(x[a] - DVec3::ZERO),
                (true, false) => out[b] += block.times(x[b] - DVec3::ZERO),
                (true, true) => {}
            }
        }
    }

    /// One Gauss–Seidel update of node `i` towards `A z = r`: `z_i = D_i⁻¹ (r_i + Σ S_s z_j)`
    /// over its coupled springs to free nodes.
    #[inline]
    fn update(&self, i: usize, r: &[DVec3], z: &mut [DVec3]) {
        let mut sum = r[i];
        for l in self.coupled_before(i) {
            sum += self.blocks[l.spring as usize].times(z[l.node as usize]);
        }
        for l in self.coupled_after(i) {
            sum += self.blocks[l.spring as usize].times(z[l.node as usize]);
        }
        z[i] = self.diag_inv[i] * sum;
    }

    /// [`System::update`] in a forward sweep from `z = 0`: the neighbours after `i` are still
    /// zero, so only the ones before it are summed (the same value, half the products).
    #[inline]
    fn update_from_zero(&self, i: usize, r: &[DVec3], z: &mut [DVec3]) {
        let mut sum = r[i];
        for l in self.coupled_before(i) {
            sum += self.blocks[l.spring as usize].times(z[l.node as usize]);
        }
        z[i] = self.diag_inv[i] * sum;
    }

    /// What the coarse correction is given after a forward sweep from `z = 0`: each node's
    /// update balanced its row (its coupled springs) against the nodes before it, so what is
    /// left is `Σ S_s z_j` over its free coupled neighbours after it in the sweep (half a
    /// product; `r − A z` itself where every spring is coupled).
    fn after_forward_sweep(&self, z: &[DVec3], t: &mut [DVec3]) {
        for (i, ti) in t.iter_mut().enumerate() {
            let mut sum = DVec3::ZERO;
            if !self.held[i] {
                for l in self.coupled_after(i) {
                    sum += self.blocks[l.spring as usize].times(z[l.node as usize]);
                }
            }
            *ti = sum;
        }
    }

    /// Forward then (after `between`, given the residual the forward sweep left) backward
    /// Gauss–Seidel sweeps: the preconditioner's smoothing, symmetric so that the cycle is.
    fn sweeps(
        &self,
        r: &[DVec3],
        z: &mut [DVec3],
        t: &mut [DVec3],
        between: impl FnOnce(&mut [DVec3], &[DVec3]),
    ) {
        let n = z.len();
        z.fill(DVec3::ZERO);
        for i in 0..n {
            if !self.held[i] {
                self.update_from_zero(i, r, z);
            }
        }
        self.after_forward_sweep(z, t);
        between(z, t);
        for i in (0..n).rev() {
            if !self.held[i] {
                self.update(i, r, z);
            }
        }
    }
}

/// The diagonal block `m I + Σ_s S_s` of a node of mass `m` (with its air coefficient) over
/// its `links`: `(m + Σ iso) I + Σ β x̂ x̂ᵀ`, the outer products' six distinct entries summed.
pub(crate) fn diagonal_block(mass: f64, links: &[Link], blocks: &[SpringBlock]) -> DMat3 {
    let mut sums = [mass, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    for l in links {
        add_to_sums(&mut sums, &blocks[l.spring as usize]);
    }
    from_sums(sums)
}

/// A diagonal block's distinct entries `[iso, xx, yy, zz, xy, xz, yz]` (the block is
/// `iso I` plus the symmetric matrix of the others), summed as [`diagonal_block`] sums them.
type DiagonalSums = [f64; 7];

/// [`diagonal_block`]'s matrix from its sums.
fn from_sums([iso, xx, yy, zz, xy, xz, yz]: DiagonalSums) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(iso + xx, xy, xz),
        DVec3::new(xy, iso + yy, yz),
        DVec3::new(xz, yz, iso + zz),
    )
}

/// What one spring's block adds to each end's [`DiagonalSums`], in [`diagonal_block`]'s order.
#[inline]
fn add_to_sums(sums: &mut DiagonalSums, b: &SpringBlock) {
    let u = b.dir * b.along_damped;
    sums[0] += b.iso;
    sums[1] += u.x * b.dir.x;
    sums[2] += u.y * b.dir.y;
    sums[3] += u.z * b.dir.z;
    sums[4] += u.x * b.dir.y;
    sums[5] += u.x * b.dir.z;
    sums[6] += u.y * b.dir.z;
}

fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
}

impl ImplicitMg {
    /// Each node's links that the sweeps follow: the springs to free nodes with `h² k` at
    /// least [`COUPLING`] times their lighter end's mass, those to the nodes before it first.
    /// (Split and without the held nodes, the sweeps need no test in their innermost loops.)
    fn couple(&mut self, cloth: &Cloth, held: &[bool], h: f64) {
        let topology = &*cloth.topology;
        let k = cloth.k();
        self.coupled.clear();
        self.coupled_start.clear();
        self.coupled_mid.clear();
        self.coupled_start.push(0);
        for i in 0..cloth.node_count() {
            let coupled = |l: &&Link| {
                let sp = &topology.springs[l.spring as usize];
                !held[l.node as usize]
                    && h * h * k[l.spring as usize] >= COUPLING * cloth.m[sp.a].min(cloth.m[sp.b])
            };
            let links = topology.links(i).iter().filter(coupled);
            self.coupled
                .extend(links.clone().filter(|l| (l.node as usize) < i));
            self.coupled_mid.push(self.coupled.len());
            self.coupled.extend(links.filter(|l| (l.node as usize) > i));
            self.coupled_start.push(self.coupled.len());
        }
    }

    /// The step's system: each spring's true block and its `h²`-scaled matrix block, each
    /// node's mass with its air coefficient and inverted diagonal block, and the right-hand
    /// side `h (f + f_ext + h K v)` with the held neighbours' known `Δv`.
    fn assemble(&mut self, step: &Step) {
        let StepInput {
            cloth,
            kinematic,
            known_dv,
            h,
            parallel,
        } = step.input;
        let (ext, force) = (step.ext, step.force);
        let n = cloth.node_count();
        self.diag_inv.resize(n, DMat3::ZERO);
        self.mass.resize(n, 0.0);
        spring_blocks(cloth, h, step.params.damping, parallel, &mut self.blocks);
        let blocks = &self.blocks;
        for_each_node(parallel, &mut self.mass, |i, m| {
            *m = cloth.m[i] + ext.implicit_air(i, h);
        });
        let topology = &*cloth.topology;
        let mass = &self.mass;
        for_each_node(parallel, &mut self.diag_inv, |i, d| {
            let diag = diagonal_block(mass[i], topology.links(i), blocks);
            // Symmetric positive definite (a mass plus positive semi-definite blocks).
            *d = diag.inverse();
        });
        let rhs = RhsInput {
            cloth,
            kinematic,
            known_dv,
            h,
            force,
            ext,
            parallel,
        };
        right_hand_side(&rhs, &self.blocks, &mut self.b);
    }

    /// [`ImplicitMg::assemble`] on one thread, with the warm start's product `q = A y` (the
    /// first thing the solve needs), in one pass over the springs: each spring's block is
    /// built and, while it is at hand, added to both ends' diagonal blocks and applied to the
    /// velocities (the right-hand side) and to the warm start. On a small cloth such as the
    /// 10 × 10 default flag separate passes (blocks, diagonal, right-hand side, product) weigh
    /// much in the step; one pass keeps the arithmetic and drops the reloads and the loops. A
    /// node's links are in spring order, so every node
    /// receives its terms in the order of the node-by-node passes: the same bits (the parallel
    /// path keeps those passes, and gives this path's step bit for bit).
    fn assemble_by_springs(&mut self, step: &Step) {
        let StepInput {
            cloth,
            kinematic,
            known_dv,
            h,
            ..
        } = step.input;
        let (ext, force) = (step.ext, step.force);
        let (n, damping) = (cloth.node_count(), step.params.damping);
        let topology = &*cloth.topology;
        let (k, x, v) = (cloth.k(), &cloth.x, &cloth.v);
        let Self {
            blocks,
            diag_inv,
            diag_sums,
            mass,
            b,
            q,
            dv: y,
            ..
        } = self;
        blocks.resize(topology.springs.len(), SpringBlock::default());
        diag_inv.resize(n, DMat3::ZERO);
        diag_sums.resize(n, [0.0; 7]);
        mass.resize(n, 0.0);
        b.resize(n, DVec3::ZERO);
        q.resize(n, DVec3::ZERO);
        for i in 0..n {
            let m = cloth.m[i] + ext.implicit_air(i, h);
            mass[i] = m;
            diag_sums[i] = [m, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            if kinematic[i] {
                y[i] = DVec3::ZERO;
                b[i] = DVec3::ZERO;
                q[i] = DVec3::ZERO;
            } else {
                b[i] = h * (force[i] + ext.as_force(i, cloth.m[i]));
                q[i] = m * y[i];
            }
        }
        // The springs' inverse lengths from the shared force pass at these positions, computed
        // there in batches (one at a time, each square root and division stalled the block
        // built from it). `implicit-mg` keeps the shared forces, so the step always has them.
        assert_eq!(
            step.inv_len.len(),
            topology.ends.len(),
            "the force pass's inverse lengths"
        );
        for (s, (sp, &inv)) in topology.springs.iter().zip(step.inv_len).enumerate() {
            let (ia, ib) = (sp.a, sp.b);
            let blk =
                SpringBlock::with_inverse_length(x[ib] - x[ia], inv, k[s], sp.rest, h, damping);
            blocks[s] = blk;
            add_to_sums(&mut diag_sums[ia], &blk);
            add_to_sums(&mut diag_sums[ib], &blk);
            // The right-hand side, as `right_hand_side` on one thread.
            let t = blk.stiffness_times(v[ib] - v[ia]);
            // The product, as `System::apply_by_springs`.
            match (kinematic[ia], kinematic[ib]) {
                (false, false) => {
                    b[ia] += t;
                    b[ib] -= t;
                    let u = blk.times(y[ia] - y[ib]);
                    q[ia] += u;
                    q[ib] -= u;
                }
                (false, true) => {
                    b[ia] += t;
                    b[ia] += blk.times(known_dv[ib]);
                    q[ia] += blk.times(y[ia]);
                }
                (true, false) => {
                    b[ib] -= t;
                    b[ib] += blk.times(known_dv[ia]);
                    q[ib] += blk.times(y[ib]);
                }
                (true, true) => {}
            }
        }
        for (d, sums) in diag_inv.iter_mut().zip(diag_sums.iter()) {
            // Symmetric positive definite (a mass plus positive semi-definite blocks).
            *d = from_sums(*sums).inverse();
        }
    }

    /// Flexible CG on the assembled system from the last step's `Δv` (held nodes zero in the
    /// unknowns) until `|r| ≤ tolerance · scale` or `max_iterations`. `q` holds `A y` already
    /// when `product_ready` ([`ImplicitMg::assemble_by_springs`]).
    fn solve(
        &mut self,
        step: &Step,
        scale: f64,
        tolerance: f64,
        max_iterations: u32,
        product_ready: bool,
    ) -> CgReport {
        let StepInput {
            cloth,
            kinematic,
            parallel,
            ..
        } = step.input;
        let n = cloth.node_count();
        let Self {
            mg,
            blocks,
            diag_inv,
            mass,
            coupled_start,
            coupled_mid,
            coupled,
            b,
            r,
            z,
            p,
            q,
            t,
            e,
            dv: y,
            ..
        } = self;
        for v in [&mut *r, &mut *z, &mut *p, &mut *q, &mut *t, &mut *e] {
            v.resize(n, DVec3::ZERO);
        }
        let sys = System {
            topology: &cloth.topology,
            held: kinematic,
            blocks,
            diag_inv,
            mass,
            coupled_start,
            coupled_mid,
            coupled,
        };
        if !product_ready {
            for (yi, &held) in y.iter_mut().zip(kinematic) {
                if held {
                    *yi = DVec3::ZERO;
                }
            }
            sys.apply(y, q, parallel);
        }
        for i in 0..n {
            r[i] = b[i] - q[i];
        }
        let mut report = CgReport {
            iterations: 0,
            relative_residual: dot(r, r).sqrt() / scale,
        };
        // At least one iteration: a loose tolerance met by the warm start would otherwise
        // repeat the last step's `Δv` and could hold a cloth short of its rest.
        while report.iterations == 0
            || (report.relative_residual > tolerance && report.iterations < max_iterations)
        {
            sys.sweeps(r, z, t, |z, t| {
                mg.coarse_correction(t, e, parallel);
                for ((zi, ei), held) in z.iter_mut().zip(e.iter()).zip(sys.held) {
                    if !*held {
                        *zi += *ei;
                    }
                }
            });
            if report.iterations == 0 {
                p.copy_from_slice(z);
            } else {
                // Flexible CG(1): z made A-orthogonal to the last direction.
                let pq = dot(p, q);
                let beta = if pq > 0.0 { -dot(z, q) / pq } else { 0.0 };
                for (pi, zi) in p.iter_mut().zip(z.iter()) {
                    *pi = *zi + beta * *pi;
                }
            }
            sys.apply(p, q, parallel);
            let pq = dot(p, q);
            // A direction of no curvature (or NaN): nothing more to gain.
            if pq.is_nan() || pq <= 0.0 {
                break;
            }
            let alpha = dot(p, r) / pq;
            for i in 0..n {
                y[i] += alpha * p[i];
                r[i] -= alpha * q[i];
            }
            report.iterations += 1;
            report.relative_residual = dot(r, r).sqrt() / scale;
        }
        report
    }
}

impl Integrator for ImplicitMg {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::ImplicitMg
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        let StepInput {
            cloth,
            kinematic,
            known_dv,
            h,
            ..
        } = step.input;
        let n = cloth.node_count();
        let rebuilt = match cloth.grid() {
            Some(_) => self.mg.prepare(cloth, kinematic, h),
            None => true,
        };
        if rebuilt || self.coupled_start.len() != n + 1 {
            self.couple(cloth, kinematic, h);
        }
        if rebuilt {
            self.free_mass_norm = free_mass_norm(&cloth.m, kinematic);
        }
        if self.dv.len() != n {
            self.dv.clear();
            self.dv.resize(n, DVec3::ZERO);
        }
        let parallel = step.input.parallel;
        if parallel {
            self.assemble(step);
        } else {
            self.assemble_by_springs(step);
        }
        // As kang-mg: the residual is measured against the forces acting (at rest `b` → 0).
        let scale = (h * step.ext.gravity.length() * self.free_mass_norm)
            .max(dot(&self.b, &self.b).sqrt())
            .max(f64::MIN_POSITIVE);
        let mg = &step.params.multigrid;
        self.last = self.solve(
            step,
            scale,
            mg.tolerance * tolerance_scale(n),
            ITERATIONS_PER_CYCLE * mg.max_cycles,
            !parallel,
        );
        for (i, d) in self.dv.iter_mut().enumerate() {
            if kinematic[i] {
                *d = known_dv[i];
            }
        }
        next.dv.clear();
        next.dv.extend_from_slice(&self.dv);
        advance_symplectic(step, &self.dv, next);
        Ok(())
    }

    fn report(&self) -> SolverReport {
        SolverReport::Iterative(self.last)
    }

    /// The warm start is history (as kang-mg's).
    fn save_history(&self) -> Option<Box<dyn Integrator>> {
        Some(self.clone_box())
    }

    fn checkpoint(&mut self) {
        self.dv_kept.clone_from(&self.dv);
    }

    fn rollback(&mut self) {
        std::mem::swap(&mut self.dv, &mut self.dv_kept);
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::format::scene::Scene;

    /// A 6 × 5 sheet with every spring family, pinned at its top corners, crumpled (springs
    /// stretched and compressed).
    fn crumpled() -> Cloth {
        let json = r#"{ "cloth": { "grid": { "nx": 6, "ny": 5, "width": 1, "height": 0.8,
            "mass": 0.3, "shear": "both", "bend": true, "pins": "top-corners" } } }"#;
        let mut cloth = Scene::from_json(json, "test")
            .unwrap()
            .simulation()
            .unwrap()
            .cloth;
        for i in 0..cloth.node_count() {
            let t = i as f64;
            cloth.x[i] += 0.05 * DVec3::new((1.7 * t).sin(), (0.9 * t).cos(), (2.3 * t).sin());
        }
        cloth
    }

    /// The blocks and diagonal inverses of `cloth` at `h` with damping `c`, and per node
    /// `m + 0.1` (as if air added a coefficient).
    fn system_parts(cloth: &Cloth, h: f64, c: f64) -> (Vec<SpringBlock>, Vec<f64>, Vec<DMat3>) {
        let mut blocks = Vec::new();
        spring_blocks(cloth, h, c, false, &mut blocks);
        let mass: Vec<f64> = cloth.m.iter().map(|m| m + 0.1).collect();
        let diag_inv = (0..cloth.node_count())
            .map(|i| diagonal_block(mass[i], cloth.topology.links(i), &blocks).inverse())
            .collect();
        (blocks, mass, diag_inv)
    }

    #[test]
    fn the_diagonal_block_is_the_mass_plus_every_springs_matrix() {
        let cloth = crumpled();
        let (blocks, mass, _) = system_parts(&cloth, 0.02, 0.7);
        for (i, &m) in mass.iter().enumerate() {
            // Written out: m I + Σ S_s, each S_s as its full matrix.
            let mut expect = DMat3::from_diagonal(DVec3::splat(m));
            for l in cloth.topology.links(i) {
                expect += blocks[l.spring as usize].matrix();
            }
            let got = diagonal_block(m, cloth.topology.links(i), &blocks);
            let error = (got - expect)
                .to_cols_array()
                .iter()
                .fold(0.0_f64, |e, v| e.max(v.abs()));
            assert!(error < 1e-12, "node {i}: {got} against {expect}");
            // Not a multiple of the identity: the off-diagonal entries are compared too.
            assert!(expect.x_axis.y.abs() + expect.y_axis.z.abs() + expect.x_axis.z.abs() > 1e-6);
        }
    }

    #[test]
    fn a_forward_sweep_from_zero_sums_only_the_nodes_before_each_and_gets_the_full_sweep() {
        let cloth = crumpled();
        let (blocks, mass, diag_inv) = system_parts(&cloth, 0.02, 0.7);
        // Every spring coupled (as at stiffnesses well above the masses).
        let n = cloth.node_count();
        let mut mg = ImplicitMg::default();
        mg.couple(&cloth, &cloth.pinned, 10.0);
        let free_links = cloth
            .topology
            .links
            .iter()
            .filter(|l| !cloth.pinned[l.node as usize]);
        assert_eq!(mg.coupled.len(), free_links.count());
        let sys = System {
            topology: &cloth.topology,
            held: &cloth.pinned,
            blocks: &blocks,
            diag_inv: &diag_inv,
            mass: &mass,
            coupled_start: &mg.coupled_start,
            coupled_mid: &mg.coupled_mid,
            coupled: &mg.coupled,
        };
        let r: Vec<DVec3> = (0..n)
            .map(|i| DVec3::new((i as f64).sin(), 1.0, (0.3 * i as f64).cos()))
            .collect();
        let (mut full, mut from_zero) = (vec![DVec3::ZERO; n], vec![DVec3::ZERO; n]);
        for i in 0..n {
            if !cloth.pinned[i] {
                sys.update(i, &r, &mut full);
                sys.update_from_zero(i, &r, &mut from_zero);
            }
        }
        assert_eq!(full, from_zero);
        // Each node's update depends on the ones before it: the sweep is not a Jacobi step.
        let jacobi: Vec<DVec3> = (0..n).map(|i| diag_inv[i] * r[i]).collect();
        assert!((0..n).any(|i| !cloth.pinned[i] && (full[i] - jacobi[i]).length() > 1e-6));
    }

    #[test]
    fn the_sweeps_couple_the_springs_with_h2k_at_least_the_lighter_ends_mass() {
        let cloth = crumpled();
        let n = cloth.node_count();
        let k = cloth.k();
        let lighter = |s: u32| {
            let sp = &cloth.topology.springs[s as usize];
            cloth.m[sp.a].min(cloth.m[sp.b])
        };
        let mut mg = ImplicitMg::default();
        let none = vec![false; n];
        let held = &cloth.pinned;
        assert!(held.iter().any(|&h| h));
        for h in [0.001, 0.01, 0.1, 0.5] {
            for held in [&none, held] {
                mg.couple(&cloth, held, h);
                assert_eq!(mg.coupled_start.len(), n + 1);
                assert_eq!(mg.coupled_mid.len(), n);
                for i in 0..n {
                    let want = |before: bool| -> Vec<(u32, u32)> {
                        cloth
                            .topology
                            .links(i)
                            .iter()
                            .filter(|l| h * h * k[l.spring as usize] >= lighter(l.spring))
                            .filter(|l| !held[l.node as usize])
                            .filter(|l| ((l.node as usize) < i) == before)
                            .map(|l| (l.node, l.spring))
                            .collect()
                    };
                    let got = |range: std::ops::Range<usize>| -> Vec<(u32, u32)> {
                        mg.coupled[range]
                            .iter()
                            .map(|l| (l.node, l.spring))
                            .collect()
                    };
                    let (start, mid, end) = (
                        mg.coupled_start[i],
                        mg.coupled_mid[i],
                        mg.coupled_start[i + 1],
                    );
                    assert_eq!(got(start..mid), want(true), "h {h}, node {i}, before");
                    assert_eq!(got(mid..end), want(false), "h {h}, node {i}, after");
                }
            }
        }
        // The three regimes show: none coupled, some, all.
        mg.couple(&cloth, &none, 0.001);
        assert!(mg.coupled.is_empty());
        mg.couple(&cloth, &none, 0.5);
        assert_eq!(mg.coupled.len(), cloth.topology.links.len());
        // Between the weakest spring's h and the strongest's (all masses within 4 × here).
        let weakest = k.iter().copied().fold(f64::INFINITY, f64::min);
        let strongest = k.iter().copied().fold(0.0, f64::max);
        assert!(strongest > 16.0 * weakest);
        let h = (cloth.m[0] / (weakest * strongest).sqrt()).sqrt();
        mg.couple(&cloth, &none, h);
        assert!(!mg.coupled.is_empty() && mg.coupled.len() < cloth.topology.links.len());
    }

    #[test]
    fn the_tolerance_shrinks_as_one_over_the_root_of_the_nodes_past_a_hundred() {
        assert_eq!(tolerance_scale(100), 1.0);
        assert_eq!(tolerance_scale(36), 1.0);
        assert_eq!(tolerance_scale(0), 1.0);
        assert_eq!(tolerance_scale(400), 0.5);
        assert_eq!(tolerance_scale(32 * 32), (100.0_f64 / 1024.0).sqrt());
        assert_eq!(
            tolerance_scale(1024 * 1024),
            (100.0_f64 / 1_048_576.0).sqrt()
        );
    }
}
