//! Provot's rule for one spring (Provot 1995, with a shortest length beside the longest), and
//! the colouring of springs that the GPU's sweeps and the coarse levels sweep by. Shared by
//! [`crate::sim::constraints::limit`] (the cloth's own springs) and [`crate::sim::constraints::strain_levels`] (a grid's
//! coarse levels).

use glam::DVec3;

use crate::sim::model::cloth::LimitedSpring;

/// Relative excess below which a spring counts as satisfied, so that the sweeps can finish
/// instead of chasing round-off.
pub(crate) const PROVOT_TOLERANCE: f64 = 1e-9;

/// How long a limited spring may be, in rest lengths: at most `longest` (`1 + τ`) and at
/// least `shortest` (`1 − τ_c`; 0: no lower bound).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub longest: f64,
    pub shortest: f64,
}

impl Bounds {
    /// Provot's own: a longest length only.
    pub fn stretch(longest: f64) -> Self {
        Self {
            longest,
            shortest: 0.0,
        }
    }
}

/// The moves that bring spring `(a, b, rest)` within `bounds`: to `longest · rest` if it is
/// longer (by more than [`PROVOT_TOLERANCE`]), to `shortest · rest` if it is shorter (a spring
/// of length 0 has no direction and is left alone); half each, all on the free end when the
/// other is kinematic.
#[inline]
pub(crate) fn provot_moves(
    xa: DVec3,
    xb: DVec3,
    rest: f64,
    bounds: Bounds,
    ka: bool,
    kb: bool,
) -> Option<[DVec3; 2]> {
    let d = xb - xa;
    let len2 = d.length_squared();
    // Squared lengths first: most springs are within the bounds and need no square root.
    let hi = bounds.longest * (1.0 + PROVOT_TOLERANCE);
    let target = if len2 > hi * hi * rest * rest {
        bounds.longest
    } else {
        let lo = bounds.shortest * (1.0 - PROVOT_TOLERANCE);
        if len2 >= lo * lo * rest * rest || len2 == 0.0 {
            return None;
        }
        bounds.shortest
    };
    if ka && kb {
        return None;
    }
    let len = len2.sqrt();
    let excess = ((len - target * rest) / len) * d;
    Some(match (ka, kb) {
        (false, false) => [0.5 * excess, -0.5 * excess],
        (true, false) => [DVec3::ZERO, -excess],
        (false, true) => [excess, DVec3::ZERO],
        (true, true) => [DVec3::ZERO, DVec3::ZERO],
    })
}

/// `springs` on `nodes` nodes coloured so that no two springs of a colour share a node:
/// greedily in the order of their ends `(a, b)`, each the first colour neither end has.
pub(crate) fn colour_springs(
    mut springs: Vec<LimitedSpring>,
    nodes: usize,
) -> Vec<Vec<LimitedSpring>> {
    springs.sort_by_key(|s| (s.a, s.b));
    let mut used = vec![0_u64; nodes];
    let mut colours: Vec<Vec<LimitedSpring>> = Vec::new();
    for s in springs {
        let (a, b) = (s.a as usize, s.b as usize);
        let free = !(used[a] | used[b]);
        assert!(free != 0, "a node with more than 64 limited springs");
        let c = free.trailing_zeros() as usize;
        used[a] |= 1 << c;
        used[b] |= 1 << c;
        if colours.len() <= c {
            colours.resize(c + 1, Vec::new());
        }
        colours[c].push(s);
    }
    colours
}
