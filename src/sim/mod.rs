//! The CPU simulation: cloth model, forces, integrators, constraints, scenes, the fixed-step
//! loop and the simulation thread. Nothing in here knows about wgpu, winit or egui.

pub mod agreement;
pub mod buckling;
pub mod cloth;
pub mod constraints;
pub mod device;
pub mod error;
pub mod flag_spec;
pub mod flags;
pub mod forces;
pub mod guard;
pub mod integrators;
pub mod jacobian;
pub mod lab;
pub mod multigrid;
pub mod outline;
pub mod par;
pub mod params;
pub mod provot;
pub mod scene;
pub mod shape;
pub mod simulation;
pub mod snapshot;
pub mod stability;
pub mod stepper;
pub mod strain_levels;
pub mod tethers;
pub mod thread;
pub mod wavelet;

pub use cloth::{Cloth, GridInfo};
pub use device::DeviceChoice;
pub use error::SimError;
pub use params::{IntegratorKind, Params};
pub use scene::Scene;
pub use simulation::{DeviceStep, Divergence, Simulation, StepStats};
