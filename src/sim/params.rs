//! Every simulation parameter, with its unit, range and default.
//!
//! `Params` is plain data: the scene file's `"params"` section deserialises into it (every field
//! optional, unknown fields rejected), the viewer edits a copy and sends it back as a command, and
//! the step reads it explicitly. Nothing here is precomputed from it, so any value may change
//! between two steps (the paper's point in §2.2); only `desbrun` caches, and it checks.

use serde::{Deserialize, Serialize};

/// The integrators of method.md §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IntegratorKind {
    /// Kang et al.'s approximate implicit update: Jacobi iterations on the filter system (eq. 10).
    #[default]
    Kang,
    /// Forward Euler: `v' = v + h F/m`, `x' = x + h v`.
    ExplicitEuler,
    /// Semi-implicit Euler: `v' = v + h F/m`, `x' = x + h v'`.
    SymplecticEuler,
    /// Position Verlet: `x' = 2x - x_prev + h² F/m`.
    Verlet,
    /// Linearised backward Euler (Baraff–Witkin) solved by conjugate gradients.
    ImplicitCg,
    /// Desbrun et al.'s precomputed filter (eq. 5), a dense inverse.
    Desbrun,
    /// Chi 2007 §4.3: `Δv` from `kang`, position advanced with the old velocity.
    Hybrid,
    /// Extended position-based dynamics: substeps of distance constraints with compliance `1/k`.
    Xpbd,
    /// Choi & Ko 2002: the immediate buckling model, BDF2 solved by block-preconditioned CG.
    ChoiKo,
}

impl IntegratorKind {
    pub const ALL: [IntegratorKind; 9] = [
        IntegratorKind::Kang,
        IntegratorKind::ExplicitEuler,
        IntegratorKind::SymplecticEuler,
        IntegratorKind::Verlet,
        IntegratorKind::ImplicitCg,
        IntegratorKind::Desbrun,
        IntegratorKind::Hybrid,
        IntegratorKind::Xpbd,
        IntegratorKind::ChoiKo,
    ];

    /// The name used on the command line and in scene files.
    pub fn name(self) -> &'static str {
        match self {
            IntegratorKind::Kang => "kang",
            IntegratorKind::ExplicitEuler => "explicit-euler",
            IntegratorKind::SymplecticEuler => "symplectic-euler",
            IntegratorKind::Verlet => "verlet",
            IntegratorKind::ImplicitCg => "implicit-cg",
            IntegratorKind::Desbrun => "desbrun",
            IntegratorKind::Hybrid => "hybrid",
            IntegratorKind::Xpbd => "xpbd",
            IntegratorKind::ChoiKo => "choi-ko",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Members of the implicit family see the viscosity term of eq. 4 in `F̃`.
    pub fn uses_filter_system(self) -> bool {
        matches!(
            self,
            IntegratorKind::Kang | IntegratorKind::Desbrun | IntegratorKind::Hybrid
        )
    }
}

/// Spring stiffness per family, N/m.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Stiffness {
    /// 4-neighbour springs. Range 0..=1e6 N/m. Default 40.
    pub structural: f64,
    /// Diagonal springs. Range 0..=1e6 N/m. Default 10.
    pub shear: f64,
    /// Springs two nodes apart along rows and columns. Range 0..=1e6 N/m. Default 1.
    pub bend: f64,
}

impl Default for Stiffness {
    fn default() -> Self {
        Self {
            structural: 40.0,
            shear: 10.0,
            bend: 1.0,
        }
    }
}

/// Lift formula (method.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LiftModel {
    /// Eqs. 18–19 literally: `F_L = K_L cosθ |v_rel|² U`, `U = (Ñ × v̂) × v̂`.
    #[default]
    Paper,
    /// `F_L = -K_L |v_rel|² (N̂·v̂)(N̂ - (N̂·v̂) v̂)`: no sign flip edge-on.
    Smooth,
}

/// Drag integration (method.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DragModel {
    /// Per-node implicit drag: `Δv_D = -(c h / (m + c h)) v_rel`, never overshoots; lift and
    /// linear wind `F` likewise as `h F / (m + h |F| / |v_rel|)`.
    #[default]
    SemiImplicit,
    /// Eqs. 17–19 applied as explicit forces.
    Explicit,
}

/// Deterministic gusts on top of the base wind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Gust {
    /// Relative speed fluctuation (dimensionless, 0 = steady). Range 0..=2. Default 0.6.
    pub strength: f64,
    /// Typical time between gusts, s. Range 0.05..=60. Default 1.
    pub period: f64,
    /// Noise seed: the same seed gives the same wind. Default 1.
    pub seed: u64,
}

impl Default for Gust {
    fn default() -> Self {
        Self {
            strength: 0.6,
            period: 1.0,
            seed: 1,
        }
    }
}

/// Air interaction (paper §4). `drag`, `lift` and `linear` are per key node of a 10 × 10 cloth
/// (the paper's model); a cloth of N nodes gives each node 100 / N of them, so refining the same
/// cloth does not multiply the wind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Wind {
    /// Base wind velocity, m/s. Each component in -200..=200. Default `[6, 0, 0]`.
    pub velocity: [f64; 3],
    /// Drag constant `K_D` of eq. 17, kg/m. Range 0..=10. Default 0.004.
    pub drag: f64,
    /// Lift constant `K_L` of eq. 19, kg/m. Range 0..=10. Default 0.002.
    pub lift: f64,
    /// Default `paper`.
    pub lift_model: LiftModel,
    /// Default `semi-implicit`.
    pub drag_model: DragModel,
    /// Linear wind constant `k_w` of huang-2014, `F_w = k_w (v_wind - v)`, kg/s. Range 0..=10.
    /// Default 0.004: the paper's pressure drag and lift vanish on cloth edge-on to the wind, so
    /// without this skin-friction-like pull a flag in a steady wind would hang.
    pub linear: f64,
    pub gust: Gust,
    /// Time constant with which the air follows a change of `velocity`, s: the wind a node feels
    /// moves toward the set value by `1 - exp(-h / response)` per step, so turning the wind up
    /// does not hit the cloth as a step. 0 = instant. Range 0..=10. Default 0.5.
    pub response: f64,
}

impl Default for Wind {
    fn default() -> Self {
        Self {
            velocity: [6.0, 0.0, 0.0],
            drag: 0.004,
            lift: 0.002,
            lift_model: LiftModel::Paper,
            drag_model: DragModel::SemiImplicit,
            linear: 0.004,
            gust: Gust::default(),
            response: 0.5,
        }
    }
}

/// Provot's strain limiting (method.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Provot {
    /// Default `true`.
    pub enabled: bool,
    /// Largest allowed stretch `τ` (0.1 = 10 %). Range 0..=10. Default 0.1.
    pub max_stretch: f64,
    /// Most Gauss–Seidel sweeps per step; they stop at the first sweep that corrects nothing.
    /// Range 0..=100. Default 4.
    pub iterations: u32,
    /// Long-range tethers before the sweeps: every free node kept within
    /// `(1 + tether_stretch)` times its rest distance along the cloth from the kinematic nodes
    /// (the nearest node and the two ends of each pinned region; `sim::tethers`). They hold a
    /// cloth of any resolution in one pass, which the sweeps alone cannot. Default `true`.
    pub tethers: bool,
    /// How far a tether may stretch beyond its rest distance (0.05 = 5 %). Range 0..=10.
    /// Default 0: the cloth as a whole never moves farther from its pins than at rest, and the
    /// sweeps keep every spring within `τ` locally. (Tethers at `τ` let a hanging sheet sag
    /// until every tether is taut at `1 + τ`; then the sweeps must hold every spring at exactly
    /// its limit and do not converge: a 64 × 64 sheet ended with springs at 1.27 × rest.)
    pub tether_stretch: f64,
}

impl Default for Provot {
    fn default() -> Self {
        Self {
            enabled: true,
            max_stretch: 0.1,
            iterations: 4,
            tethers: true,
            tether_stretch: 0.0,
        }
    }
}

/// A collision shape for the key nodes (method.md §6).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Collider {
    Sphere(SphereCollider),
    Ground(GroundCollider),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereCollider {
    /// Centre, m.
    pub center: [f64; 3],
    /// Radius, m. Range > 0.
    pub radius: f64,
    /// Coulomb friction coefficient. Range 0..=10. Default 0.4.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Extra thickness kept between nodes and the surface, m. Range 0..=1. Default 0.01.
    #[serde(default = "default_margin")]
    pub margin: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundCollider {
    /// Height of the plane `y = height`, m. Default 0.
    #[serde(default)]
    pub height: f64,
    /// Coulomb friction coefficient. Range 0..=10. Default 0.4.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Extra thickness, m. Range 0..=1. Default 0.01.
    #[serde(default = "default_margin")]
    pub margin: f64,
}

fn default_friction() -> f64 {
    0.4
}
fn default_margin() -> f64 {
    0.01
}

/// Scripted motion of the pinned nodes (the pole).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HandlePath {
    /// Pinned nodes stay where they are (apart from the user's pole drag).
    #[default]
    None,
    /// A figure 8 (lemniscate of Gerono) in the plane across the wind: `z = A sin ωt`,
    /// `y = (A/2) sin 2ωt`, standing in for the paper's motion-captured character.
    Figure8,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Handle {
    /// Default `none`.
    pub path: HandlePath,
    /// Size of the path, m. Range 0..=10. Default 0.3.
    pub amplitude: f64,
    /// Time for one loop, s. Range 0.1..=60. Default 2.
    pub period: f64,
}

impl Default for Handle {
    fn default() -> Self {
        Self {
            path: HandlePath::None,
            amplitude: 0.3,
            period: 2.0,
        }
    }
}

/// Conjugate-gradient settings of `implicit-cg` and `choi-ko`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CgSettings {
    /// Relative residual at which CG stops. Range 1e-14..=1. Default 1e-6.
    pub tolerance: f64,
    /// Iteration cap. Range 1..=10000. Default 200.
    pub max_iterations: u32,
}

impl Default for CgSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_iterations: 200,
        }
    }
}

/// The immediate buckling model of `choi-ko` (Choi & Ko 2002, §3). Type-1 links take the
/// structural and shear stiffness from `stiffness`; these two shape the type-2 links.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChoiKo {
    /// Flexural rigidity `k_b` of a type-2 link, N·m²: a slightly compressed link pushes back
    /// with `12 k_b / L²`, a fully folded one with `4π² k_b / L²`. Range 0..=10. Default 2e-5.
    pub flexural_rigidity: f64,
    /// Slope `c_b` of eq. 11's clamp, N/m: the force of a type-2 link is
    /// `max(f_b, c_b (|x| − L))`, so compression starts linearly. Range 0..=1e6. Default 40.
    pub buckling_clamp: f64,
}

impl Default for ChoiKo {
    fn default() -> Self {
        Self {
            flexural_rigidity: 2e-5,
            buckling_clamp: 40.0,
        }
    }
}

/// The thesis's wavelet-guided interpolation (Chi 2007, ch. 5), for `kang` and `hybrid`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Wavelet {
    /// Default `false`.
    pub enabled: bool,
    /// Largest Haar detail coefficient of the key-node normals (dimensionless; unit normals,
    /// coefficients are quarter-sums of differences) for which a block counts as flat and its
    /// interior is interpolated. 0 interpolates nothing. Range 0..=1. Default 0.025 (the thesis).
    pub threshold: f64,
}

impl Default for Wavelet {
    fn default() -> Self {
        Self {
            enabled: false,
            threshold: 0.025,
        }
    }
}

/// Everything the step reads. See README for the table of defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Default `kang`.
    pub integrator: IntegratorKind,
    /// Published step `dt`, s. Range 1e-5..=0.5. Default 1/60.
    pub dt: f64,
    /// Physics steps per published step; each advances `h = dt / substeps`. Range 1..=100.
    /// Default 1.
    pub substeps: u32,
    /// Jacobi iterations of `kang` (1 = eq. 9, 2 = eq. 10). Range 1..=50. Default 2.
    pub jacobi_iterations: u32,
    /// Substeps of `xpbd` per physics step (one constraint pass each). Range 1..=100. Default 10.
    pub xpbd_substeps: u32,
    pub stiffness: Stiffness,
    /// Spring damping along each spring, N·s/m. Range 0..=1e3. Default 0.
    pub damping: f64,
    /// The viscosity term `h Σ k (v_j - v_i)` of eq. 4 in `F̃`. Default `true`.
    pub viscosity: bool,
    /// Feed external forces through the filter too (for comparison). Default `false`.
    pub filter_external: bool,
    /// Gravity, m/s². Default `[0, -9.81, 0]`.
    pub gravity: [f64; 3],
    pub wind: Wind,
    pub provot: Provot,
    /// Default none.
    pub colliders: Vec<Collider>,
    pub handle: Handle,
    pub cg: CgSettings,
    pub choi_ko: ChoiKo,
    pub wavelet: Wavelet,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            integrator: IntegratorKind::Kang,
            dt: 1.0 / 60.0,
            substeps: 1,
            jacobi_iterations: 2,
            xpbd_substeps: 10,
            stiffness: Stiffness::default(),
            damping: 0.0,
            viscosity: true,
            filter_external: false,
            gravity: [0.0, -9.81, 0.0],
            wind: Wind::default(),
            provot: Provot::default(),
            colliders: Vec::new(),
            handle: Handle::default(),
            cg: CgSettings::default(),
            choi_ko: ChoiKo::default(),
            wavelet: Wavelet::default(),
        }
    }
}

fn check(ok: bool, field: &str, what: &str, value: impl std::fmt::Display) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{field}: {what}, got {value}"))
    }
}

fn in_range(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), String> {
    check(
        v.is_finite() && v >= lo && v <= hi,
        field,
        &format!("must be a finite number in {lo}..={hi}"),
        v,
    )
}

fn vec_in_range(field: &str, v: [f64; 3], bound: f64) -> Result<(), String> {
    for (c, x) in ["x", "y", "z"].iter().zip(v) {
        in_range(&format!("{field}.{c}"), x, -bound, bound)?;
    }
    Ok(())
}

impl Params {
    /// `h`, the physics step, s.
    pub fn h(&self) -> f64 {
        self.dt / self.substeps.max(1) as f64
    }

    /// Checks every range documented above. The message names the field (`params.…`).
    pub fn validate(&self) -> Result<(), String> {
        in_range("params.dt", self.dt, 1e-5, 0.5)?;
        check(
            (1..=100).contains(&self.substeps),
            "params.substeps",
            "must be in 1..=100",
            self.substeps,
        )?;
        check(
            (1..=50).contains(&self.jacobi_iterations),
            "params.jacobi_iterations",
            "must be in 1..=50",
            self.jacobi_iterations,
        )?;
        in_range(
            "params.stiffness.structural",
            self.stiffness.structural,
            0.0,
            1e6,
        )?;
        in_range("params.stiffness.shear", self.stiffness.shear, 0.0, 1e6)?;
        in_range("params.stiffness.bend", self.stiffness.bend, 0.0, 1e6)?;
        in_range("params.damping", self.damping, 0.0, 1e3)?;
        vec_in_range("params.gravity", self.gravity, 1e3)?;
        vec_in_range("params.wind.velocity", self.wind.velocity, 200.0)?;
        in_range("params.wind.drag", self.wind.drag, 0.0, 10.0)?;
        in_range("params.wind.lift", self.wind.lift, 0.0, 10.0)?;
        in_range("params.wind.linear", self.wind.linear, 0.0, 10.0)?;
        in_range(
            "params.wind.gust.strength",
            self.wind.gust.strength,
            0.0,
            2.0,
        )?;
        in_range("params.wind.gust.period", self.wind.gust.period, 0.05, 60.0)?;
        in_range("params.wind.response", self.wind.response, 0.0, 10.0)?;
        in_range(
            "params.provot.max_stretch",
            self.provot.max_stretch,
            0.0,
            10.0,
        )?;
        in_range(
            "params.provot.tether_stretch",
            self.provot.tether_stretch,
            0.0,
            10.0,
        )?;
        check(
            self.provot.iterations <= 100,
            "params.provot.iterations",
            "must be in 0..=100",
            self.provot.iterations,
        )?;
        for (i, c) in self.colliders.iter().enumerate() {
            let f = format!("params.colliders[{i}]");
            match c {
                Collider::Sphere(s) => {
                    vec_in_range(&format!("{f}.sphere.center"), s.center, 1e4)?;
                    in_range(&format!("{f}.sphere.radius"), s.radius, 1e-6, 1e4)?;
                    in_range(&format!("{f}.sphere.friction"), s.friction, 0.0, 10.0)?;
                    in_range(&format!("{f}.sphere.margin"), s.margin, 0.0, 1.0)?;
                }
                Collider::Ground(g) => {
                    in_range(&format!("{f}.ground.height"), g.height, -1e4, 1e4)?;
                    in_range(&format!("{f}.ground.friction"), g.friction, 0.0, 10.0)?;
                    in_range(&format!("{f}.ground.margin"), g.margin, 0.0, 1.0)?;
                }
            }
        }
        in_range("params.handle.amplitude", self.handle.amplitude, 0.0, 10.0)?;
        in_range("params.handle.period", self.handle.period, 0.1, 60.0)?;
        in_range("params.cg.tolerance", self.cg.tolerance, 1e-14, 1.0)?;
        check(
            (1..=10000).contains(&self.cg.max_iterations),
            "params.cg.max_iterations",
            "must be in 1..=10000",
            self.cg.max_iterations,
        )?;
        in_range(
            "params.choi_ko.flexural_rigidity",
            self.choi_ko.flexural_rigidity,
            0.0,
            10.0,
        )?;
        in_range(
            "params.choi_ko.buckling_clamp",
            self.choi_ko.buckling_clamp,
            0.0,
            1e6,
        )?;
        in_range("params.wavelet.threshold", self.wavelet.threshold, 0.0, 1.0)?;
        Ok(())
    }
}
