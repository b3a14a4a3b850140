//! The largest stable `dt` of every integrator, by bisection.

use serde::Serialize;

use std::sync::atomic::AtomicBool;

use super::BenchConfig;
use crate::sim::IntegratorKind;
use crate::sim::format::scene::Scene;
use crate::sim::lab::stability::largest_stable_dt;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Stability {
    pub preset: &'static str,
    /// Whether Provot's strain limiting was on (as in the preset) or off (the integrator alone).
    pub strain_limiting: bool,
    pub integrator: &'static str,
    /// Largest `dt` (s) that ran the whole test without the guard firing or strain running away.
    pub largest_stable_dt: f64,
    pub simulated_seconds: f64,
}

pub(crate) fn stability(cfg: BenchConfig) -> Vec<Stability> {
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
            let never = AtomicBool::new(false);
            let lo = largest_stable_dt(&scene, kind, seconds, iterations, &never, |_| {})
                .expect("invariant: nothing cancels the benchmark's search");
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
