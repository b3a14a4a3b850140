//! `flagsim`: parse the command line, run the viewer or a headless command.

use clap::Parser;
use flagsim::cli::{self, BadInput, Cli};

fn main() {
    let cli = Cli::parse();
    if let Err(e) = cli::run(cli) {
        if let Some(bad) = e.downcast_ref::<BadInput>() {
            eprintln!("flagsim: error: {bad}");
            std::process::exit(cli::EXIT_BAD_INPUT);
        }
        eprintln!("flagsim: error: {e:#}");
        std::process::exit(1);
    }
}
