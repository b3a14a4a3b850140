//! Surface quantities of the key grid: the normal `N` of eq. 14 (from the un-wrinkled bicubic
//! Catmull-Rom patch through the key nodes) and the bilinear key mesh of the key-only mode.

use glam::Vec3;

use super::grid::KeyGrid;
use super::spline::{
    SplineSample, catmull_rom, catmull_rom_tangent, control_points, phantom_point,
};

/// Two tangents closer to parallel than this (`sin²` of the angle between them) have no
/// trustworthy normal in `f32`: the cross product would be mostly rounding noise.
pub(crate) const DEGENERATE_SIN_SQ: f32 = 1e-10;

/// Unit vector along `a × b`, or `None` when the tangents are (nearly) parallel or zero, or the
/// product does not fit in `f32`. Never NaN.
pub(crate) fn unit_normal(a: Vec3, b: Vec3) -> Option<Vec3> {
    let n = a.cross(b);
    let len_sq = n.dot(n);
    let scale = a.dot(a) * b.dot(b);
    if len_sq > DEGENERATE_SIN_SQ * scale && len_sq <= f32::MAX {
        Some(n / len_sq.sqrt())
    } else {
        None
    }
}

/// Key row `j`'s Catmull-Rom curve at `su`: the point and its `u`-derivative.
fn key_row_curve(grid: &KeyGrid, j: u32, su: SplineSample) -> (Vec3, Vec3) {
    let [nx, _] = grid.key_count();
    let p = control_points(nx, su.segment, |i| grid.key(i, j));
    (catmull_rom(p, su.t), catmull_rom_tangent(p, su.t))
}

/// Unit normal `∂S/∂u × ∂S/∂v` of the bicubic Catmull-Rom surface `S(u, v)` through the key nodes
/// (phantom rows and columns extrapolated linearly) at the global parameter `(su, sv)`, from
/// analytic derivatives. Zero where the surface is degenerate there (coincident or collinear key
/// nodes): eq. 14 then adds no wrinkle.
///
/// The patch is a tensor product, so it is evaluated as four row curves in u, then one
/// Catmull-Rom in v through their points (for `∂S/∂v`) and through their u-derivatives (for
/// `∂S/∂u`). Extrapolating a phantom row's curve equals the curve of the extrapolated row.
pub(crate) fn surface_normal(grid: &KeyGrid, su: SplineSample, sv: SplineSample) -> Vec3 {
    let [_, ny] = grid.key_count();
    let j = sv.segment;
    let (p1, d1) = key_row_curve(grid, j, su);
    let (p2, d2) = key_row_curve(grid, j + 1, su);
    let (p0, d0) = if j == 0 {
        (phantom_point(p1, p2), phantom_point(d1, d2))
    } else {
        key_row_curve(grid, j - 1, su)
    };
    let (p3, d3) = if j + 2 >= ny {
        (phantom_point(p2, p1), phantom_point(d2, d1))
    } else {
        key_row_curve(grid, j + 2, su)
    };
    let s_u = catmull_rom([d0, d1, d2, d3], sv.t);
    let s_v = catmull_rom_tangent([p0, p1, p2, p3], sv.t);
    unit_normal(s_u, s_v).unwrap_or(Vec3::ZERO)
}

/// The key mesh itself at `(su, sv)`: bilinear between the four key nodes of the cell (paper
/// Fig. 9a, the faceted look the simulation actually has).
pub(crate) fn key_bilinear(grid: &KeyGrid, su: SplineSample, sv: SplineSample) -> Vec3 {
    let (i, j) = (su.segment, sv.segment);
    let bottom = grid.key(i, j) * (1.0 - su.t) + grid.key(i + 1, j) * su.t;
    let top = grid.key(i, j + 1) * (1.0 - su.t) + grid.key(i + 1, j + 1) * su.t;
    bottom * (1.0 - sv.t) + top * sv.t
}
