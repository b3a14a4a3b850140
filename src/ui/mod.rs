//! The egui side panels. They read the latest snapshot, edit a local copy of the parameters and
//! return [`UiAction`]s; they never touch the simulation. Every value shows its unit and has a
//! tooltip; ranges keep every value valid, so no widget can send a bad parameter.

use std::path::PathBuf;

use egui::{Color32, RichText, Ui};
use glam::DVec3;

use crate::render::view::ViewSettings;
use crate::render::{ColorMode, RenderQuality};
use crate::sim::params::{DragModel, HandlePath, LiftModel};
use crate::sim::scene::{PRESETS, Scene};
use crate::sim::thread::{Command, Snapshot};
use crate::sim::{IntegratorKind, Params};
use crate::upsample::DisplayMode;

/// What the panels ask the application to do.
#[derive(Debug, Clone)]
pub enum UiAction {
    /// Send to the simulation thread.
    Sim(Command),
    /// Save a screenshot now.
    Screenshot,
    /// Start or stop recording a PNG sequence.
    ToggleRecording,
    /// Put the camera back to its framing.
    ResetCamera,
    /// Rebuild the renderer at another anti-aliasing / filtering quality.
    SetQuality(RenderQuality),
}

/// Frame timing the application measures, shown in the Stats panel.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameInfo<'a> {
    /// Frames per second (median over the last frames).
    pub fps: f64,
    /// Median frame time, ms.
    pub frame_ms: f64,
    /// Time to build and submit the last frame on the CPU, ms.
    pub cpu_ms: f64,
    /// The GPU adapter, for the Stats panel.
    pub adapter: &'a str,
}

/// A PNG sequence being recorded at a fixed simulated frame rate.
#[derive(Debug, Clone)]
pub struct RecordingStatus {
    pub dir: PathBuf,
    pub frames: u32,
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
    pub recording: Option<RecordingStatus>,
    /// Path typed in the load/save field.
    pub scene_path: String,
    /// The last message for the user (a saved file, an error), and whether it is an error.
    pub message: Option<(String, bool)>,
    /// Wind direction as the user set it, degrees (kept when the speed is zero).
    azimuth_deg: f64,
    elevation_deg: f64,
}

impl UiState {
    pub fn new(scene: Scene, total_mass: f64) -> Self {
        let (_, azimuth_deg, elevation_deg) = wind_polar(scene.params.wind.velocity);
        Self {
            params: scene.params.clone(),
            view: ViewSettings {
                render: scene.render.clone(),
                ..ViewSettings::default()
            },
            scene,
            quality: RenderQuality::HIGH,
            generation: 0,
            total_mass,
            time_scale: 1.0,
            show_panels: true,
            show_help: false,
            screenshot_panels: true,
            record_fps: 30.0,
            recording: None,
            scene_path: "scene.json".into(),
            message: None,
            azimuth_deg,
            elevation_deg,
        }
    }

    /// Adopts the simulation's parameters after a reset or a scene load, and shows rejected
    /// commands.
    pub fn sync(&mut self, snap: &Snapshot) {
        if snap.generation != self.generation {
            self.generation = snap.generation;
            self.params = snap.params.clone();
            self.total_mass = snap.total_mass;
            let (_, az, el) = wind_polar(self.params.wind.velocity);
            self.azimuth_deg = az;
            self.elevation_deg = el;
        }
        if let Some(e) = &snap.error {
            self.message = Some((e.clone(), true));
            self.params = snap.params.clone();
        }
    }

    /// Switches integrator (keyboard or panel), keeping the local copy in step.
    pub fn set_integrator(&mut self, kind: IntegratorKind) -> UiAction {
        self.params.integrator = kind;
        UiAction::Sim(Command::SetParams(Box::new(self.params.clone())))
    }
}

/// `(speed m/s, azimuth deg from +X toward +Z, elevation deg)`.
fn wind_polar(v: [f64; 3]) -> (f64, f64, f64) {
    let v = DVec3::from_array(v);
    let speed = v.length();
    if speed == 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let az = v.z.atan2(v.x).to_degrees();
    let el = (v.y / speed).clamp(-1.0, 1.0).asin().to_degrees();
    (speed, az, el)
}

fn wind_vector(speed: f64, az_deg: f64, el_deg: f64) -> [f64; 3] {
    let (az, el) = (az_deg.to_radians(), el_deg.to_radians());
    [
        speed * el.cos() * az.cos(),
        speed * el.sin(),
        speed * el.cos() * az.sin(),
    ]
}

/// A labelled slider with unit and tooltip; returns whether it changed.
fn slider(
    ui: &mut Ui,
    value: &mut f64,
    range: std::ops::RangeInclusive<f64>,
    label: &str,
    unit: &str,
    tip: &str,
    log: bool,
) -> bool {
    ui.add(
        egui::Slider::new(value, range)
            .logarithmic(log)
            .text(label)
            .suffix(unit),
    )
    .on_hover_text(tip)
    .changed()
}

fn slider_u32(
    ui: &mut Ui,
    value: &mut u32,
    range: std::ops::RangeInclusive<u32>,
    label: &str,
    tip: &str,
) -> bool {
    ui.add(egui::Slider::new(value, range).text(label))
        .on_hover_text(tip)
        .changed()
}

/// The left panel's contents. Returns the actions the user asked for this frame.
pub fn controls(
    ui: &mut Ui,
    state: &mut UiState,
    snap: &Snapshot,
    frame: &FrameInfo<'_>,
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.heading("flagsim");
        ui.label(
            RichText::new("Kang et al.: approximate implicit cloth, wrinkled splines").small(),
        );
        ui.separator();
        egui::CollapsingHeader::new("Simulation")
            .default_open(true)
            .show(ui, |ui| simulation_ui(ui, state, snap, &mut actions));
        egui::CollapsingHeader::new("Wind")
            .default_open(true)
            .show(ui, |ui| wind_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new("Detail")
            .default_open(false)
            .show(ui, |ui| detail_ui(ui, state, &mut actions));
        egui::CollapsingHeader::new("Overlays")
            .default_open(true)
            .show(ui, |ui| overlays_ui(ui, state, snap, &mut actions));
        egui::CollapsingHeader::new("Stats")
            .default_open(true)
            .show(ui, |ui| stats_ui(ui, snap, frame));
        egui::CollapsingHeader::new("Capture")
            .default_open(false)
            .show(ui, |ui| capture_ui(ui, state, &mut actions));
        if let Some((msg, is_error)) = &state.message {
            ui.separator();
            let color = if *is_error {
                Color32::from_rgb(220, 60, 50)
            } else {
                Color32::from_rgb(60, 150, 80)
            };
            ui.colored_label(color, msg);
        }
        ui.separator();
        ui.label(RichText::new("h: keys and mouse help").small());
    });
    actions
}

fn simulation_ui(ui: &mut Ui, state: &mut UiState, snap: &Snapshot, actions: &mut Vec<UiAction>) {
    let mut changed = false;
    let p = &mut state.params;
    egui::ComboBox::from_label("integrator")
        .selected_text(p.integrator.name())
        .show_ui(ui, |ui| {
            for kind in IntegratorKind::ALL {
                changed |= ui
                    .selectable_value(&mut p.integrator, kind, kind.name())
                    .changed();
            }
        })
        .response
        .on_hover_text(
            "The time integrator. kang: the paper's O(n) approximate implicit update (eq. 10). \
             desbrun: the precomputed filter it approximates. implicit-cg: full backward Euler. \
             hybrid: the thesis's combined integrator. xpbd: position-based constraints. \
             choi-ko: buckling model with BDF2, stable at very large dt. \
             The explicit schemes blow up at large dt; the guard catches it.",
        );
    changed |= slider(
        ui,
        &mut p.dt,
        0.0005..=0.5,
        "dt",
        " s",
        "Published step dt, seconds of simulated time per step (default 1/60). choi-ko and \
         implicit-cg stay stable up to 0.5 s; the others give up between 0.01 and 0.3 s \
         (README, Performance).",
        true,
    );
    changed |= slider_u32(
        ui,
        &mut p.substeps,
        1..=20,
        "substeps",
        "Physics steps per dt; each advances h = dt / substeps.",
    );
    ui.add_enabled_ui(
        matches!(p.integrator, IntegratorKind::Kang | IntegratorKind::Hybrid),
        |ui| {
            changed |= slider_u32(
                ui,
                &mut p.jacobi_iterations,
                1..=50,
                "Jacobi iterations",
                "kang's sweeps: 1 = eq. 9, 2 = eq. 10 (the paper), more converge to the filter.",
            );
        },
    );
    if p.integrator == IntegratorKind::Xpbd {
        changed |= slider_u32(
            ui,
            &mut p.xpbd_substeps,
            1..=100,
            "XPBD substeps",
            "xpbd's substeps per physics step, one constraint pass each (compliance = 1/k).",
        );
    }
    if p.integrator == IntegratorKind::ChoiKo {
        changed |= slider(
            ui,
            &mut p.choi_ko.flexural_rigidity,
            1e-7..=1e-2,
            "k_b",
            " N·m²",
            "Flexural rigidity of the type-2 (interlaced) links: a slightly compressed link \
             pushes back with 12 k_b / L² (Choi & Ko eq. 9). Default 2e-5.",
            true,
        );
        changed |= slider(
            ui,
            &mut p.choi_ko.buckling_clamp,
            0.1..=1e4,
            "c_b",
            " N/m",
            "Clamp of eq. 11: a type-2 link's force is max(f_b, c_b (|x| − L)), so compression \
             starts linearly. Default 40.",
            true,
        );
    }
    let local_implicit = matches!(p.integrator, IntegratorKind::Kang | IntegratorKind::Hybrid);
    let on_grid = snap.grid.is_some();
    ui.add_enabled_ui(local_implicit && on_grid, |ui| {
        changed |= ui
            .checkbox(&mut p.wavelet.enabled, "wavelet interpolation")
            .on_hover_text(
                "Chi 2007: each step a Haar transform of the key normals finds flat blocks; \
                 their interior nodes are interpolated from the integrated edges instead of \
                 integrated. For kang and hybrid on grid cloths. Colour 'integration' shows \
                 the split.",
            )
            .on_disabled_hover_text("Only for kang and hybrid on a grid cloth.")
            .changed();
        if p.wavelet.enabled {
            changed |= slider(
                ui,
                &mut p.wavelet.threshold,
                0.001..=0.5,
                "threshold",
                "",
                "Largest Haar detail of the normals for which a block counts as flat \
                 (the thesis uses 0.022–0.03). Higher interpolates more.",
                true,
            );
        }
    });
    if slider(
        ui,
        &mut state.total_mass,
        0.005..=5.0,
        "total mass",
        " kg",
        "Mass of the whole cloth, spread evenly over the key nodes.",
        true,
    ) {
        actions.push(UiAction::Sim(Command::SetTotalMass(state.total_mass)));
    }
    let s = &mut p.stiffness;
    changed |= slider(
        ui,
        &mut s.structural,
        0.0..=5000.0,
        "structural k",
        " N/m",
        "Stiffness of the 4-neighbour springs.",
        true,
    );
    changed |= slider(
        ui,
        &mut s.shear,
        0.0..=5000.0,
        "shear k",
        " N/m",
        "Stiffness of the diagonal springs.",
        true,
    );
    changed |= slider(
        ui,
        &mut s.bend,
        0.0..=5000.0,
        "bend k",
        " N/m",
        "Stiffness of the springs two nodes apart (resists bending).",
        true,
    );
    changed |= slider(
        ui,
        &mut p.damping,
        0.0..=10.0,
        "spring damping",
        " N·s/m",
        "Damping along each spring (all integrators).",
        false,
    );
    changed |= ui
        .checkbox(&mut p.viscosity, "viscosity term (eq. 4)")
        .on_hover_text("h Σ k (v_j − v_i) in F̃ for kang, desbrun and hybrid.")
        .changed();
    changed |= ui
        .checkbox(&mut p.filter_external, "filter external forces")
        .on_hover_text(
            "Feed gravity and air through the filter too. Off (default): they are added after, \
             since filtering them makes the cloth fall too slowly.",
        )
        .changed();
    changed |= ui
        .checkbox(&mut p.provot.enabled, "strain limiting (Provot)")
        .on_hover_text("Shorten springs stretched beyond (1 + τ) L after every step.")
        .changed();
    ui.add_enabled_ui(p.provot.enabled, |ui| {
        changed |= slider(
            ui,
            &mut p.provot.max_stretch,
            0.0..=0.5,
            "τ",
            "",
            "Largest allowed stretch (0.1 = 10 %).",
            false,
        );
        changed |= slider_u32(
            ui,
            &mut p.provot.iterations,
            0..=50,
            "sweeps",
            "Most Gauss–Seidel sweeps of the strain limiter per step; they stop at the first \
             sweep that finds nothing over the limit.",
        );
        changed |= ui
            .checkbox(&mut p.provot.tethers, "tethers")
            .on_hover_text(
                "Long-range attachments: before the sweeps, keep every free node within its rest \
                 distance along the cloth from the pole, the pins and the grabbed node. One cheap pass holds a \
                 cloth of any resolution, which the sweeps alone cannot (on by default).",
            )
            .changed();
        ui.add_enabled_ui(p.provot.tethers, |ui| {
            changed |= slider(
                ui,
                &mut p.provot.tether_stretch,
                0.0..=0.5,
                "tether slack",
                "",
                "How far a tether may stretch beyond its rest distance (0 = not at all, the \
                 default; 0.05 = 5 %). Slack lets the cloth sag until every tether is taut: \
                 a cloth held at two separate places needs some, or it hangs flat and taut \
                 between them.",
                false,
            );
        });
    });
    let mut waving = p.handle.path == HandlePath::Figure8;
    if ui
        .checkbox(&mut waving, "wave the pole (figure 8)")
        .on_hover_text("Move the pinned nodes along a figure 8, like a person waving the flag.")
        .changed()
    {
        p.handle.path = if waving {
            HandlePath::Figure8
        } else {
            HandlePath::None
        };
        changed = true;
    }
    if waving {
        changed |= slider(
            ui,
            &mut p.handle.amplitude,
            0.0..=1.0,
            "wave size",
            " m",
            "Size of the figure 8.",
            false,
        );
        changed |= slider(
            ui,
            &mut p.handle.period,
            0.2..=10.0,
            "wave period",
            " s",
            "Time for one loop of the figure 8.",
            false,
        );
    }
    if changed {
        actions.push(UiAction::Sim(Command::SetParams(Box::new(p.clone()))));
    }
    ui.horizontal(|ui| {
        let label = if snap.paused { "run" } else { "pause" };
        if ui.button(label).on_hover_text("Space").clicked() {
            actions.push(UiAction::Sim(Command::TogglePause));
        }
        if ui
            .button("step")
            .on_hover_text(". : one step while paused")
            .clicked()
        {
            actions.push(UiAction::Sim(Command::Step));
        }
        if ui
            .button("reset")
            .on_hover_text("r : back to the scene's start")
            .clicked()
        {
            actions.push(UiAction::Sim(Command::Reset));
        }
    });
    if slider(
        ui,
        &mut state.time_scale,
        0.05..=4.0,
        "time scale",
        "×",
        "Simulated seconds per wall-clock second (slow motion below 1).",
        true,
    ) {
        actions.push(UiAction::Sim(Command::SetTimeScale(state.time_scale)));
    }
    ui.separator();
    egui::ComboBox::from_label("preset")
        .selected_text("load a preset…")
        .show_ui(ui, |ui| {
            for (name, _) in PRESETS {
                if ui.selectable_label(false, name).clicked() {
                    match Scene::load(name) {
                        Ok(scene) => {
                            state.message = Some((format!("loaded preset {name}"), false));
                            state.view.render = scene.render.clone();
                            state.scene = scene.clone();
                            actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
                            actions.push(UiAction::ResetCamera);
                        }
                        Err(e) => state.message = Some((e.to_string(), true)),
                    }
                }
            }
        });
    ui.horizontal(|ui| {
        ui.label("file");
        ui.text_edit_singleline(&mut state.scene_path)
            .on_hover_text("A scene file (.json) to load or save");
    });
    ui.horizontal(|ui| {
        if ui.button("load scene").clicked() {
            match Scene::from_file(std::path::Path::new(&state.scene_path)) {
                Ok(scene) => {
                    state.message = Some((format!("loaded {}", state.scene_path), false));
                    state.view.render = scene.render.clone();
                    state.scene = scene.clone();
                    actions.push(UiAction::Sim(Command::LoadScene(Box::new(scene))));
                    actions.push(UiAction::ResetCamera);
                }
                Err(e) => state.message = Some((e.to_string(), true)),
            }
        }
        if ui
            .button("save scene")
            .on_hover_text("The loaded cloth with the current parameters and detail settings")
            .clicked()
        {
            let mut scene = state.scene.clone();
            scene.params = state.params.clone();
            scene.render = state.view.render.clone();
            state.message = Some(match std::fs::write(&state.scene_path, scene.to_json()) {
                Ok(()) => (format!("saved {}", state.scene_path), false),
                Err(e) => (format!("cannot save {}: {e}", state.scene_path), true),
            });
        }
    });
}

fn wind_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let mut changed = false;
    let (mut speed, _, _) = wind_polar(state.params.wind.velocity);
    let mut dir = false;
    changed |= slider(
        ui,
        &mut speed,
        0.0..=60.0,
        "speed",
        " m/s",
        "Base wind speed (the paper's Fig. 7 uses 40 m/s).",
        false,
    );
    dir |= slider(
        ui,
        &mut state.azimuth_deg,
        -180.0..=180.0,
        "direction",
        "°",
        "Where the wind blows to, in the ground plane: 0° = +X (away from the pole).",
        false,
    );
    dir |= slider(
        ui,
        &mut state.elevation_deg,
        -60.0..=60.0,
        "elevation",
        "°",
        "Upward angle of the wind.",
        false,
    );
    if changed || dir {
        state.params.wind.velocity = wind_vector(speed, state.azimuth_deg, state.elevation_deg);
        changed = true;
    }
    let w = &mut state.params.wind;
    changed |= slider(
        ui,
        &mut w.gust.strength,
        0.0..=2.0,
        "gusts",
        "",
        "Relative fluctuation of the wind speed (0 = steady).",
        false,
    );
    changed |= slider(
        ui,
        &mut w.gust.period,
        0.1..=10.0,
        "gust period",
        " s",
        "Typical time between gusts.",
        true,
    );
    let mut seed = w.gust.seed as u32;
    if ui
        .add(
            egui::DragValue::new(&mut seed)
                .range(0..=u32::MAX)
                .prefix("seed "),
        )
        .on_hover_text("Same seed, same wind.")
        .changed()
    {
        w.gust.seed = seed as u64;
        changed = true;
    }
    changed |= slider(
        ui,
        &mut w.drag,
        0.0..=0.1,
        "K_D",
        " kg/m",
        "Drag constant of eq. 17.",
        false,
    );
    changed |= slider(
        ui,
        &mut w.lift,
        0.0..=0.1,
        "K_L",
        " kg/m",
        "Lift constant of eq. 19.",
        false,
    );
    egui::ComboBox::from_label("lift model")
        .selected_text(match w.lift_model {
            LiftModel::Paper => "paper (eqs. 18–19)",
            LiftModel::Smooth => "smooth",
        })
        .show_ui(ui, |ui| {
            changed |= ui
                .selectable_value(&mut w.lift_model, LiftModel::Paper, "paper (eqs. 18–19)")
                .changed();
            changed |= ui
                .selectable_value(&mut w.lift_model, LiftModel::Smooth, "smooth")
                .changed();
        })
        .response
        .on_hover_text(
            "paper: literal, flips sign when the cloth is edge-on (makes flags buzz). \
             smooth: vanishes edge-on.",
        );
    egui::ComboBox::from_label("drag model")
        .selected_text(match w.drag_model {
            DragModel::SemiImplicit => "semi-implicit",
            DragModel::Explicit => "explicit (eq. 17)",
        })
        .show_ui(ui, |ui| {
            changed |= ui
                .selectable_value(&mut w.drag_model, DragModel::SemiImplicit, "semi-implicit")
                .changed();
            changed |= ui
                .selectable_value(&mut w.drag_model, DragModel::Explicit, "explicit (eq. 17)")
                .changed();
        })
        .response
        .on_hover_text(
            "semi-implicit never reverses the relative velocity; explicit overshoots for light \
             nodes in strong wind.",
        );
    changed |= slider(
        ui,
        &mut w.linear,
        0.0..=0.1,
        "linear wind k_w",
        " kg/s",
        "huang-2014's F = k_w (v_wind − v): pulls the cloth along the wind.",
        false,
    );
    if changed {
        actions.push(UiAction::Sim(Command::SetParams(Box::new(
            state.params.clone(),
        ))));
    }
}

fn detail_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    let mut msaa = state.quality.msaa_samples > 1;
    let mut aniso = state.quality.anisotropy > 1;
    let a = ui
        .checkbox(&mut msaa, "anti-aliasing (4× MSAA)")
        .on_hover_text("Smooth edges. Costs about 15 ms a frame on a software rasteriser.");
    let b = ui
        .checkbox(&mut aniso, "anisotropic filtering (8×)")
        .on_hover_text("Sharper texture at grazing angles. Costly on a software rasteriser.");
    if a.changed() || b.changed() {
        state.quality = RenderQuality {
            msaa_samples: if msaa { 4 } else { 1 },
            anisotropy: if aniso { 8 } else { 1 },
        };
        actions.push(UiAction::SetQuality(state.quality));
    }
    let r = &mut state.view.render;
    egui::ComboBox::from_label("display")
        .selected_text(r.mode.name())
        .show_ui(ui, |ui| {
            for mode in DisplayMode::ALL {
                ui.selectable_value(&mut r.mode, mode, mode.name());
            }
        })
        .response
        .on_hover_text(
            "key-only: the simulated mesh (Fig. 9a). smooth: cubic splines (9b). \
             wrinkled: splines with eq. 14's wrinkles where compressed (9c).",
        );
    if r.mode == DisplayMode::Wrinkled {
        r.wrinkles = true;
    }
    ui.add(
        egui::Slider::new(&mut r.wrinkle_c, 0.0..=300.0)
            .text("wrinkle c")
            .suffix(" rad"),
    )
    .on_hover_text("Wrinkle frequency constant c of eq. 14: f = c (l0 − d) / l0.");
    let mut res = r.resolution[0];
    if ui
        .add(
            egui::Slider::new(&mut res, 2..=512)
                .logarithmic(true)
                .text("render nodes / side"),
        )
        .on_hover_text("Render resolution R × R (default 50 × 50 = 2500 nodes).")
        .changed()
    {
        r.resolution = [res, res];
    }
    ui.checkbox(&mut r.key_aligned, "key-aligned")
        .on_hover_text("Round the resolution to (n − 1) s + 1 so key nodes are render nodes.");
    ui.checkbox(&mut r.symmetric, "symmetric")
        .on_hover_text("Average row-first and column-first upsampling.");
    ui.checkbox(&mut r.c1_seam, "C¹ seam")
        .on_hover_text("Round f to a multiple of π so wrinkles meet the next segment smoothly.");
}

fn overlays_ui(ui: &mut Ui, state: &mut UiState, snap: &Snapshot, actions: &mut Vec<UiAction>) {
    let v = &mut state.view;
    ui.checkbox(&mut v.key_wireframe, "key mesh (w)")
        .on_hover_text("The 10 × 10 simulated springs as lines.");
    ui.checkbox(&mut v.render_wireframe, "render mesh")
        .on_hover_text("The edges of the upsampled render mesh.");
    ui.checkbox(&mut v.dv_overlay, "velocity change Δv (v)")
        .on_hover_text("One red segment per key node: the last step's Δv × scale.");
    ui.add(
        egui::Slider::new(&mut v.dv_scale, 0.001..=2.0)
            .logarithmic(true)
            .text("Δv scale")
            .suffix(" s"),
    )
    .on_hover_text("Segment length per m/s of velocity change.");
    if ui
        .checkbox(&mut v.compare, "compare with the precomputed filter")
        .on_hover_text(
            "The paper's Fig. 8: this integrator's Δv (red) and the exact filter's (blue) from \
             the same state, with their agreement.",
        )
        .changed()
    {
        actions.push(UiAction::Sim(Command::SetCompare(v.compare)));
    }
    if v.compare {
        match &snap.compare {
            Some(c) => {
                ui.label(format!(
                    "cosine similarity {:.5}\nrelative error {:.3} %",
                    c.cosine,
                    100.0 * c.relative_error
                ));
            }
            None => {
                ui.label("(computed after the next step)");
            }
        }
    }
    egui::ComboBox::from_label("colours")
        .selected_text(v.color_mode.name())
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut v.color_mode, ColorMode::Texture, "texture");
            ui.selectable_value(&mut v.color_mode, ColorMode::NodeType, "node-type")
                .on_hover_text("Key nodes red, frame nodes blue, internal nodes yellow (Fig. 2).");
            ui.selectable_value(&mut v.color_mode, ColorMode::Strain, "strain")
                .on_hover_text("Blue compressed, white at rest, red stretched (±10 %).");
            ui.selectable_value(&mut v.color_mode, ColorMode::Integration, "integration")
                .on_hover_text(
                    "Wavelet interpolation (Chi 2007): yellow around key nodes the last step \
                     interpolated, red around integrated ones.",
                );
        });
}

fn stats_ui(ui: &mut Ui, snap: &Snapshot, frame: &FrameInfo<'_>) {
    let st = &snap.stats;
    let status = if snap.divergence.is_some() {
        "stopped by the guard"
    } else if snap.paused {
        "paused"
    } else if snap.behind {
        "running, behind real time"
    } else {
        "running"
    };
    egui::Grid::new("stats")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let mut row = |k: &str, v: String| {
                ui.label(k);
                ui.label(v);
                ui.end_row();
            };
            row("fps", format!("{:.0}", frame.fps));
            row("frame time", format!("{:.1} ms", frame.frame_ms));
            row("frame CPU", format!("{:.2} ms", frame.cpu_ms));
            row("step time", format!("{:.1} µs", st.step_seconds * 1e6));
            row("steps / s", format!("{:.0}", snap.steps_per_second));
            row("stepper", status.to_string());
            row(
                "sim time",
                format!("{:.2} s (step {})", snap.time, snap.step),
            );
            row("h²k/m", format!("{:.3}", st.h2k_over_m));
            row(
                "max strain",
                format!("{:.1} %", (st.max_strain - 1.0) * 100.0),
            );
            if snap.params.provot.enabled {
                row(
                    "strain limit",
                    format!(
                        "{} sweeps, {} corrections, {} tethers ({} pulled)",
                        st.provot_sweeps, st.provot_corrections, st.tethers, st.tether_corrections
                    ),
                );
            }
            row(
                "guard",
                match &snap.divergence {
                    Some(d) => format!("fired at step {}", d.step),
                    None => "ok".into(),
                },
            );
            if snap.params.integrator == IntegratorKind::ImplicitCg {
                row("CG iterations", format!("{}", st.cg.iterations));
            }
            if snap.params.integrator == IntegratorKind::ChoiKo {
                row(
                    "PCG iterations",
                    format!(
                        "{} ({})",
                        st.cg.iterations,
                        if st.bdf2 { "BDF2" } else { "BDF1 start" }
                    ),
                );
            }
            if !snap.interpolated.is_empty() {
                row(
                    "interpolated",
                    format!(
                        "{:.0} % of nodes, {} regions",
                        st.interpolated_fraction * 100.0,
                        st.interpolated_regions
                    ),
                );
            }
            if snap.params.integrator == IntegratorKind::Desbrun {
                row(
                    "filter inverse",
                    format!(
                        "{:.2} ms ({} builds)",
                        st.desbrun_precompute_seconds * 1e3,
                        st.desbrun_builds
                    ),
                );
            }
            row("adapter", frame.adapter.to_string());
        });
}

fn capture_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    ui.checkbox(&mut state.screenshot_panels, "include the panels");
    if ui
        .button("screenshot (F12)")
        .on_hover_text("Saves a PNG in screenshots/")
        .clicked()
    {
        actions.push(UiAction::Screenshot);
    }
    ui.separator();
    ui.add_enabled_ui(state.recording.is_none(), |ui| {
        ui.add(
            egui::Slider::new(&mut state.record_fps, 1.0..=120.0)
                .text("record rate")
                .suffix(" frames per simulated s"),
        )
        .on_hover_text("Frames are taken at this simulated rate, whatever the display does.");
    });
    let label = if state.recording.is_some() {
        "stop recording"
    } else {
        "record PNG sequence"
    };
    if ui.button(label).clicked() {
        actions.push(UiAction::ToggleRecording);
    }
    if let Some(r) = &state.recording {
        ui.label(format!("{} frames in {}", r.frames, r.dir.display()));
    }
}

/// The banner shown when the guard stopped an integrator: which, when, why, and the way out.
pub fn divergence_banner(ui: &mut Ui, state: &mut UiState, snap: &Snapshot) -> Vec<UiAction> {
    let mut actions = Vec::new();
    let Some(d) = &snap.divergence else {
        return actions;
    };
    egui::Frame::new()
        .fill(Color32::from_rgb(150, 30, 25))
        .inner_margin(8.0)
        .show(ui, |ui| {
            ui.colored_label(
                Color32::WHITE,
                RichText::new(format!(
                    "{} diverged at step {} (t = {:.2} s): {}",
                    d.integrator.name(),
                    d.step,
                    d.time,
                    d.reason
                ))
                .strong(),
            );
            ui.colored_label(
                Color32::WHITE,
                "The simulation is paused on the last good state.",
            );
            ui.horizontal(|ui| {
                if ui.button("reset").clicked() {
                    actions.push(UiAction::Sim(Command::Reset));
                }
                if ui.button("halve dt and resume").clicked() {
                    state.params.dt = (state.params.dt * 0.5).max(1e-5);
                    actions.push(UiAction::Sim(Command::SetParams(Box::new(
                        state.params.clone(),
                    ))));
                    actions.push(UiAction::Sim(Command::ClearDivergence));
                }
                if ui.button("switch to kang and resume").clicked() {
                    actions.push(state.set_integrator(IntegratorKind::Kang));
                    actions.push(UiAction::Sim(Command::ClearDivergence));
                }
            });
        });
    actions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wind_direction_round_trips_through_the_panel_angles() {
        for v in [
            [6.0, 0.0, 0.0],
            [0.0, 0.0, -3.0],
            [2.0, 1.0, 2.0],
            [-4.0, -1.0, 0.5],
        ] {
            let (s, az, el) = wind_polar(v);
            let back = wind_vector(s, az, el);
            for c in 0..3 {
                assert!((back[c] - v[c]).abs() < 1e-9, "{v:?} → {back:?}");
            }
        }
        // 0° blows along +X, 90° along +Z.
        let w = wind_vector(1.0, 90.0, 0.0);
        assert!(w[0].abs() < 1e-12 && (w[2] - 1.0).abs() < 1e-12);
    }
}
