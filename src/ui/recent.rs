//! The *recent files* list: the last [`RECENT_LEN`] scenes and flag images opened or saved,
//! most recent first, each once. It is kept in the settings file between runs
//! (`app::settings`); a click opens the file again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many files the list keeps.
pub(crate) const RECENT_LEN: usize = 8;

/// What a recent file is opened as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FileKind {
    /// A scene file (`.json`).
    Scene,
    /// A flag image (PNG, JPEG, WebP).
    Image,
}

/// One entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecentFile {
    pub kind: FileKind,
    /// Absolute, so the entry still works when flagsim is started from another folder.
    pub path: PathBuf,
}

/// The list, most recent first, at most [`RECENT_LEN`], no path twice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RecentFiles(Vec<RecentFile>);

impl RecentFiles {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Puts `path` first (moving it up if it is already listed) and drops the oldest past
    /// [`RECENT_LEN`]. A relative path is taken from the current folder.
    pub(crate) fn add(&mut self, kind: FileKind, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.0.retain(|f| f.path != path);
        self.0.insert(0, RecentFile { kind, path });
        self.0.truncate(RECENT_LEN);
    }

    /// The entries, most recent first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &RecentFile> {
        self.0.iter()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A list read from a settings file brought back to the rules: duplicates after the first
    /// and entries past [`RECENT_LEN`] dropped.
    #[must_use]
    pub(crate) fn normalised(self) -> Self {
        let mut out = Self::default();
        for f in self.0.into_iter().rev() {
            out.add(f.kind, &f.path);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(r: &RecentFiles) -> Vec<String> {
        r.iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_list_is_most_recent_first_without_duplicates_and_bounded() {
        let mut r = RecentFiles::default();
        for k in 0..RECENT_LEN + 3 {
            r.add(FileKind::Scene, Path::new(&format!("/tmp/s{k}.json")));
        }
        assert_eq!(r.len(), RECENT_LEN);
        let expected: Vec<String> = (3..RECENT_LEN + 3)
            .rev()
            .map(|k| format!("s{k}.json"))
            .collect();
        assert_eq!(paths(&r), expected);
        // Opening a listed file again moves it to the top, once.
        r.add(FileKind::Scene, Path::new("/tmp/s5.json"));
        assert_eq!(r.len(), RECENT_LEN);
        assert_eq!(paths(&r)[0], "s5.json");
        assert_eq!(paths(&r).iter().filter(|p| *p == "s5.json").count(), 1);
        // An image and a scene are both kept, the image now first.
        r.add(FileKind::Image, Path::new("/tmp/flag.png"));
        assert_eq!(r.iter().next().map(|f| f.kind), Some(FileKind::Image));
    }

    #[test]
    fn a_relative_path_is_the_same_file_as_its_absolute_one() {
        let mut r = RecentFiles::default();
        r.add(FileKind::Image, Path::new("flag.png"));
        let absolute = std::env::current_dir().unwrap().join("flag.png");
        r.add(FileKind::Image, &absolute);
        assert_eq!(r.len(), 1);
        assert_eq!(r.iter().next().unwrap().path, absolute);
    }

    #[test]
    fn a_list_read_back_with_duplicates_and_too_many_is_normalised() {
        let entry = |n: &str| RecentFile {
            kind: FileKind::Scene,
            path: PathBuf::from(format!("/tmp/{n}")),
        };
        let mut raw: Vec<RecentFile> = ["a", "b", "a"].iter().map(|n| entry(n)).collect();
        raw.extend((0..10).map(|k| entry(&format!("x{k}"))));
        let r = RecentFiles(raw).normalised();
        assert_eq!(r.len(), RECENT_LEN);
        assert_eq!(&paths(&r)[..3], ["a", "b", "x0"]);
    }
}
