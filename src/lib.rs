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
//!  ui (egui panels) ──UiAction──▶ app ──Command──▶ sim::thread (fixed dt, sim::Simulation)
//!                                                        │ latest-wins Arc<Snapshot> (copies)
//!  screen ◀── render (wgpu: upsample compute → cloth, lines, scene) ◀──┘
//! ```
//!
//! [`sim`] never imports the renderer, winit or egui; [`upsample`] is pure math (the CPU twin of
//! `shaders/upsample.wgsl`); [`render`] draws snapshots; [`ui`] returns commands and never touches
//! the simulation; [`gpu_sim`] is the simulation's kernels on the GPU (f32, each with its CPU
//! twin in [`sim`]; it imports `sim`, never the renderer); [`app`] is the winit application wiring it together; [`cli`] the command line; [`video`] turns
//! rendered frames into GIF and MP4 files.

pub mod app;
pub mod bench;
pub mod cli;
pub mod files;
pub mod gpu_sim;
pub mod lab_report;
pub mod render;
pub mod setting;
pub mod signals;
pub mod sim;
pub mod ui;
pub mod upsample;
pub mod video;
