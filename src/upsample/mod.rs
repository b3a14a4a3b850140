//! Wrinkled cubic spline upsampling (paper §3, eq. 14; method.md §7): the CPU reference of
//! `shaders/upsample.wgsl`.

pub mod settings;
pub use settings::{DisplayMode, RenderSettings};
