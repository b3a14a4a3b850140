//! Scene files (JSON, docs/scenes.md) and the built-in presets.
//!
//! A scene is a cloth (a grid, or explicit nodes and springs), the simulation parameters and the
//! render settings. Unknown fields are errors; omitted fields take their documented defaults.
//! Every failure becomes one [`SceneError`] naming the file, the field and what is wrong.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sim::format::device_choice::DeviceChoice;
use crate::sim::format::error::{SimError, nearest_name};
use crate::sim::format::flag_spec::FlagSpec;
use crate::sim::format::outline::{AlphaMask, FlagShape, Outline};
use crate::sim::format::params::{IntegratorKind, Params};
use crate::sim::format::render_settings::RenderSettings;

/// Ceiling on nodes, to protect memory (1024 × 1024).
pub(crate) const MAX_NODES: usize = 1 << 20;
/// Ceiling on springs.
pub(crate) const MAX_SPRINGS: usize = 8 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// One line shown by `flagsim presets` and in the viewer.
    #[serde(default)]
    pub description: String,
    /// Left out (or written as `{}`): the default flag's grid, [`GridSpec::default`].
    #[serde(default)]
    pub cloth: ClothSpec,
    #[serde(default)]
    pub params: Params,
    #[serde(default)]
    pub render: RenderSettings,
    /// Several flags, each on its own pole ([`crate::sim::runtime::flags`]); empty (the default): the scene
    /// is its one cloth.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<FlagSpec>,
    /// Where the cloth steps: `"cpu"` (the default), `"gpu"` or `"auto"` ([`DeviceChoice`]).
    #[serde(default, skip_serializing_if = "is_cpu")]
    pub device: DeviceChoice,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` lends a reference
fn is_cpu(d: &DeviceChoice) -> bool {
    *d == DeviceChoice::Cpu
}

/// Either `grid` or `nodes` + `springs` (+ optional `triangles`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClothSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<NodeSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub springs: Option<Vec<SpringSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triangles: Option<Vec<[usize; 3]>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ShearMode {
    /// Both diagonals of every quad. Default.
    #[default]
    Both,
    /// One diagonal per quad (huang-2014).
    One,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Plane {
    /// `i` along +X, `j` along +Y (a hanging flag). Default.
    #[default]
    Xy,
    /// `i` along +X, `j` along -Z (a horizontal sheet, front face up).
    Xz,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PinPreset {
    /// The whole `i = 0` edge, tied to a pole. Default.
    #[default]
    Hoist,
    /// `(0, ny-1)` and `(nx-1, ny-1)`.
    TopCorners,
    /// The whole `j = ny-1` edge.
    TopEdge,
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Pins {
    Preset(PinPreset),
    List(Vec<[usize; 2]>),
}

impl Default for Pins {
    fn default() -> Self {
        Pins::Preset(PinPreset::Hoist)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GridSpec {
    /// Key nodes along the width (u). Range 2..=1024. Default 10.
    pub nx: usize,
    /// Key nodes along the height (v). Range 2..=1024. Default 10.
    pub ny: usize,
    /// m. Default 1.2.
    pub width: f64,
    /// m. Default 0.8.
    pub height: f64,
    /// Position of node (0, 0), m. Default `[0, 1.6, 0]`.
    pub origin: [f64; 3],
    pub plane: Plane,
    /// Total cloth mass, kg, spread evenly. Default 0.12.
    pub mass: f64,
    pub shear: ShearMode,
    /// Bend springs two apart along rows and columns. Default `true`.
    pub bend: bool,
    pub pins: Pins,
    /// The flag's outline ([`FlagShape`]); only the nodes and springs of the cells it covers
    /// are kept. Default the rectangle.
    #[serde(skip_serializing_if = "is_rectangle")]
    pub shape: FlagShape,
    /// The flag image's transparency, for [`FlagShape::Image`] (not a field: set with the
    /// image, [`Scene::set_flag_alpha`]; `None` is opaque).
    #[serde(skip)]
    pub alpha: Option<std::sync::Arc<AlphaMask>>,
    /// Optional initial positions in node order (rest lengths still come from width/height).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<[f64; 3]>>,
    /// Whether the scene file wrote `width` and `height` (not a field: filled by
    /// [`Scene::from_json`]). A flag image keeps the sizes written and fits the others
    /// ([`Scene::fit_to_image`]).
    #[serde(skip)]
    pub size_written: [bool; 2],
}

impl Default for GridSpec {
    fn default() -> Self {
        Self {
            nx: 10,
            ny: 10,
            width: 1.2,
            height: 0.8,
            origin: [0.0, 1.6, 0.0],
            plane: Plane::Xy,
            mass: 0.12,
            shear: ShearMode::Both,
            bend: true,
            pins: Pins::default(),
            shape: FlagShape::Rectangle,
            alpha: None,
            positions: None,
            size_written: [false; 2],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// m.
    pub x: [f64; 3],
    /// m/s. Default zero.
    #[serde(default)]
    pub v: [f64; 3],
    /// kg, > 0.
    pub m: f64,
    #[serde(default)]
    pub pinned: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringSpec {
    pub a: usize,
    pub b: usize,
    /// N/m, ≥ 0.
    pub k: f64,
    /// m; default the initial distance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<f64>,
}

/// Everything that can go wrong loading a scene. Each message names the source and the field.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("{source_name}: cannot read the file: {error}")]
    Read {
        source_name: String,
        error: std::io::Error,
    },
    #[error("{source_name}: {message}")]
    Parse {
        source_name: String,
        message: String,
    },
    #[error("{source_name}: {error}")]
    Invalid {
        source_name: String,
        error: SimError,
    },
    /// A name that is neither a file nor a preset; `nearest` is the preset it is probably a
    /// typo of.
    #[error(
        "unknown preset or file '{name}': not a built-in preset{} and no such file (presets: {})",
        nearest.map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default(),
        preset_names().join(", ")
    )]
    UnknownPreset {
        name: String,
        nearest: Option<&'static str>,
    },
}

impl Scene {
    /// Parses scene JSON. `source_name` is used in messages (a path or `preset NAME`).
    pub fn from_json(text: &str, source_name: &str) -> Result<Self, SceneError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let scene: Scene = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let inner = with_suggestion(&inner.to_string());
            // `?` is where no key was read yet (text that is not JSON at all).
            let message = if path.is_empty() || path == "." || path == "?" {
                inner
            } else {
                format!("{path}: {inner}")
            };
            SceneError::Parse {
                source_name: source_name.to_string(),
                message,
            }
        })?;
        let mut scene = scene;
        if scene.cloth == ClothSpec::default() {
            scene.cloth.grid = Some(GridSpec::default());
        }
        if scene.device == DeviceChoice::Gpu && !scene.params.integrator.steps_on_gpu() {
            log::warn!(
                "{source_name}: \"device\": \"gpu\" steps kang-mg, not {}",
                scene.params.integrator.name()
            );
        }
        scene.set_device(scene.device);
        if let (Some(grid), Ok(value)) = (
            scene.cloth.grid.as_mut(),
            serde_json::from_str::<serde_json::Value>(text),
        ) {
            let written = |field: &str| value["cloth"]["grid"].get(field).is_some();
            grid.size_written = [written("width"), written("height")];
        }
        scene.validate().map_err(|error| SceneError::Invalid {
            source_name: source_name.to_string(),
            error,
        })?;
        Ok(scene)
    }

    /// Where the cloth steps; `gpu` makes an integrator the GPU does not step `kang-mg`.
    pub(crate) fn set_device(&mut self, device: DeviceChoice) {
        self.device = device;
        if device == DeviceChoice::Gpu && !self.params.integrator.steps_on_gpu() {
            self.params.integrator = IntegratorKind::KangMg;
        }
    }

    /// Loads a scene from a path ending in `.json` or existing on disk, else a preset name.
    pub fn load(name_or_path: &str) -> Result<Self, SceneError> {
        let path = PathBuf::from(name_or_path);
        let json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if path.exists() || json {
            return Self::from_file(&path);
        }
        match preset(name_or_path) {
            Some(text) => Self::from_json(text, &format!("preset {name_or_path}")),
            None => Err(SceneError::UnknownPreset {
                name: name_or_path.to_string(),
                nearest: nearest_name(name_or_path, &preset_names()),
            }),
        }
    }

    /// Loads a scene file; a relative `render.texture` or `render.setting.background` becomes
    /// relative to the file's folder.
    pub fn from_file(path: &Path) -> Result<Self, SceneError> {
        let source_name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| SceneError::Read {
            source_name: source_name.clone(),
            error,
        })?;
        let mut scene = Self::from_json(&text, &source_name)?;
        let render = &mut scene.render;
        let images = scene.flags.iter_mut().filter_map(|f| f.image.as_mut());
        for file in [render.texture.as_mut(), render.setting.background.as_mut()]
            .into_iter()
            .flatten()
            .chain(images)
        {
            if let Some(folder) = path.parent()
                && file.is_relative()
            {
                *file = folder.join(&*file);
            }
        }
        Ok(scene)
    }

    /// Tells a grid cloth its flag image's transparency (`alpha`, `width × height` values, top
    /// row first), which the image shape cuts it to; an opaque image (or one whose values do
    /// not fit its size) leaves it opaque.
    pub fn set_flag_alpha(&mut self, width: usize, height: usize, alpha: &[u8]) {
        if let Some(grid) = self.cloth.grid.as_mut() {
            grid.alpha = AlphaMask::from_alpha(width, height, alpha)
                .filter(|_| alpha.iter().any(|&a| a < 128))
                .map(std::sync::Arc::new);
        }
    }

    /// Gives a grid cloth the width/height ratio of a `width × height` pixel image, keeping
    /// what the scene file wrote: both sizes written, nothing changes; only the width, the
    /// height follows it; otherwise the height (the hoist, along the pole) stays and the width
    /// follows. Total mass, stiffness and the key grid stay, so `h²k/m` (and with it how the
    /// integrators behave) does too. Explicit cloths and grids with initial positions keep their
    /// shape. Returns whether the size changed.
    pub fn fit_to_image(&mut self, width: u32, height: u32) -> bool {
        let Some(grid) = self.cloth.grid.as_mut() else {
            return false;
        };
        if width == 0 || height == 0 || grid.positions.is_some() {
            return false;
        }
        let aspect = f64::from(width) / f64::from(height);
        let (w, h) = match grid.size_written {
            [true, true] => return false,
            [true, false] => (grid.width, grid.width / aspect),
            _ => (grid.height * aspect, grid.height),
        };
        // The validation's bound on a size; an extreme panorama is clamped, not refused.
        let (w, h) = (w.clamp(1e-3, 1e4), h.clamp(1e-3, 1e4));
        // Within rounding (0.8 × 3/2 is 1.2000000000000002): the same size, kept as written.
        let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
        if same(w, grid.width) && same(h, grid.height) {
            return false;
        }
        grid.width = w;
        grid.height = h;
        true
    }

    /// Pretty JSON of this scene (round-trips through [`Scene::from_json`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The nodes along the height of a key grid `nx` nodes wide in this grid's proportions
    /// (within [`GRID_SIDE`]); `None` for a cloth that is not a grid.
    pub fn proportional_height(&self, nx: usize) -> Option<usize> {
        let grid = self.cloth.grid.as_ref()?;
        let ny = (nx as f64 * grid.ny as f64 / grid.nx as f64).round() as usize;
        Some(ny.clamp(*GRID_SIDE.start(), *GRID_SIDE.end()))
    }

    /// This scene with a key grid of `nx × ny` nodes: the same size, total mass, springs'
    /// stiffness (a grid spring's `k`, N/m, is the sheet's in-plane stiffness whatever the
    /// spacing), wind, parameters and flags. Initial positions written for the old grid are
    /// dropped, and the render grid is raised to at least the key grid. A cloth given as nodes
    /// and springs has no grid to change.
    pub fn with_key_grid(&self, nx: usize, ny: usize) -> Result<Scene, SimError> {
        let mut scene = self.clone();
        let Some(grid) = scene.cloth.grid.as_mut() else {
            return Err(SimError::Structure {
                field: "cloth.grid",
                problem: "missing: only a grid cloth has a key grid to change",
            });
        };
        grid.nx = nx;
        grid.ny = ny;
        grid.positions = None;
        let render = &mut scene.render.resolution;
        render[0] = render[0].max(nx as u32);
        render[1] = render[1].max(ny as u32);
        scene.validate()?;
        Ok(scene)
    }

    /// Checks counts, indices, masses and ranges, and each of several flags; the failure
    /// names the field.
    pub fn validate(&self) -> Result<(), SimError> {
        self.validate_one()?;
        self.validate_flags()
    }

    /// [`Scene::validate`] but for `flags`: the scene's own cloth and parameters.
    pub(super) fn validate_one(&self) -> Result<(), SimError> {
        self.params.validate()?;
        self.render.validate()?;
        let c = &self.cloth;
        match (&c.grid, &c.nodes, &c.springs) {
            (Some(g), None, None) => {
                if c.triangles.is_some() {
                    return Err(SimError::Structure {
                        field: "cloth.triangles",
                        problem: "only for an explicit cloth (nodes + springs), a grid makes its own",
                    });
                }
                validate_grid(g)
            }
            (None, Some(nodes), springs) => validate_explicit(
                nodes,
                springs.as_deref().unwrap_or(&[]),
                c.triangles.as_deref(),
            ),
            (Some(_), _, _) => Err(SimError::Structure {
                field: "cloth",
                problem: "give either `grid` or `nodes` + `springs`, not both",
            }),
            (None, None, Some(_)) => Err(SimError::Structure {
                field: "cloth.nodes",
                problem: "missing (springs need nodes)",
            }),
            (None, None, None) if c.triangles.is_some() => Err(SimError::Structure {
                field: "cloth.triangles",
                problem: "only for an explicit cloth: give `nodes` + `springs` with them",
            }),
            // Only a scene made in code gets here: a parsed one without a cloth has the grid.
            (None, None, None) => Err(SimError::Structure {
                field: "cloth",
                problem: "empty; give `grid` or `nodes` + `springs`",
            }),
        }
    }
}

fn finite3(field: &str, v: [f64; 3]) -> Result<(), SimError> {
    if v.iter().all(|x| x.is_finite() && x.abs() <= 1e6) {
        Ok(())
    } else {
        Err(SimError::NotFinite3 {
            field: field.to_string(),
            value: v,
        })
    }
}

/// Key nodes a grid takes along each side.
pub const GRID_SIDE: std::ops::RangeInclusive<usize> = 2..=1024;

fn validate_grid(g: &GridSpec) -> Result<(), SimError> {
    for (f, n) in [("nx", g.nx), ("ny", g.ny)] {
        if !GRID_SIDE.contains(&n) {
            return Err(SimError::CountOutOfRange {
                field: format!("cloth.grid.{f}"),
                value: n as u64,
                min: *GRID_SIDE.start() as u64,
                max: *GRID_SIDE.end() as u64,
            });
        }
    }
    if g.nx * g.ny > MAX_NODES {
        return Err(SimError::GridTooLarge {
            nx: g.nx,
            ny: g.ny,
            limit: MAX_NODES,
        });
    }
    for (f, v) in [("width", g.width), ("height", g.height)] {
        if !(v.is_finite() && v > 0.0 && v <= 1e4) {
            return Err(SimError::BadNumber {
                field: format!("cloth.grid.{f}"),
                expected: "a finite length in (0, 1e4] m",
                value: v,
            });
        }
    }
    crate::sim::format::params::spec::TOTAL_MASS.check(g.mass)?;
    finite3("cloth.grid.origin", g.origin)?;
    g.shape.check()?;
    if let Pins::List(list) = &g.pins {
        let kept = kept_nodes(g);
        for (k, [i, j]) in list.iter().enumerate() {
            if *i >= g.nx || *j >= g.ny {
                return Err(SimError::PinOutsideGrid {
                    index: k,
                    i: *i,
                    j: *j,
                    nx: g.nx,
                    ny: g.ny,
                });
            }
            if !kept[j * g.nx + i] {
                return Err(SimError::PinOutsideShape {
                    index: k,
                    i: *i,
                    j: *j,
                    shape: g.shape.name(),
                });
            }
        }
    }
    if let Some(p) = &g.positions {
        if p.len() != g.nx * g.ny {
            return Err(SimError::PositionCount {
                expected: g.nx * g.ny,
                got: p.len(),
            });
        }
        for (k, x) in p.iter().enumerate() {
            finite3(&format!("cloth.grid.positions[{k}]"), *x)?;
        }
    }
    Ok(())
}

fn validate_explicit(
    nodes: &[NodeSpec],
    springs: &[SpringSpec],
    triangles: Option<&[[usize; 3]]>,
) -> Result<(), SimError> {
    if nodes.is_empty() {
        return Err(SimError::Structure {
            field: "cloth.nodes",
            problem: "empty; a cloth needs at least one node",
        });
    }
    if nodes.len() > MAX_NODES {
        return Err(SimError::TooMany {
            field: "cloth.nodes",
            what: "nodes",
            count: nodes.len(),
            limit: MAX_NODES,
        });
    }
    if springs.len() > MAX_SPRINGS {
        return Err(SimError::TooMany {
            field: "cloth.springs",
            what: "springs",
            count: springs.len(),
            limit: MAX_SPRINGS,
        });
    }
    for (i, n) in nodes.iter().enumerate() {
        finite3(&format!("cloth.nodes[{i}].x"), n.x)?;
        finite3(&format!("cloth.nodes[{i}].v"), n.v)?;
        if !(n.m.is_finite() && n.m > 0.0 && n.m <= 1e6) {
            return Err(SimError::BadNumber {
                field: format!("cloth.nodes[{i}].m"),
                expected: "a finite mass in (0, 1e6] kg",
                value: n.m,
            });
        }
    }
    let count = nodes.len();
    for (k, s) in springs.iter().enumerate() {
        for (f, idx) in [("a", s.a), ("b", s.b)] {
            if idx >= count {
                return Err(SimError::NodeIndex {
                    field: format!("cloth.springs[{k}].{f}"),
                    index: idx,
                    count,
                });
            }
        }
        if s.a == s.b {
            return Err(SimError::SelfSpring {
                spring: k,
                node: s.a,
            });
        }
        if !(s.k.is_finite() && s.k >= 0.0 && s.k <= 1e9) {
            return Err(SimError::BadNumber {
                field: format!("cloth.springs[{k}].k"),
                expected: "a finite stiffness in [0, 1e9] N/m",
                value: s.k,
            });
        }
        if let Some(r) = s.rest
            && !(r.is_finite() && (0.0..=1e6).contains(&r))
        {
            return Err(SimError::BadNumber {
                field: format!("cloth.springs[{k}].rest"),
                expected: "a finite length ≥ 0 m",
                value: r,
            });
        }
    }
    for (k, t) in triangles.unwrap_or(&[]).iter().enumerate() {
        for idx in t {
            if *idx >= count {
                return Err(SimError::NodeIndex {
                    field: format!("cloth.triangles[{k}]"),
                    index: *idx,
                    count,
                });
            }
        }
    }
    Ok(())
}

fn is_rectangle(shape: &FlagShape) -> bool {
    *shape == FlagShape::Rectangle
}

/// `g`'s shape with its image's mask.
pub(crate) fn outline(g: &GridSpec) -> Outline<'_> {
    Outline {
        shape: g.shape,
        mask: g.alpha.as_deref(),
    }
}

/// Where node `(i, j)` of `g` sits in the flag's `(u, v)`.
pub(crate) fn grid_uv(g: &GridSpec, i: usize, j: usize) -> [f64; 2] {
    [i as f64 / (g.nx - 1) as f64, j as f64 / (g.ny - 1) as f64]
}

/// Per node, whether `g`'s shape keeps it: whether the shape covers part of one of the (up to
/// four) cells it is a corner of.
pub(crate) fn kept_nodes(g: &GridSpec) -> Vec<bool> {
    let (nx, ny) = (g.nx, g.ny);
    if g.shape == FlagShape::Rectangle {
        return vec![true; nx * ny];
    }
    let outline = outline(g);
    // Cell (i, j) spans nodes i..=i+1 and j..=j+1.
    let covered: Vec<bool> = (0..ny - 1)
        .flat_map(|j| (0..nx - 1).map(move |i| (i, j)))
        .map(|(i, j)| {
            let [u0, v0] = grid_uv(g, i, j);
            let [u1, v1] = grid_uv(g, i + 1, j + 1);
            outline.covers_cell([u0, u1], [v0, v1])
        })
        .collect();
    let cell = |i: usize, j: usize| covered[j * (nx - 1) + i];
    (0..ny)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| {
            let is = [i.checked_sub(1), (i + 1 < nx).then_some(i)];
            let js = [j.checked_sub(1), (j + 1 < ny).then_some(j)];
            is.iter()
                .flatten()
                .any(|&ci| js.iter().flatten().any(|&cj| cell(ci, cj)))
        })
        .collect()
}

/// The built-in presets: name and JSON text (the files in `assets/presets/`).
pub const PRESETS: [(&str, &str); 9] = [
    ("flag", include_str!("../../../assets/presets/flag.json")),
    (
        "paper-fig7",
        include_str!("../../../assets/presets/paper-fig7.json"),
    ),
    (
        "waving",
        include_str!("../../../assets/presets/waving.json"),
    ),
    (
        "hanging",
        include_str!("../../../assets/presets/hanging.json"),
    ),
    (
        "horizontal",
        include_str!("../../../assets/presets/horizontal.json"),
    ),
    (
        "drop-on-ball",
        include_str!("../../../assets/presets/drop-on-ball.json"),
    ),
    (
        "two-masses",
        include_str!("../../../assets/presets/two-masses.json"),
    ),
    (
        "wavelet",
        include_str!("../../../assets/presets/wavelet.json"),
    ),
    ("flags", include_str!("../../../assets/presets/flags.json")),
];

/// The JSON text of a built-in preset.
/// serde's "unknown variant `xpdb`, expected one of `kang`, …" (or "unknown field …") with
/// the listed name nearest to the unknown one suggested after it, when one is near enough.
fn with_suggestion(message: &str) -> String {
    let unknown = ["unknown variant `", "unknown field `"]
        .iter()
        .find_map(|p| message.split_once(p).map(|(_, rest)| rest));
    let suggestion = unknown.and_then(|rest| {
        let (name, rest) = rest.split_once('`')?;
        let (_, listed) = rest.split_once("expected one of ")?;
        let known: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
        nearest_name(name, &known)
    });
    match suggestion {
        Some(near) => format!("{message} (did you mean `{near}`?)"),
        None => message.to_string(),
    }
}

/// The built-in presets' names, in `flagsim presets`' order.
pub(crate) fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

pub fn preset(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The failure of a scene that parses but does not make a cloth.
    fn refused(json: &str) -> SimError {
        match Scene::from_json(json, "test") {
            Err(SceneError::Invalid { source_name, error }) => {
                assert_eq!(source_name, "test");
                error
            }
            other => panic!("{json}: {other:?}"),
        }
    }

    #[test]
    fn a_parse_error_names_the_field_where_there_is_one() {
        let message = |json: &str| match Scene::from_json(json, "test") {
            Err(SceneError::Parse { message, .. }) => message,
            other => panic!("{json}: {other:?}"),
        };
        // Not JSON from its first key: no path, only where.
        assert_eq!(message("{bad"), "key must be a string at line 1 column 2");
        // JSON, but not an object: the whole text is at fault.
        assert!(
            message("42").starts_with("invalid type: integer"),
            "{}",
            message("42")
        );
        assert!(message(r#"{ "params": { "dt": "x" } }"#).starts_with("params.dt: "));
    }

    #[test]
    fn a_scene_without_a_cloth_gets_the_default_flags_grid() {
        for json in [
            r#"{ "params": { "dt": 0.01, "integrator": "kang" } }"#,
            r#"{ "cloth": {}, "params": { "dt": 0.01, "integrator": "kang" } }"#,
        ] {
            let scene = Scene::from_json(json, "test").unwrap();
            let grid = scene.cloth.grid.as_ref().expect("a grid");
            // The documented defaults: 10 × 10 nodes, 1.2 m × 0.8 m, 0.12 kg.
            assert_eq!((grid.nx, grid.ny), (10, 10), "{json}");
            assert_eq!((grid.width, grid.height, grid.mass), (1.2, 0.8, 0.12));
            assert_eq!(scene.params.dt, 0.01, "what was written is kept");
            assert_eq!(scene.params.integrator.name(), "kang");
            assert_eq!(scene.build_cloth().node_count(), 100);
        }
        assert!(Scene::from_json("{}", "test").is_ok());
        // Triangles alone are not a cloth.
        assert_eq!(
            refused(r#"{ "cloth": { "triangles": [[0, 1, 2]] } }"#),
            SimError::Structure {
                field: "cloth.triangles",
                problem: "only for an explicit cloth: give `nodes` + `springs` with them"
            }
        );
    }

    #[test]
    fn a_mistyped_name_in_a_scene_file_gets_the_nearest_suggested() {
        let parse_error = |json: &str| match Scene::from_json(json, "test") {
            Err(SceneError::Parse { message, .. }) => message,
            other => panic!("{json}: {other:?}"),
        };
        let m = parse_error(r#"{ "params": { "integrator": "xpdb" } }"#);
        assert!(m.contains("params.integrator"), "{m}");
        assert!(m.ends_with("(did you mean `xpbd`?)"), "{m}");
        let m = parse_error(r#"{ "cloth": { "grid": { "widht": 1 } } }"#);
        assert!(m.ends_with("(did you mean `width`?)"), "{m}");
        let m = parse_error(r#"{ "params": { "integrator": "banana" } }"#);
        assert!(!m.contains("did you mean"), "{m}");
        assert!(m.contains("expected one of"), "the list stays: {m}");
    }

    #[test]
    fn a_mistyped_preset_suggests_the_nearest_and_lists_them_all() {
        let e = Scene::load("flagg").unwrap_err();
        assert!(
            matches!(&e, SceneError::UnknownPreset { name, nearest: Some("flag") } if name == "flagg"),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(text.contains("did you mean 'flag'?"), "{text}");
        for name in preset_names() {
            assert!(text.contains(name), "{text}");
        }
        let e = Scene::load("zzzzzz").unwrap_err();
        assert!(
            matches!(&e, SceneError::UnknownPreset { nearest: None, .. }),
            "{e:?}"
        );
        assert!(!e.to_string().contains("did you mean"), "{e}");
    }

    #[test]
    fn each_bad_field_is_refused_as_its_own_failure_with_its_values() {
        assert_eq!(
            refused(r#"{ "cloth": { "grid": { "nx": 1, "ny": 4 } } }"#),
            SimError::CountOutOfRange {
                field: "cloth.grid.nx".into(),
                value: 1,
                min: 2,
                max: 1024
            }
        );
        assert_eq!(
            refused(r#"{ "cloth": { "grid": { "nx": 3, "ny": 3, "pins": [[1, 3]] } } }"#),
            SimError::PinOutsideGrid {
                index: 0,
                i: 1,
                j: 3,
                nx: 3,
                ny: 3
            }
        );
        assert_eq!(
            refused(r#"{ "cloth": { "grid": { "nx": 3, "ny": 3, "width": -1 } } }"#),
            SimError::BadNumber {
                field: "cloth.grid.width".into(),
                expected: "a finite length in (0, 1e4] m",
                value: -1.0
            }
        );
        assert_eq!(
            refused(r#"{ "cloth": { "grid": { "nx": 2, "ny": 2, "positions": [[0, 0, 0]] } } }"#),
            SimError::PositionCount {
                expected: 4,
                got: 1
            }
        );
        let two = r#""nodes": [ { "x": [0, 0, 0], "m": 1 }, { "x": [1, 0, 0], "m": 1 } ]"#;
        assert_eq!(
            refused(&format!(
                r#"{{ "cloth": {{ {two}, "springs": [ {{ "a": 0, "b": 2, "k": 1 }} ] }} }}"#
            )),
            SimError::NodeIndex {
                field: "cloth.springs[0].b".into(),
                index: 2,
                count: 2
            }
        );
        assert_eq!(
            refused(&format!(
                r#"{{ "cloth": {{ {two}, "springs": [ {{ "a": 1, "b": 1, "k": 1 }} ] }} }}"#
            )),
            SimError::SelfSpring { spring: 0, node: 1 }
        );
        assert_eq!(
            refused(r#"{ "cloth": { "springs": [ { "a": 0, "b": 1, "k": 1 } ] } }"#),
            SimError::Structure {
                field: "cloth.nodes",
                problem: "missing (springs need nodes)"
            }
        );
        let e = refused(r#"{ "cloth": { "grid": { "nx": 3, "ny": 3 } }, "params": { "dt": 0 } }"#);
        assert!(
            matches!(&e, SimError::OutOfRange { field, value, .. } if field == "params.dt" && *value == 0.0),
            "{e:?}"
        );
        let e = refused(
            r#"{ "cloth": { "grid": { "nx": 3, "ny": 3 } }, "render": { "resolution": [50, 1] } }"#,
        );
        assert!(
            matches!(&e, SimError::CountOutOfRange { field, value: 1, .. } if field == "render.resolution (v)"),
            "{e:?}"
        );
    }

    #[test]
    fn a_scene_at_another_key_grid_keeps_its_size_mass_springs_and_wind() {
        let flag = Scene::load("flag").expect("preset");
        let fine = flag.with_key_grid(32, 24).expect("in range");
        let g = fine.cloth.grid.as_ref().expect("a grid");
        assert_eq!((g.nx, g.ny), (32, 24));
        assert_eq!((g.width, g.height, g.mass), (1.2, 0.8, 0.12));
        assert_eq!(fine.params, flag.params);
        assert_eq!(fine.render.resolution, [50, 50]);
        // Never fewer render nodes than key nodes.
        let finer = flag.with_key_grid(64, 8).expect("in range");
        assert_eq!(finer.render.resolution, [64, 50]);
        // The built cloth: the same total mass over 32 × 24 nodes, the same width, the spacing
        // the width over 31 spaces.
        let cloth = fine.simulation().expect("simulation").cloth;
        assert_eq!(cloth.node_count(), 32 * 24);
        assert!((cloth.total_mass() - 0.12).abs() < 1e-12);
        let (lo, hi) = cloth.x.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p.x), hi.max(p.x))
        });
        assert!((hi - lo - 1.2).abs() < 1e-12, "{}", hi - lo);
        let spacing = cloth.grid().expect("a grid").l0_u;
        assert!((spacing - 1.2 / 31.0).abs() < 1e-12, "{spacing}");
    }

    #[test]
    fn a_key_grid_out_of_range_or_without_a_grid_is_refused() {
        let flag = Scene::load("flag").expect("preset");
        assert!(matches!(
            flag.with_key_grid(1, 10),
            Err(SimError::CountOutOfRange {
                value: 1,
                min: 2,
                max: 1024,
                ..
            })
        ));
        assert!(matches!(
            flag.with_key_grid(10, 1025),
            Err(SimError::CountOutOfRange { value: 1025, .. })
        ));
        let explicit = Scene::load("two-masses").expect("preset");
        assert!(explicit.cloth.grid.is_none());
        assert!(matches!(
            explicit.with_key_grid(10, 10),
            Err(SimError::Structure {
                field: "cloth.grid",
                ..
            })
        ));
    }
}
