//! The simulation on the GPU (issue 27), f32, in wgpu compute passes.
//!
//! Each kernel has its CPU twin in [`crate::sim`] (the f64 path every integrator runs) and a
//! test that compares them (`tests/gpu_sim.rs`). Built so far: the cloth's buffers on the device
//! ([`ClothBuffers`]: the node state, the springs and each node's links) and the spring forces
//! ([`ForcePass`], twin of [`crate::sim::forces::spring_forces`]), the key mesh's normals and the
//! air forces in the seeded wind ([`AirPass`], twin of [`crate::sim::cloth::Cloth::node_normals`]
//! and [`crate::sim::forces::external_forces`]), and the guard's checks as one small report
//! ([`GuardPass`], twin of [`crate::sim::cloth::Cloth::strain_maxima`] and
//! [`crate::sim::guard::check`]), and `kang-mg`'s right-hand side ([`RhsPass`], twin of
//! [`crate::sim::integrators::kang_mg::right_hand_side`]), and the step's end
//! ([`StepEndPass`], twin of [`crate::sim::integrators::symplectic_next`]), and the multigrid's
//! grid transfers between two levels ([`TransferPass`] over [`GpuLevel`]s, twin of
//! [`crate::sim::multigrid::GridTransfer`]), the multigrid solve ([`GpuMultigrid`], twin of
//! [`crate::sim::multigrid::node_coloured_sweep`] and the V-cycle), strain limiting
//! ([`StrainPass`], twin of [`crate::sim::constraints::provot_sweeps_coloured`] and the
//! tethers), and `kang-mg`'s whole step over them ([`GpuSimulation`], which `flagsim bench
//! --gpu-sim` runs), the colliders ([`CollidePass`]), and the GPU lent to the simulation
//! thread ([`GpuProvider`]: the viewer's GPU mode and the lab's GPU copies, the node buffer
//! shared with the renderer through [`SharedNodes`]). README, *The simulation on the GPU*.
//!
//! Like [`crate::sim`], this module never imports the renderer: it is handed a device and a
//! queue, and a renderer may later read its node buffer.

mod air;
mod buffers;
mod collide;
mod forces;
mod guard;
mod kernel;
mod provider;
mod rhs;
mod solve;
mod step;
mod step_end;
mod strain;
mod transfer;

pub use air::{AirPass, SIM_AIR_WGSL};
pub use buffers::{ClothBuffers, GpuSpring, read_pairs, read_vec3s, write_vec3s};
pub use collide::{CollidePass, MAX_GPU_COLLIDERS, SIM_COLLIDE_WGSL};
pub use forces::{ForcePass, SIM_FORCES_WGSL};
pub use guard::{GuardPass, GuardReport, SIM_GUARD_WGSL};
pub use provider::{GpuProvider, SharedNodes};
pub use rhs::{RhsPass, SIM_RHS_WGSL};
pub use solve::{GpuMultigrid, SIM_SOLVE_WGSL};
pub use step::{DEFAULT_CYCLES, GpuSimulation, GpuStepper, SIM_HELD_WGSL, Stage, unsupported};
pub use step_end::{SIM_STEP_END_WGSL, StepEndPass};
pub use strain::{SIM_STRAIN_WGSL, StrainPass};
pub use transfer::{GpuLevel, SIM_TRANSFER_WGSL, TransferPass};

/// Everything that can go wrong on the GPU side of the simulation.
#[derive(Debug, thiserror::Error)]
pub enum GpuSimError {
    /// The device rejected a shader, pipeline, buffer or command.
    #[error("the GPU rejected {context}: {message}")]
    Validation {
        context: &'static str,
        message: String,
    },
    /// Reading a buffer back failed (the device was lost, or mapping failed).
    #[error("reading the GPU simulation's buffer back failed: {0}")]
    ReadBack(String),
    /// A scene the GPU step cannot take (yet): the reason, in words for the user.
    #[error("this scene cannot run on the GPU: {0}")]
    Unsupported(String),
    /// A cloth too large for the device's buffers.
    #[error("a cloth of {nodes} nodes and {springs} springs does not fit the GPU's buffers")]
    TooLarge { nodes: usize, springs: usize },
}

/// Invocations per workgroup of every kernel of this module (`@workgroup_size(64)`).
pub const WORKGROUP: u32 = 64;

/// Workgroups for `count` invocations, one each.
pub fn workgroups(count: u32) -> u32 {
    count.div_ceil(WORKGROUP)
}

/// Runs `make` inside a validation error scope: the device's complaint, if any, as an error.
fn validated<T>(
    device: &wgpu::Device,
    context: &'static str,
    make: impl FnOnce() -> T,
) -> Result<T, GpuSimError> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let made = make();
    match pollster::block_on(scope.pop()) {
        Some(error) => Err(GpuSimError::Validation {
            context,
            message: error.to_string(),
        }),
        None => Ok(made),
    }
}
