//! Every simulation parameter, with its unit, range and default.
//!
//! `Params` is plain data: the scene file's `"params"` section deserialises into it (every field
//! optional, unknown fields rejected), the viewer edits a copy and sends it back as a command, and
//! the step reads it explicitly. Nothing here is precomputed from it, so any value may change
//! between two steps (the paper's point in §2.2); only `desbrun` caches, and it checks.

mod constraints;
mod integrator;
mod material;
mod motion;
mod set;
mod solvers;
pub mod spec;

pub use constraints::*;
pub use integrator::*;
pub use material::*;
pub use motion::*;
pub use set::*;
pub use solvers::*;
