//! One simulation at run time: a scene built into a cloth, the step's pipeline and its guard,
//! the device a cloth steps on, the fixed-step clock, several flags side by side, the
//! agreement with the filter (the paper's Fig. 8) and the snapshot the renderer reads.

pub mod agreement;
pub(crate) mod build;
pub mod device;
pub mod flags;
pub(crate) mod guard;
pub mod simulation;
pub mod snapshot;
pub mod stepper;
