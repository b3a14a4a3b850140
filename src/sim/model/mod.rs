//! The cloth model: topology and state, the forces every integrator shares (springs,
//! viscosity, gravity, air), the measures of a cloth's shape, and the serial-or-parallel loops
//! over nodes.

pub mod cloth;
pub mod forces;
pub(crate) mod par;
pub mod shape;
