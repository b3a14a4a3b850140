//! What the viewer does for the panels' actions and the keys.

use std::sync::Arc;

use super::App;
use super::capture::ShotRequest;
use crate::app::controls::Input;
use crate::app::feed::SnapshotFeed;
use crate::app::keys::KeyAction;
use crate::app::screenshot;
use crate::render::drawing::view;
use crate::sim::lab::copies::CopySpec;
use crate::sim_thread::Search;
use crate::sim_thread::{Command, SimThread};
use crate::ui::UiAction;

impl App {
    pub(super) fn apply(&mut self, action: UiAction) {
        match action {
            UiAction::Sim(cmd) => {
                let cmd = self.for_selected_flag(cmd);
                self.sim.send(cmd);
            }
            UiAction::Screenshot => {
                self.capture.shot = Some(ShotRequest {
                    path: screenshot::timestamped_path(&screenshot::captures_folder()),
                    with_panels: self.ui.capture.screenshot_panels,
                    automated: false,
                });
            }
            UiAction::ToggleRecording => self.toggle_recording(),
            UiAction::SetQuality(q) => {
                if let Some(gpu) = self.graphics.gpu.as_mut()
                    && let Err(e) = gpu.scene.set_quality(&gpu.device, &gpu.queue, q)
                {
                    self.ui.notices.error(format!("quality: {e}"));
                }
            }
            UiAction::SetRenderScale(mode) => {
                self.clock.scale.set_mode(mode);
                if let Some(gpu) = self.graphics.gpu.as_mut() {
                    gpu.scene.set_scale(&gpu.device, self.clock.scale.scale());
                }
            }
            UiAction::SetLab(copies) => self.set_lab(&copies),
            UiAction::FlagImage(k, image) => {
                if let Some(gpu) = self.graphics.gpu.as_mut() {
                    let set = gpu
                        .scene
                        .set_flag_image_of(&gpu.device, &gpu.queue, k, Some(*image));
                    if let Err(e) = set {
                        self.ui.notices.error(format!("flag image: {e}"));
                    }
                } else {
                    // Before the window exists: drawn from its first frame.
                    let images = &mut self.options.flag_images;
                    if images.len() <= k {
                        images.resize(k + 1, None);
                    }
                    images[k] = Some(*image);
                }
            }
            UiAction::FlagImages(images) => {
                let images: Vec<_> = images.into_iter().map(Some).collect();
                match self.graphics.gpu.as_mut() {
                    Some(gpu) => {
                        if let Err(e) = gpu.scene.set_flag_images(&gpu.device, &gpu.queue, images) {
                            self.ui.notices.error(format!("flag image: {e}"));
                        }
                    }
                    None => self.options.flag_images = images,
                }
            }
            UiAction::FlagRemoved(k) => match self.graphics.gpu.as_mut() {
                Some(gpu) => {
                    if let Err(e) = gpu.scene.remove_flag_image(&gpu.device, &gpu.queue, k) {
                        self.ui.notices.error(format!("flag image: {e}"));
                    }
                }
                None => {
                    if k < self.options.flag_images.len() {
                        self.options.flag_images.remove(k);
                    }
                }
            },
            UiAction::Background(image) => match self.graphics.gpu.as_mut() {
                Some(gpu) => {
                    let image = image.map(|i| *i);
                    if let Err(e) = gpu.scene.set_background(&gpu.device, &gpu.queue, image) {
                        self.ui.notices.error(format!("background image: {e}"));
                    }
                }
                None => self.options.background = image.map(|i| *i),
            },
            UiAction::FileDialog(pick) => self.open_dialog(pick),
            UiAction::ResetSettings => self.reset_settings(),
            UiAction::FindStableDt {
                scene,
                integrators,
                grids,
            } => {
                let search = Search::start_on_grids(*scene, integrators, grids);
                self.ui.lab.dt_search = Some(Arc::new(search));
            }
            UiAction::ResetCamera => {
                // Now, and again when the command before it has made its new snapshot.
                self.frame_camera();
                self.reframe = Some((self.feed.current().generation, web_time::Instant::now()));
            }
        }
    }

    /// Carries out a key's action ([`KeyAction::Quit`] is the event loop's, in the caller).
    pub(super) fn key(&mut self, key_action: KeyAction) {
        let action = match key_action {
            KeyAction::Quit => None,
            KeyAction::TogglePause => Some(UiAction::Sim(Command::TogglePause)),
            KeyAction::Step => Some(UiAction::Sim(Command::Step)),
            KeyAction::Reset => Some(UiAction::Sim(Command::Reset)),
            KeyAction::Screenshot => Some(UiAction::Screenshot),
            KeyAction::SetIntegrator(kind) => Some(self.ui.set_integrator(kind)),
            KeyAction::Hoist(to) => Some(self.ui.set_hoist(to.height())),
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
                self.input.controls.handle(
                    Input::Key(vk),
                    false,
                    self.feed.current(),
                    &view_settings,
                );
                None
            }
        };
        if let Some(a) = action {
            self.apply(a);
        }
    }

    /// Puts the camera (and Home) where it frames everything in the current snapshot.
    pub(super) fn frame_camera(&mut self) {
        let cam = view::framing_camera(&[self.feed.current()]);
        self.input.controls.home = cam;
        self.input.controls.camera = cam;
    }

    /// `cmd` for the selected flag of several: new parameters carry its hoist (the others keep
    /// theirs), which the panel's copy of its entry keeps for *save*. Other commands, and every
    /// command for a scene of one flag, go as they are.
    fn for_selected_flag(&mut self, cmd: Command) -> Command {
        let k = self.ui.selected_flag;
        match cmd {
            Command::SetParams(p) if !self.feed.current().flags.is_empty() => {
                if let Some(flag) = self.ui.scene.flags.get_mut(k) {
                    flag.hoist = Some(p.hoist);
                }
                Command::Flag(k, Box::new(Command::SetParams(p)))
            }
            cmd => cmd,
        }
    }

    /// Opens the lab with `copies` on the current scene and parameters (none: back to one
    /// cloth): a new simulation thread replaces the running one.
    fn set_lab(&mut self, copies: &[CopySpec]) {
        let mut scene = self.ui.scene.clone();
        scene.params = self.ui.params.clone();
        if !copies.is_empty() {
            // The lab's copies name their own device.
            scene.device = crate::sim::DeviceChoice::Cpu;
        }
        // Never fewer render nodes than a copy's key nodes, as the Cloth panel's key grid.
        for spec in copies {
            if let Ok(copy) = spec.grid_scene(&scene) {
                let render = &mut self.ui.view.render.resolution;
                render[0] = render[0].max(copy.render.resolution[0]);
                render[1] = render[1].max(copy.render.resolution[1]);
            }
        }
        match SimThread::spawn_lab_awaiting_gpu(scene, copies, false) {
            Ok(sim) => {
                // The new thread takes the same GPU (the lab's `:gpu` copies, the device
                // switch); the window has one once it is open.
                if let Some(gpu) = &self.graphics.gpu
                    && gpu.steps_cloth
                {
                    sim.send(Command::ProvideGpu(gpu.sim_provider.clone()));
                }
                self.feed = SnapshotFeed::new(sim.latest());
                self.sim = sim;
            }
            Err(e) => self.ui.notices.error(format!("lab: {e}")),
        }
    }
}
