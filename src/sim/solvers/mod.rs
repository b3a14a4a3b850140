//! How forces become `Δv` and `Δx`: the integrators, one file each, and what they solve with
//! (the springs' Jacobian, the geometric multigrid, the buckling model, the wavelet
//! interpolation of smooth regions).

pub mod buckling;
#[cfg(test)]
pub(crate) mod coloured;
pub mod integrators;
pub(crate) mod jacobian;
pub mod multigrid;
pub mod wavelet;
