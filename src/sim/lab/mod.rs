//! The integrator lab: copies of one scene stepped side by side in lock-step, how a run's
//! flag moved (the resolution study's measures), and the largest stable `dt` of an integrator.

pub mod copies;
pub mod motion;
pub mod resolution;
pub mod stability;
