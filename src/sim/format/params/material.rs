//! The cloth's material and the air: spring stiffness, wind, gusts, drag and lift.

use serde::{Deserialize, Serialize};

use super::spec;

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
