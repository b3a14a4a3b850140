//! Native open and save dialogs (`rfd`) that never block the event loop.
//!
//! `rfd`'s `xdg-portal` backend asks the desktop portal over D-Bus (libdbus, opened at run
//! time) and falls back to `zenity`; it needs no GTK. A dialog is modal for the user but not
//! for the viewer: it runs on a thread of its own, the answer comes back through a channel that
//! [`Dialogs::poll`] reads in `about_to_wait`, and the thread wakes the event loop with an
//! [`EventLoopProxy`] so the answer is taken at once, not at the next poll.
//!
//! Where no dialog can be shown (no session bus and no `zenity`, as under Xvfb or in CI) the
//! button says so ([`NO_DIALOG`]) and the path field stays the way in. `rfd` answers "no dialog"
//! and "cancelled" alike (`None`); a `None` within [`QUICK`] of asking is taken as "no dialog
//! answered", as nobody closes a real dialog that fast.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;
use web_time::Instant;

use winit::event_loop::EventLoopProxy;
use winit::window::Window;

use crate::ui::panels::scene_files::Pick;

/// The notice when no file dialog can be shown.
pub(crate) const NO_DIALOG: &str = "no file dialog available: type the path";
/// A dialog that answers "nothing chosen" sooner than this was never shown.
pub(crate) const QUICK: Duration = Duration::from_millis(400);

/// What a dialog answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    Picked(PathBuf),
    Cancelled,
    /// No dialog could be shown.
    Unavailable,
}

/// The dialog open now, if any (one at a time), and where its answer arrives.
pub(crate) struct Dialogs {
    tx: mpsc::Sender<(Pick, Answer)>,
    rx: mpsc::Receiver<(Pick, Answer)>,
    open: bool,
    wake: EventLoopProxy<()>,
}

/// Whether a dialog can be shown at all: a D-Bus session bus to reach the portal on
/// (`DBUS_SESSION_BUS_ADDRESS`, or the `bus` socket in `XDG_RUNTIME_DIR`), or `zenity` on the
/// `PATH`. The environment is passed in so tests can try each case.
pub(crate) fn available(
    bus_address: Option<OsString>,
    runtime_dir: Option<OsString>,
    path: Option<OsString>,
) -> bool {
    let bus = bus_address.is_some_and(|a| !a.is_empty())
        || runtime_dir.is_some_and(|d| Path::new(&d).join("bus").exists());
    let zenity =
        path.is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("zenity").is_file()));
    bus || zenity
}

impl Dialogs {
    pub(crate) fn new(wake: EventLoopProxy<()>) -> Self {
        let (tx, rx) = mpsc::channel();
        Self {
            tx,
            rx,
            open: false,
            wake,
        }
    }

    /// Opens the dialog for `pick` over `window`, starting at `current` (the path field).
    /// `Err` with the message for the user when none can be opened.
    pub(crate) fn start(
        &mut self,
        pick: Pick,
        window: &Window,
        current: &str,
    ) -> Result<(), String> {
        if self.open {
            return Err("a file dialog is open already".into());
        }
        self.show(pick, window, current)
    }

    /// A page has no native dialogs: its own file input and drop take files.
    #[cfg(not(feature = "desktop"))]
    #[allow(clippy::unused_self, reason = "the desktop's twin starts a dialog")]
    fn show(&mut self, _pick: Pick, _window: &Window, _current: &str) -> Result<(), String> {
        Err(NO_DIALOG.into())
    }

    /// Shows the native dialog on a thread of its own.
    #[cfg(feature = "desktop")]
    fn show(&mut self, pick: Pick, window: &Window, current: &str) -> Result<(), String> {
        let env = std::env::var_os;
        if !available(
            env("DBUS_SESSION_BUS_ADDRESS"),
            env("XDG_RUNTIME_DIR"),
            env("PATH"),
        ) {
            return Err(NO_DIALOG.into());
        }
        let current = Path::new(current.trim());
        let mut dialog = rfd::FileDialog::new().set_parent(window);
        let folder = current
            .parent()
            .filter(|d| d.is_dir())
            .map_or_else(|| std::env::current_dir().ok(), |d| Some(d.to_path_buf()));
        if let Some(folder) = folder {
            dialog = dialog.set_directory(folder);
        }
        dialog = match pick {
            Pick::OpenScene => dialog
                .set_title("Open a scene")
                .add_filter("flagsim scene", &["json"]),
            Pick::SaveScene => {
                let name = current
                    .file_name()
                    .map_or_else(|| "scene.json".into(), |n| n.to_string_lossy().into_owned());
                dialog
                    .set_title("Save the scene")
                    .add_filter("flagsim scene", &["json"])
                    .set_file_name(name)
            }
            Pick::OpenImage => dialog
                .set_title("An image for the flag")
                .add_filter("image", &["png", "jpg", "jpeg", "webp"]),
            Pick::OpenBackground => dialog
                .set_title("An image for the background")
                .add_filter("image", &["png", "jpg", "jpeg", "webp"]),
        };
        let (tx, wake) = (self.tx.clone(), self.wake.clone());
        std::thread::Builder::new()
            .name("file dialog".into())
            .spawn(move || {
                let asked = Instant::now();
                let picked = match pick {
                    Pick::OpenScene | Pick::OpenImage | Pick::OpenBackground => dialog.pick_file(),
                    Pick::SaveScene => dialog.save_file(),
                };
                let answer = match picked {
                    Some(path) => Answer::Picked(path),
                    None if asked.elapsed() < QUICK => Answer::Unavailable,
                    None => Answer::Cancelled,
                };
                // The viewer may have closed meanwhile: nobody is left to tell.
                let _ = tx.send((pick, answer));
                let _ = wake.send_event(());
            })
            .map_err(|e| format!("cannot open a file dialog: {e}"))?;
        self.open = true;
        Ok(())
    }

    /// The answer of the dialog that closed since the last call, if any.
    pub(crate) fn poll(&mut self) -> Option<(Pick, Answer)> {
        let answer = self.rx.try_recv().ok()?;
        self.open = false;
        Some(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialog_needs_a_session_bus_or_zenity() {
        let dir = std::env::temp_dir().join(format!("flagsim-dialogs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        let os = |p: &Path| Some(p.as_os_str().to_owned());
        // Xvfb in CI: no bus address, no bus socket, no zenity.
        assert!(!available(None, os(&dir), os(&dir.join("bin"))));
        assert!(!available(Some("".into()), None, None));
        assert!(available(
            Some("unix:path=/run/user/1000/bus".into()),
            None,
            None
        ));
        std::fs::write(dir.join("bus"), b"").unwrap();
        assert!(available(None, os(&dir), None));
        std::fs::write(dir.join("bin").join("zenity"), b"").unwrap();
        let path = std::env::join_paths([Path::new("/nonexistent"), &dir.join("bin")]).unwrap();
        assert!(available(None, None, Some(path)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
