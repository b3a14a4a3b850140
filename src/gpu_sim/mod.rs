//! The simulation on the GPU: `kang-mg`'s and `implicit-mg`'s step in f32, in wgpu compute
//! passes (docs/gpu.md).
//!
//! Each kernel has its CPU twin in [`crate::sim`] and a test that compares them
//! (`gpu_sim/tests.rs`): the cloth's buffers ([`ClothBuffers`]), the spring forces
//! ([`ForcePass`]), the normals and the air ([`AirPass`]), the guard ([`GuardPass`]), the
//! right-hand side ([`RhsPass`]), `implicit-mg`'s assembly and solve ([`ImplicitPass`]), the
//! step's end ([`StepEndPass`]), the multigrid's transfers and solve ([`TransferPass`],
//! [`GpuMultigrid`]), strain limiting ([`StrainPass`]), the colliders ([`CollidePass`]); the
//! whole step ([`GpuSimulation`], [`GpuStepper`]); and the GPU lent to the simulation thread
//! ([`GpuProvider`], its node buffer shared with the renderer through [`SharedNodes`]). Like
//! [`crate::sim`], this module never imports the renderer: it is handed a device and a queue.

mod air;
mod buffers;
mod collide;
mod error;
mod forces;
mod guard;
mod implicit;
mod kernel;
mod provider;
mod rhs;
mod solve;
mod step;
mod step_end;
mod strain;
#[cfg(test)]
mod tests;
mod transfer;

pub(crate) use air::AirPass;
pub(crate) use air::SIM_AIR_WGSL;
pub use buffers::{ClothBuffers, read_pairs, read_vec3s, write_vec3s};
pub(crate) use collide::SIM_COLLIDE_WGSL;
pub(crate) use collide::{CollidePass, MAX_GPU_COLLIDERS};
pub use error::GpuSimError;
pub(crate) use forces::ForcePass;
pub(crate) use forces::SIM_FORCES_WGSL;
pub(crate) use guard::GuardPass;
#[cfg(test)]
pub(crate) use guard::GuardReport;
pub(crate) use guard::SIM_GUARD_WGSL;
pub(crate) use implicit::SIM_IMPLICIT_WGSL;
pub(crate) use implicit::{ImplicitPass, ImplicitSettings};
use kernel::validated;
pub use provider::GpuProvider;
pub use provider::SharedNodes;
pub(crate) use rhs::RhsPass;
pub(crate) use rhs::SIM_RHS_WGSL;
pub(crate) use solve::GpuMultigrid;
pub(crate) use solve::SIM_SOLVE_WGSL;
pub(crate) use step::{DEFAULT_CYCLES, SIM_HELD_WGSL, Stage, unsupported};
pub(crate) use step::{GpuSimulation, GpuStepper};
pub(crate) use step_end::SIM_STEP_END_WGSL;
pub(crate) use step_end::StepEndPass;
pub(crate) use strain::SIM_STRAIN_WGSL;
pub(crate) use strain::StrainPass;
pub(crate) use transfer::SIM_TRANSFER_WGSL;
pub(crate) use transfer::{GpuLevel, TransferPass};
