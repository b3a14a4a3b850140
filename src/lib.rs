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
//! [`sim`] is the simulation core: the scene format, the cloth, the solvers, the constraints,
//! the step and its snapshots; it imports nothing of the desktop program and builds for
//! `wasm32-unknown-unknown` without the default `desktop` feature. [`upsample`] is pure math
//! (the CPU twin of `shaders/upsample.wgsl`). The `desktop` feature adds [`sim_thread`] (the
//! simulation thread), [`gpu_sim`] (the step's kernels on the GPU, each with its CPU twin in
//! [`sim`]), [`render`] (draws snapshots), [`ui`] (panels that return commands), [`app`] (the
//! winit viewer), [`video`], [`bench`], [`cli`] and what they share. ARCHITECTURE.md maps the
//! folders and their layers.

// In the core alone (no `desktop`), what only the desktop program reads of it (the GPU step's
// hooks, the viewer's accessors) has no reader.
#![cfg_attr(
    not(feature = "viewer"),
    allow(dead_code, unused_imports, reason = "read by the desktop program only")
)]
// In the page, what only the command line, the benchmarks and the native dialogs read has no
// reader.
#![cfg_attr(
    all(feature = "viewer", not(feature = "desktop")),
    allow(dead_code, unused_imports, reason = "read by the desktop program only")
)]

#[cfg(all(feature = "viewer", target_arch = "wasm32", not(feature = "web")))]
compile_error!("the viewer builds for wasm32 as a page: `--features web`");

#[cfg(feature = "viewer")]
pub mod app;
#[cfg(feature = "desktop")]
pub mod bench;
#[cfg(feature = "desktop")]
pub mod cli;
#[cfg(feature = "viewer")]
pub(crate) mod files;
#[cfg(feature = "viewer")]
pub mod gpu_sim;
#[cfg(feature = "viewer")]
pub(crate) mod lab_report;
#[cfg(feature = "viewer")]
pub mod render;
#[cfg(feature = "desktop")]
pub mod signals;
pub mod sim;
#[cfg(feature = "viewer")]
pub mod sim_thread;
#[cfg(feature = "viewer")]
pub mod ui;
pub mod upsample;
#[cfg(feature = "viewer")]
pub mod video;
#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub mod web;
