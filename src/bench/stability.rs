//! The largest stable `dt` of every integrator, by bisection.

use serde::Serialize;

use super::BenchConfig;
use crate::sim::IntegratorKind;
use crate::sim::scene::Scene;

#[derive(Debug, Clone, Serialize)]
pub struct Stability {
    pub preset: &'static str,
    /// Whether Provot's strain limiting was on (as in the preset) or off (the integrator alone).
    pub strain_limiting: bool,
    pub integrator: &'static str,
    /// Largest `dt` (s) that ran the whole test without the guard firing or strain running away.
    pub largest_stable_dt: f64,
    pub simulated_seconds: f64,
}

/// Strain beyond which a run counts as having run away (three times the rest length: no cloth
/// survives that, whatever the integrator's accuracy).
pub const RUNAWAY_STRAIN: f64 = 3.0;

/// Runs `scene` at `dt` for `seconds` (at least 30 steps); stable if the guard never fires (no
/// non-finite value, no spring past 10× its rest length, no thrashing) and the strain never
/// passes [`RUNAWAY_STRAIN`].
fn runs_stably(scene: &Scene, kind: IntegratorKind, dt: f64, seconds: f64) -> bool {
    let mut s = scene.clone();
    s.params.integrator = kind;
    s.params.dt = dt;
    let Ok(mut sim) = s.simulation() else {
        return false;
    };
    let steps = ((seconds / dt).ceil() as usize).max(30);
    for _ in 0..steps {
        if !sim.step() || sim.stats.max_strain > RUNAWAY_STRAIN {
            return false;
        }
    }
    true
}

pub fn stability(cfg: &BenchConfig) -> Vec<Stability> {
    let seconds = if cfg.quick { 0.2 } else { 3.0 };
    let iterations = if cfg.quick { 2 } else { 10 };
    let mut out = Vec::new();
    for (preset, strain_limiting) in [
        ("flag", true),
        ("hanging", true),
        ("flag", false),
        ("hanging", false),
    ] {
        let mut scene = Scene::load(preset)
            .expect("invariant: every built-in preset loads (tests/cli.rs runs each)");
        scene.params.provot.enabled &= strain_limiting;
        for kind in IntegratorKind::ALL {
            // Bisection on log dt between 1e-4 s and 0.5 s.
            let (mut lo, mut hi) = (1e-4f64, 0.5f64);
            if runs_stably(&scene, kind, hi, seconds) {
                lo = hi;
            } else if !runs_stably(&scene, kind, lo, seconds) {
                lo = 0.0;
            } else {
                for _ in 0..iterations {
                    let mid = (lo * hi).sqrt();
                    if runs_stably(&scene, kind, mid, seconds) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
            }
            out.push(Stability {
                preset,
                strain_limiting,
                integrator: kind.name(),
                largest_stable_dt: lo,
                simulated_seconds: seconds,
            });
        }
    }
    out
}
