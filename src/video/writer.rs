//! A video file written frame by frame.

use super::{VideoError, VideoFormat};
use crate::files::Pending;
use image::RgbaImage;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

enum Sink {
    Gif(super::gif::GifWriter<BufWriter<File>>),
    Mp4(super::ffmpeg::Ffmpeg),
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
                let writer = super::gif::GifWriter::new(BufWriter::new(file), width, height, fps)
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
                Sink::Mp4(super::ffmpeg::Ffmpeg::start(
                    pending.path(),
                    width,
                    height,
                    fps,
                )?)
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

    fn gif_error(&self, source: super::gif::GifError) -> VideoError {
        match source {
            super::gif::GifError::Encoding(::gif::EncodingError::Io(e)) => VideoError::Write {
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
