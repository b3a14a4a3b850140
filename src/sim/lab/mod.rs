//! The integrator lab: copies of one scene stepped side by side in lock-step, and the
//! largest stable `dt` of an integrator.

pub mod copies;
pub mod stability;
