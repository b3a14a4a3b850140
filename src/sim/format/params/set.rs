//! The whole parameter set the step reads.

use serde::{Deserialize, Serialize};

use super::{
    CgSettings, ChoiKo, Collider, Handle, Hoist, IntegratorKind, MultigridSettings, Provot,
    Stiffness, Wavelet, Wind, spec,
};
use crate::sim::format::error::SimError;

/// Everything the step reads. See `docs/scenes.md` for the table of defaults.
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
    pub(crate) fn validate(&self) -> Result<(), SimError> {
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
