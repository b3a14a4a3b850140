//! Everything remembered, read field by field and checked.

use super::CameraSettings;
use crate::render::drawing::view::ViewSettings;
use crate::render::{RenderQuality, ScaleMode};
use crate::sim::IntegratorKind;
use crate::sim::format::params::spec;
use crate::sim::format::scene::Scene;
use crate::ui::UiState;
use crate::ui::recent::RecentFiles;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::time::Duration;

/// The file's name in the config folder.
pub(crate) const FILE_NAME: &str = "settings.json";
/// The environment variable naming another config folder.
pub(crate) const DIR_VARIABLE: &str = "FLAGSIM_CONFIG_DIR";
/// How long a change must stand before it is written, s (a slider dragged writes once).
pub(crate) const SAVE_DELAY: Duration = Duration::from_secs(1);
/// The window size of a first run, logical pixels.
pub(crate) const DEFAULT_WINDOW: [u32; 2] = [1280, 800];
/// The record rate's range, frames per simulated second (the *Capture* panel's slider).
pub(crate) const RECORD_FPS: std::ops::RangeInclusive<f64> = 1.0..=120.0;

/// Everything remembered. Each field's default is a first run's value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Settings {
    /// The window's inner size, logical pixels, each 16..=8192. Default 1280 × 800.
    pub window: [u32; 2],
    /// The camera at the last save (`None`: the scene's framing).
    pub camera: Option<CameraSettings>,
    /// The scene shown at the last save, with the panels' parameters, detail settings and flag
    /// image (`render.texture`, an absolute path). `None`: the `flag` preset.
    pub scene: Option<Scene>,
    /// Which of the scene's grid sizes its file wrote (a flag image fits the others).
    pub scene_size_written: [bool; 2],
    /// Display mode, overlays and their settings (the scene carries `render`).
    pub view: ViewSettings,
    /// Anti-aliasing and anisotropic filtering (`None`: the adapter's default).
    pub quality: Option<RenderQuality>,
    /// `auto` or a fixed scale 0.5..=1 (`None`: the adapter's default).
    pub render_scale: Option<String>,
    /// Simulated seconds per wall second: the parameter table's `TIME_SCALE`. Default 1.
    pub time_scale: f64,
    /// Recordings' rate, frames per simulated second, 1..=120. Default 30.
    pub record_fps: f64,
    /// What a recording writes: `png-sequence`, `gif` or `mp4`. Default `png-sequence`.
    pub record_format: String,
    /// Screenshots include the panels. Default true.
    pub screenshot_panels: bool,
    /// The live plots are open. Default false.
    pub live_plots: bool,
    /// The live plots' window, simulated s, 10..=60. Default 20.
    pub plot_window: f64,
    /// The integrators ticked in the *Lab* panel, by name. Default kang and xpbd.
    pub lab: Vec<String>,
    /// The scene path field. Default `scene.json`.
    pub scene_path: String,
    /// The flag image path field. Default empty.
    pub image_path: String,
    /// The live plots' CSV path field. Default `plots.csv`.
    pub csv_path: String,
    /// The last 8 scenes and images opened or saved, most recent first.
    pub recent: RecentFiles,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            window: DEFAULT_WINDOW,
            camera: None,
            scene: None,
            scene_size_written: [false; 2],
            view: ViewSettings::default(),
            quality: None,
            render_scale: None,
            time_scale: spec::TIME_SCALE.default,
            record_fps: 30.0,
            record_format: crate::ui::RecordFormat::default().name().into(),
            screenshot_panels: true,
            live_plots: false,
            plot_window: crate::ui::plots::WINDOW_DEFAULT,
            lab: vec!["kang".into(), "xpbd".into()],
            scene_path: "scene.json".into(),
            image_path: String::new(),
            csv_path: "plots.csv".into(),
            recent: RecentFiles::default(),
        }
    }
}

/// Reads `name` from `object` as a `T` and checks it; a missing field is silently the
/// default, a wrong or refused one the default with a warning.
fn field<T: DeserializeOwned>(
    object: &Map<String, Value>,
    name: &str,
    default: T,
    check: impl FnOnce(&T) -> Result<(), String>,
    warnings: &mut Vec<String>,
) -> T {
    let Some(value) = object.get(name) else {
        return default;
    };
    match serde_json::from_value::<T>(value.clone())
        .map_err(|e| e.to_string())
        .and_then(|v| check(&v).map(|()| v))
    {
        Ok(v) => v,
        Err(e) => {
            warnings.push(format!("settings: {name}: {e}; the default is used"));
            default
        }
    }
}

/// The check of a field any value of its type is good for.
#[allow(
    clippy::unnecessary_wraps,
    reason = "the shape of `field`'s check, which other fields' checks can fail"
)]
fn ok<T>(_: &T) -> Result<(), String> {
    Ok(())
}

impl Settings {
    /// Reads a settings file's text: every field that can be used, the default for the others,
    /// and a warning for each that could not (never an error).
    pub(crate) fn from_json(text: &str) -> (Self, Vec<String>) {
        let d = Self::default();
        let object = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => {
                let w = "settings: not a JSON object; every setting is the default";
                return (d, vec![w.into()]);
            }
            Err(e) => {
                let w = format!("settings: not JSON ({e}); every setting is the default");
                return (d, vec![w]);
            }
        };
        let mut warnings = Vec::new();
        let w = &mut warnings;
        let o = &object;
        let (scene, scene_size_written) = read_scene(o, w);
        let settings = Self {
            window: field(o, "window", d.window, |v| check_window(*v), w),
            camera: field(
                o,
                "camera",
                None,
                |c: &Option<CameraSettings>| c.as_ref().map_or(Ok(()), CameraSettings::check),
                w,
            ),
            scene,
            scene_size_written,
            view: field(o, "view", d.view.clone(), check_view, w),
            quality: field(o, "quality", None, |q| check_quality(q.as_ref()), w),
            render_scale: field(
                o,
                "render_scale",
                None,
                |s: &Option<String>| check_scale(s.as_deref()),
                w,
            ),
            time_scale: field(
                o,
                "time_scale",
                d.time_scale,
                |v| spec::TIME_SCALE.check(*v).map_err(|e| e.to_string()),
                w,
            ),
            record_fps: field(o, "record_fps", d.record_fps, |v| check_record_fps(*v), w),
            record_format: field(
                o,
                "record_format",
                d.record_format,
                |v: &String| crate::ui::RecordFormat::parse(v).map(|_| ()),
                w,
            ),
            screenshot_panels: field(o, "screenshot_panels", true, ok, w),
            live_plots: field(o, "live_plots", false, ok, w),
            plot_window: field(
                o,
                "plot_window",
                d.plot_window,
                |v| check_plot_window(*v),
                w,
            ),
            lab: field(o, "lab", d.lab.clone(), |v: &Vec<String>| check_lab(v), w),
            scene_path: field(o, "scene_path", d.scene_path.clone(), ok, w),
            image_path: field(o, "image_path", d.image_path.clone(), ok, w),
            csv_path: field(o, "csv_path", d.csv_path.clone(), ok, w),
            recent: field(o, "recent", RecentFiles::default(), ok, w).normalised(),
        };
        (settings, warnings)
    }

    /// Pretty JSON (what [`Self::from_json`] reads back equal).
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The panels' values from `ui` (everything but the window, the camera and the render
    /// scale, which the viewer holds).
    pub(crate) fn take_panels(&mut self, ui: &UiState) {
        let mut scene = ui.scene_as_shown();
        let images = scene.flags.iter_mut().filter_map(|f| f.image.as_mut());
        for texture in scene.render.texture.as_mut().into_iter().chain(images) {
            *texture = std::path::absolute(&*texture).unwrap_or_else(|_| texture.clone());
        }
        self.scene_size_written = scene
            .cloth
            .grid
            .as_ref()
            .map_or([false; 2], |g| g.size_written);
        self.scene = Some(scene);
        self.view = ui.view.clone();
        self.quality = Some(ui.quality);
        self.time_scale = ui.time_scale;
        self.record_fps = ui.capture.record_fps;
        self.record_format = ui.capture.record_format.name().into();
        self.screenshot_panels = ui.capture.screenshot_panels;
        self.live_plots = ui.plots.shown;
        self.plot_window = ui.plots.window;
        self.lab = IntegratorKind::ALL
            .iter()
            .zip(ui.lab.pick)
            .filter(|(_, on)| *on)
            .map(|(k, _)| k.name().to_string())
            .collect();
        self.scene_path.clone_from(&ui.files.scene_path);
        self.image_path.clone_from(&ui.files.image_path);
        self.csv_path.clone_from(&ui.plots.csv_path);
        self.recent = ui.files.recent.clone();
    }

    /// Puts the panels' values into `ui`, whose scene is already the one shown (the view's
    /// `render` stays the scene's).
    pub(crate) fn give_panels(&self, ui: &mut UiState) {
        ui.view = ViewSettings {
            render: ui.view.render.clone(),
            ..self.view.clone()
        };
        if let Some(q) = self.quality {
            ui.quality = q;
        }
        ui.time_scale = self.time_scale;
        ui.capture.record_fps = self.record_fps;
        if let Ok(format) = crate::ui::RecordFormat::parse(&self.record_format) {
            ui.capture.record_format = format;
        }
        ui.capture.screenshot_panels = self.screenshot_panels;
        ui.plots.shown = self.live_plots;
        ui.plots.window = self.plot_window;
        ui.lab.pick =
            std::array::from_fn(|i| self.lab.iter().any(|n| n == IntegratorKind::ALL[i].name()));
        ui.files.scene_path.clone_from(&self.scene_path);
        // The image the flag is drawn with (from the command line or the scene) shows in the
        // field; the remembered path only when there is none.
        match &ui.view.render.texture {
            Some(texture) => ui.files.image_path = texture.display().to_string(),
            None => ui.files.image_path.clone_from(&self.image_path),
        }
        ui.plots.csv_path.clone_from(&self.csv_path);
        ui.files.recent = self.recent.clone();
    }

    /// The render scale remembered, if any (checked when read).
    pub(crate) fn scale_mode(&self) -> Option<ScaleMode> {
        self.render_scale
            .as_deref()
            .and_then(|s| ScaleMode::parse(s).ok())
    }

    /// The remembered scene.
    pub(crate) fn last_scene(&self) -> Option<Scene> {
        self.scene.clone()
    }
}

/// `auto` or the fixed scale as `--render-scale` reads it.
pub(crate) fn scale_text(mode: ScaleMode) -> String {
    match mode {
        ScaleMode::Auto => "auto".into(),
        ScaleMode::Fixed(s) => format!("{s}"),
    }
}

/// The remembered scene, checked as a scene file is, and which of its grid's sizes its file
/// wrote. The written sizes are not part of a scene's JSON: they are set back so a flag image
/// fits the remembered scene as it would have fitted its file.
fn read_scene(object: &Map<String, Value>, w: &mut Vec<String>) -> (Option<Scene>, [bool; 2]) {
    let written = field(object, "scene_size_written", [false; 2], ok, w);
    let scene = match object.get("scene") {
        None | Some(Value::Null) => None,
        Some(v) => match Scene::from_json(&v.to_string(), "settings: scene") {
            Ok(mut scene) => {
                if let Some(grid) = scene.cloth.grid.as_mut() {
                    grid.size_written = written;
                }
                Some(scene)
            }
            Err(e) => {
                w.push(format!("{e}; the flag preset is used"));
                None
            }
        },
    };
    (scene, written)
}

fn check_scale(s: Option<&str>) -> Result<(), String> {
    s.map_or(Ok(()), |s| ScaleMode::parse(s).map(|_| ()))
}

fn check_record_fps(v: f64) -> Result<(), String> {
    if RECORD_FPS.contains(&v) {
        Ok(())
    } else {
        Err(format!("must be in 1..=120, got {v}"))
    }
}

fn check_window(w: [u32; 2]) -> Result<(), String> {
    if w.iter().all(|s| (16..=8192).contains(s)) {
        Ok(())
    } else {
        Err(format!("each side must be in 16..=8192, got {w:?}"))
    }
}

fn check_view(v: &ViewSettings) -> Result<(), String> {
    v.render.validate().map_err(|e| e.to_string())?;
    if (0.001..=10.0).contains(&v.dv_scale) {
        Ok(())
    } else {
        Err(format!(
            "dv_scale must be in 0.001..=10, got {}",
            v.dv_scale
        ))
    }
}

fn check_quality(q: Option<&RenderQuality>) -> Result<(), String> {
    match q {
        Some(q) if !matches!(q.msaa_samples, 1 | 4) || !(1..=16).contains(&q.anisotropy) => Err(
            format!("msaa_samples must be 1 or 4 and anisotropy 1..=16, got {q:?}"),
        ),
        _ => Ok(()),
    }
}

fn check_plot_window(v: f64) -> Result<(), String> {
    use crate::ui::plots::{WINDOW_MAX, WINDOW_MIN};
    if (WINDOW_MIN..=WINDOW_MAX).contains(&v) {
        Ok(())
    } else {
        Err(format!("must be in {WINDOW_MIN}..={WINDOW_MAX}, got {v}"))
    }
}

fn check_lab(names: &[String]) -> Result<(), String> {
    match names
        .iter()
        .find(|n| !IntegratorKind::ALL.iter().any(|k| k.name() == n.as_str()))
    {
        Some(n) => Err(format!("unknown integrator '{n}'")),
        None => Ok(()),
    }
}
