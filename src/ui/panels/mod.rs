//! One file per panel, each drawn by a function that reads the panels' state and returns the
//! actions the user asked for.

pub(crate) mod capture;
pub(crate) mod cloth;
pub(crate) mod detail;
pub mod flags;
pub(crate) mod lab;
pub(crate) mod overlays;
pub mod scene_files;
pub(crate) mod setting;
pub(crate) mod simulation;
pub(crate) mod stats;
pub(crate) mod wind;
