//! `flagsim`: parse the command line, run the viewer or a headless command. Exit code 0 on
//! success, 2 for bad input, 1 for a failure while running.

use clap::Parser;
use flagsim::cli::{self, Cli};

fn main() {
    let cli = Cli::parse();
    cli::progress::init(cli.verbose, cli.quiet);
    if let Err(e) = cli::run(cli) {
        eprintln!("flagsim: error: {e}");
        std::process::exit(e.exit_code());
    }
}
