//! Live plots under the 3-D view: kinetic energy, max strain, step time and, while the Fig. 8
//! comparison runs, the `Δv` cosine similarity to the precomputed filter, and while the lab's
//! reference copy runs, each cloth's RMS distance from it, over a rolling window
//! of simulated time, one line per cloth in its colour. Pausing freezes them (no new steps, no
//! new points); the points can be saved as CSV.

mod decimated;
mod live;
mod panel;
#[cfg(test)]
mod tests;

pub use live::{LivePlots, REFRESH, WINDOW_DEFAULT, WINDOW_MAX, WINDOW_MIN};
pub(crate) use panel::colour;
pub(crate) use panel::plots_ui;
