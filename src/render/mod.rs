//! The renderer: wgpu, drawing snapshots. Its folders stand in layers, each importing only
//! the ones before it: [`device`] (the adapter, attachment formats and pixel rectangles, the
//! WGSL sources, the GPU timer), [`camera`] (the orbit camera, picking, the per-frame uniforms),
//! [`passes`] (the upsampler of `shaders/upsample.wgsl`, the cloth, lines and scene passes, the
//! full-screen passes, the flag's image) and [`drawing`] (a frame of passes into any target:
//! [`Renderer`], the view's settings, the render scale, where a frame has edges, offscreen
//! targets and headless rendering).

pub mod camera;
pub mod device;
pub mod drawing;
pub mod passes;

pub use camera::globals::{CameraMatrices, Light};
pub use camera::orbit::OrbitCamera;
pub(crate) use device::error::RenderError;
pub use device::gpu::{GpuContext, GpuError};
pub use device::gpu_timer::GpuTimer;
pub use device::path::RenderPath;
pub use device::targets::{MsaaAttachments, PixelRect, RenderQuality};
pub(crate) use device::targets::{lab_cells, lab_zoom};
pub use drawing::offscreen::OffscreenTarget;
pub use drawing::renderer::{FrameData, Renderer};
pub(crate) use drawing::scale::{AUTO_MIN_RENDER_SCALE, MIN_RENDER_SCALE, RenderScale, ScaleMode};
pub use passes::cloth_pass::{ClothFrame, ClothNodes, ClothStyle, ColorMode};
pub use passes::cut_fill::CutFillPass;
pub use passes::lines_pass::LineVertex;
pub use passes::scene_pass::{Pole, SceneFrame, Sphere};
pub use passes::upsample_pass::{OutputBuffers, UpsamplePass};
pub use passes::upscale_pass::UpscalePass;
