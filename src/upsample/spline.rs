//! Uniform Catmull-Rom splines and the mapping from render indices to spline parameters
//! (docs/method.md §7, "Spline" and "Sampling").
//!
//! Everything here is per-sample arithmetic in `f32`, written in the same order as the WGSL
//! functions of the same names in `shaders/upsample.wgsl`, so that the GPU and this reference
//! round alike.

use glam::Vec3;

/// Where one render node falls along one axis of the key grid: the Catmull-Rom segment (between
/// key nodes `segment` and `segment + 1`) and the local parameter `t ∈ [0, 1]` inside it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SplineSample {
    pub segment: u32,
    pub t: f32,
}

/// The sample of render index `index` out of `resolution` along an axis with `key_count` key
/// nodes: `u = (key_count − 1) index / (resolution − 1)`, `segment = min(⌊u⌋, key_count − 2)`,
/// `t = u − segment`.
///
/// The segment is found in exact integer arithmetic (so CPU and GPU always agree on it, and the
/// last render node lands on `t = 1` of the last segment); only `t` is rounded, once.
/// Requires `key_count ≥ 2`, `resolution ≥ 2`, `index < resolution`.
pub(crate) fn render_sample(key_count: u32, index: u32, resolution: u32) -> SplineSample {
    let span = resolution - 1;
    let scaled = (key_count - 1) * index;
    let segment = (scaled / span).min(key_count - 2);
    let t = (scaled - segment * span) as f32 / span as f32;
    SplineSample { segment, t }
}

/// The sample that sits exactly on key node `index` (frame nodes lie on key rows, so their
/// surface normal is evaluated there): `t = 0` of segment `index`, or `t = 1` of the last segment.
pub(crate) fn key_sample(key_count: u32, index: u32) -> SplineSample {
    let segment = index.min(key_count - 2);
    SplineSample {
        segment,
        t: (index - segment) as f32,
    }
}

/// The linear phantom point beyond `end`, away from `inner`: `2 end − inner`
/// (`P₋₁ = 2P₀ − P₁`, `Pₙ = 2Pₙ₋₁ − Pₙ₋₂`).
pub(crate) fn phantom_point(end: Vec3, inner: Vec3) -> Vec3 {
    2.0 * end - inner
}

/// The four control points `P₀..P₃` of `segment` along a polyline of `count ≥ 2` points, with
/// linearly extrapolated phantom points past either end. `point(k)` returns polyline point `k`.
pub(crate) fn control_points(count: u32, segment: u32, point: impl Fn(u32) -> Vec3) -> [Vec3; 4] {
    let p1 = point(segment);
    let p2 = point(segment + 1);
    let p0 = if segment == 0 {
        phantom_point(p1, p2)
    } else {
        point(segment - 1)
    };
    let p3 = if segment + 2 >= count {
        phantom_point(p2, p1)
    } else {
        point(segment + 2)
    };
    [p0, p1, p2, p3]
}

/// The polynomial coefficients of the Catmull-Rom segment, times two:
/// `2Q(t) = a₀ + a₁t + a₂t² + a₃t³`.
fn catmull_rom_coefficients(p: [Vec3; 4]) -> [Vec3; 4] {
    let a0 = 2.0 * p[1];
    let a1 = p[2] - p[0];
    let a2 = 2.0 * p[0] - 5.0 * p[1] + 4.0 * p[2] - p[3];
    let a3 = -p[0] + 3.0 * p[1] - 3.0 * p[2] + p[3];
    [a0, a1, a2, a3]
}

/// Uniform Catmull-Rom point `Q(t) = ½[2P₁ + (−P₀ + P₂)t + (2P₀ − 5P₁ + 4P₂ − P₃)t² +
/// (−P₀ + 3P₁ − 3P₂ + P₃)t³]`, interpolating `P₁` at `t = 0` and `P₂` at `t = 1`.
pub(crate) fn catmull_rom(p: [Vec3; 4], t: f32) -> Vec3 {
    let [a0, a1, a2, a3] = catmull_rom_coefficients(p);
    0.5 * (a0 + t * (a1 + t * (a2 + t * a3)))
}

/// Analytic derivative `dQ/dt` of [`catmull_rom`] (per unit of the global parameter, since one
/// segment spans one parameter unit).
pub(crate) fn catmull_rom_tangent(p: [Vec3; 4], t: f32) -> Vec3 {
    let [_, a1, a2, a3] = catmull_rom_coefficients(p);
    0.5 * (a1 + t * (2.0 * a2 + t * (3.0 * a3)))
}
