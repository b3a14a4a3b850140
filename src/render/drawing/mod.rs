//! A frame of passes drawn into any target: the renderer, every flag's scene in one batch,
//! the view's settings, the render scale's controller, where a frame can have edges, offscreen
//! targets and headless rendering.

pub mod edges;
pub mod frame;
pub mod headless;
pub(crate) mod offscreen;
pub(crate) mod renderer;
pub(crate) mod scale;
pub mod view;
