//! The simulation core: the scene format, the cloth model, the solvers, the constraints, the
//! step and what it publishes, and the lab's measures. Nothing in here knows about wgpu, winit,
//! egui or OS threads; it builds for `wasm32-unknown-unknown`.
//!
//! The folders stand in layers, each importing only the ones above it in this list:
//! [`format`] (scene files, parameters, errors), [`model`] (the cloth and its forces),
//! [`solvers`] (the integrators and their linear solvers), [`constraints`] (strain limiting and
//! colliders), [`runtime`] (the step's pipeline, its guard, snapshots), [`lab`] (copies side by
//! side and the stable-`dt` search).

pub mod constraints;
pub mod format;
pub mod lab;
pub mod model;
pub mod runtime;
pub mod solvers;

pub use format::device_choice::DeviceChoice;
pub use format::error::SimError;
pub use format::params::{IntegratorKind, Params};
pub use format::scene::Scene;
pub use model::cloth::{Cloth, GridInfo};
pub(crate) use runtime::simulation::DeviceStep;
pub use runtime::simulation::Simulation;
