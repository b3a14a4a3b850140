//! Video out: GIF natively, MP4 through `ffmpeg`, written from rendered frames at a fixed
//! simulated rate. `flagsim render --video` and the viewer's *Capture* panel both feed a
//! [`VideoWriter`] frame by frame (on an [`Encoder`] thread, so rendering and encoding overlap),
//! and step the simulation in lock-step with the frames ([`LockStep`]).
//! Every video is written through [`crate::files::Pending`]: until the last frame is in, the
//! target path holds whatever it held before.

pub mod ffmpeg;
pub mod gif;
mod lockstep;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use image::RgbaImage;

pub use lockstep::{LockStep, step_of_frame};

use crate::files::Pending;

/// The highest GIF frame rate: frame delays are whole hundredths of a second, and browsers
/// show delays under 2 hundredths as 10.
pub const MAX_GIF_FPS: f64 = 50.0;
/// The highest frame rate of any video, frames per second.
pub const MAX_FPS: f64 = 120.0;

/// A video container, from the file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoFormat {
    Gif,
    Mp4,
}

impl VideoFormat {
    /// The format `path` asks for by its extension (`.gif` or `.mp4`, any case).
    pub fn of(path: &Path) -> Result<Self, VideoError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("gif") => Ok(Self::Gif),
            Some("mp4") => Ok(Self::Mp4),
            _ => Err(VideoError::Extension(path.to_path_buf())),
        }
    }

    /// The frame rates this format plays correctly, frames per second.
    pub fn fps_range(self) -> std::ops::RangeInclusive<f64> {
        match self {
            Self::Gif => 1.0..=MAX_GIF_FPS,
            Self::Mp4 => 1.0..=MAX_FPS,
        }
    }

    /// Checks `fps` for this format.
    pub fn check_fps(self, fps: f64) -> Result<(), VideoError> {
        if fps.is_finite() && self.fps_range().contains(&fps) {
            Ok(())
        } else {
            Err(VideoError::Fps { format: self, fps })
        }
    }
}

impl std::fmt::Display for VideoFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Gif => "GIF",
            Self::Mp4 => "MP4",
        })
    }
}

/// Why a video could not be written.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("{}: a video file must end in .gif or .mp4", .0.display())]
    Extension(PathBuf),
    #[error("{fps} frames per second: a {format} plays {}..={}", .format.fps_range().start(), .format.fps_range().end())]
    Fps { format: VideoFormat, fps: f64 },
    #[error(
        "MP4 needs ffmpeg, and `{0}` was not found on PATH: install ffmpeg (Debian/Ubuntu: \
         `apt install ffmpeg`, Fedora: `dnf install ffmpeg`, macOS: `brew install ffmpeg`), or \
         write a .gif"
    )]
    FfmpegMissing(String),
    #[error("{0}")]
    Ffmpeg(String),
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: GIF encoder: {source}", .path.display())]
    Gif {
        path: PathBuf,
        source: gif::GifError,
    },
    #[error("{}: no frame was recorded, so no video was written", .0.display())]
    Empty(PathBuf),
    #[error("the video encoder stopped unexpectedly")]
    EncoderGone,
    #[error("the video was abandoned")]
    Abandoned,
}

impl VideoError {
    /// Whether the user asked for something that cannot be made (a name, a rate), as opposed to
    /// a failure while writing.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, Self::Extension(_) | Self::Fps { .. })
    }
}

enum Sink {
    Gif(gif::GifWriter<BufWriter<File>>),
    Mp4(ffmpeg::Ffmpeg),
}

/// A video file being written frame by frame (see the module).
pub struct VideoWriter {
    sink: Sink,
    pending: Pending,
    frames: u32,
}

impl VideoWriter {
    /// Starts a video of `width × height` frames at `fps` frames per second at `path`, in the
    /// format its extension names.
    pub fn create(path: &Path, width: u32, height: u32, fps: f64) -> Result<Self, VideoError> {
        let format = VideoFormat::of(path)?;
        format.check_fps(fps)?;
        let pending = Pending::new(path);
        let write_error = |source| VideoError::Write {
            path: path.to_path_buf(),
            source,
        };
        let sink = match format {
            VideoFormat::Gif => {
                let file = pending.create().map_err(write_error)?;
                let writer = gif::GifWriter::new(BufWriter::new(file), width, height, fps)
                    .map_err(|source| VideoError::Gif {
                        path: path.to_path_buf(),
                        source,
                    })?;
                Sink::Gif(writer)
            }
            VideoFormat::Mp4 => {
                // ffmpeg would say "No such file or directory" about its temporary name.
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
                    && !dir.is_dir()
                {
                    return Err(write_error(std::io::ErrorKind::NotFound.into()));
                }
                Sink::Mp4(ffmpeg::Ffmpeg::start(pending.path(), width, height, fps)?)
            }
        };
        Ok(Self {
            sink,
            pending,
            frames: 0,
        })
    }

    /// Appends the next frame.
    pub fn push(&mut self, image: &RgbaImage) -> Result<(), VideoError> {
        match &mut self.sink {
            Sink::Gif(gif) => gif.push(image).map_err(|source| self.gif_error(source))?,
            Sink::Mp4(ffmpeg) => ffmpeg.push(image)?,
        }
        self.frames += 1;
        Ok(())
    }

    fn gif_error(&self, source: gif::GifError) -> VideoError {
        match source {
            gif::GifError::Encoding(::gif::EncodingError::Io(e)) => VideoError::Write {
                path: self.pending.target().to_path_buf(),
                source: e,
            },
            source => VideoError::Gif {
                path: self.pending.target().to_path_buf(),
                source,
            },
        }
    }

    /// Finishes the file and puts it in place; returns the frame count. A video with no frame
    /// is an error and writes nothing.
    pub fn finish(self) -> Result<u32, VideoError> {
        let target = self.pending.target().to_path_buf();
        let write_error = |source| VideoError::Write {
            path: target.clone(),
            source,
        };
        if self.frames == 0 {
            return Err(VideoError::Empty(target));
        }
        match self.sink {
            Sink::Gif(gif) => {
                let out = gif.finish().map_err(|source| VideoError::Gif {
                    path: target.clone(),
                    source,
                })?;
                out.into_inner().map_err(|e| write_error(e.into_error()))?;
            }
            Sink::Mp4(ffmpeg) => ffmpeg.finish()?,
        }
        self.pending.commit().map_err(write_error)?;
        Ok(self.frames)
    }
}

/// What the encoder thread is handed.
enum Message {
    Frame(RgbaImage),
    /// Stop without writing the file (see [`Encoder::abandon`]).
    Abandon,
}

/// A [`VideoWriter`] on its own thread: frames are handed over and encoded while the next is
/// rendered. At most [`Encoder::QUEUE`] frames wait; beyond that [`Encoder::push`] waits.
pub struct Encoder {
    frames: Option<SyncSender<Message>>,
    thread: Option<JoinHandle<Result<u32, VideoError>>>,
}

impl Encoder {
    /// Frames waiting to be encoded at most.
    pub const QUEUE: usize = 4;

    /// Starts encoding into `writer`.
    pub fn start(mut writer: VideoWriter) -> Self {
        let (tx, rx) = sync_channel::<Message>(Self::QUEUE);
        let thread = std::thread::Builder::new()
            .name("video encoder".into())
            .spawn(move || {
                for message in rx {
                    match message {
                        Message::Frame(image) => writer.push(&image)?,
                        // Dropping the writer removes what it wrote and stops ffmpeg.
                        Message::Abandon => return Err(VideoError::Abandoned),
                    }
                }
                writer.finish()
            });
        match thread {
            Ok(thread) => Self {
                frames: Some(tx),
                thread: Some(thread),
            },
            // No thread to be had: every push reports it.
            Err(_) => Self {
                frames: None,
                thread: None,
            },
        }
    }

    /// Hands over the next frame. When the encoder has failed, returns its error (and every
    /// later call [`VideoError::EncoderGone`]).
    pub fn push(&mut self, image: RgbaImage) -> Result<(), VideoError> {
        if let Some(Ok(())) = self
            .frames
            .as_ref()
            .map(|tx| tx.send(Message::Frame(image)))
        {
            return Ok(());
        }
        self.frames = None;
        Err(self.join().err().unwrap_or(VideoError::EncoderGone))
    }

    /// Waits for the last frames to be encoded and the file to be put in place; returns the
    /// frame count.
    pub fn finish(mut self) -> Result<u32, VideoError> {
        self.frames = None;
        self.join()
    }

    /// Stops without writing the video (the run that feeds it failed): the file to be replaced
    /// stays as it was, and nothing is left beside it.
    pub fn abandon(mut self) {
        if let Some(tx) = self.frames.take() {
            // A thread that has already stopped has nothing to abandon.
            let _ = tx.send(Message::Abandon);
        }
        // Its result is `Abandoned`, or the failure that stopped it first.
        let _ = self.join();
    }

    fn join(&mut self) -> Result<u32, VideoError> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            _ => Err(VideoError::EncoderGone),
        }
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        // Dropped without `finish` (the viewer closed while recording): the frames handed over
        // are still a clip, so the writer finishes and puts it in place; wait for that.
        self.frames = None;
        let _ = self.join();
    }
}
