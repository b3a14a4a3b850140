//! The egui side panels. They read the latest snapshot, edit a local copy of the parameters and
//! return [`UiAction`]s; they never touch the simulation. One file per panel; every parameter
//! is drawn through [`widgets`], which takes its label, unit, range and tooltip from
//! `sim::format::params::spec`, so no widget can send a value the simulation would refuse.

mod banner;
pub mod notices;
pub mod panels;
pub(crate) mod plots;
pub(crate) mod recent;
pub(crate) mod widgets;

mod action;
mod controls;
mod state;
#[cfg(test)]
mod tests;

pub use action::{FrameInfo, UiAction};
pub(crate) use action::{RecordFormat, RecordingStatus};
pub(crate) use banner::divergence_banner;
pub(crate) use controls::controls;
/// How often the Stats figures and the live plots refresh while the cloth runs.
pub(crate) use plots::REFRESH;
pub use state::{CaptureSettings, FilePaths, LabPanel, UiState};
