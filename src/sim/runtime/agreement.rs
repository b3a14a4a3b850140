//! The paper's Fig. 8 claim in numbers: how close `kang`'s `Δv` is to the precomputed filter's.

use glam::DVec3;

use crate::sim::format::error::SimError;
use crate::sim::format::params::IntegratorKind;
use crate::sim::runtime::simulation::Simulation;

/// Two velocity-change fields on the same state and their agreement over the free nodes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Comparison {
    /// `Δv` of the active integrator, m/s.
    pub dv_active: Vec<DVec3>,
    /// `Δv` of the precomputed filter (`desbrun`), m/s.
    pub dv_filter: Vec<DVec3>,
    /// `Σ a·b / (|a| |b|)` over all free-node components stacked into one vector.
    pub cosine: f64,
    /// `|a - b| / |b|` over the same stacked vectors.
    pub relative_error: f64,
}

/// Cosine similarity and relative error of `a` against the reference `b`, over nodes where
/// `mask` is true.
pub fn agreement(a: &[DVec3], b: &[DVec3], mask: &[bool]) -> (f64, f64) {
    let (mut ab, mut aa, mut bb, mut diff) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..a.len().min(b.len()) {
        if !mask[i] {
            continue;
        }
        ab += a[i].dot(b[i]);
        aa += a[i].length_squared();
        bb += b[i].length_squared();
        diff += (a[i] - b[i]).length_squared();
    }
    let cosine = if aa > 0.0 && bb > 0.0 {
        ab / (aa.sqrt() * bb.sqrt())
    } else if aa == bb {
        1.0
    } else {
        0.0
    };
    let rel = if bb > 0.0 {
        (diff / bb).sqrt()
    } else {
        diff.sqrt()
    };
    (cosine, rel)
}

/// `Δv` of `active` and of `desbrun` from the current state of `sim` (state unchanged).
pub fn compare_with_filter(
    sim: &mut Simulation,
    active: IntegratorKind,
) -> Result<Comparison, SimError> {
    let dv_active = sim.probe_delta_v(active)?;
    let dv_filter = sim.probe_delta_v(IntegratorKind::Desbrun)?;
    let free: Vec<bool> = sim.cloth.pinned.iter().map(|p| !p).collect();
    let (cosine, relative_error) = agreement(&dv_active, &dv_filter, &free);
    Ok(Comparison {
        dv_active,
        dv_filter,
        cosine,
        relative_error,
    })
}
