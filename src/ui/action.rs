//! What the panels ask the application to do, and what the application tells them of the
//! frame and the recording.

use std::path::PathBuf;

use crate::render::{RenderQuality, ScaleMode};
use crate::sim::IntegratorKind;
use crate::sim_thread::Command;
use crate::ui::panels::scene_files;

/// What the panels ask the application to do.
#[derive(Debug, Clone)]
pub enum UiAction {
    /// Send to the simulation thread.
    Sim(Command),
    /// Save a screenshot now.
    Screenshot,
    /// Start recording in [`UiState::record_format`], or stop the recording.
    ToggleRecording,
    /// Put the camera back to its framing.
    ResetCamera,
    /// Rebuild the renderer at another anti-aliasing / filtering quality.
    SetQuality(RenderQuality),
    /// Draw the 3-D view at another render scale (or let it follow the frame's cost).
    SetRenderScale(ScaleMode),
    /// Open the integrator lab with these copies (2 to 4) on the current scene and
    /// parameters, or go back to one cloth (none).
    SetLab(Vec<crate::sim::lab::copies::CopySpec>),
    /// Open a native file dialog (on a thread of its own; the answer comes back as a load,
    /// a save or a flag image, or a notice when no dialog is available).
    FileDialog(scene_files::Pick),
    /// Put the remembered panel values back to their defaults (`app::settings`).
    ResetSettings,
    /// Start the largest-stable-and-accurate-`dt` search for `integrators` on `scene`, each
    /// at its key grid in `grids` (`None`: the scene's), in the background; the lab panel
    /// shows its progress and results (`UiState::dt_search`).
    FindStableDt {
        scene: Box<crate::sim::Scene>,
        integrators: Vec<IntegratorKind>,
        grids: Vec<Option<[usize; 2]>>,
    },
    /// Draw flag `0` (0 is the first) with this image (decoded and checked, at most
    /// [`crate::render::passes::flag_texture::MAX_FLAG_SIDE`] a side) from now on.
    FlagImage(usize, Box<image::RgbaImage>),
    /// Draw every flag with its image from now on (a scene loaded; flag 0 first).
    FlagImages(Vec<image::RgbaImage>),
    /// Flag `0` was removed: the flags after it move up one, with their images.
    FlagRemoved(usize),
    /// Draw this image (decoded and checked) behind everything instead of the sky from now
    /// on; `None`: the sky.
    Background(Option<Box<image::RgbaImage>>),
}

/// Frame timing the application measures, shown in the Stats panel.
#[derive(Debug, Clone, Copy)]
pub struct FrameInfo<'a> {
    /// Frames per second (median over the last frames).
    pub fps: f64,
    /// Median frame time, ms.
    pub frame_ms: f64,
    /// Time to build and submit the last frame on the CPU, ms.
    pub cpu_ms: f64,
    /// Frames drawn since the start (none while paused and untouched).
    pub frames: u64,
    /// The GPU adapter, for the Stats panel.
    pub adapter: &'a str,
    /// The fraction of the window's width and height the 3-D view is drawn at now.
    pub render_scale: f32,
}

impl Default for FrameInfo<'_> {
    fn default() -> Self {
        Self {
            fps: 0.0,
            frame_ms: 0.0,
            cpu_ms: 0.0,
            frames: 0,
            adapter: "",
            render_scale: 1.0,
        }
    }
}

/// What the *Capture* panel records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordFormat {
    /// One PNG per frame in a folder.
    #[default]
    PngSequence,
    /// An animated GIF.
    Gif,
    /// An H.264 MP4 (through ffmpeg).
    Mp4,
}

impl RecordFormat {
    pub(crate) const ALL: [Self; 3] = [Self::PngSequence, Self::Gif, Self::Mp4];

    /// The name in the settings file.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::PngSequence => "png-sequence",
            Self::Gif => "gif",
            Self::Mp4 => "mp4",
        }
    }

    /// The format named `name` (see [`RecordFormat::name`]).
    pub(crate) fn parse(name: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| format!("'{name}' is not png-sequence, gif or mp4"))
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::PngSequence => "PNG sequence",
            Self::Gif => "GIF",
            Self::Mp4 => "MP4",
        }
    }

    /// The frame rates this format records, frames per simulated second.
    pub(crate) fn fps_range(self) -> std::ops::RangeInclusive<f64> {
        match self {
            Self::PngSequence => 1.0..=crate::video::MAX_FPS,
            Self::Gif => crate::video::VideoFormat::Gif.fps_range(),
            Self::Mp4 => crate::video::VideoFormat::Mp4.fps_range(),
        }
    }
}

/// A recording under way at a fixed simulated frame rate.
#[derive(Debug, Clone)]
pub struct RecordingStatus {
    /// The folder of a PNG sequence, or the video file.
    pub path: PathBuf,
    pub format: RecordFormat,
    /// Frames captured so far.
    pub frames: u32,
    /// Frames per simulated second.
    pub fps: f64,
}
