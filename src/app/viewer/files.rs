//! What the viewer does for files and settings: the native file dialogs' answers, the
//! settings kept between runs (`app::settings`) and *Reset to defaults*.

use std::time::Duration;
use web_time::Instant;

use super::{App, dialogs};
use crate::app::dialogs::Answer;
use crate::app::settings::{self, CameraSettings, Settings};
use crate::render::ScaleMode;
use crate::sim_thread::Command;
use crate::ui::UiAction;
use crate::ui::panels::scene_files::{self, Pick};

impl App {
    /// The values to remember now.
    pub(super) fn current_settings(&self) -> Settings {
        let window = self.graphics.gpu.as_ref().map_or(self.options.size, |gpu| {
            let size = gpu
                .window
                .inner_size()
                .to_logical::<f64>(gpu.window.scale_factor());
            (size.width.round() as u32, size.height.round() as u32)
        });
        // A minimised window has no size worth keeping.
        let window = if window.0 >= 16 && window.1 >= 16 {
            window
        } else {
            self.options.size
        };
        let mut s = Settings {
            window: [window.0.min(8192), window.1.min(8192)],
            camera: Some(CameraSettings::of(&self.input.controls.camera)),
            render_scale: Some(settings::scale_text(self.clock.scale.mode())),
            ..Settings::default()
        };
        s.take_panels(&self.ui);
        s
    }

    /// Compares the settings in use with the file's a few times a second and writes them once
    /// a change has stood for [`settings::SAVE_DELAY`].
    pub(super) fn keep_settings(&mut self, now: Instant) {
        if now.saturating_duration_since(self.kept.settings_seen) < Duration::from_millis(250) {
            return;
        }
        self.kept.settings_seen = now;
        let current = self.current_settings();
        self.kept.store.observe(current, now);
        if let Some(e) = self.kept.store.save_if_due(now) {
            self.ui.notices.error(e);
            self.clock.redraw.wanted = true;
        }
    }

    /// Opens the native file dialog for `pick` (its answer arrives in
    /// [`Self::dialog_answered`]); where there is none, a notice says to type the path.
    pub(super) fn open_dialog(&mut self, pick: Pick) {
        #[cfg(target_arch = "wasm32")]
        self.page_dialog(pick);
        #[cfg(not(target_arch = "wasm32"))]
        self.native_dialog(pick);
    }

    /// The desktop's dialog for `pick`, over the window.
    #[cfg(not(target_arch = "wasm32"))]
    fn native_dialog(&mut self, pick: Pick) {
        let Some(gpu) = &self.graphics.gpu else {
            return;
        };
        let current = match pick {
            Pick::OpenScene | Pick::SaveScene => self.ui.files.scene_path.clone(),
            Pick::OpenImage => self.ui.files.image_path.clone(),
            Pick::OpenBackground => self.ui.files.background_path.clone(),
        };
        if let Err(e) = self.dialogs.start(pick, &gpu.window, &current) {
            self.ui.notices.error(e);
        }
    }

    /// Carries out what a file dialog answered: the file is loaded, saved or put on the flag
    /// as if its path had been typed.
    pub(super) fn dialog_answered(&mut self, pick: Pick, answer: Answer) {
        self.clock.redraw.wanted = true;
        let path = match answer {
            Answer::Picked(path) => path,
            Answer::Cancelled => return,
            Answer::Unavailable => {
                self.ui.notices.error(dialogs::NO_DIALOG);
                return;
            }
        };
        let mut actions = Vec::new();
        match pick {
            Pick::OpenScene => scene_files::open_scene_file(&mut self.ui, &mut actions, &path),
            Pick::SaveScene => scene_files::save_scene(&mut self.ui, &path),
            Pick::OpenImage => scene_files::set_flag_image(&mut self.ui, &mut actions, Some(&path)),
            Pick::OpenBackground => {
                scene_files::set_background(&mut self.ui, &mut actions, Some(&path));
            }
        }
        for a in actions {
            self.apply(a);
        }
    }

    /// *Reset to defaults*: the window, camera, display, overlays, quality, render scale, time
    /// scale, record rate, live plots, lab choice and path fields as on a first run, written
    /// at once. The scene shown and its parameters stay, and so do the recent files.
    pub(super) fn reset_settings(&mut self) {
        let recent = self.ui.files.recent.clone();
        let defaults = Settings::default();
        defaults.give_panels(&mut self.ui);
        self.ui.files.recent = recent;
        self.sim.send(Command::SetTimeScale(self.ui.time_scale));
        let quality = self.graphics.default_quality;
        self.ui.quality = quality;
        self.apply(UiAction::SetQuality(quality));
        let software = self.graphics.gpu.as_ref().is_some_and(|g| g.software);
        let mode = if software {
            ScaleMode::Auto
        } else {
            ScaleMode::Fixed(1.0)
        };
        self.ui.render_scale = mode;
        self.apply(UiAction::SetRenderScale(mode));
        self.apply(UiAction::ResetCamera);
        // A page's canvas fills the page: its size is the page's, not a setting.
        if let Some(gpu) = self
            .graphics
            .gpu
            .as_ref()
            .filter(|_| !cfg!(target_arch = "wasm32"))
        {
            let [w, h] = settings::DEFAULT_WINDOW;
            let _ = gpu
                .window
                .request_inner_size(winit::dpi::LogicalSize::new(f64::from(w), f64::from(h)));
        }
        match self.kept.store.save(self.current_settings()) {
            Ok(()) => self.ui.notices.info("settings reset to their defaults"),
            Err(e) => self.ui.notices.error(e),
        }
    }
}
