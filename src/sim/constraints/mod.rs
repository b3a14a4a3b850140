//! What happens after `x += h v`: strain limiting (tethers, Provot's sweeps, the same limit on a
//! grid's coarse levels), then colliders.

pub(crate) mod colliders;
pub mod limit;
pub(crate) mod provot;
pub(crate) mod strain_levels;
pub(crate) mod tethers;
