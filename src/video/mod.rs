//! Video out: GIF natively, MP4 through `ffmpeg`, written from rendered frames at a fixed
//! simulated rate. `flagsim render --video` and the viewer's *Capture* panel both feed a
//! [`VideoWriter`] frame by frame (on an [`Encoder`] thread, so rendering and encoding overlap),
//! and step the simulation in lock-step with the frames ([`LockStep`]).
//! Every video is written through [`crate::files::Pending`]: until the last frame is in, the
//! target path holds whatever it held before.

mod encoder;
pub(crate) mod ffmpeg;
mod format;
pub(crate) mod gif;
mod lockstep;
mod writer;

pub use encoder::*;
pub use format::*;
pub use lockstep::{LockStep, step_of_frame};
pub use writer::*;
