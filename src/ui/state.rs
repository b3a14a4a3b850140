//! Everything the panels remember between frames.

use crate::render::drawing::view::ViewSettings;
use crate::render::{RenderQuality, ScaleMode};
use crate::sim::format::params::spec;
use crate::sim::format::scene::Scene;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::{IntegratorKind, Params};
use crate::sim_thread::Command;
use crate::ui::panels::wind::wind_polar;
use crate::ui::{RecordFormat, RecordingStatus, UiAction, notices, plots, recent};

/// The paths the panels show and remember: the fields typed in, the recent files, where the
/// settings are kept.
#[derive(Debug, Clone)]
pub struct FilePaths {
    /// Path typed in the load/save field.
    pub scene_path: String,
    /// Path typed in the flag image field.
    pub image_path: String,
    /// Path typed in the *Setting* panel's background field.
    pub background_path: String,
    /// The scenes and images last opened or saved (kept in the settings file).
    pub recent: recent::RecentFiles,
    /// Where the settings are kept, in words (`None`: not kept, `--no-persist`), for the
    /// panel.
    pub settings_place: Option<String>,
}

/// What the *Capture* panel sets and the recording under way.
#[derive(Debug, Clone)]
pub struct CaptureSettings {
    /// Include the panels in screenshots.
    pub screenshot_panels: bool,
    /// Recording rate, simulated frames per second.
    pub record_fps: f64,
    /// What a recording writes.
    pub record_format: RecordFormat,
    pub recording: Option<RecordingStatus>,
}

/// The *Lab* panel's choices, its labels' figures and the stable-`dt` search.
#[derive(Debug, Clone)]
pub struct LabPanel {
    /// The integrators ticked in the *Lab* panel, in `IntegratorKind::ALL`'s order.
    pub pick: [bool; IntegratorKind::ALL.len()],
    /// Whether the *Lab* panel adds a copy of `kang-mg` on the GPU.
    pub gpu: bool,
    /// Key grids (nodes along the width) the lab runs each integrator at besides the scene's.
    pub grids: Vec<usize>,
    /// The lab labels' figures and when they were taken (see [`lab::figures`]).
    pub(super) figures: Option<(web_time::Instant, Vec<String>)>,
    /// The last search for the largest stable `dt` (running or done).
    pub dt_search: Option<std::sync::Arc<crate::sim_thread::Search>>,
}

impl LabPanel {
    /// The choices that make the lab `snap` shows (its copies' integrators, whether one steps
    /// on the GPU, their key grids other than `scene`'s), so that the panel shows them after
    /// the lab closes, however it was opened.
    pub(crate) fn remember(&mut self, snap: &Snapshot, scene: &Scene) {
        let copies: Vec<&Snapshot> = std::iter::once(snap).chain(&snap.lab).collect();
        let on_cpu = |kind: IntegratorKind| {
            (copies.iter()).any(|c| c.params.integrator == kind && !c.device.on_gpu)
        };
        self.pick = std::array::from_fn(|k| on_cpu(IntegratorKind::ALL[k]));
        self.gpu = copies.iter().any(|c| c.device.on_gpu);
        let own = scene.cloth.grid.as_ref().map(|g| g.nx);
        let mut grids = Vec::new();
        for nx in copies.iter().filter_map(|c| c.grid.map(|g| g.nx)) {
            if Some(nx) != own && !grids.contains(&nx) {
                grids.push(nx);
            }
        }
        self.grids = grids;
    }
}

/// Everything the panels remember between frames.
#[derive(Debug, Clone)]
pub struct UiState {
    /// The parameters as the user set them (the simulation's copy follows via commands).
    pub params: Params,
    /// The scene last loaded (its cloth is what "save scene" writes).
    pub scene: Scene,
    /// What to draw.
    pub view: ViewSettings,
    /// Anti-aliasing and texture filtering (set by the app from the adapter at start).
    pub quality: RenderQuality,
    /// The render scale the user chose (set by the app from the adapter or the command line).
    pub render_scale: ScaleMode,
    /// Snapshot generation the parameters were taken from (reset and load change it).
    pub(super) generation: u64,
    pub total_mass: f64,
    /// Simulated seconds per wall second.
    pub time_scale: f64,
    pub show_panels: bool,
    pub show_help: bool,
    /// How far up its pole the flag is now (the last snapshot's), for the hoist's label.
    pub hoist_now: f64,
    /// The selected flag of several (0 is the first): the panels edit it, the hoist keys move
    /// it.
    pub selected_flag: usize,
    /// The key grid's slider while it is dragged (nodes along the width); the cloth is rebuilt
    /// when it is let go.
    pub(crate) key_grid_drag: Option<usize>,
    /// Messages for the user (a saved file, an error): notices over the view and the log.
    pub notices: notices::Notices,
    /// The simulation's last rejected command, already reported (a snapshot repeats it until
    /// the next command).
    pub(super) sim_error: Option<crate::sim::SimError>,
    /// The Stats panel's figures and when they were taken (see [`stats::REFRESH`]).
    pub(super) stats_rows: Option<(web_time::Instant, Vec<(&'static str, String)>)>,
    /// The live plots' points and settings.
    pub plots: plots::LivePlots,
    /// Wind direction as the user set it, degrees (kept when the speed is zero).
    /// The paths typed in and the recent files.
    pub files: FilePaths,
    /// Screenshots and recording.
    pub capture: CaptureSettings,
    /// The integrator lab's panel.
    pub lab: LabPanel,
    pub(super) azimuth_deg: f64,
    pub(super) elevation_deg: f64,
}

impl UiState {
    pub fn new(scene: Scene, total_mass: f64) -> Self {
        let (_, azimuth_deg, elevation_deg) = wind_polar(scene.params.wind.velocity);
        let image_path = scene
            .render
            .texture
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let background_path = scene
            .render
            .setting
            .background
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        // The panels start on flag 0, with its hoist (of several flags, its entry's).
        let params = scene.flag_scene(0).params;
        Self {
            params,
            view: ViewSettings {
                render: scene.render.clone(),
                ..ViewSettings::default()
            },
            scene,
            quality: RenderQuality::HIGH,
            render_scale: ScaleMode::Fixed(1.0),
            generation: 0,
            total_mass,
            time_scale: spec::TIME_SCALE.default,
            show_panels: true,
            show_help: false,
            hoist_now: 1.0,
            selected_flag: 0,
            key_grid_drag: None,
            notices: notices::Notices::default(),
            sim_error: None,
            stats_rows: None,
            plots: plots::LivePlots::default(),
            files: FilePaths {
                scene_path: "scene.json".into(),
                image_path,
                background_path,
                recent: recent::RecentFiles::default(),
                settings_place: None,
            },
            capture: CaptureSettings {
                screenshot_panels: true,
                record_fps: 30.0,
                record_format: RecordFormat::default(),
                recording: None,
            },
            lab: LabPanel {
                // kang and xpbd: the paper's step against a position-based one.
                pick: std::array::from_fn(|i| {
                    matches!(
                        IntegratorKind::ALL[i],
                        IntegratorKind::Kang | IntegratorKind::Xpbd
                    )
                }),
                gpu: false,
                grids: Vec::new(),
                figures: None,
                dt_search: None,
            },
            azimuth_deg,
            elevation_deg,
        }
    }

    /// Adopts the simulation's parameters after a reset or a scene load, and shows rejected
    /// commands.
    pub(crate) fn sync(&mut self, snap: &Snapshot) {
        if self.selected_flag >= snap.flag_count() {
            self.selected_flag = snap.flag_count() - 1;
        }
        let selected = snap.flag(self.selected_flag).unwrap_or(snap);
        self.hoist_now = selected.hoist;
        self.plots.keep(1 + snap.lab.len());
        if !snap.lab.is_empty() {
            self.lab.remember(snap, &self.scene);
        }
        self.plots.record(0, snap);
        for (i, copy) in snap.lab.iter().enumerate() {
            self.plots.record(i + 1, copy);
        }
        if snap.generation != self.generation {
            self.generation = snap.generation;
            self.params = selected.params.clone();
            self.total_mass = snap.total_mass;
            let (_, az, el) = wind_polar(self.params.wind.velocity);
            self.azimuth_deg = az;
            self.elevation_deg = el;
        }
        if let Some(e) = &snap.error {
            if self.sim_error.as_ref() != Some(e) {
                self.notices.error(e.to_string());
                self.sim_error = Some(e.clone());
            }
            self.params = selected.params.clone();
        } else {
            self.sim_error = None;
        }
    }

    /// Sends the flag to `height` on its pole (keyboard or panel), keeping the local copy in
    /// step.
    pub(crate) fn set_hoist(&mut self, height: f64) -> UiAction {
        self.params.hoist.height = height;
        UiAction::Sim(Command::SetParams(Box::new(self.params.clone())))
    }

    /// The scene with the panels' parameters and detail settings, as *save* writes it and the
    /// settings keep it. Of several flags, each keeps its own hoist in its entry (the panels
    /// show the selected one's) and the scene its own.
    pub(crate) fn scene_as_shown(&self) -> crate::sim::Scene {
        let mut scene = self.scene.clone();
        let hoist = scene.params.hoist;
        scene.params = self.params.clone();
        if !scene.flags.is_empty() {
            scene.params.hoist = hoist;
        }
        scene.render = self.view.render.clone();
        scene
    }

    /// Selects flag `flag` of several (a click on its cloth, the list): the panels show its
    /// hoist from now on.
    pub(crate) fn select_flag(&mut self, flag: usize, snap: &Snapshot) {
        if let Some(f) = snap.flag(flag) {
            self.selected_flag = flag;
            self.params.hoist = f.params.hoist;
            self.hoist_now = f.hoist;
        }
    }

    /// Switches integrator (keyboard or panel), keeping the local copy in step.
    pub(crate) fn set_integrator(&mut self, kind: IntegratorKind) -> UiAction {
        self.params.integrator = kind;
        UiAction::Sim(Command::SetParams(Box::new(self.params.clone())))
    }
}
