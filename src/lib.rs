pub mod cli;
pub mod render;
pub mod sim;
pub mod ui;
pub mod upsample;
