//! The GPU device and what every pass builds on: attachment formats and pixel rectangles, the
//! WGSL sources, the GPU timer, the renderer's errors, the render path a device allows.

pub(crate) mod error;
pub(crate) mod gpu;
pub(crate) mod gpu_timer;
pub(crate) mod path;
pub mod shaders;
pub(crate) mod targets;
