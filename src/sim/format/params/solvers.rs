//! The settings of the integrators' solvers: CG, multigrid, Choi and Ko's model, the wavelet
//! interpolation.

use serde::{Deserialize, Serialize};

use super::spec;

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
