//! flagsim: Kang, Choi, Cho and Lee's approximate implicit cloth with wrinkled cubic spline
//! upsampling, as a real-time viewer and a headless lab.
//!
//! Units are SI (m, kg, s, N); Y is up, right-handed. A grid cloth of `nx × ny` key nodes stores
//! node `(i, j)` at index `j * nx + i`, `i` along the width (u, +X for a flag), `j` along the
//! height (v). The CPU simulation is f64; everything on the GPU is f32.
//!
//! Data flows one way:
//!
//! ```text
//!  ui (egui panels) ──UiAction──▶ app ──Command──▶ sim_thread (fixed dt, sim::Simulation)
//!                                                        │ latest-wins Arc<Snapshot> (copies)
//!  screen ◀── render (wgpu: upsample compute → cloth, lines, scene) ◀──┘
//! ```
//!
//! [`sim`] never imports the renderer, winit or egui; [`upsample`] is pure math (the CPU twin of
//! `shaders/upsample.wgsl`); [`render`] draws snapshots; [`ui`] returns commands and never touches
//! the simulation; [`gpu_sim`] is the simulation's kernels on the GPU (f32, each with its CPU
//! twin in [`sim`]; it imports `sim`, never the renderer); [`app`] is the winit application wiring it together; [`cli`] the command line; [`video`] turns
//! rendered frames into GIF and MP4 files.

#[cfg(feature = "desktop")]
pub mod app;
#[cfg(feature = "desktop")]
pub mod bench;
#[cfg(feature = "desktop")]
pub mod cli;
#[cfg(feature = "desktop")]
pub(crate) mod files;
#[cfg(feature = "desktop")]
pub mod gpu_sim;
#[cfg(feature = "desktop")]
pub(crate) mod lab_report;
#[cfg(feature = "desktop")]
pub mod render;
#[cfg(feature = "desktop")]
pub mod signals;
pub mod sim;
#[cfg(feature = "desktop")]
pub mod sim_thread;
#[cfg(feature = "desktop")]
pub mod ui;
pub mod upsample;
#[cfg(feature = "desktop")]
pub mod video;
