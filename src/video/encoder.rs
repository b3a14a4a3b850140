//! A video writer on a thread of its own, so rendering and encoding overlap.

use super::{VideoError, VideoWriter};
use image::RgbaImage;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

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
    pub(crate) const QUEUE: usize = 4;

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
