//! The egui side panels. They read the latest snapshot, edit a local copy of the parameters and
//! return [`UiAction`]s; they never touch the simulation. One file per panel; every parameter
//! is drawn through [`widgets`], which takes its label, unit, range and tooltip from
//! `sim::params::spec`, so no widget can send a value the simulation would refuse.

mod banner;
mod capture;
mod cloth;
mod detail;
pub mod flags;
pub mod lab;
pub mod notices;
mod overlays;
pub mod plots;
pub mod recent;
pub mod scene_files;
mod setting;
mod simulation;
mod stats;
pub mod widgets;
mod wind;

pub use banner::divergence_banner;
/// How often the Stats figures and the live plots refresh while the cloth runs.
pub use stats::REFRESH;
use wind::wind_polar;

use std::path::PathBuf;

use egui::{RichText, Ui};

use crate::render::view::ViewSettings;
use crate::render::{RenderQuality, ScaleMode};
use crate::sim::params::spec;
use crate::sim::scene::Scene;
use crate::sim::snapshot::Snapshot;
use crate::sim::thread::Command;
use crate::sim::{IntegratorKind, Params};

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
    SetLab(Vec<crate::sim::lab::CopySpec>),
    /// Open a native file dialog (on a thread of its own; the answer comes back as a load,
    /// a save or a flag image, or a notice when no dialog is available).
    FileDialog(scene_files::Pick),
    /// Put the remembered panel values back to their defaults (`app::settings`).
    ResetSettings,
    /// Start the largest-stable-and-accurate-`dt` search for `integrators` on `scene`, in the
    /// background; the lab panel shows its progress and results (`UiState::dt_search`).
    FindStableDt {
        scene: Box<crate::sim::Scene>,
        integrators: Vec<IntegratorKind>,
    },
    /// Draw flag `0` (0 is the first) with this image (decoded and checked, at most
    /// [`crate::render::flag_texture::MAX_FLAG_SIDE`] a side) from now on.
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
    pub const ALL: [Self; 3] = [Self::PngSequence, Self::Gif, Self::Mp4];

    /// The name in the settings file.
    pub fn name(self) -> &'static str {
        match self {
            Self::PngSequence => "png-sequence",
            Self::Gif => "gif",
            Self::Mp4 => "mp4",
        }
    }

    /// The format named `name` (see [`RecordFormat::name`]).
    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| format!("'{name}' is not png-sequence, gif or mp4"))
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::PngSequence => "PNG sequence",
            Self::Gif => "GIF",
            Self::Mp4 => "MP4",
        }
    }

    /// The frame rates this format records, frames per simulated second.
    pub fn fps_range(self) -> std::ops::RangeInclusive<f64> {
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
    generation: u64,
    pub total_mass: f64,
    /// Simulated seconds per wall second.
    pub time_scale: f64,
    pub show_panels: bool,
    pub show_help: bool,
    /// Include the panels in screenshots.
    pub screenshot_panels: bool,
    /// Recording rate, simulated frames per second.
    pub record_fps: f64,
    /// What a recording writes.
    pub record_format: RecordFormat,
    pub recording: Option<RecordingStatus>,
    /// Path typed in the load/save field.
    pub scene_path: String,
    /// Path typed in the flag image field.
    pub image_path: String,
    /// How far up its pole the flag is now (the last snapshot's), for the hoist's label.
    pub hoist_now: f64,
    /// The selected flag of several (0 is the first): the panels edit it, the hoist keys move
    /// it.
    pub selected_flag: usize,
    /// Path typed in the *Setting* panel's background field.
    pub background_path: String,
    /// The scenes and images last opened or saved (kept in the settings file).
    pub recent: recent::RecentFiles,
    /// Where the settings are kept (`None`: not kept, `--no-persist`), for the panel.
    pub settings_file: Option<PathBuf>,
    /// Messages for the user (a saved file, an error): notices over the view and the log.
    pub notices: notices::Notices,
    /// The simulation's last rejected command, already reported (a snapshot repeats it until
    /// the next command).
    sim_error: Option<crate::sim::SimError>,
    /// The Stats panel's figures and when they were taken (see [`stats::REFRESH`]).
    stats_rows: Option<(std::time::Instant, Vec<(&'static str, String)>)>,
    /// The live plots' points and settings.
    pub plots: plots::LivePlots,
    /// The integrators ticked in the *Lab* panel, in `IntegratorKind::ALL`'s order.
    pub lab_pick: [bool; IntegratorKind::ALL.len()],
    /// Whether the *Lab* panel adds a copy of `kang-mg` on the GPU.
    pub lab_gpu: bool,
    /// The lab labels' figures and when they were taken (see [`lab::figures`]).
    lab_figures: Option<(std::time::Instant, Vec<String>)>,
    /// The last search for the largest stable `dt` (running or done).
    pub dt_search: Option<std::sync::Arc<crate::sim::stability::Search>>,
    /// Wind direction as the user set it, degrees (kept when the speed is zero).
    azimuth_deg: f64,
    elevation_deg: f64,
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
            screenshot_panels: true,
            record_fps: 30.0,
            record_format: RecordFormat::default(),
            recording: None,
            scene_path: "scene.json".into(),
            image_path,
            hoist_now: 1.0,
            selected_flag: 0,
            background_path,
            recent: recent::RecentFiles::default(),
            settings_file: None,
            notices: notices::Notices::default(),
            sim_error: None,
            stats_rows: None,
            plots: plots::LivePlots::default(),
            // kang and xpbd: the paper's step against a position-based one.
            lab_gpu: false,
            lab_pick: std::array::from_fn(|i| {
                matches!(
                    IntegratorKind::ALL[i],
                    IntegratorKind::Kang | IntegratorKind::Xpbd
                )
            }),
            dt_search: None,
            lab_figures: None,
            azimuth_deg,
            elevation_deg,
        }
    }

    /// Adopts the simulation's parameters after a reset or a scene load, and shows rejected
    /// commands.
    pub fn sync(&mut self, snap: &Snapshot) {
        if self.selected_flag >= snap.flag_count() {
            self.selected_flag = snap.flag_count() - 1;
        }
        let selected = snap.flag(self.selected_flag).unwrap_or(snap);
        self.hoist_now = selected.hoist;
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
    pub fn set_hoist(&mut self, height: f64) -> UiAction {
        self.params.hoist.height = height;
        UiAction::Sim(Command::SetParams(Box::new(self.params.clone())))
    }

    /// The scene with the panels' parameters and detail settings, as *save* writes it and the
    /// settings keep it. Of several flags, each keeps its own hoist in its entry (the panels
    /// show the selected one's) and the scene its own.
    pub fn scene_as_shown(&self) -> crate::sim::Scene {
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
    pub fn select_flag(&mut self, flag: usize, snap: &Snapshot) {
        if let Some(f) = snap.flag(flag) {
            self.selected_flag = flag;
            self.params.hoist = f.params.hoist;
            self.hoist_now = f.hoist;
        }
    }

    /// Switches integrator (keyboard or panel), keeping the local copy in step.
    pub fn set_integrator(&mut self, kind: IntegratorKind) -> UiAction {
        self.params.integrator = kind;
        UiAction::Sim(Command::SetParams(Box::new(self.params.clone())))
    }
}

/// The left panel's contents. Returns the actions the user asked for this frame.
pub fn controls(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    frame: &FrameInfo<'_>,
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    // A solid scroll bar, always drawn while the panel is taller than the window (egui's
    // default floating one is invisible until hovered, so nothing shows there is more below).
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.heading("flagsim");
        ui.label(
            RichText::new("Kang et al.: approximate implicit cloth, wrinkled splines").small(),
        );
        ui.separator();
        egui::CollapsingHeader::new("Simulation")
            .default_open(true)
            .show(ui, |ui| {
                simulation::integrator_ui(ui, state, snap, &mut actions);
                simulation::device_ui(ui, state, snap, &mut actions);
                cloth::cloth_ui(ui, state, &mut actions);
                simulation::run_ui(ui, state, snap, &mut actions);
                ui.separator();
                scene_files::scene_files_ui(ui, state, &mut actions);
            });
        egui::CollapsingHeader::new(format!("Flags ({})", snap.flag_count()))
            .id_salt("flags")
            .default_open(!snap.flags.is_empty())
            .show(ui, |ui| flags::flags_ui(ui, state, snap, &mut actions));
        egui::CollapsingHeader::new("Lab")
            .default_open(!snap.lab.is_empty())
            .show(ui, |ui| lab::lab_ui(ui, state, snap, &mut actions));
        egui::CollapsingHeader::new("Wind")
            .default_open(true)
            .show(ui, |ui| wind::wind_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new("Detail")
            .default_open(false)
            .show(ui, |ui| detail::detail_ui(ui, state, frame, &mut actions));
        egui::CollapsingHeader::new("Setting")
            .default_open(false)
            .show(ui, |ui| setting::setting_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new("Overlays")
            .default_open(true)
            .show(ui, |ui| {
                overlays::overlays_ui(ui, state, snap, &mut actions);
            });
        egui::CollapsingHeader::new("Stats")
            .default_open(true)
            .show(ui, |ui| {
                ui.checkbox(&mut state.plots.shown, "live plots")
                    .on_hover_text(
                        "Kinetic energy, max strain and step time over time, under the view (and each \
                         cloth's distance from the lab's reference copy while it runs)",
                    );
                stats::stats_ui(ui, state, snap, frame);
            });
        egui::CollapsingHeader::new("Capture")
            .default_open(false)
            .show(ui, |ui| capture::capture_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new(format!("Messages ({})", state.notices.log().len()))
            .id_salt("messages")
            .default_open(false)
            .show(ui, |ui| notices::log_ui(ui, &state.notices));
        egui::CollapsingHeader::new("Settings")
            .default_open(false)
            .show(ui, |ui| settings_ui(ui, state, &mut actions));
        ui.separator();
        ui.label(RichText::new("h: keys and mouse help").small());
    });
    actions
}

/// Where the settings are kept, and *Reset to defaults*.
fn settings_ui(ui: &mut Ui, state: &UiState, actions: &mut Vec<UiAction>) {
    match &state.settings_file {
        Some(path) => {
            ui.label(
                "Window, camera, panel values, the last scene and the recent files are kept in",
            )
            .on_hover_text("Written a second after a change and when the viewer closes");
            ui.label(
                RichText::new(path.display().to_string())
                    .monospace()
                    .small(),
            );
        }
        None => {
            ui.label("Nothing is kept between runs (--no-persist).");
        }
    }
    if ui
        .button("Reset to defaults")
        .on_hover_text(
            "The window, camera, display, overlays, quality, render scale, time scale, record \
             rate, live plots, lab choice and path fields as on a first run. The scene, its \
             parameters and the recent files stay.",
        )
        .clicked()
    {
        actions.push(UiAction::ResetSettings);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;
    use crate::sim::params::HandlePath;
    use crate::sim::params::spec::{Entry, TABLE};
    use crate::sim::thread::{SimThread, wait_for};

    /// Every slider the parameter panels draw, `path → (low end, high end)`, over the states
    /// that show different controls: each integrator, with the wavelet interpolation and the
    /// waving pole off and on.
    fn drawn_sliders() -> BTreeMap<&'static str, (f64, f64)> {
        let scene = Scene::load("flag").unwrap();
        let snap = Snapshot::of(&scene.clone().simulation().unwrap());
        let ctx = egui::Context::default();
        widgets::DRAWN.with(|d| d.borrow_mut().clear());
        for kind in IntegratorKind::ALL {
            for on in [false, true] {
                let mut state = UiState::new(scene.clone(), 0.12);
                state.params.integrator = kind;
                state.params.wavelet.enabled = on;
                state.params.handle.path = if on {
                    HandlePath::Figure8
                } else {
                    HandlePath::None
                };
                let mut actions = Vec::new();
                let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
                    simulation::integrator_ui(ui, &mut state, &snap, &mut actions);
                    cloth::cloth_ui(ui, &mut state, &mut actions);
                    simulation::run_ui(ui, &mut state, &snap, &mut actions);
                    wind::wind_ui(ui, &mut state, &mut actions);
                    detail::detail_ui(ui, &mut state, &FrameInfo::default(), &mut actions);
                });
                // Nothing is painted here; egui insists the font texture be dealt with.
                output.textures_delta.clear();
                assert!(actions.is_empty(), "drawing alone sent {actions:?}");
            }
        }
        let mut out = BTreeMap::new();
        widgets::DRAWN.with(|d| {
            for &(path, lo, hi) in d.borrow().iter() {
                let before = out.insert(path, (lo, hi));
                assert!(
                    before.is_none_or(|r| r == (lo, hi)),
                    "{path} drawn with two ranges"
                );
            }
        });
        out
    }

    /// Whether the simulation takes `v` for the parameter at `path`: the scene validation for
    /// scene fields, the simulation thread for the time scale. Where each path lives is written
    /// here from the scene format, independently of the spec table.
    fn accepted(path: &str, v: f64) -> bool {
        let mut scene = Scene::load("flag").unwrap();
        let p = &mut scene.params;
        let whole = v as u32;
        match path {
            "params.dt" => p.dt = v,
            "params.substeps" => p.substeps = whole,
            "params.jacobi_iterations" => p.jacobi_iterations = whole,
            "params.xpbd_substeps" => p.xpbd_substeps = whole,
            "params.stiffness.structural" => p.stiffness.structural = v,
            "params.stiffness.shear" => p.stiffness.shear = v,
            "params.stiffness.bend" => p.stiffness.bend = v,
            "params.damping" => p.damping = v,
            "params.wind.velocity" => p.wind.velocity = [0.0, 0.0, v],
            "params.wind.drag" => p.wind.drag = v,
            "params.wind.lift" => p.wind.lift = v,
            "params.wind.linear" => p.wind.linear = v,
            "params.wind.gust.strength" => p.wind.gust.strength = v,
            "params.wind.gust.period" => p.wind.gust.period = v,
            "params.wind.response" => p.wind.response = v,
            "params.provot.max_stretch" => p.provot.max_stretch = v,
            "params.provot.iterations" => p.provot.iterations = whole,
            "params.provot.max_compression" => p.provot.max_compression = v,
            "params.provot.levels" => p.provot.levels = whole,
            "params.provot.tether_stretch" => p.provot.tether_stretch = v,
            "params.handle.amplitude" => p.handle.amplitude = v,
            "params.handle.period" => p.handle.period = v,
            "params.hoist.height" => p.hoist.height = v,
            "params.hoist.speed" => p.hoist.speed = v,
            "params.cg.tolerance" => p.cg.tolerance = v,
            "params.cg.max_iterations" => p.cg.max_iterations = whole,
            "params.multigrid.tolerance" => p.multigrid.tolerance = v,
            "params.multigrid.max_cycles" => p.multigrid.max_cycles = whole,
            "params.choi_ko.flexural_rigidity" => p.choi_ko.flexural_rigidity = v,
            "params.choi_ko.buckling_clamp" => p.choi_ko.buckling_clamp = v,
            "params.wavelet.threshold" => p.wavelet.threshold = v,
            "cloth.grid.mass" => scene.cloth.grid.as_mut().unwrap().mass = v,
            "render.resolution" => scene.render.resolution = [whole; 2],
            "render.wrinkle_c" => scene.render.wrinkle_c = v,
            "time scale" => {
                let sim = SimThread::spawn(scene, true).unwrap();
                let slot = sim.slot();
                sim.send(Command::SetTimeScale(v));
                let wait = Duration::from_secs(5);
                let s = wait_for(&slot, wait, |s| s.error.is_some() || s.time_scale == v)
                    .expect("the thread answered");
                return s.error.is_none();
            }
            other => panic!("this test does not know where {other} lives"),
        }
        scene.validate().is_ok()
    }

    #[test]
    fn every_slider_spans_exactly_what_the_validation_accepts() {
        let drawn = drawn_sliders();
        // Every numeric parameter of the table has its slider, and so do the three values set
        // outside `params`.
        let mut expected: Vec<&str> = TABLE
            .iter()
            .filter_map(|e| match e {
                Entry::Real(s) => Some(s.path),
                Entry::Whole(s) => Some(s.path),
                _ => None,
            })
            .collect();
        expected.extend(["cloth.grid.mass", "time scale", "params.wind.velocity"]);
        for path in &expected {
            assert!(drawn.contains_key(path), "no slider for {path}");
        }
        for (path, &(lo, hi)) in &drawn {
            assert!(
                accepted(path, lo),
                "{path}: the slider's low end {lo} is refused"
            );
            assert!(
                accepted(path, hi),
                "{path}: the slider's high end {hi} is refused"
            );
            let integer = matches!(
                *path,
                "params.substeps"
                    | "params.jacobi_iterations"
                    | "params.xpbd_substeps"
                    | "params.provot.iterations"
                    | "params.cg.max_iterations"
                    | "params.multigrid.max_cycles"
                    | "params.provot.levels"
                    | "render.resolution"
            );
            let (below, above) = if integer {
                (lo - 1.0, hi + 1.0)
            } else {
                (lo - (lo.abs() * 1e-6).max(1e-12), hi + hi.abs() * 1e-6)
            };
            // A count or a speed has nothing below 0 to refuse.
            let nothing_below = lo == 0.0 && (integer || *path == "params.wind.velocity");
            if !nothing_below {
                assert!(
                    !accepted(path, below),
                    "{path}: {below}, below the slider, is accepted"
                );
            }
            assert!(
                !accepted(path, above),
                "{path}: {above}, above the slider, is accepted"
            );
        }
    }
}
