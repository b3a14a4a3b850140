pub mod cli;
pub mod render;
pub mod sim;
pub mod upsample;
