//! The wrinkle of eq. 14: `Q'(t) = Q(t) + w(t) A sin(f t) N` on a spline segment whose control
//! points `P₁, P₂` are closer than the rest length `l0` of the spring between them.
//!
//! Lengths are in metres, `f` in radians per unit of `t`. Same names and operation order as in
//! `shaders/upsample.wgsl`.

use std::f32::consts::PI;

/// What eq. 14 needs besides the segment: whether wrinkles are on at all (display mode), the
/// frequency constant `c` and the C¹-seam option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WrinkleParams {
    /// `false` in the key-only and smooth modes: `Q' = Q` everywhere.
    pub enabled: bool,
    /// Frequency constant `c` of eq. 14 (radians per unit relative compression), `0..=500`.
    pub c: f32,
    /// Round `f` to a multiple of π (see [`wrinkle_frequency`]).
    pub c1_seam: bool,
}

/// The envelope `w(t) = ½ − 2(t − ½)²`: zero at both ends of the segment (so wrinkled splines
/// still interpolate their control points), ½ in the middle.
pub(crate) fn wrinkle_weight(t: f32) -> f32 {
    let h = t - 0.5;
    0.5 - 2.0 * (h * h)
}

/// `A = (l0 − d)/2` in metres: half the length the segment has lost.
pub fn wrinkle_amplitude(d: f32, l0: f32) -> f32 {
    (l0 - d) * 0.5
}

/// `f = c (l0 − d)/l0` in radians: more compression, more wrinkles. Only meaningful for
/// `d < l0` (then `l0 > 0`).
///
/// With `c1_seam` a positive `f` is rounded to the nearest multiple of π, at least π, so that
/// `sin f = 0` and the wrinkle leaves the segment with zero slope (the slope at `t = 1` is
/// `−2A sin f`; at `t = 0` it is always zero). `f = 0` (from `c = 0`) stays 0: no wrinkle
/// exists to round. Rounding is `⌊x + ½⌋` on both CPU and GPU (WGSL `round` would round
/// halves to even).
pub fn wrinkle_frequency(d: f32, l0: f32, c: f32, c1_seam: bool) -> f32 {
    let f = c * (l0 - d) / l0;
    if c1_seam && f > 0.0 {
        (f / PI + 0.5).floor().max(1.0) * PI
    } else {
        f
    }
}

/// The signed distance `w(t) A sin(f t)` (metres) eq. 14 moves the spline point along `N`;
/// zero when the segment is at or beyond its rest length (`d ≥ l0`).
pub fn wrinkle_offset(t: f32, d: f32, l0: f32, c: f32, c1_seam: bool) -> f32 {
    if d < l0 {
        let a = wrinkle_amplitude(d, l0);
        let f = wrinkle_frequency(d, l0, c, c1_seam);
        wrinkle_weight(t) * a * (f * t).sin()
    } else {
        0.0
    }
}

/// Eq. 14 applied to the spline point `q` of a segment of length `d` and rest length `l0`.
/// `normal` is only evaluated when a wrinkle exists (it is the costly part); it must return the
/// unit normal of the un-wrinkled surface, or zero where that is undefined (then no wrinkle).
pub(crate) fn wrinkled_point(
    q: glam::Vec3,
    t: f32,
    d: f32,
    l0: f32,
    wrinkle: WrinkleParams,
    normal: impl FnOnce() -> glam::Vec3,
) -> glam::Vec3 {
    if wrinkle.enabled && d < l0 {
        let offset = wrinkle_offset(t, d, l0, wrinkle.c, wrinkle.c1_seam);
        q + offset * normal()
    } else {
        q
    }
}
