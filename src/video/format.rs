//! Which video a file name asks for, and what can go wrong writing one.

use std::path::{Path, PathBuf};

/// The highest GIF frame rate: frame delays are whole hundredths of a second, and browsers
/// show delays under 2 hundredths as 10.
pub(crate) const MAX_GIF_FPS: f64 = 50.0;
/// The highest frame rate of any video, frames per second.
pub(crate) const MAX_FPS: f64 = 120.0;

/// A video container, from the file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoFormat {
    Gif,
    Mp4,
}

impl VideoFormat {
    /// The format `path` asks for by its extension (`.gif` or `.mp4`, any case).
    pub(crate) fn of(path: &Path) -> Result<Self, VideoError> {
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
    pub(crate) fn fps_range(self) -> std::ops::RangeInclusive<f64> {
        match self {
            Self::Gif => 1.0..=MAX_GIF_FPS,
            Self::Mp4 => 1.0..=MAX_FPS,
        }
    }

    /// Checks `fps` for this format.
    pub(crate) fn check_fps(self, fps: f64) -> Result<(), VideoError> {
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
        source: super::gif::GifError,
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
