//! The stability guard (docs/method.md §8): after every step, whether the cloth has blown up.
//! The step that fails it is discarded by [`Simulation::step`](crate::sim::Simulation::step), which
//! restores the state from before it, pauses and reports the reason given here.

use glam::DVec3;
use rayon::prelude::*;

use crate::sim::format::params::Params;
use crate::sim::model::cloth::Cloth;

/// A spring stretched beyond this multiple of its rest length counts as blown up.
pub(crate) const BLOWUP_STRETCH: f64 = 10.0;

/// With strain limiting on, a free node faster than this (m/s), or than [`BLOWUP_WIND_FACTOR`]
/// times the wind speed, counts as blown up: no flag in a breeze moves that fast, but an unstable
/// explicit scheme held together by strain limiting does (its positions stay bounded while it
/// thrashes).
pub(crate) const BLOWUP_SPEED: f64 = 50.0;

/// See [`BLOWUP_SPEED`].
pub(crate) const BLOWUP_WIND_FACTOR: f64 = 2.5;

/// The fastest a free node may move before the guard calls it a blow-up, m/s.
pub(crate) fn speed_limit(params: &Params) -> f64 {
    let wind = DVec3::from_array(params.wind.velocity).length();
    BLOWUP_SPEED.max(BLOWUP_WIND_FACTOR * wind)
}

/// The guard's test: non-finite values, a free node faster than [`speed_limit`] (with strain
/// limiting on), or a spring beyond [`BLOWUP_STRETCH`] times its rest length. `strain_all` is the
/// largest `|x_ab| / L` over every spring ([`Cloth::strain_maxima`]). Returns why it failed.
pub(crate) fn check(
    c: &Cloth,
    params: &Params,
    kinematic: &[bool],
    parallel: bool,
    strain_all: f64,
) -> Option<String> {
    let limit = speed_limit(params);
    let limit2 = limit * limit;
    let check_speed = params.provot.enabled;
    // Strain limiting keeps positions bounded, so there speed is the symptom to watch;
    // without it the stretch test below catches a blow-up, and stiff systems may
    // legitimately move fast (the two-mass example at k = 5e4 N/m does).
    let bad = |i: usize| {
        !c.x[i].is_finite()
            || !c.v[i].is_finite()
            || (check_speed && !kinematic[i] && c.v[i].length_squared() > limit2)
    };
    let n = c.node_count();
    let first_bad = if parallel {
        (0..n)
            .into_par_iter()
            .with_min_len(crate::sim::model::par::MIN_PARALLEL_CHUNK)
            .find_first(|&i| bad(i))
    } else {
        (0..n).find(|&i| bad(i))
    };
    if let Some(i) = first_bad {
        let finite = c.x[i].is_finite() && c.v[i].is_finite();
        return Some(node_reason(i, finite.then(|| c.v[i].length()), limit));
    }
    if strain_all > BLOWUP_STRETCH {
        let (si, s) = c.topology.springs.iter().enumerate().find(|(_, s)| {
            s.rest > 0.0 && (c.x[s.b] - c.x[s.a]).length() > BLOWUP_STRETCH * s.rest
        })?;
        return Some(spring_reason(
            si,
            s.a,
            s.b,
            (c.x[s.b] - c.x[s.a]).length() / s.rest,
        ));
    }
    None
}

/// Why node `i` failed the guard: its `speed` (m/s) beyond `limit`, or (`None`) a non-finite
/// position or velocity. [`check`]'s words, and the GPU guard's.
pub(crate) fn node_reason(i: usize, speed: Option<f64>, limit: f64) -> String {
    match speed {
        Some(speed) => format!(
            "node {i} moves at {speed:.0} m/s (limit {limit:.0} m/s): the scheme is unstable at this step"
        ),
        None => format!("node {i} has a non-finite position or velocity"),
    }
}

/// Why spring `si` (from node `a` to node `b`) failed the guard: stretched to `ratio` times
/// its rest length. [`check`]'s words, and the GPU guard's.
pub(crate) fn spring_reason(si: usize, a: usize, b: usize, ratio: f64) -> String {
    format!("spring {si} ({a}–{b}) stretched to {ratio:.1}× its rest length")
}
