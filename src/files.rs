//! Writing files the way desktop apps do: into a temporary file in the same folder, synced, then
//! renamed over the target. A crash, a full disk or an encoder failure part-way never leaves a
//! half-written file where a good one was: the target is either the old file or the new one.
//! A symbolic link is followed (its target is replaced, the link kept), and a target that is
//! not a regular file (`/dev/null`, `/dev/full`, a FIFO) is written into, with its errors.
//! Every file flagsim writes (scenes, screenshots, videos, JSON, CSV, SVG, settings) goes
//! through here.
//!
//! Nothing is left behind: the temporaries being written are listed, and SIGINT, SIGTERM or
//! SIGHUP remove them before the process ends ([`crate::signals`]); a temporary that a killed
//! process (SIGKILL, a power cut) did leave is removed by the next write of the same file.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary files of the same process (two threads saving at once).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The temporaries this process is writing now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary listed in [`LIVE`] from its making until it is dropped (renamed or removed by
/// then).
#[derive(Debug)]
struct Live(PathBuf);

impl Live {
    fn new(path: &Path) -> Self {
        live().push(path.to_path_buf());
        Self(path.to_path_buf())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let mut live = live();
        if let Some(i) = live.iter().position(|p| *p == self.0) {
            live.swap_remove(i);
        }
    }
}

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes every temporary this process is writing (the process is about to end on a
/// signal). Returns how many it removed.
pub(crate) fn remove_live_temporaries() -> usize {
    live()
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// Removes the temporaries of `target` (`.NAME.PID-N.tmp` in `folder`) whose process is no
/// longer running: a process killed while writing `target` could not remove its own. Linux
/// only (a process runs while `/proc/PID` exists); elsewhere nothing is removed. Returns how
/// many it removed.
pub(crate) fn remove_stale_temporaries(folder: &Path, target_name: &str) -> usize {
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let prefix = format!(".{target_name}.");
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('-'))
            .filter(|(pid, n)| is_number(pid) && is_number(n))
            .map(|(pid, _)| pid)
        else {
            continue;
        };
        let running = Path::new("/proc").join(pid).exists();
        if !running && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// [`remove_stale_temporaries`] for the temporary `temporary` of `target`.
fn clear_stale(temporary: &Path, target: &Path) {
    let folder = temporary.parent().filter(|f| !f.as_os_str().is_empty());
    if let Some(name) = target.file_name().and_then(|n| n.to_str()) {
        remove_stale_temporaries(folder.unwrap_or(Path::new(".")), name);
    }
}

/// The temporary sibling of `path`: hidden, in the same folder (so the rename stays on one file
/// system), named after the target, the process and a counter.
fn temporary_for(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Where a write to `path` really goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Destination {
    /// A regular file (or none yet): written beside it and renamed over it.
    Replace(PathBuf),
    /// Something that is not a regular file (a device such as `/dev/null`, a FIFO, a socket):
    /// written into, as `cat > path` would. Renaming over it would put a plain file where the
    /// device was (as root, even over `/dev/null`).
    Into(PathBuf),
}

/// What a write to `path` writes: through symbolic links, a regular file (or nothing yet) is
/// replaced, anything else written into (the kernel follows the links when it is opened, so a
/// link to `/proc/self/fd/1` writes to standard output).
fn destination(path: &Path) -> Destination {
    match std::fs::metadata(path) {
        // The file the links lead to (the link stays a link: its target is replaced).
        Ok(meta) if meta.is_file() => {
            Destination::Replace(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
        }
        // A folder: the rename fails with the system's own words.
        Ok(meta) if meta.is_dir() => Destination::Replace(path.to_path_buf()),
        Ok(_) => Destination::Into(path.to_path_buf()),
        Err(_) => Destination::Replace(dangling_target(path)),
    }
}

/// Where a link that names no existing file points (up to 40 links deep, as the kernel
/// allows): the file to make. `path` itself when it is not a link.
fn dangling_target(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        let Some(target) = is_link.then(|| std::fs::read_link(&path).ok()).flatten() else {
            break;
        };
        // A relative link is relative to the folder the link is in.
        path = match path.parent() {
            Some(folder) if target.is_relative() => folder.join(target),
            _ => target,
        };
    }
    path
}

/// Writes what `write` produces to `path` atomically (see the module). On any error the
/// temporary file is removed and `path` is untouched. A symbolic link is written through, and
/// a device or a FIFO written into (see [`Destination`]).
pub(crate) fn write_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let path = match destination(path) {
        Destination::Replace(path) => path,
        Destination::Into(path) => {
            let mut out = BufWriter::new(std::fs::OpenOptions::new().write(true).open(&path)?);
            write(&mut out)?;
            return out.flush();
        }
    };
    let path = path.as_path();
    let temporary = temporary_for(path);
    clear_stale(&temporary, path);
    let _live = Live::new(&temporary);
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
pub(crate) struct Pending {
    temporary: PathBuf,
    target: PathBuf,
    committed: bool,
    _live: Live,
}

impl Pending {
    /// A pending write of `target`; nothing is created until [`Pending::create`] or another
    /// program writes [`Pending::path`].
    pub(crate) fn new(target: &Path) -> Self {
        let (temporary, target) = match destination(target) {
            Destination::Replace(path) => (temporary_for(&path), path),
            // Not beside a device (`/dev/null`'s folder is the system's) but in the temporary
            // folder: the bytes are copied in at the commit, no rename needed.
            Destination::Into(path) => {
                let beside = temporary_for(&path);
                let name = beside
                    .file_name()
                    .map(ToOwned::to_owned)
                    .unwrap_or_default();
                (std::env::temp_dir().join(name), path)
            }
        };
        clear_stale(&temporary, &target);
        Self {
            _live: Live::new(&temporary),
            temporary,
            target,
            committed: false,
        }
    }

    /// Where the bytes go until the commit.
    pub(crate) fn path(&self) -> &Path {
        &self.temporary
    }

    /// The file that the commit will replace.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    /// Creates (truncates) the temporary file for writing.
    pub(crate) fn create(&self) -> io::Result<File> {
        File::create(&self.temporary)
    }

    /// Syncs the temporary file and renames it over the target; a target that is not a
    /// regular file (a device, a FIFO) gets the bytes copied into it instead.
    pub(crate) fn commit(mut self) -> io::Result<()> {
        File::open(&self.temporary)?.sync_all()?;
        if let Destination::Into(target) = destination(&self.target) {
            let mut into = std::fs::OpenOptions::new().write(true).open(target)?;
            io::copy(&mut File::open(&self.temporary)?, &mut into)?;
            into.flush()?;
            // Dropped uncommitted: the temporary is removed.
            return Ok(());
        }
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

/// Whether a write to `path` can begin: for a file to replace, a temporary one is made in its
/// folder and removed again (so a missing or read-only folder is found before any work, not
/// after it). A device or a FIFO is not opened here (a FIFO's open waits for a reader).
pub(crate) fn check_writable(path: &Path) -> io::Result<()> {
    match destination(path) {
        Destination::Replace(path) => {
            let temporary = temporary_for(&path);
            let _live = Live::new(&temporary);
            File::create(&temporary)?;
            std::fs::remove_file(&temporary)
        }
        Destination::Into(_) => Ok(()),
    }
}

/// `path` as the notices name a written file: absolute (a relative path is relative to the
/// folder flagsim started from, which the user may never have chosen), else as given.
pub(crate) fn full_path(path: &Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes `bytes` to `path` atomically (see the module).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// Saves `image` to `path` atomically as `format`.
pub(crate) fn save_image(
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
    fn a_write_removes_the_temporaries_dead_processes_left_of_that_file_only() {
        let dir = folder("stale");
        // No process has a number above the kernel's largest (2²² at most); 1 always runs.
        let dead = ".clip.gif.999999999-0.tmp";
        let dead_too = ".clip.gif.999999998-17.tmp";
        let running = ".clip.gif.1-0.tmp";
        let other_file = ".notes.txt.999999999-0.tmp";
        let not_ours = [
            ".clip.gif.x-0.tmp",
            ".clip.gif.999999999-.tmp",
            ".clip.gif.tmp",
            "clip.gif.999999999-0.tmp",
        ];
        for name in [dead, dead_too, running, other_file]
            .iter()
            .chain(&not_ours)
        {
            std::fs::write(dir.join(name), b"left behind").unwrap();
        }
        write_atomically(&dir.join("clip.gif"), b"GIF89a").unwrap();
        let mut expected: Vec<&str> = vec!["clip.gif", running, other_file];
        expected.extend(not_ours);
        expected.sort_unstable();
        assert_eq!(entries(&dir), expected);
        // A video's pending write clears them too, and says how many.
        std::fs::write(dir.join(dead), b"again").unwrap();
        let pending = Pending::new(&dir.join("clip.gif"));
        assert!(!dir.join(dead).exists());
        drop(pending);
        std::fs::write(dir.join(dead), b"again").unwrap();
        assert_eq!(remove_stale_temporaries(&dir, "clip.gif"), 1);
        assert_eq!(remove_stale_temporaries(&dir, "clip.gif"), 0);
    }

    #[test]
    fn the_temporaries_being_written_are_listed_until_renamed_or_dropped() {
        let dir = folder("live");
        let listed = |p: &Path| live().iter().any(|l| l == p);
        let pending = Pending::new(&dir.join("clip.gif"));
        let temporary = pending.path().to_path_buf();
        assert!(listed(&temporary));
        pending.create().unwrap();
        pending.commit().unwrap();
        assert!(!listed(&temporary), "a committed write is no longer listed");
        let pending = Pending::new(&dir.join("other.gif"));
        let temporary = pending.path().to_path_buf();
        pending.create().unwrap();
        assert!(temporary.exists() && listed(&temporary));
        // (What a signal removes, `remove_live_temporaries`, is tested in tests/cli.rs: here
        // it would remove the temporaries of the tests running beside this one.)
        drop(pending);
        assert!(!temporary.exists() && !listed(&temporary));
        // A whole write is listed while it writes.
        write_with(&dir.join("scene.json"), |out| {
            let writing: Vec<PathBuf> = live()
                .iter()
                .filter(|p| p.starts_with(&dir))
                .cloned()
                .collect();
            assert_eq!(writing.len(), 1, "{writing:?}");
            out.write_all(b"{}")
        })
        .unwrap();
        assert!(!live().iter().any(|p| p.starts_with(&dir)));
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
    fn a_write_is_checked_before_it_begins_and_the_check_leaves_nothing() {
        let dir = folder("check");
        check_writable(&dir.join("new.png")).unwrap();
        assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
        let e = check_writable(&dir.join("no-such-folder").join("x.png")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        // An existing file is only checked, not touched.
        write_atomically(&dir.join("kept.png"), b"old").unwrap();
        check_writable(&dir.join("kept.png")).unwrap();
        assert_eq!(std::fs::read(dir.join("kept.png")).unwrap(), b"old");
        assert_eq!(entries(&dir), ["kept.png"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_write_through_a_link_replaces_its_target_and_keeps_the_link() {
        use std::os::unix::fs::symlink;
        let dir = folder("link");
        let real = dir.join("real.json");
        write_atomically(&real, b"old").unwrap();
        // An absolute link, a relative one, and a link to that link.
        symlink(&real, dir.join("absolute")).unwrap();
        symlink("real.json", dir.join("relative")).unwrap();
        symlink("relative", dir.join("chain")).unwrap();
        for (link, bytes) in [
            ("absolute", &b"one"[..]),
            ("relative", b"two"),
            ("chain", b"three"),
        ] {
            write_atomically(&dir.join(link), bytes).unwrap();
            assert_eq!(std::fs::read(&real).unwrap(), bytes, "{link}");
            let meta = std::fs::symlink_metadata(dir.join(link)).unwrap();
            assert!(meta.file_type().is_symlink(), "{link} is no longer a link");
        }
        assert_eq!(
            entries(&dir),
            ["absolute", "chain", "real.json", "relative"]
        );
        // A link to a file not made yet: the file is made where the link points.
        symlink("later.json", dir.join("dangling")).unwrap();
        write_atomically(&dir.join("dangling"), b"made").unwrap();
        assert_eq!(std::fs::read(dir.join("later.json")).unwrap(), b"made");
        assert!(
            std::fs::symlink_metadata(dir.join("dangling"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // A video's pending write goes through the link too.
        let pending = Pending::new(&dir.join("relative"));
        assert_eq!(pending.target(), dir.join("real.json"));
        pending.create().unwrap().write_all(b"clip").unwrap();
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&real).unwrap(), b"clip");
        assert!(
            std::fs::symlink_metadata(dir.join("relative"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    /// A FIFO at `path` (made with `mkfifo`), and a thread that reads it to the end.
    #[cfg(unix)]
    fn fifo_with_reader(path: &Path) -> std::thread::JoinHandle<Vec<u8>> {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(made.success());
        let path = path.to_path_buf();
        std::thread::spawn(move || std::fs::read(path).unwrap())
    }

    #[cfg(unix)]
    #[test]
    fn a_write_to_a_fifo_goes_into_it_and_leaves_it_a_fifo() {
        use std::os::unix::fs::FileTypeExt;
        let dir = folder("fifo");
        let fifo = dir.join("pipe");
        let reader = fifo_with_reader(&fifo);
        write_atomically(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        let is_fifo = |p: &Path| std::fs::symlink_metadata(p).unwrap().file_type().is_fifo();
        assert!(is_fifo(&fifo));
        // A pending write (a video) is copied into it at the commit, its temporary removed.
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || std::fs::read(fifo).unwrap()
        });
        let pending = Pending::new(&fifo);
        assert_eq!(
            pending.path().parent(),
            Some(std::env::temp_dir().as_path())
        );
        let pending_path = pending.path().to_path_buf();
        pending.create().unwrap().write_all(b"a clip").unwrap();
        pending.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"a clip");
        assert!(is_fifo(&fifo));
        assert_eq!(entries(&dir), ["pipe"]);
        assert!(!pending_path.exists(), "the temporary is removed");
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
