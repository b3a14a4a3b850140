//! `flagsim compare`: the integrator lab ([`crate::sim::lab::copies`]) run headless. One CSV row per
//! lab step and copy, a summary per copy, and the same plots as the viewer's as SVG.

mod csv;
pub(crate) mod plot;
mod series;
mod summary;
#[cfg(test)]
mod tests;

pub(crate) use csv::*;
pub(crate) use series::*;
pub(crate) use summary::*;
