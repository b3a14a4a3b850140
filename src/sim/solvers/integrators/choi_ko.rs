//! Choi & Ko's semi-implicit BDF2 step ("Stable but Responsive Cloth", §4), solved by
//! conjugate gradients with a 3 × 3 block-diagonal preconditioner.
//!
//! With `Δx = xⁿ⁺¹ − xⁿ`, `K = ∂f/∂x`, `C = ∂f/∂v` and `f` linearised about step `n` (eq. 19),
//! eq. 18 rearranged for `Δx` (eq. 20, multiplied through by `M`) is
//!
//! ```text
//! (M − 4h²/9 K − 2h/3 C) Δx = M (⅓ Δxₚ + 2h/3 vⁿ + 2h/9 Δvₚ) + 4h²/9 (fⁿ − C vⁿ) − 2h/9 C Δxₚ
//! vⁿ⁺¹ = (3 Δx − Δxₚ) / 2h
//! ```
//!
//! with `Δxₚ = xⁿ − xⁿ⁻¹`, `Δvₚ = vⁿ − vⁿ⁻¹`. The first step, and any step whose history is not
//! the state the cloth is in (a reset, a drag, another integrator, a new `h`), is BDF1 (linearised
//! backward Euler in the same form): `(M − h²K − hC) Δx = h M vⁿ + h² (fⁿ − C vⁿ)`,
//! `vⁿ⁺¹ = Δx / h`.
//!
//! `K` comes from the immediate buckling model ([`crate::sim::solvers::buckling`]): positive
//! semidefinite by construction, so the matrix is SPD. `C` holds the type-1 dampers and the
//! semi-implicit air coefficients `c_i I` (as in `implicit-cg`). Kinematic nodes are removed from
//! the unknowns; their known `Δx` moves to the right-hand side.

use glam::{DMat3, DVec3};

use super::SolverReport;
use super::StepInput;
use super::implicit_cg::{CgReport, pcg};
use super::{ForceInput, ForceWork, Integrator, Next, Step, kinematic_next};
use crate::sim::format::error::SimError;
use crate::sim::format::params::{CgSettings, IntegratorKind};
use crate::sim::model::cloth::Cloth;
use crate::sim::model::forces::External;
use crate::sim::model::par::{for_each_node, for_each_node2};
use crate::sim::solvers::buckling::{self, BuckleTopology, LinkState};

/// `choi-ko`: the buckling model's forces, the BDF2 solve, and its history.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChoiKo {
    scratch: ChoiKoScratch,
    dx: Vec<DVec3>,
    dv: Vec<DVec3>,
    report: CgReport,
}

impl Integrator for ChoiKo {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::ChoiKo
    }

    /// The immediate buckling model (`sim::solvers::buckling`) in place of Hooke springs.
    fn internal_forces(&mut self, at: &ForceInput<'_>, _: &mut ForceWork, force: &mut [DVec3]) {
        let (input, params) = (at.input, at.params);
        let s = &mut self.scratch;
        s.topology.ensure(input.cloth);
        let material = buckling::Material {
            k_b: params.choi_ko.flexural_rigidity,
            c_b: params.choi_ko.buckling_clamp,
            k_d: params.damping,
        };
        buckling::evaluate(
            input.cloth,
            &s.topology,
            &material,
            input.parallel,
            &mut s.links,
            force,
        );
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        let input = &step.input;
        let (cloth, h) = (input.cloth, input.h);
        let n = cloth.node_count();
        self.dx.resize(n, DVec3::ZERO);
        self.dv.resize(n, DVec3::ZERO);
        self.report = solve(
            input,
            step.force,
            step.ext,
            step.target_x,
            &step.params.cg,
            &mut self.scratch,
            &mut self.dx,
            &mut self.dv,
        );
        let (kinematic, target, dx, dv) = (input.kinematic, step.target_x, &self.dx, &self.dv);
        for_each_node2(input.parallel, next.x, next.v, |i, x, v| {
            if kinematic[i] {
                (*x, *v) = kinematic_next(cloth.x[i], target[i], h);
            } else {
                *x = cloth.x[i] + dx[i];
                *v = cloth.v[i] + dv[i];
            }
        });
        Ok(())
    }

    fn finish(&mut self, cloth: &Cloth, h: f64) {
        self.scratch.finish(&cloth.x, &cloth.v, h);
    }

    fn report(&self) -> SolverReport {
        SolverReport::Buckling {
            solve: self.report,
            bdf2: self.scratch.last_was_bdf2,
        }
    }

    fn checkpoint(&mut self) {
        self.scratch.checkpoint();
    }

    fn rollback(&mut self) {
        self.scratch.rollback();
    }

    fn save_history(&self) -> Option<Box<dyn Integrator>> {
        Some(self.clone_box())
    }

    fn clone_box(&self) -> Box<dyn Integrator> {
        Box::new(self.clone())
    }
}

/// State at the start and the end of the last step, to tell whether BDF2 may use it.
#[derive(Debug, Clone, Default)]
pub(crate) struct History {
    h: f64,
    x_prev: Vec<DVec3>,
    v_prev: Vec<DVec3>,
    x_end: Vec<DVec3>,
    v_end: Vec<DVec3>,
}

/// Work arrays and the BDF2 history, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChoiKoScratch {
    pub topology: BuckleTopology,
    pub links: Vec<LinkState>,
    block: Vec<DMat3>,
    precond: Vec<DMat3>,
    b: Vec<DVec3>,
    r: Vec<DVec3>,
    z: Vec<DVec3>,
    p: Vec<DVec3>,
    ap: Vec<DVec3>,
    start_x: Vec<DVec3>,
    start_v: Vec<DVec3>,
    history: Option<History>,
    /// `history` before the step the guard may discard ([`Integrator::checkpoint`]).
    history_kept: Option<History>,
    /// Whether the last step used BDF2 (false: BDF1).
    pub last_was_bdf2: bool,
}

impl History {
    /// Copies `from` into `self`, reusing its arrays.
    fn copy_from(&mut self, from: &History) {
        self.h = from.h;
        self.x_prev.clone_from(&from.x_prev);
        self.v_prev.clone_from(&from.v_prev);
        self.x_end.clone_from(&from.x_end);
        self.v_end.clone_from(&from.v_end);
    }
}

impl ChoiKoScratch {
    /// Records the state after a finished step (after strain limiting and colliders) as the
    /// history of the next one.
    pub(crate) fn finish(&mut self, x: &[DVec3], v: &[DVec3], h: f64) {
        let hist = self.history.get_or_insert_with(History::default);
        hist.h = h;
        hist.x_prev.clone_from(&self.start_x);
        hist.v_prev.clone_from(&self.start_v);
        hist.x_end.clear();
        hist.x_end.extend_from_slice(x);
        hist.v_end.clear();
        hist.v_end.extend_from_slice(v);
    }

    /// Keeps the history before a step the guard may discard (a copy into the arrays the
    /// previous checkpoint kept).
    pub(crate) fn checkpoint(&mut self) {
        match (&self.history, &mut self.history_kept) {
            (Some(h), Some(kept)) => kept.copy_from(h),
            (history, kept) => kept.clone_from(history),
        }
    }

    /// Puts back the history [`Self::checkpoint`] kept.
    pub(crate) fn rollback(&mut self) {
        std::mem::swap(&mut self.history, &mut self.history_kept);
    }
}

/// One step: `dx` receives `Δx`, `dv` receives `vⁿ⁺¹ − vⁿ` (kinematic nodes: their known values).
/// `force` is the buckling model's internal force, evaluated into `s.links` beforehand.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(
    input: &StepInput,
    force: &[DVec3],
    ext: &External,
    target_x: &[DVec3],
    settings: &CgSettings,
    s: &mut ChoiKoScratch,
    dx: &mut [DVec3],
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
    let nl = s.topology.links.len();
    s.block.resize(nl, DMat3::ZERO);
    s.precond.resize(n, DMat3::ZERO);
    s.b.resize(n, DVec3::ZERO);
    s.start_x.clone_from(&cloth.x);
    s.start_v.clone_from(&cloth.v);

    // BDF2 only when the history ends exactly in the current state with the same h.
    let bdf2 = match &s.history {
        Some(hist) => {
            hist.h == h && hist.x_end == cloth.x && hist.v_end == cloth.v && hist.x_prev.len() == n
        }
        None => false,
    };
    s.last_was_bdf2 = bdf2;
    // A = M − a2 K − a1 C
    let (a2, a1) = if bdf2 {
        (4.0 * h * h / 9.0, 2.0 * h / 3.0)
    } else {
        (h * h, h)
    };
    let topo = &s.topology;
    let links = &s.links;
    for_each_node(parallel, &mut s.block, |li, blk| {
        let st = &links[li];
        let mut m = st.jacobian * a2;
        if st.damping > 0.0 {
            let d = st.dir;
            m += DMat3::from_cols(d * d.x, d * d.y, d * d.z) * (a1 * st.damping);
        }
        *blk = m;
    });
    let block = &s.block;
    let air_c = |i: usize| ext.drag_c[i] + ext.air_c[i];
    // (C y)_i = −c_i y_i + Σ k_d P (y_j − y_i)
    let c_times = |y: &[DVec3], i: usize| -> DVec3 {
        let mut out = -air_c(i) * y[i];
        for &(j, li) in topo.adjacent(i) {
            let st = &links[li as usize];
            if st.damping > 0.0 {
                let d = st.dir;
                out += st.damping * d.dot(y[j as usize] - y[i]) * d;
            }
        }
        out
    };
    let hist = s.history.as_ref();
    let dx_known = |j: usize| target_x[j] - cloth.x[j];
    for_each_node(parallel, &mut s.b, |i, b| {
        if kinematic[i] {
            *b = DVec3::ZERO;
            return;
        }
        let m = cloth.m[i];
        let f = force[i] + ext.as_force(i, m);
        let cv = c_times(&cloth.v, i);
        let mut rhs = if let (true, Some(hist)) = (bdf2, hist) {
            let dxp = cloth.x[i] - hist.x_prev[i];
            let dvp = cloth.v[i] - hist.v_prev[i];
            // − 2h/9 C Δxₚ needs Δxₚ of the neighbours too.
            let mut c_dxp = -air_c(i) * dxp;
            for &(j, li) in topo.adjacent(i) {
                let st = &links[li as usize];
                if st.damping > 0.0 {
                    let j = j as usize;
                    let dxp_j = cloth.x[j] - hist.x_prev[j];
                    c_dxp += st.damping * st.dir.dot(dxp_j - dxp) * st.dir;
                }
            }
            m * (dxp / 3.0 + (2.0 * h / 3.0) * cloth.v[i] + (2.0 * h / 9.0) * dvp)
                + (4.0 * h * h / 9.0) * (f - cv)
                - (2.0 * h / 9.0) * c_dxp
        } else {
            h * m * cloth.v[i] + h * h * (f - cv)
        };
        for &(j, li) in topo.adjacent(i) {
            let j = j as usize;
            if kinematic[j] {
                rhs += block[li as usize] * dx_known(j);
            }
        }
        *b = rhs;
    });
    // The 3 × 3 diagonal blocks of A, inverted.
    for_each_node(parallel, &mut s.precond, |i, pc| {
        let mut d = DMat3::from_diagonal(DVec3::splat(cloth.m[i] + a1 * air_c(i)));
        for &(_, li) in topo.adjacent(i) {
            d += block[li as usize];
        }
        *pc = d.inverse();
    });
    let precond = &s.precond;
    let apply = |y: &[DVec3], out: &mut [DVec3]| {
        for_each_node(parallel, out, |i, o| {
            if kinematic[i] {
                *o = DVec3::ZERO;
                return;
            }
            let mut acc = (cloth.m[i] + a1 * air_c(i)) * y[i];
            for &(j, li) in topo.adjacent(i) {
                let j = j as usize;
                let yj = if kinematic[j] { DVec3::ZERO } else { y[j] };
                acc += block[li as usize] * (y[i] - yj);
            }
            *o = acc;
        });
    };
    let apply_precond = |r: &[DVec3], z: &mut [DVec3]| {
        for_each_node(parallel, z, |i, zi| {
            *zi = if kinematic[i] {
                DVec3::ZERO
            } else {
                precond[i] * r[i]
            };
        });
    };
    // Warm start: the step continuing at the current velocity (BDF2: the last step's Δx).
    for (i, d) in dx.iter_mut().enumerate() {
        *d = if kinematic[i] {
            DVec3::ZERO
        } else {
            match (bdf2, hist) {
                (true, Some(hist)) => cloth.x[i] - hist.x_prev[i],
                _ => h * cloth.v[i],
            }
        };
    }
    let report = pcg(
        apply,
        apply_precond,
        &s.b,
        kinematic,
        settings,
        dx,
        &mut s.r,
        &mut s.z,
        &mut s.p,
        &mut s.ap,
    );
    for i in 0..n {
        if kinematic[i] {
            dx[i] = dx_known(i);
            dv[i] = known_dv[i];
            continue;
        }
        let v_next = match (bdf2, hist) {
            (true, Some(hist)) => (3.0 * dx[i] - (cloth.x[i] - hist.x_prev[i])) / (2.0 * h),
            _ => dx[i] / h,
        };
        dv[i] = v_next - cloth.v[i];
    }
    report
}
