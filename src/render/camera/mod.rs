//! The orbit camera, picking rays and the per-frame uniforms every pass shares.

pub mod globals;
pub(crate) mod orbit;
pub(crate) mod picking;
