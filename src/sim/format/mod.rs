//! The scene format and the vocabulary every layer shares: scene files and presets, the
//! parameters and their table, several flags, flag shapes, the setting and render sections, the
//! device choice, and every way the simulation can fail.

pub(crate) mod device_choice;
pub mod error;
pub mod flag_spec;
pub(crate) mod flags;
pub mod outline;
pub mod params;
pub(crate) mod render_settings;
pub mod scene;
pub mod setting;
