//! Where the settings live: reading them at start, writing them debounced.

use super::{DIR_VARIABLE, FILE_NAME, SAVE_DELAY, Settings};
use std::path::{Path, PathBuf};
use web_time::Instant;

/// Where the settings live and what was last written there.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    /// The file (`None`: not kept, `--no-persist`, or no config folder on this platform).
    path: Option<PathBuf>,
    /// What the file holds now (or held when read).
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
    pub(crate) fn location(no_persist: bool) -> Option<PathBuf> {
        if no_persist {
            return None;
        }
        let dir = match std::env::var_os(DIR_VARIABLE) {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => directories::ProjectDirs::from("", "", "flagsim")?
                .config_dir()
                .to_path_buf(),
        };
        Some(dir.join(FILE_NAME))
    }

    /// Reads the settings at `path` (`None`: defaults, nothing read). A missing file is a first
    /// run; an unreadable or broken one gives the defaults and a warning.
    pub(crate) fn open(path: Option<PathBuf>) -> Opened {
        let mut warnings = Vec::new();
        let settings = match path.as_deref().map(std::fs::read_to_string) {
            None => Settings::default(),
            Some(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Some(Err(e)) => {
                warnings.push(format!(
                    "settings: cannot read them ({e}); the defaults are used"
                ));
                Settings::default()
            }
            Some(Ok(text)) => {
                let (settings, w) = Settings::from_json(&text);
                warnings.extend(w);
                settings
            }
        };
        if let (Some(path), false) = (&path, warnings.is_empty()) {
            warnings.push(format!(
                "settings: {} is rewritten with the values in use when they are next saved",
                path.display()
            ));
        }
        Opened {
            store: Store {
                path,
                written: warnings.is_empty().then(|| settings.clone()),
                seen: None,
            },
            settings,
            warnings,
        }
    }

    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
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
        let Some(path) = &self.path else {
            return Ok(());
        };
        if self.written.as_ref() == Some(&current) {
            return Ok(());
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        crate::files::write_atomically(path, current.to_json().as_bytes())
            .map_err(|e| format!("cannot save the settings to {}: {e}", path.display()))?;
        self.written = Some(current);
        Ok(())
    }
}
