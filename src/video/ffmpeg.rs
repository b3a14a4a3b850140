//! MP4 (H.264) by piping raw RGBA frames to `ffmpeg`, which must be on `PATH` (or named by
//! `FLAGSIM_FFMPEG`). ffmpeg writes to the temporary file of a [`Pending`] write, so a failed or
//! stopped encode leaves nothing where the video was to go.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread::JoinHandle;

use image::RgbaImage;

use super::VideoError;

/// The program run: `FLAGSIM_FFMPEG` if set, else `ffmpeg` from `PATH`.
pub(crate) fn program() -> String {
    std::env::var("FLAGSIM_FFMPEG").unwrap_or_else(|_| "ffmpeg".into())
}

/// An ffmpeg process encoding the frames written to it.
pub(crate) struct Ffmpeg {
    child: Child,
    stdin: Option<ChildStdin>,
    /// ffmpeg's messages, read on a thread so that it never blocks on a full pipe.
    stderr: Option<JoinHandle<String>>,
}

impl Ffmpeg {
    /// Starts ffmpeg writing an MP4 of `width × height` frames at `fps` to `out`. Odd sizes
    /// are padded by one pixel (H.264's 4:2:0 colour needs even sides).
    pub(crate) fn start(out: &Path, width: u32, height: u32, fps: f64) -> Result<Self, VideoError> {
        let mut child = Command::new(program())
            .args(["-hide_banner", "-loglevel", "error", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", "rgba"])
            .args(["-video_size", &format!("{width}x{height}")])
            .args(["-framerate", &format!("{fps}")])
            .args(["-i", "pipe:0"])
            .args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"])
            .args(["-c:v", "libx264", "-preset", "medium", "-crf", "20"])
            .args([
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
            ])
            .arg(out)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => VideoError::FfmpegMissing(program()),
                _ => VideoError::Ffmpeg(format!("cannot start {}: {e}", program())),
            })?;
        let stdin = child.stdin.take();
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                // What could be read is what there is to report.
                let _ = pipe.read_to_string(&mut text);
                text
            })
        });
        Ok(Self {
            child,
            stdin,
            stderr,
        })
    }

    /// Sends one frame.
    pub(crate) fn push(&mut self, image: &RgbaImage) -> Result<(), VideoError> {
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(image.as_raw()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        match written {
            Ok(()) => Ok(()),
            // ffmpeg stopped: its own message says why.
            Err(e) => Err(self.failure().unwrap_or(VideoError::Ffmpeg(e.to_string()))),
        }
    }

    /// Closes the input and waits for ffmpeg to finish the file.
    pub(crate) fn finish(mut self) -> Result<(), VideoError> {
        match self.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Ends ffmpeg's input, waits for it and returns its failure, if it failed.
    fn failure(&mut self) -> Option<VideoError> {
        // (A page has no processes: there its pipe is a plain value.)
        #[cfg_attr(
            target_arch = "wasm32",
            allow(clippy::drop_non_drop, reason = "no pipe")
        )]
        drop(self.stdin.take());
        let status = self.child.wait();
        let said = self
            .stderr
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        match status {
            Ok(s) if s.success() => None,
            Ok(s) => Some(VideoError::Ffmpeg(format!(
                "{} exited with {s}: {}",
                program(),
                said.trim()
            ))),
            Err(e) => Some(VideoError::Ffmpeg(e.to_string())),
        }
    }
}

impl Drop for Ffmpeg {
    fn drop(&mut self) {
        // A clip abandoned part-way (an error elsewhere): stop ffmpeg, do not wait for a file.
        if self.stdin.take().is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
