//! What the viewer captures: screenshots (F12, the panel, `--screenshot`) and recordings (a
//! PNG sequence, a GIF or an MP4, in lock-step with the simulation; in a page a GIF, downloaded
//! when it stops), all read from the frame just drawn.

use std::path::PathBuf;

use image::imageops::FilterType;

use super::{App, Gpu, ViewerError};
use crate::app::controls::Controls;
use crate::app::egui_glue::Canvas;
use crate::app::frame::FrameView;
use crate::app::screenshot;
use crate::app::surface;
use crate::render::PixelRect;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::{RecordFormat, RecordingStatus, UiState};
use crate::video::{Encoder, LockStep, VideoWriter};

/// A pending screenshot.
pub(super) struct ShotRequest {
    pub(super) path: PathBuf,
    pub(super) with_panels: bool,
    /// From `--screenshot`: print the path and fail loudly on error.
    pub(super) automated: bool,
}

/// A recording taken at a fixed simulated rate (see [`LockStep`]).
pub(super) struct Recorder {
    /// The PNG sequence's folder or the video file.
    pub(super) path: PathBuf,
    pub(super) sink: RecordSink,
    pub(super) lock: LockStep,
    pub(super) fps: f64,
    pub(super) with_panels: bool,
    /// The simulation ran before the recording paused it: it runs again when it stops.
    pub(super) was_running: bool,
}

/// Where a recording's frames go.
pub(super) enum RecordSink {
    Png,
    /// A video encoding on its own thread, and the frame size it was started with (a window
    /// resized while recording has its frames scaled to it).
    Video(Encoder, (u32, u32)),
    /// A page's GIF (no threads, no folders there).
    #[cfg(target_arch = "wasm32")]
    Page(PageClip),
}

/// A page's recording: a GIF encoded in memory as each frame is read back (the browser maps a
/// frame's copy between frames, so the frame's capture is finished in a later turn,
/// [`App::serve_page_clip`]), downloaded when the recording stops.
#[cfg(target_arch = "wasm32")]
pub(super) struct PageClip {
    gif: crate::video::gif::GifWriter<Vec<u8>>,
    /// The frame size it was started with (a canvas resized while recording has its frames
    /// scaled to it).
    size: (u32, u32),
    /// The frame being read back.
    reading: Option<screenshot::Mapping>,
}

impl App {
    pub(super) fn toggle_recording(&mut self) {
        if let Some(r) = self.capture.recorder.take() {
            self.ui.capture.recording = None;
            self.finish_recording(r);
            return;
        }
        let format = self.ui.capture.record_format;
        let fps = self.ui.capture.record_fps;
        #[cfg(target_arch = "wasm32")]
        let started = self.start_page_clip(fps);
        #[cfg(not(target_arch = "wasm32"))]
        let started = match format {
            RecordFormat::PngSequence => {
                let dir = screenshot::timestamped_file(&screenshot::captures_folder(), "");
                std::fs::create_dir_all(&dir)
                    .map(|()| (dir.clone(), RecordSink::Png))
                    .map_err(|e| format!("cannot record to {}: {e}", dir.display()))
            }
            RecordFormat::Gif | RecordFormat::Mp4 => self.start_video(format, fps),
        };
        let (path, sink) = match started {
            Ok(started) => started,
            Err(e) => {
                self.ui.notices.error(e);
                return;
            }
        };
        let current = self.feed.current();
        let lock = LockStep::new(fps, current.params.dt, current.step);
        let was_running = !current.paused;
        self.sim.send(Command::Pause(true));
        self.capture.recorder = Some(Recorder {
            path: path.clone(),
            sink,
            lock,
            fps,
            with_panels: self.ui.capture.screenshot_panels,
            was_running,
        });
        self.ui.capture.recording = Some(RecordingStatus {
            path,
            format,
            frames: 0,
            fps,
        });
    }

    /// A page's GIF of frames of the canvas's size, to be downloaded as `flagsim-TIME.gif`.
    #[cfg(target_arch = "wasm32")]
    fn start_page_clip(&mut self, fps: f64) -> Result<(PathBuf, RecordSink), String> {
        let [w, h] = self
            .graphics
            .gpu
            .as_ref()
            .map_or([1, 1], |gpu| gpu.surface.size_px());
        crate::video::VideoFormat::Gif
            .check_fps(fps)
            .map_err(|e| format!("cannot record: {e}"))?;
        let gif = crate::video::gif::GifWriter::new(Vec::new(), w, h, fps)
            .map_err(|e| format!("cannot record: {e}"))?;
        let name = screenshot::timestamped_name().replace(".png", ".gif");
        let clip = PageClip {
            gif,
            size: (w, h),
            reading: None,
        };
        Ok((PathBuf::from(name), RecordSink::Page(clip)))
    }

    /// Opens a video file in screenshots/ for frames of the window's size.
    #[cfg(not(target_arch = "wasm32"))]
    fn start_video(
        &mut self,
        format: RecordFormat,
        fps: f64,
    ) -> Result<(PathBuf, RecordSink), String> {
        let dir = screenshot::captures_folder();
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot record to {}: {e}", dir.display()))?;
        let ext = if format == RecordFormat::Gif {
            "gif"
        } else {
            "mp4"
        };
        let path = screenshot::timestamped_file(&dir, ext);
        let [w, h] = self
            .graphics
            .gpu
            .as_ref()
            .map_or([1, 1], |gpu| gpu.surface.size_px());
        let writer =
            VideoWriter::create(&path, w, h, fps).map_err(|e| format!("cannot record: {e}"))?;
        Ok((path, RecordSink::Video(Encoder::start(writer), (w, h))))
    }

    /// Ends a recording: a video is finished and put in place, a notice says where it went, and
    /// the simulation runs again if it ran before.
    pub(super) fn finish_recording(&mut self, r: Recorder) {
        if r.was_running {
            self.sim.send(Command::Pause(false));
        }
        let frames = r.lock.frames;
        let result = match r.sink {
            RecordSink::Png => Ok(frames),
            RecordSink::Video(encoder, _) => encoder.finish(),
            #[cfg(target_arch = "wasm32")]
            RecordSink::Page(clip) => return self.download_clip(clip, &r.path, frames, r.fps),
        };
        match result {
            Ok(n) => (self.ui.notices).info(format!(
                "recorded {n} frames ({:.1} s) to {}",
                f64::from(n) / r.fps,
                crate::files::full_path(&r.path).display()
            )),
            Err(e) => (self.ui.notices).error(format!("recording failed: {e}")),
        }
    }

    /// Ends a page's GIF and downloads it (a frame still being read back is left out).
    #[cfg(target_arch = "wasm32")]
    fn download_clip(&mut self, clip: PageClip, name: &std::path::Path, frames: u32, fps: f64) {
        let name = name.display().to_string();
        let done = if frames == 0 {
            Err("no frame was recorded".to_string())
        } else {
            (clip.gif.finish().map_err(|e| e.to_string()))
                .and_then(|bytes| crate::app::page::download(&name, "image/gif", &bytes))
        };
        match done {
            Ok(()) => (self.ui.notices).info(format!(
                "recorded {frames} frames ({:.1} s), downloaded as {name}",
                f64::from(frames) / fps
            )),
            Err(e) => (self.ui.notices).error(format!("recording failed: {e}")),
        }
    }

    /// A page's recording: the frame read back since the last turn is added to the GIF and the
    /// simulation is stepped to the next frame's step.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn serve_page_clip(&mut self) {
        let Some(rec) = self.capture.recorder.as_mut() else {
            return;
        };
        let RecordSink::Page(clip) = &mut rec.sink else {
            return;
        };
        let Some(read) = clip
            .reading
            .as_mut()
            .and_then(screenshot::Mapping::try_finish)
        else {
            return;
        };
        clip.reading = None;
        let size = clip.size;
        let added = read.map_err(|e| e.to_string()).and_then(|img| {
            let img = if img.dimensions() == size {
                img
            } else {
                image::imageops::resize(&img, size.0, size.1, FilterType::Triangle)
            };
            clip.gif.push(&img).map_err(|e| e.to_string())
        });
        if let Err(e) = added {
            return self.stop_recording_on(e);
        }
        for _ in 0..rec.lock.captured(self.feed.current().step) {
            self.sim.send(Command::Step);
        }
        if let Some(status) = self.ui.capture.recording.as_mut() {
            status.frames = rec.lock.frames;
        }
        self.clock.redraw.wanted = true;
    }

    /// Saves the screenshot asked for, if any, from the frame just drawn.
    pub(super) fn take_screenshot(&mut self, frame: &surface::SurfaceFrame, snap: &Snapshot) {
        let Some(req) = self.capture.shot.take() else {
            return;
        };
        #[cfg(not(target_arch = "wasm32"))]
        self.save_screenshot(&req, frame, snap);
        #[cfg(target_arch = "wasm32")]
        self.start_download(&req, frame, snap);
    }

    /// Saves the frame as a PNG file at the request's path.
    #[cfg(not(target_arch = "wasm32"))]
    fn save_screenshot(
        &mut self,
        req: &ShotRequest,
        frame: &surface::SurfaceFrame,
        snap: &Snapshot,
    ) {
        let Some(gpu) = self.graphics.gpu.as_mut() else {
            return;
        };
        let result = capture(
            gpu,
            frame,
            snap,
            &self.ui,
            &self.input.controls,
            self.input.view_area,
            req.with_panels,
        )
        .and_then(|img| screenshot::save_png(&img, &req.path).map_err(Into::into));
        match (result, req.automated) {
            (Ok(()), true) => println!("{}", req.path.display()),
            (Ok(()), false) => {
                self.ui.notices.info(format!(
                    "saved {}",
                    crate::files::full_path(&req.path).display()
                ));
            }
            (Err(e), true) => self.failure = Some(e),
            (Err(e), false) => {
                self.ui
                    .notices
                    .error(format!("screenshot failed: {}", cause(&e)));
            }
        }
    }

    /// A page's screenshot: the browser maps the frame's copy between frames, and the download
    /// follows then ([`Self::serve_page`]).
    #[cfg(target_arch = "wasm32")]
    fn start_download(
        &mut self,
        req: &ShotRequest,
        frame: &surface::SurfaceFrame,
        snap: &Snapshot,
    ) {
        let Some(gpu) = self.graphics.gpu.as_mut() else {
            return;
        };
        let (ui, controls, area) = (&self.ui, &self.input.controls, self.input.view_area);
        match start_capture(gpu, frame, snap, ui, controls, area, req.with_panels) {
            Ok(readback) => self.page.shot = Some(readback.map()),
            Err(e) => (self.ui.notices).error(format!("screenshot failed: {}", cause(&e))),
        }
    }

    /// Lock-step recording: capture when the awaited step has arrived, then ask for the next.
    pub(super) fn record_frame(&mut self, frame: &surface::SurfaceFrame, snap: &Snapshot) {
        let (Some(rec), Some(gpu)) = (self.capture.recorder.as_mut(), self.graphics.gpu.as_mut())
        else {
            return;
        };
        let current = self.feed.current();
        if !rec.lock.due(current.step, current.divergence.is_some()) {
            return;
        }
        #[cfg(target_arch = "wasm32")]
        if let RecordSink::Page(clip) = &mut rec.sink {
            if clip.reading.is_none() {
                let (ui, controls, area) = (&self.ui, &self.input.controls, self.input.view_area);
                match start_capture(gpu, frame, snap, ui, controls, area, rec.with_panels) {
                    Ok(readback) => clip.reading = Some(readback.map()),
                    Err(e) => self.stop_recording_on(cause(&e)),
                }
            }
            return;
        }
        let image = capture(
            gpu,
            frame,
            snap,
            &self.ui,
            &self.input.controls,
            self.input.view_area,
            rec.with_panels,
        );
        let saved = image.and_then(|img| match &mut rec.sink {
            RecordSink::Png => {
                let path = rec.path.join(format!("frame-{:05}.png", rec.lock.frames));
                screenshot::save_png(&img, &path).map_err(Into::into)
            }
            RecordSink::Video(encoder, size) => {
                let img = if img.dimensions() == *size {
                    img
                } else {
                    image::imageops::resize(&img, size.0, size.1, FilterType::Triangle)
                };
                encoder.push(img).map_err(ViewerError::Video)
            }
            #[cfg(target_arch = "wasm32")]
            RecordSink::Page(_) => Ok(()),
        });
        if let Err(e) = saved {
            return self.stop_recording_on(cause(&e));
        }
        for _ in 0..rec.lock.captured(self.feed.current().step) {
            self.sim.send(Command::Step);
        }
        if let Some(status) = self.ui.capture.recording.as_mut() {
            status.frames = rec.lock.frames;
        }
    }
}

impl App {
    /// Stops the recording, which failed with `e`: a notice says why, and the simulation runs
    /// again if it ran before.
    fn stop_recording_on(&mut self, e: String) {
        self.ui.notices.error(format!("recording stopped: {e}"));
        if self.capture.recorder.take().is_some_and(|r| r.was_running) {
            self.sim.send(Command::Pause(false));
        }
        self.ui.capture.recording = None;
    }
}

/// What went wrong in a capture, with its causes, for a notice.
fn cause(e: &ViewerError) -> String {
    match e {
        ViewerError::Screenshot(e) => crate::ui::notices::describe(e),
        e => crate::ui::notices::describe(e),
    }
}

/// The image of the frame just submitted: the surface itself when it can be copied and the panels
/// are wanted, else the scene drawn again into a copyable target (and egui over it if wanted).
/// With the panels, the view is framed as on the screen, in `view_area` (the part of the
/// window they leave free); without, in the whole image.
fn capture(
    gpu: &mut Gpu,
    frame: &surface::SurfaceFrame,
    snap: &Snapshot,
    ui: &UiState,
    controls: &Controls,
    view_area: Option<PixelRect>,
    with_panels: bool,
) -> Result<image::RgbaImage, ViewerError> {
    let device = gpu.device.clone();
    let readback = start_capture(gpu, frame, snap, ui, controls, view_area, with_panels)?;
    Ok(readback.finish(&device)?)
}

/// [`capture`] without the wait: the frame's copy recorded and submitted.
fn start_capture(
    gpu: &mut Gpu,
    frame: &surface::SurfaceFrame,
    snap: &Snapshot,
    ui: &UiState,
    controls: &Controls,
    view_area: Option<PixelRect>,
    with_panels: bool,
) -> Result<screenshot::Readback, ViewerError> {
    // The window's frame is only the capture when it was drawn at full size.
    if with_panels && gpu.surface.supports_copy_src() && gpu.scene.scale() >= 1.0 {
        return Ok(screenshot::start_capture(
            &gpu.device,
            &gpu.queue,
            &frame.texture.texture,
        )?);
    }
    let size = gpu.surface.size_px();
    let target = screenshot::create_capture_target(&gpu.device, gpu.surface.format(), size);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("capture frame"),
        });
    // With the panels, the view as the screen shows it beside them; without, every pixel.
    gpu.scene.draw(
        &gpu.device,
        &gpu.queue,
        &mut encoder,
        &FrameView {
            snap,
            view: &ui.view,
            camera: &controls.camera,
            target: &view,
            visible: view_area.filter(|_| with_panels),
            scaled: false,
        },
    )?;
    let extra = if with_panels {
        let (egui_ctx, painter) = gpu.egui.painter();
        let ppp = painter.pixels_per_point();
        painter.paint(
            egui_ctx,
            &gpu.device,
            &gpu.queue,
            &mut encoder,
            &Canvas {
                view: &view,
                size_px: size,
                pixels_per_point: ppp,
            },
        )
    } else {
        Vec::new()
    };
    gpu.queue
        .submit(extra.into_iter().chain([encoder.finish()]));
    Ok(screenshot::start_capture(&gpu.device, &gpu.queue, &target)?)
}
