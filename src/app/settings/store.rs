//! Where the settings live: reading them at start, writing them debounced.

use super::{DIR_VARIABLE, FILE_NAME, SAVE_DELAY, Settings};
use std::path::PathBuf;
use web_time::Instant;

/// Where the settings are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// A file: the desktop's `settings.json`.
    File(PathBuf),
    /// The browser's local storage for the page's origin, under this key (a page's).
    #[cfg(target_arch = "wasm32")]
    Browser(&'static str),
}

impl Place {
    /// The browser's local storage under `key`; `None` where the browser keeps nothing for the
    /// page (its storage turned off), so that nothing is tried and no change fails.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn browser(key: &'static str) -> Option<Place> {
        browser_storage().ok().map(|_| Place::Browser(key))
    }

    /// What the place holds (`None`: nothing yet, a first run), or why it cannot be read.
    fn read(&self) -> Result<Option<String>, String> {
        match self {
            Place::File(path) => match std::fs::read_to_string(path) {
                Ok(text) => Ok(Some(text)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e.to_string()),
            },
            #[cfg(target_arch = "wasm32")]
            Place::Browser(key) => browser_storage()?
                .get_item(key)
                .map_err(|e| format!("{e:?}")),
        }
    }

    /// Replaces what the place holds with `text`.
    fn write(&self, text: &str) -> Result<(), String> {
        match self {
            Place::File(path) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
                crate::files::write_atomically(path, text.as_bytes())
                    .map_err(|e| format!("cannot save the settings to {}: {e}", path.display()))
            }
            #[cfg(target_arch = "wasm32")]
            Place::Browser(key) => browser_storage()?
                .set_item(key, text)
                // A full storage (its quota) or one the user has turned off.
                .map_err(|e| format!("cannot keep the settings in this browser: {e:?}")),
        }
    }

    /// The place in words, for the *Settings* panel and the warnings.
    pub(crate) fn describe(&self) -> String {
        match self {
            Place::File(path) => path.display().to_string(),
            #[cfg(target_arch = "wasm32")]
            Place::Browser(_) => "this browser's storage for the page".into(),
        }
    }
}

/// The page's local storage (`None` where the browser offers none, as with its storage turned
/// off).
#[cfg(target_arch = "wasm32")]
fn browser_storage() -> Result<web_sys::Storage, String> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or_else(|| "this browser keeps nothing for the page".to_string())
}

/// Where the settings live and what was last written there.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    /// Where they are kept (`None`: nowhere, `--no-persist`, or no config folder on this
    /// platform).
    place: Option<Place>,
    /// What the place holds now (or held when read).
    written: Option<Settings>,
    /// The values last seen, and since when they differ from `written`.
    seen: Option<(Settings, Instant)>,
}

/// A store opened at start: the settings read (or the defaults) and what was wrong with them.
#[derive(Debug, Clone)]
pub(crate) struct Opened {
    pub store: Store,
    pub settings: Settings,
    pub warnings: Vec<String>,
}

impl Store {
    /// The settings file: `$FLAGSIM_CONFIG_DIR/settings.json`, or in the platform's config
    /// folder. `None` with `no_persist`.
    pub(crate) fn location(no_persist: bool) -> Option<Place> {
        if no_persist {
            return None;
        }
        let dir = match std::env::var_os(DIR_VARIABLE) {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => directories::ProjectDirs::from("", "", "flagsim")?
                .config_dir()
                .to_path_buf(),
        };
        Some(Place::File(dir.join(FILE_NAME)))
    }

    /// Reads the settings at `place` (`None`: defaults, nothing read). Nothing there is a
    /// first run; an unreadable or broken place gives the defaults and a warning.
    pub(crate) fn open(place: Option<Place>) -> Opened {
        let mut warnings = Vec::new();
        let settings = match place.as_ref().map(Place::read) {
            None | Some(Ok(None)) => Settings::default(),
            Some(Err(e)) => {
                warnings.push(format!(
                    "settings: cannot read them ({e}); the defaults are used"
                ));
                Settings::default()
            }
            Some(Ok(Some(text))) => {
                let (settings, w) = Settings::from_json(&text);
                warnings.extend(w);
                settings
            }
        };
        if let (Some(place), false) = (&place, warnings.is_empty()) {
            warnings.push(format!(
                "settings: {} is rewritten with the values in use when they are next saved",
                place.describe()
            ));
        }
        Opened {
            store: Store {
                place,
                written: warnings.is_empty().then(|| settings.clone()),
                seen: None,
            },
            settings,
            warnings,
        }
    }

    /// Where the settings are kept (`None`: nowhere).
    pub(crate) fn place(&self) -> Option<&Place> {
        self.place.as_ref()
    }

    /// Takes the values in use at `now`; they are written once they have stood unchanged for
    /// [`SAVE_DELAY`] ([`Self::save_if_due`]).
    pub(crate) fn observe(&mut self, current: Settings, now: Instant) {
        if self.written.as_ref() == Some(&current) {
            self.seen = None;
            return;
        }
        match &self.seen {
            Some((seen, _)) if *seen == current => {}
            _ => self.seen = Some((current, now)),
        }
    }

    /// Writes the values observed if they have stood for [`SAVE_DELAY`]. `Some` with the
    /// message when the write failed (tried again on the next change).
    pub(crate) fn save_if_due(&mut self, now: Instant) -> Option<String> {
        let (current, since) = self.seen.take()?;
        if now.saturating_duration_since(since) < SAVE_DELAY {
            self.seen = Some((current, since));
            return None;
        }
        self.save(current).err()
    }

    /// Writes `current` now (at exit, or after *Reset to defaults*), unless it is what the
    /// file holds already.
    pub(crate) fn save(&mut self, current: Settings) -> Result<(), String> {
        self.seen = None;
        let Some(place) = &self.place else {
            return Ok(());
        };
        if self.written.as_ref() == Some(&current) {
            return Ok(());
        }
        place.write(&current.to_json())?;
        self.written = Some(current);
        Ok(())
    }
}
