//! One file per scheme. Every integrator receives the same forces (from [`crate::sim::forces`])
//! and differs only in how it turns them into `Δv` (here) and `Δx` (in the stepper, which owns
//! the order of a step).

pub mod choi_ko;
pub mod desbrun;
pub mod explicit;
pub mod implicit_cg;
pub mod kang;
pub mod xpbd;

use glam::DVec3;

use super::cloth::Cloth;

/// What every integrator reads for one physics step, besides the forces.
#[derive(Debug, Clone, Copy)]
pub struct StepInput<'a> {
    pub cloth: &'a Cloth,
    /// Nodes whose motion is prescribed (pins, the pole, the mouse grab).
    pub kinematic: &'a [bool],
    /// The known `Δv = v^{t+h} - v^t` of kinematic nodes, m/s (ignored for free nodes).
    pub known_dv: &'a [DVec3],
    /// Physics step `h`, s.
    pub h: f64,
    /// Run per-node loops on the rayon pool (bit-identical either way).
    pub parallel: bool,
}
