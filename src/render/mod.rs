//! GPU side: device, passes, camera, capture.
//!
//! [`gpu::GpuContext`] opens the device (any adapter, lavapipe included);
//! [`upsample_pass::UpsamplePass`] runs the wrinkled-spline upsampler of
//! `shaders/upsample.wgsl` and leaves the render mesh in storage buffers for the draw passes;
//! [`shaders`] is where every WGSL file is loaded.

pub mod gpu;
pub mod shaders;
pub mod upsample_pass;

pub use gpu::{GpuContext, GpuError};
pub use upsample_pass::{OutputBuffers, UpsamplePass, UpsampleUniforms};
