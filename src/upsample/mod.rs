//! Wrinkled cubic spline upsampling (paper §3, eq. 14; docs/method.md §7): the CPU reference of
//! `shaders/upsample.wgsl`.
//!
//! A coarse `nx × ny` grid of simulated key nodes becomes an `R_u × R_v` render mesh. Pass 1
//! runs a Catmull-Rom spline along every key row and samples it at every render column (the
//! *frame nodes*); pass 2 runs a spline along every render column through its frame nodes and
//! samples it at every render row (the *internal nodes*). A segment shorter than its rest
//! length gets eq. 14's wrinkle along the normal of the smooth surface; pass 3 takes shading
//! normals from the final grid. All math is `f32` in the order the shader uses, module by
//! module: [`spline`] (curves and sampling), [`wrinkle`] (eq. 14), [`surface`] (the normal `N`
//! and the key mesh), [`cpu`] (the passes).

pub(crate) mod cpu;
pub(crate) mod grid;
pub(crate) mod spline;
pub(crate) mod surface;
pub mod wrinkle;

pub use crate::sim::format::render_settings::{DisplayMode, RenderSettings};
pub(crate) use cpu::UpsampleParams;
pub use cpu::{try_upsample_cpu, upsample_cpu};
pub use grid::UpsampleError;
pub use grid::{KeyGrid, RenderMesh};
