//! GPU side: device, passes, camera, capture.
//!
//! [`gpu::GpuContext`] opens the device (any adapter, lavapipe included);
//! [`upsample_pass::UpsamplePass`] runs the wrinkled-spline upsampler of
//! `shaders/upsample.wgsl` and leaves the render mesh in storage buffers. [`renderer::Renderer`]
//! owns three long-lived drawing passes — [`scene_pass`] (sky, ground, pole, sphere colliders),
//! [`cloth_pass`] (the render mesh, read straight from the upsample pass's storage buffers) and
//! [`lines_pass`] (wireframes, `Δv` segments) — and draws a [`renderer::FrameData`] into any
//! target: an [`offscreen::OffscreenTarget`] or a window's swapchain. [`camera`] is the orbit
//! camera and picking ray; [`globals`] the per-frame uniforms every pass shares; [`shaders`] is
//! where the WGSL files in `shaders/` are listed.

pub mod camera;
pub mod cloth_pass;
pub mod cut_fill;
pub mod edges;
pub mod error;
pub mod flag_texture;
pub mod frame;
pub mod fullscreen;
pub mod globals;
pub mod gpu;
pub mod gpu_timer;
pub mod headless;
pub mod lines_pass;
pub mod offscreen;
pub mod picking;
pub mod renderer;
pub mod scale;
pub mod scene_pass;
pub mod shaders;
pub mod targets;
pub mod upsample_pass;
pub mod upscale_pass;
pub mod view;

pub use camera::OrbitCamera;
pub use cloth_pass::{ClothFrame, ClothStyle, ColorMode};
pub use cut_fill::CutFillPass;
pub use error::RenderError;
pub use globals::{CameraMatrices, Light};
pub use gpu::{GpuContext, GpuError};
pub use gpu_timer::GpuTimer;
pub use lines_pass::LineVertex;
pub use offscreen::OffscreenTarget;
pub use renderer::{FrameData, Renderer};
pub use scale::{AUTO_MIN_RENDER_SCALE, MIN_RENDER_SCALE, RenderScale, ScaleMode};
pub use scene_pass::{Pole, SceneFrame, SceneStyle, Sphere};
pub use targets::{MsaaAttachments, PixelRect, RenderQuality, TargetFormats, lab_cells, lab_zoom};
pub use upsample_pass::{OutputBuffers, UpsamplePass, UpsampleUniforms};
pub use upscale_pass::UpscalePass;
