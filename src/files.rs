//! Writing files the way desktop apps do: into a temporary file in the same folder, synced, then
//! renamed over the target. A crash, a full disk or an encoder failure part-way never leaves a
//! half-written file where a good one was: the target is either the old file or the new one.
//! Every file flagsim writes (scenes, screenshots, videos, JSON, CSV, SVG, settings) goes
//! through here.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary files of the same process (two threads saving at once).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The temporary sibling of `path`: hidden, in the same folder (so the rename stays on one file
/// system), named after the target, the process and a counter.
fn temporary_for(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Writes what `write` produces to `path` atomically (see the module). On any error the
/// temporary file is removed and `path` is untouched.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let temporary = temporary_for(path);
    let result = (|| {
        let mut out = BufWriter::new(File::create(&temporary)?);
        write(&mut out)?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        // The error to report is the write's; a temporary that cannot be removed is left.
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// A file being written over time (a video): its bytes go to a temporary sibling of the target,
/// which [`Pending::commit`] renames into place. Dropped without a commit (an error, a stopped
/// recording that failed), the temporary file is removed and the target is untouched.
#[derive(Debug)]
pub struct Pending {
    temporary: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl Pending {
    /// A pending write of `target`; nothing is created until [`Pending::create`] or another
    /// program writes [`Pending::path`].
    pub fn new(target: &Path) -> Self {
        Self {
            temporary: temporary_for(target),
            target: target.to_path_buf(),
            committed: false,
        }
    }

    /// Where the bytes go until the commit.
    pub fn path(&self) -> &Path {
        &self.temporary
    }

    /// The file that the commit will replace.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Creates (truncates) the temporary file for writing.
    pub fn create(&self) -> io::Result<File> {
        File::create(&self.temporary)
    }

    /// Syncs the temporary file and renames it over the target.
    pub fn commit(mut self) -> io::Result<()> {
        File::open(&self.temporary)?.sync_all()?;
        std::fs::rename(&self.temporary, &self.target)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.committed {
            // Nothing may have been created; either way there is nothing to report.
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Writes `bytes` to `path` atomically (see the module).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// Saves `image` to `path` atomically as `format`.
pub fn save_image(
    path: &Path,
    image: &image::RgbaImage,
    format: image::ImageFormat,
) -> Result<(), image::ImageError> {
    write_with(path, |out| {
        image.write_to(out, format).map_err(|e| match e {
            image::ImageError::IoError(e) => e,
            e => io::Error::other(e),
        })
    })
    .map_err(image::ImageError::IoError)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("flagsim-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_else() {
        let dir = folder("replace");
        let path = dir.join("scene.json");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new contents").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        assert_eq!(entries(&dir), ["scene.json"]);
    }

    #[test]
    fn a_write_that_fails_part_way_keeps_the_old_file() {
        let dir = folder("fail");
        let path = dir.join("out.json");
        write_atomically(&path, b"the good one").unwrap();
        let e = write_with(&path, |out| {
            out.write_all(b"half of the new")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"the good one");
        assert_eq!(entries(&dir), ["out.json"]);
    }

    #[test]
    fn a_folder_that_does_not_exist_is_an_error_and_creates_nothing() {
        let dir = folder("missing");
        let path = dir.join("no-such-folder").join("x.png");
        assert!(write_atomically(&path, b"x").is_err());
        assert!(entries(&dir).is_empty());
    }

    #[test]
    fn a_pending_file_appears_only_when_committed() {
        let dir = folder("pending");
        let path = dir.join("clip.gif");
        write_atomically(&path, b"old clip").unwrap();
        let pending = Pending::new(&path);
        assert_eq!(pending.target(), path);
        assert_eq!(pending.path().parent(), Some(dir.as_path()));
        pending.create().unwrap().write_all(b"new clip").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old clip");
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new clip");
        assert_eq!(entries(&dir), ["clip.gif"]);
        // Dropped without a commit: the temporary goes, the target stays.
        let pending = Pending::new(&path);
        pending.create().unwrap().write_all(b"half").unwrap();
        assert_eq!(entries(&dir).len(), 2);
        drop(pending);
        assert_eq!(entries(&dir), ["clip.gif"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"new clip");
    }

    #[test]
    fn images_are_saved_whole_in_the_format_asked_for() {
        let dir = folder("image");
        let path = dir.join("shot");
        let image = image::RgbaImage::from_pixel(3, 2, image::Rgba([10, 20, 30, 255]));
        save_image(&path, &image, image::ImageFormat::Png).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            image::guess_format(&bytes).unwrap(),
            image::ImageFormat::Png
        );
        let back = image::load_from_memory(&bytes).unwrap().to_rgba8();
        assert_eq!(back, image);
        // An encoder failure (a format with no encoder built in) keeps the old file.
        assert!(save_image(&path, &image, image::ImageFormat::Tiff).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert_eq!(entries(&dir), ["shot"]);
    }
}
