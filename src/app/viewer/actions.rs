//! What the viewer does for the panels' actions and the keys.

use std::path::Path;

use winit::keyboard::Key;

use super::{App, RecordSink, Recorder, ShotRequest};
use crate::app::controls::Input;
use crate::app::feed::SnapshotFeed;
use crate::app::keys::{self, KeyAction};
use crate::app::screenshot;
use crate::render::view;
use crate::sim::lab::CopySpec;
use crate::sim::thread::{Command, SimThread};
use crate::ui::{RecordFormat, RecordingStatus, UiAction};
use crate::video::{Encoder, LockStep, VideoWriter};

impl App {
    pub(super) fn apply(&mut self, action: UiAction) {
        match action {
            UiAction::Sim(cmd) => {
                self.sim.send(cmd);
            }
            UiAction::Screenshot => {
                self.shot = Some(ShotRequest {
                    path: screenshot::timestamped_path(Path::new("screenshots")),
                    with_panels: self.ui.screenshot_panels,
                    automated: false,
                });
            }
            UiAction::ToggleRecording => self.toggle_recording(),
            UiAction::SetQuality(q) => {
                if let Some(gpu) = self.gpu.as_mut()
                    && let Err(e) = gpu.scene.set_quality(&gpu.device, &gpu.queue, q)
                {
                    self.ui.notices.error(format!("quality: {e}"));
                }
            }
            UiAction::SetRenderScale(mode) => {
                self.scale.set_mode(mode);
                if let Some(gpu) = self.gpu.as_mut() {
                    gpu.scene.set_scale(&gpu.device, self.scale.scale());
                }
            }
            UiAction::SetLab(copies) => self.set_lab(&copies),
            UiAction::FlagImage(image) => match self.gpu.as_mut() {
                Some(gpu) => {
                    if let Err(e) = gpu.scene.set_flag_image(&gpu.device, &gpu.queue, *image) {
                        self.ui.notices.error(format!("flag image: {e}"));
                    }
                }
                // Before the window exists: drawn from its first frame.
                None => self.options.flag_image = Some(*image),
            },
            UiAction::FileDialog(pick) => self.open_dialog(pick),
            UiAction::ResetSettings => self.reset_settings(),
            UiAction::ResetCamera => {
                let cam = view::framing_camera(&[self.feed.current()]);
                self.controls.home = cam;
                self.controls.camera = cam;
            }
        }
    }

    fn toggle_recording(&mut self) {
        if let Some(r) = self.recorder.take() {
            self.ui.recording = None;
            self.finish_recording(r);
            return;
        }
        let format = self.ui.record_format;
        let fps = self.ui.record_fps;
        let started = match format {
            RecordFormat::PngSequence => {
                let dir = screenshot::timestamped_file(Path::new("screenshots"), "");
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
        self.recorder = Some(Recorder {
            path: path.clone(),
            sink,
            lock,
            fps,
            with_panels: self.ui.screenshot_panels,
            was_running,
        });
        self.ui.recording = Some(RecordingStatus {
            path,
            format,
            frames: 0,
            fps,
        });
    }

    /// Opens a video file in screenshots/ for frames of the window's size.
    fn start_video(
        &mut self,
        format: RecordFormat,
        fps: f64,
    ) -> Result<(std::path::PathBuf, RecordSink), String> {
        let dir = Path::new("screenshots");
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot record to {}: {e}", dir.display()))?;
        let ext = if format == RecordFormat::Gif {
            "gif"
        } else {
            "mp4"
        };
        let path = screenshot::timestamped_file(dir, ext);
        let [w, h] = self
            .gpu
            .as_ref()
            .map_or([1, 1], |gpu| gpu.surface.size_px());
        let size = (w, h);
        let writer = VideoWriter::create(&path, size.0, size.1, fps)
            .map_err(|e| format!("cannot record: {e}"))?;
        Ok((path, RecordSink::Video(Encoder::start(writer), size)))
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
        };
        match result {
            Ok(n) => (self.ui.notices).info(format!(
                "recorded {n} frames ({:.1} s) to {}",
                f64::from(n) / r.fps,
                r.path.display()
            )),
            Err(e) => (self.ui.notices).error(format!("recording failed: {e}")),
        }
    }

    pub(super) fn key(&mut self, key: &Key) {
        let Some(key_action) = keys::action_for(key) else {
            return;
        };
        let action = match key_action {
            KeyAction::TogglePause => Some(UiAction::Sim(Command::TogglePause)),
            KeyAction::Step => Some(UiAction::Sim(Command::Step)),
            KeyAction::Reset => Some(UiAction::Sim(Command::Reset)),
            KeyAction::Screenshot => Some(UiAction::Screenshot),
            KeyAction::SetIntegrator(kind) => Some(self.ui.set_integrator(kind)),
            KeyAction::TogglePanels => {
                self.ui.show_panels = !self.ui.show_panels;
                None
            }
            KeyAction::ToggleWireframe => {
                self.ui.view.key_wireframe = !self.ui.view.key_wireframe;
                None
            }
            KeyAction::ToggleDvOverlay => {
                self.ui.view.dv_overlay = !self.ui.view.dv_overlay;
                None
            }
            KeyAction::ToggleHelp => {
                self.ui.show_help = !self.ui.show_help;
                None
            }
            KeyAction::View(vk) => {
                let view_settings = self.ui.view.clone();
                self.controls
                    .handle(Input::Key(vk), false, self.feed.current(), &view_settings);
                None
            }
        };
        if let Some(a) = action {
            self.apply(a);
        }
    }

    /// Opens the lab with `copies` on the current scene and parameters (none: back to one
    /// cloth): a new simulation thread replaces the running one.
    fn set_lab(&mut self, copies: &[CopySpec]) {
        let mut scene = self.ui.scene.clone();
        scene.params = self.ui.params.clone();
        match SimThread::spawn_lab(scene, copies, false) {
            Ok(sim) => {
                self.feed = SnapshotFeed::new(sim.latest());
                self.sim = sim;
            }
            Err(e) => self.ui.notices.error(format!("lab: {e}")),
        }
    }
}
