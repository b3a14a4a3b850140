//! One file per scheme, each a complete [`Integrator`]: what it needs from the shared force path,
//! how it turns forces into the next state, and the statistics it reports.
//!
//! The step that calls them is one short pipeline in [`crate::sim::runtime::simulation`]: kinematic nodes
//! → normals and external forces → [`Integrator::internal_forces`] → [`Integrator::advance`] →
//! strain limiting and colliders → [`Integrator::finish`] → the guard. Every integrator sees the
//! same forces (from [`crate::sim::model::forces`]); they differ only in how they turn them into `Δv`
//! and `Δx`.

pub(crate) mod choi_ko;
pub(crate) mod desbrun;
pub(crate) mod explicit;
pub(crate) mod explicit_euler;
pub(crate) mod hybrid;
pub mod implicit_cg;
pub mod implicit_mg;
mod integrator;
pub(crate) mod kang;
pub(crate) mod kang_mg;
mod step;
pub(crate) mod symplectic_euler;
mod update;
pub(crate) mod verlet;
pub mod xpbd;

pub(crate) use integrator::*;
pub use step::*;
pub(crate) use update::*;
