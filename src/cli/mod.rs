//! The command line: one binary, subcommands for the viewer and the headless tools. Every
//! failure is one clear message on stderr: exit code 2 for bad input, 1 for a failure while
//! running ([`CliError`]).

mod args;
mod bench;
mod compare;
mod device;
mod error;
pub mod progress;
mod render;
mod run;
mod scene;
mod simulate;
mod study;

pub use args::*;
pub use error::CliError;
pub(crate) use error::Result;
use error::failed;
pub use run::run;
use run::{print_stdout, write_json};
pub(crate) use scene::{background_image, load_scene_on};
pub use scene::{flag_image, flag_images, load_scene};
