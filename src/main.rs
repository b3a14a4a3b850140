//! `flagsim`: parse the command line, run the viewer or a headless command. Exit code 0 on
//! success, 2 for bad input, 1 for a failure while running.

use clap::Parser;
use flagsim::cli::{self, Cli};

fn main() {
    quiet_mesa_device_select();
    if let Err(e) = flagsim::signals::install() {
        // Only the clean-up on Ctrl+C is lost: not a reason to stop.
        eprintln!("flagsim: warning: cannot handle SIGINT / SIGTERM: {e}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(&e),
    };
    cli::progress::init(cli.verbose, cli.quiet);
    if let Err(e) = cli::run(cli) {
        eprintln!("flagsim: error: {e}");
        std::process::exit(e.exit_code());
    }
}

/// Help and the version go to stdout as clap writes them; a command line clap refuses gets the
/// same `flagsim: error:` prefix as every other error (clap's own is `error:`), then clap's
/// words and its usage hint. Exit code 2, as for any bad input.
fn usage_error(e: &clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    eprint!("flagsim: error: {text}");
    std::process::exit(2);
}

/// Mesa's Vulkan device-select layer asks libwayland for a display to order the GPUs, and
/// libwayland prints "error: `XDG_RUNTIME_DIR` is invalid or not set in the environment." twice
/// where there is no runtime folder (a bare shell, Xvfb, CI), so every headless `render` would
/// print it, even with `-q`. Without that folder there is no Wayland session to order GPUs for, so
/// the layer is switched off (`NODEVICE_SELECT=1`, Mesa's own switch) unless the user set it.
#[allow(unsafe_code)] // reason: `set_var` is unsafe since Rust 2024; called before any thread starts
fn quiet_mesa_device_select() {
    let runtime_dir_ok =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if !runtime_dir_ok && std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: the first thing `main` does, before any other thread exists, so nothing can
        // read the environment while it changes.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}
