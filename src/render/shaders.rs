//! Every WGSL file of the crate, loaded in this one place.
//!
//! Shaders are compiled into the binary with `include_str!`, so the viewer needs no asset path at
//! run time; [`ALL`] lists them for `tests/shaders.rs`, which validates each with naga and also
//! checks that no file under `shaders/` is missing from the list.

/// A WGSL source and the path it came from (relative to the crate root).
#[derive(Debug, Clone, Copy)]
pub struct ShaderFile {
    pub path: &'static str,
    pub source: &'static str,
}

/// The upsampler's compute kernels (`UpsamplePass`).
pub const UPSAMPLE_WGSL: &str = include_str!("../../shaders/upsample.wgsl");

/// Every shader file, for validation.
pub const ALL: &[ShaderFile] = &[ShaderFile {
    path: "shaders/upsample.wgsl",
    source: UPSAMPLE_WGSL,
}];
