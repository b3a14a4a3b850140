//! What the command line says while it runs: progress bars and the log.
//!
//! Progress bars (`indicatif`) are drawn on stderr only when it is a terminal and `--quiet` is
//! off; piped or redirected runs get none, so scripts read only the output and the messages.
//! Messages go through `log`: flagsim's own at `info` and up (`flagsim: …`,
//! `flagsim: warning: …`; `--quiet`: warnings and errors only). Other crates' (wgpu, winit,
//! egui) only with `-v` or `RUST_LOG`: wgpu logs harmless probes as errors (lavapipe's EGL
//! says "failed to load driver" on every start), and the GPU errors that matter reach
//! flagsim's own log through the device's error handler.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// `--quiet` was given: no progress bars, only warnings and errors.
static QUIET: AtomicBool = AtomicBool::new(false);

/// The log filter for `-v` given `verbose` times (or `--quiet`), when `RUST_LOG` is not set.
pub(crate) fn log_filter(verbose: u8, quiet: bool) -> &'static str {
    match (quiet, verbose) {
        (true, _) => "off,flagsim=warn",
        (false, 0) => "off,flagsim=info",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    }
}

/// Starts the logger (once, at start-up): `RUST_LOG` if set, else [`log_filter`]. flagsim's
/// lines read `flagsim: …`, warnings `flagsim: warning: …`; other crates' name themselves.
pub fn init(verbose: u8, quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
    let env = env_logger::Env::default().default_filter_or(log_filter(verbose, quiet));
    let _ = env_logger::Builder::from_env(env)
        .format(|buf, record| {
            let level = match record.level() {
                log::Level::Error => "error: ",
                log::Level::Warn => "warning: ",
                _ => "",
            };
            let from = record.target();
            if from.starts_with("flagsim") {
                writeln!(buf, "flagsim: {level}{}", record.args())
            } else {
                writeln!(buf, "{from}: {level}{}", record.args())
            }
        })
        .try_init();
}

/// Whether progress bars are drawn: stderr is a terminal and `--quiet` is off.
fn shown() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A bar over `len` steps of `what` (hidden when not [`shown`]).
pub(crate) fn bar(len: u64, what: &str) -> ProgressBar {
    if !shown() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix} [{bar:32}] {pos}/{len} {msg} ({elapsed}, {eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(what.to_string());
    bar
}

/// A spinner with a changing message, for work of unknown length (hidden when not [`shown`]).
pub(crate) fn spinner(what: &str) -> ProgressBar {
    if !shown() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix}: {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_prefix(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_verbosity_shows_more_and_quiet_only_warnings() {
        assert_eq!(log_filter(0, false), "off,flagsim=info");
        assert_eq!(log_filter(1, false), "info");
        assert_eq!(log_filter(2, false), "debug");
        assert_eq!(log_filter(3, false), "trace");
        assert_eq!(log_filter(9, false), "trace");
        assert_eq!(log_filter(2, true), "off,flagsim=warn");
    }
}
