//! Every simulation parameter, with its unit, range and default.
//!
//! `Params` is plain data: the scene file's `"params"` section deserialises into it (every field
//! optional, unknown fields rejected), the viewer edits a copy and sends it back as a command, and
//! the step reads it explicitly. Nothing here is precomputed from it, so any value may change
//! between two steps (the paper's point in §2.2); only `desbrun` caches, and it checks.

use crate::sim::error::SimError;
use serde::{Deserialize, Serialize};

pub mod spec;

/// The integrator registry: each integrator is one line here (its variant, with its doc and
/// attributes, and its name on the command line and in scene files), from which the enum,
/// [`IntegratorKind::ALL`] (in this order) and [`IntegratorKind::name`] are generated, so none
/// of them can be out of step with another. What else a new integrator needs, the compiler
/// asks for: its constructor in `integrators::make` (an exhaustive match), its style in
/// `bench::plot::STYLES` (an array as long as `ALL`), and `parameters.toml`'s `INTEGRATOR`
/// names (a test compares them with `ALL`). ARCHITECTURE.md walks through it.
macro_rules! integrator_registry {
    ($($(#[$attr:meta])* $variant:ident => $name:literal,)+) => {
        /// The integrators of docs/method.md §3.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
        #[serde(rename_all = "kebab-case")]
        pub enum IntegratorKind {
            $($(#[$attr])* $variant,)+
        }

        impl IntegratorKind {
            /// Every integrator, in the registry's order: `ALL[k.index()] == k`.
            pub const ALL: [IntegratorKind; [$($name),+].len()] = [$(IntegratorKind::$variant),+];

            /// The name used on the command line and in scene files.
            pub fn name(self) -> &'static str {
                match self {
                    $(IntegratorKind::$variant => $name,)+
                }
            }
        }
    };
}

integrator_registry! {
    /// Kang et al.'s approximate implicit update: Jacobi iterations on the filter system (eq. 10).
    Kang => "kang",
    /// Forward Euler: `v' = v + h F/m`, `x' = x + h v`.
    ExplicitEuler => "explicit-euler",
    /// Semi-implicit Euler: `v' = v + h F/m`, `x' = x + h v'`.
    SymplecticEuler => "symplectic-euler",
    /// Position Verlet: `x' = 2x - x_prev + h² F/m`.
    Verlet => "verlet",
    /// Linearised backward Euler (Baraff–Witkin) solved by conjugate gradients.
    ImplicitCg => "implicit-cg",
    /// Desbrun et al.'s precomputed filter (eq. 5), a dense inverse.
    Desbrun => "desbrun",
    /// Chi 2007 §4.3: `Δv` from `kang`, position advanced with the old velocity.
    Hybrid => "hybrid",
    /// Extended position-based dynamics: substeps of distance constraints with compliance `1/k`.
    Xpbd => "xpbd",
    /// Choi & Ko 2002: the immediate buckling model, BDF2 solved by block-preconditioned CG.
    ChoiKo => "choi-ko",
    /// Kang's system with the external forces inside, solved by multigrid V-cycles: it keeps
    /// a stiff, fine cloth's shape at the cost of a few Jacobi sweeps, but Desbrun's Hessian
    /// damps bending and flapping.
    KangMg => "kang-mg",
    /// Backward Euler with the full spring Jacobian (`implicit-cg`'s system) by
    /// multigrid-preconditioned CG (the default: the accurate solve at one substep, the
    /// flapping `kang-mg` damps kept).
    #[default]
    ImplicitMg => "implicit-mg",
}

impl IntegratorKind {
    /// Its place in [`IntegratorKind::ALL`] (per-integrator tables index by it).
    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the step runs an iterative solver whose iterations it reports (`stats.solver`).
    pub fn has_solver(self) -> bool {
        matches!(
            self,
            IntegratorKind::ImplicitCg
                | IntegratorKind::ChoiKo
                | IntegratorKind::KangMg
                | IntegratorKind::ImplicitMg
        )
    }

    /// Members of the implicit family see the viscosity term of eq. 4 in `F̃`.
    pub fn uses_filter_system(self) -> bool {
        matches!(
            self,
            IntegratorKind::Kang
                | IntegratorKind::Desbrun
                | IntegratorKind::Hybrid
                | IntegratorKind::KangMg
        )
    }
}

/// Spring stiffness per family, N/m.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Stiffness {
    /// 4-neighbour springs: [`spec::STRUCTURAL`].
    pub structural: f64,
    /// Diagonal springs: [`spec::SHEAR`].
    pub shear: f64,
    /// Springs two nodes apart along rows and columns: [`spec::BEND`].
    pub bend: f64,
}

impl Default for Stiffness {
    fn default() -> Self {
        Self {
            structural: spec::STRUCTURAL.default,
            shear: spec::SHEAR.default,
            bend: spec::BEND.default,
        }
    }
}

/// Lift formula (docs/method.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LiftModel {
    /// Eqs. 18–19 literally: `F_L = K_L cosθ |v_rel|² U`, `U = (Ñ × v̂) × v̂`.
    #[default]
    Paper,
    /// `F_L = -K_L |v_rel|² (N̂·v̂)(N̂ - (N̂·v̂) v̂)`: no sign flip edge-on.
    Smooth,
}

/// Drag integration (docs/method.md §4).
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
    /// Relative speed fluctuation: [`spec::GUST_STRENGTH`].
    pub strength: f64,
    /// Typical time between gusts: [`spec::GUST_PERIOD`].
    pub period: f64,
    /// Noise seed: the same seed gives the same wind. Default 1.
    pub seed: u64,
}

impl Default for Gust {
    fn default() -> Self {
        Self {
            strength: spec::GUST_STRENGTH.default,
            period: spec::GUST_PERIOD.default,
            seed: spec::GUST_SEED.default,
        }
    }
}

/// Air interaction (paper §4). `drag`, `lift` and `linear` are per key node of a 10 × 10 cloth
/// (the paper's model); a cloth of N nodes gives each node 100 / N of them, so refining the same
/// cloth does not multiply the wind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Wind {
    /// Base wind velocity: [`spec::WIND_VELOCITY`].
    pub velocity: [f64; 3],
    /// Drag constant `K_D` of eq. 17: [`spec::DRAG`].
    pub drag: f64,
    /// Lift constant `K_L` of eq. 19: [`spec::LIFT`].
    pub lift: f64,
    /// [`spec::LIFT_MODEL`].
    pub lift_model: LiftModel,
    /// [`spec::DRAG_MODEL`].
    pub drag_model: DragModel,
    /// Linear wind constant `k_w` of huang-2014, `F_w = k_w (v_wind - v)`: [`spec::LINEAR`].
    /// The paper's pressure drag and lift vanish on cloth edge-on to the wind, so without this
    /// skin-friction-like pull a flag in a steady wind would hang.
    pub linear: f64,
    pub gust: Gust,
    /// Time constant with which the air follows a change of `velocity`, s: the wind a node feels
    /// moves toward the set value by `1 - exp(-h / response)` per step, so turning the wind up
    /// does not hit the cloth as a step: [`spec::RESPONSE`].
    pub response: f64,
}

impl Default for Wind {
    fn default() -> Self {
        Self {
            velocity: spec::WIND_VELOCITY.default,
            drag: spec::DRAG.default,
            lift: spec::LIFT.default,
            lift_model: LiftModel::Paper,
            drag_model: DragModel::SemiImplicit,
            linear: spec::LINEAR.default,
            gust: Gust::default(),
            response: spec::RESPONSE.default,
        }
    }
}

/// Provot's strain limiting (docs/method.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Provot {
    /// [`spec::PROVOT`].
    pub enabled: bool,
    /// Largest allowed stretch `τ`: [`spec::MAX_STRETCH`].
    pub max_stretch: f64,
    /// Largest allowed compression `τ_c`: [`spec::MAX_COMPRESSION`].
    pub max_compression: f64,
    /// Most Gauss–Seidel sweeps per step; they stop at the first sweep that corrects nothing.
    /// [`spec::PROVOT_ITERATIONS`].
    pub iterations: u32,
    /// Coarse grids limited before the sweeps, coarsest first ([`crate::sim::strain_levels`]):
    /// [`spec::STRAIN_LEVELS`].
    pub levels: u32,
    /// Long-range tethers before the sweeps: every free node kept within
    /// `(1 + tether_stretch)` times its rest distance along the cloth from the kinematic nodes
    /// (the nearest node and the two ends of each pinned region; `sim::tethers`). They hold a
    /// cloth of any resolution in one pass, which the sweeps alone cannot. [`spec::TETHERS`].
    pub tethers: bool,
    /// How far a tether may stretch beyond its rest distance: [`spec::TETHER_STRETCH`].
    /// Default 0 (when tethers are on): the cloth as a whole never moves farther from its pins than at rest, and the
    /// sweeps keep every spring within `τ` locally. (Tethers at `τ` let a hanging sheet sag
    /// until every tether is taut at `1 + τ`; then the sweeps must hold every spring at exactly
    /// its limit and do not converge: a 64 × 64 sheet ended with springs at 1.27 × rest.)
    pub tether_stretch: f64,
}

impl Default for Provot {
    fn default() -> Self {
        Self {
            enabled: spec::PROVOT.default,
            max_stretch: spec::MAX_STRETCH.default,
            max_compression: spec::MAX_COMPRESSION.default,
            iterations: spec::PROVOT_ITERATIONS.default,
            levels: spec::STRAIN_LEVELS.default,
            tethers: spec::TETHERS.default,
            tether_stretch: spec::TETHER_STRETCH.default,
        }
    }
}

/// A collision shape for the key nodes (docs/method.md §6).
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
    /// Radius: [`spec::SPHERE_RADIUS`].
    pub radius: f64,
    /// Coulomb friction: [`spec::FRICTION`].
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Extra thickness kept between nodes and the surface: [`spec::MARGIN`].
    #[serde(default = "default_margin")]
    pub margin: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundCollider {
    /// Height of the plane `y = height`: [`spec::GROUND_HEIGHT`].
    #[serde(default)]
    pub height: f64,
    /// Coulomb friction: [`spec::FRICTION`].
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Extra thickness: [`spec::MARGIN`].
    #[serde(default = "default_margin")]
    pub margin: f64,
}

fn default_friction() -> f64 {
    spec::FRICTION.default
}
fn default_margin() -> f64 {
    spec::MARGIN.default
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
    /// [`spec::HANDLE_PATH`].
    pub path: HandlePath,
    /// Size of the path: [`spec::HANDLE_AMPLITUDE`].
    pub amplitude: f64,
    /// Time for one loop: [`spec::HANDLE_PERIOD`].
    pub period: f64,
}

impl Default for Handle {
    fn default() -> Self {
        Self {
            path: HandlePath::None,
            amplitude: spec::HANDLE_AMPLITUDE.default,
            period: spec::HANDLE_PERIOD.default,
        }
    }
}

/// Raising and lowering the flag (issue 26): every pinned node moves down the pole (along −Y)
/// by `(1 − η) · travel`, where `η` is how far up the flag is now and `travel` how far its
/// lowest pinned node is above the ground. `η` starts at `height` and then follows it at
/// `speed`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Hoist {
    /// Where the flag is at the start and goes to: [`spec::HOIST_HEIGHT`].
    pub height: f64,
    /// [`spec::HOIST_SPEED`].
    pub speed: f64,
}

impl Hoist {
    /// `height` at the top of the pole.
    pub const TOP: f64 = 1.0;
    /// `height` at half-mast: the middle of the hoist at half the pole's height.
    pub const HALF_MAST: f64 = 0.5;
    /// `height` lowered to the ground.
    pub const BOTTOM: f64 = 0.0;
}

impl Default for Hoist {
    fn default() -> Self {
        Self {
            height: spec::HOIST_HEIGHT.default,
            speed: spec::HOIST_SPEED.default,
        }
    }
}

/// Conjugate-gradient settings of `implicit-cg` and `choi-ko`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CgSettings {
    /// Relative residual at which CG stops: [`spec::CG_TOLERANCE`].
    pub tolerance: f64,
    /// Iteration cap: [`spec::CG_MAX_ITERATIONS`].
    pub max_iterations: u32,
}

impl Default for CgSettings {
    fn default() -> Self {
        Self {
            tolerance: spec::CG_TOLERANCE.default,
            max_iterations: spec::CG_MAX_ITERATIONS.default,
        }
    }
}

/// `kang-mg`'s multigrid solve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MultigridSettings {
    /// Residual at which the V-cycles stop, relative to the forces: [`spec::MG_TOLERANCE`].
    pub tolerance: f64,
    /// Most V-cycles a step: [`spec::MG_MAX_CYCLES`].
    pub max_cycles: u32,
}

impl Default for MultigridSettings {
    fn default() -> Self {
        Self {
            tolerance: spec::MG_TOLERANCE.default,
            max_cycles: spec::MG_MAX_CYCLES.default,
        }
    }
}

/// The immediate buckling model of `choi-ko` (Choi & Ko 2002, §3). Type-1 links take the
/// structural and shear stiffness from `stiffness`; these two shape the type-2 links.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChoiKo {
    /// Flexural rigidity `k_b` of a type-2 link, N·m²: a slightly compressed link pushes back
    /// with `12 k_b / L²`, a fully folded one with `4π² k_b / L²`: [`spec::FLEXURAL_RIGIDITY`].
    pub flexural_rigidity: f64,
    /// Slope `c_b` of eq. 11's clamp, N/m: the force of a type-2 link is
    /// `max(f_b, c_b (|x| − L))`, so compression starts linearly: [`spec::BUCKLING_CLAMP`].
    pub buckling_clamp: f64,
}

impl Default for ChoiKo {
    fn default() -> Self {
        Self {
            flexural_rigidity: spec::FLEXURAL_RIGIDITY.default,
            buckling_clamp: spec::BUCKLING_CLAMP.default,
        }
    }
}

/// The thesis's wavelet-guided interpolation (Chi 2007, ch. 5), for `kang` and `hybrid`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Wavelet {
    /// [`spec::WAVELET`].
    pub enabled: bool,
    /// Largest Haar detail coefficient of the key-node normals (dimensionless; unit normals,
    /// coefficients are quarter-sums of differences) for which a block counts as flat and its
    /// interior is interpolated: [`spec::WAVELET_THRESHOLD`].
    pub threshold: f64,
}

impl Default for Wavelet {
    fn default() -> Self {
        Self {
            enabled: spec::WAVELET.default,
            threshold: spec::WAVELET_THRESHOLD.default,
        }
    }
}

/// Everything the step reads. See README for the table of defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// [`spec::INTEGRATOR`].
    pub integrator: IntegratorKind,
    /// Published step `dt`: [`spec::DT`].
    pub dt: f64,
    /// Physics steps per `dt`, `h = dt / substeps`: [`spec::SUBSTEPS`].
    pub substeps: u32,
    /// `kang`'s Jacobi iterations: [`spec::JACOBI_ITERATIONS`].
    pub jacobi_iterations: u32,
    /// `xpbd`'s substeps: [`spec::XPBD_SUBSTEPS`].
    pub xpbd_substeps: u32,
    pub stiffness: Stiffness,
    /// Spring damping: [`spec::DAMPING`].
    pub damping: f64,
    /// The viscosity term of eq. 4: [`spec::VISCOSITY`].
    pub viscosity: bool,
    /// [`spec::FILTER_EXTERNAL`].
    pub filter_external: bool,
    /// Gravity: [`spec::GRAVITY`].
    pub gravity: [f64; 3],
    pub wind: Wind,
    pub provot: Provot,
    /// Default none.
    pub colliders: Vec<Collider>,
    pub handle: Handle,
    /// Raising and lowering the pinned nodes along the pole.
    pub hoist: Hoist,
    pub cg: CgSettings,
    pub multigrid: MultigridSettings,
    pub choi_ko: ChoiKo,
    pub wavelet: Wavelet,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            integrator: IntegratorKind::ImplicitMg,
            dt: spec::DT.default,
            substeps: spec::SUBSTEPS.default,
            jacobi_iterations: spec::JACOBI_ITERATIONS.default,
            xpbd_substeps: spec::XPBD_SUBSTEPS.default,
            stiffness: Stiffness::default(),
            damping: spec::DAMPING.default,
            viscosity: spec::VISCOSITY.default,
            filter_external: spec::FILTER_EXTERNAL.default,
            gravity: spec::GRAVITY.default,
            wind: Wind::default(),
            provot: Provot::default(),
            colliders: Vec::new(),
            handle: Handle::default(),
            hoist: Hoist::default(),
            cg: CgSettings::default(),
            multigrid: MultigridSettings::default(),
            choi_ko: ChoiKo::default(),
            wavelet: Wavelet::default(),
        }
    }
}

impl Params {
    /// `h`, the physics step, s.
    pub fn h(&self) -> f64 {
        self.dt / self.substeps.max(1) as f64
    }

    /// Checks every range of [`spec`]. The failure names the field (`params.…`).
    pub fn validate(&self) -> Result<(), SimError> {
        spec::DT.check(self.dt)?;
        spec::SUBSTEPS.check(self.substeps)?;
        spec::JACOBI_ITERATIONS.check(self.jacobi_iterations)?;
        spec::XPBD_SUBSTEPS.check(self.xpbd_substeps)?;
        spec::STRUCTURAL.check(self.stiffness.structural)?;
        spec::SHEAR.check(self.stiffness.shear)?;
        spec::BEND.check(self.stiffness.bend)?;
        spec::DAMPING.check(self.damping)?;
        spec::GRAVITY.check(self.gravity)?;
        spec::WIND_VELOCITY.check(self.wind.velocity)?;
        spec::DRAG.check(self.wind.drag)?;
        spec::LIFT.check(self.wind.lift)?;
        spec::LINEAR.check(self.wind.linear)?;
        spec::GUST_STRENGTH.check(self.wind.gust.strength)?;
        spec::GUST_PERIOD.check(self.wind.gust.period)?;
        spec::RESPONSE.check(self.wind.response)?;
        spec::MAX_STRETCH.check(self.provot.max_stretch)?;
        spec::MAX_COMPRESSION.check(self.provot.max_compression)?;
        spec::PROVOT_ITERATIONS.check(self.provot.iterations)?;
        spec::STRAIN_LEVELS.check(self.provot.levels)?;
        spec::TETHER_STRETCH.check(self.provot.tether_stretch)?;
        for (i, c) in self.colliders.iter().enumerate() {
            match c {
                Collider::Sphere(s) => {
                    let at = format!("params.colliders[{i}].sphere.");
                    spec::SPHERE_CENTER.check_at(&at, s.center)?;
                    spec::SPHERE_RADIUS.check_at(&at, s.radius)?;
                    spec::FRICTION.check_at(&at, s.friction)?;
                    spec::MARGIN.check_at(&at, s.margin)?;
                }
                Collider::Ground(g) => {
                    let at = format!("params.colliders[{i}].ground.");
                    spec::GROUND_HEIGHT.check_at(&at, g.height)?;
                    spec::FRICTION.check_at(&at, g.friction)?;
                    spec::MARGIN.check_at(&at, g.margin)?;
                }
            }
        }
        spec::HANDLE_AMPLITUDE.check(self.handle.amplitude)?;
        spec::HANDLE_PERIOD.check(self.handle.period)?;
        spec::HOIST_HEIGHT.check(self.hoist.height)?;
        spec::HOIST_SPEED.check(self.hoist.speed)?;
        spec::CG_TOLERANCE.check(self.cg.tolerance)?;
        spec::CG_MAX_ITERATIONS.check(self.cg.max_iterations)?;
        spec::MG_TOLERANCE.check(self.multigrid.tolerance)?;
        spec::MG_MAX_CYCLES.check(self.multigrid.max_cycles)?;
        spec::FLEXURAL_RIGIDITY.check(self.choi_ko.flexural_rigidity)?;
        spec::BUCKLING_CLAMP.check(self.choi_ko.buckling_clamp)?;
        spec::WAVELET_THRESHOLD.check(self.wavelet.threshold)?;
        Ok(())
    }
}

#[cfg(test)]
mod registry_tests {
    use super::{IntegratorKind, spec};

    #[test]
    fn every_integrator_has_its_own_slot_name_and_scene_spelling() {
        let all = IntegratorKind::ALL;
        for (i, kind) in all.iter().enumerate() {
            assert_eq!(kind.index(), i, "{kind:?}");
            assert_eq!(IntegratorKind::from_name(kind.name()), Some(*kind));
            // The scene file's spelling (serde) is the name the command line takes.
            let json = serde_json::to_string(kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(
                serde_json::from_str::<IntegratorKind>(&json).unwrap(),
                *kind
            );
            for other in &all[i + 1..] {
                assert_ne!(kind.name(), other.name());
            }
        }
    }

    #[test]
    fn the_parameter_table_lists_the_registry_in_its_order() {
        let names: Vec<&str> = IntegratorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(spec::INTEGRATOR.names, names.as_slice());
        assert_eq!(spec::INTEGRATOR.default, IntegratorKind::default().name());
    }
}
