//! `kang-mg`: Kang's implicit system solved, not approximated (docs/method.md §2, "kang-mg").
//!
//! The same system as `kang` (implicit Euler with Desbrun's approximate Hessian, eqs. 6–8), with
//! the external forces inside it, as backward Euler has them:
//!
//! ```text
//! (D + h C − h² K) Δv = h (F̃ + m g + F_air − C v_rel) + h² Σ_{j held} k_ij Δv_j
//! ```
//!
//! where `C` is each node's semi-implicit air coefficient (drag and the other air forces taken
//! at the end velocity, as the semi-implicit air model does). It is solved to a relative residual
//! of `params.multigrid.tolerance` by multigrid V-cycles ([`crate::sim::solvers::multigrid`]),
//! warm-started from the last step's `Δv`, then `v += Δv`, `x += h v` (eq. 1).
//!
//! Why not eq. 10: two Jacobi sweeps from zero carry a load only two springs far per step, and
//! gravity added after the sweeps (as eq. 10 must, or the cloth falls too slowly) is then held
//! up by the strain limiter rather than the springs. A stiff, fine cloth (`h² k / m` in the
//! thousands) hangs on its tethers and folds in its own plane, tens of centimetres from an
//! accurate solve. Solved to its tolerance, the system's rest state is the springs' own
//! equilibrium (`F + m g = 0`), and a V-cycle costs a few Jacobi sweeps whatever the size.

use glam::DVec3;

use super::SolverReport;
use super::implicit_cg::CgReport;
use super::{Integrator, Next, Step, StepInput, advance_symplectic};
use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::model::cloth::Cloth;
use crate::sim::model::par::for_each_node;
use crate::sim::solvers::jacobian::RhsInput;
use crate::sim::solvers::multigrid::Multigrid;

/// The free nodes with a held neighbour: their right-hand side takes the neighbours' known `Δv`.
pub(crate) fn near_held(cloth: &Cloth, kinematic: &[bool]) -> Vec<usize> {
    (0..cloth.node_count())
        .filter(|&i| !kinematic[i] && cloth.links(i).iter().any(|l| kinematic[l.node as usize]))
        .collect()
}

/// `kang-mg`'s right-hand side into `rhs` (the module's equation): on each free node
/// `h (F̃ + m g + F_air − C v_rel)`, then on each node of `near_held` ([`near_held`])
/// `h² k_ij Δv_j` over its held neighbours in link order; zero on held nodes. `input.force` is
/// the spring forces with eq. 4's viscosity. The GPU's twin is `shaders/sim_rhs.wgsl`.
pub(crate) fn right_hand_side(input: &RhsInput, near_held: &[usize], rhs: &mut Vec<DVec3>) {
    let RhsInput {
        cloth,
        kinematic,
        known_dv,
        h,
        force,
        ext,
        parallel,
    } = *input;
    rhs.resize(cloth.node_count(), DVec3::ZERO);
    let (topology, stiffness) = (&*cloth.topology, cloth.stiffness());
    for_each_node(parallel, rhs, |i, b| {
        *b = if kinematic[i] {
            DVec3::ZERO
        } else {
            h * (force[i] + ext.as_force(i, cloth.m[i]))
        };
    });
    let h2 = h * h;
    for &i in near_held {
        let range = topology.link_start[i]..topology.link_start[i + 1];
        for (l, &k) in topology.links[range.clone()]
            .iter()
            .zip(&stiffness.link_k()[range])
        {
            let j = l.node as usize;
            if kinematic[j] {
                rhs[i] += h2 * k * known_dv[j];
            }
        }
    }
}

/// `kang-mg`'s solver and its warm start.
#[derive(Debug, Clone, Default)]
pub(crate) struct KangMg {
    mg: Multigrid,
    rhs: Vec<DVec3>,
    /// The last step's `Δv`: the next solve starts from it.
    dv: Vec<DVec3>,
    /// `dv` before the step the guard may discard ([`Integrator::checkpoint`]).
    dv_kept: Vec<DVec3>,
    /// Free nodes with a held neighbour (their right-hand side takes the neighbours' known
    /// `Δv`), and `sqrt(Σ m_i²)` over the free nodes; both follow the hierarchy's rebuilds.
    near_held: Vec<usize>,
    free_mass_norm: f64,
    last: CgReport,
}

impl Integrator for KangMg {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::KangMg
    }

    fn advance(&mut self, step: &Step, next: &mut Next) -> Result<(), SimError> {
        let StepInput {
            cloth,
            kinematic,
            known_dv,
            h,
            parallel,
        } = step.input;
        let (ext, force, params) = (step.ext, step.force, step.params);
        let n = cloth.node_count();
        if self.mg.prepare(cloth, kinematic, h) {
            self.near_held = near_held(cloth, kinematic);
            self.free_mass_norm = (0..n)
                .filter(|&i| !kinematic[i])
                .map(|i| cloth.m[i] * cloth.m[i])
                .sum::<f64>()
                .sqrt();
        }
        if self.dv.len() != n {
            self.dv.clear();
            self.dv.resize(n, DVec3::ZERO);
        }
        self.mg
            .set_extra_diagonal(|i| ext.implicit_air(i, h), parallel);
        let input = RhsInput {
            cloth,
            kinematic,
            known_dv,
            h,
            force,
            ext,
            parallel,
        };
        right_hand_side(&input, &self.near_held, &mut self.rhs);
        // The residual is measured against the forces acting: at rest `b` itself tends to zero
        // (springs balance gravity), so a tolerance relative to `|b|` would ask for ever more.
        let rhs_norm = self
            .rhs
            .iter()
            .map(|b| b.length_squared())
            .sum::<f64>()
            .sqrt();
        let scale = (h * ext.gravity.length() * self.free_mass_norm).max(rhs_norm);
        for (i, d) in self.dv.iter_mut().enumerate() {
            if kinematic[i] {
                *d = known_dv[i];
            }
        }
        let mg = &params.multigrid;
        let report = self.mg.solve(
            &self.rhs,
            &mut self.dv,
            scale,
            mg.tolerance,
            mg.max_cycles,
            parallel,
        );
        self.last = CgReport {
            iterations: report.cycles,
            relative_residual: report.relative_residual,
        };
        next.dv.clear();
        next.dv.extend_from_slice(&self.dv);
        advance_symplectic(step, &self.dv, next);
        Ok(())
    }

    fn report(&self) -> SolverReport {
        SolverReport::Iterative(self.last)
    }

    /// The warm start is history: a probe step (the Fig. 8 comparison) must not move it, or the
    /// run after the probe would differ from the run without it.
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
