pub mod app;
pub mod render;
pub mod sim;
pub mod upsample;
