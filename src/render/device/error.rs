//! Errors of the drawing side. Each is raised once, where the bad input is first seen, and says
//! which input is wrong; GPU validation errors past these checks are bugs, not user errors.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum RenderError {
    /// A PNG could not be decoded (the built-in flag or a user-chosen texture).
    #[error("cannot decode the {what} image: {source}")]
    Image {
        what: &'static str,
        #[source]
        source: image::ImageError,
    },
    /// An image file (the flag's, the background's: `what`) that cannot be used; the message
    /// names the file and what is wrong.
    #[error("{what} {path}: {reason}")]
    ImageFile {
        what: &'static str,
        path: String,
        reason: String,
    },
    /// The render resolution is below 2 nodes on an axis, or its node count overflows.
    #[error("render resolution {0:?} is invalid: need at least 2 × 2 render nodes")]
    Resolution([u32; 2]),
    /// The key grid is below 2 nodes on an axis.
    #[error("key grid {0:?} is invalid: need at least 2 × 2 key nodes")]
    KeyGrid([u32; 2]),
    /// A render-node buffer is smaller than the resolution needs or lacks `STORAGE` usage.
    #[error(
        "the {name} buffer holds {actual} bytes with usage {usage:?}; \
             {needed} bytes with STORAGE usage are needed"
    )]
    NodeBuffer {
        name: &'static str,
        needed: u64,
        actual: u64,
        usage: wgpu::BufferUsages,
    },
    /// A cloth's render nodes handed over another way than the renderer's path reads them
    /// (storage buffers to a renderer without compute, a CPU mesh to one with it).
    #[error("the cloth's render nodes do not come as the renderer's {0:?} path reads them")]
    NodesForPath(crate::render::device::path::RenderPath),
    /// A CPU-upsampled cloth whose positions or normals are not one a render node.
    #[error("{nodes} render nodes but {positions} positions and {normals} normals")]
    NodeCount {
        nodes: u64,
        positions: usize,
        normals: usize,
    },
    /// A cloth's first node in its buffers off the 16-node (256-byte) alignment a binding
    /// offset needs.
    #[error("a cloth's nodes start at node {0}, not a multiple of 16")]
    FirstNode(u32),
    /// An image size of zero or beyond the device's texture limit.
    #[error("image size {width}×{height} is invalid (1..={max} per side)")]
    ImageSize { width: u32, height: u32, max: u32 },
    /// An offscreen colour format that cannot be read back as 8-bit RGBA.
    #[error("offscreen format {0:?} is not supported (use Rgba8Unorm, Bgra8Unorm or an Srgb twin)")]
    UnsupportedFormat(wgpu::TextureFormat),
    /// The renderer was built for other attachment formats than the target has.
    #[error("the renderer was built for {renderer:?} but the target is {target:?}")]
    TargetMismatch {
        renderer: crate::render::device::targets::TargetFormats,
        target: crate::render::device::targets::TargetFormats,
    },
    /// Reading the rendered image back from the GPU failed.
    #[error("reading the rendered image back failed: {0}")]
    Readback(String),
    /// Opening or driving the GPU failed (no adapter, device lost, …).
    #[error(transparent)]
    Gpu(#[from] crate::render::device::gpu::GpuError),
    /// The key grid or the upsampling settings were rejected.
    #[error("upsampling: {0}")]
    Upsample(#[from] crate::upsample::UpsampleError),
}
