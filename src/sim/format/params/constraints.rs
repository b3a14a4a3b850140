//! Strain limiting and colliders.

use serde::{Deserialize, Serialize};

use super::spec;

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
    /// Whether the shear springs are limited too, not the structural ones alone:
    /// [`spec::LIMIT_SHEAR`].
    pub shear: bool,
    /// Most Gauss–Seidel sweeps per step; they stop at the first sweep that corrects nothing.
    /// [`spec::PROVOT_ITERATIONS`].
    pub iterations: u32,
    /// Coarse grids limited before the sweeps, coarsest first ([`crate::sim::constraints::strain_levels`]):
    /// [`spec::STRAIN_LEVELS`].
    pub levels: u32,
    /// Long-range tethers before the sweeps: every free node kept within
    /// `(1 + tether_stretch)` times its rest distance along the cloth from the kinematic nodes
    /// (the nearest node and the two ends of each pinned region; `sim::constraints::tethers`). They hold a
    /// cloth of any resolution in one pass, which the sweeps alone cannot. [`spec::TETHERS`].
    pub tethers: bool,
    /// How far a tether may stretch beyond its rest distance: [`spec::TETHER_STRETCH`].
    /// Default 0 (when tethers are on): the cloth as a whole never moves farther from its pins than at rest, and the
    /// sweeps keep every spring within `τ` locally. (Tethers at `τ` let a hanging sheet sag
    /// until every tether is taut at `1 + τ`; then the sweeps must hold every spring at exactly
    /// its limit and do not converge, and springs end well past it.)
    pub tether_stretch: f64,
}

impl Default for Provot {
    fn default() -> Self {
        Self {
            enabled: spec::PROVOT.default,
            max_stretch: spec::MAX_STRETCH.default,
            max_compression: spec::MAX_COMPRESSION.default,
            shear: spec::LIMIT_SHEAR.default,
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
