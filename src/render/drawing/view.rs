//! From a simulation snapshot to what a frame draws: key grid for the upsampler, pole, colliders,
//! ground, overlay lines and a camera that frames the scene. Shared by `flagsim render` and the
//! viewer, so both show the same picture.

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use crate::render::camera::orbit::OrbitCamera;
use crate::render::passes::cloth_pass::ColorMode;
use crate::render::passes::lines_pass::{LineVertex, grid_wireframe, push_segment};
use crate::render::passes::scene_pass::{Pole, Sphere};
use crate::sim::format::params::{Collider, Params};
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim::{GridInfo, runtime::agreement::Comparison};
use crate::upsample::{KeyGrid, RenderSettings};

/// Overlay colours (sRGB + alpha).
pub(crate) const KEY_MESH_COLOR: [f32; 4] = [0.05, 0.05, 0.08, 0.9];
pub(crate) const DV_COLOR: [f32; 4] = [0.95, 0.15, 0.1, 1.0];
pub(crate) const FILTER_DV_COLOR: [f32; 4] = [0.1, 0.45, 1.0, 1.0];
pub(crate) const RENDER_MESH_COLOR: [f32; 4] = [0.1, 0.1, 0.1, 0.35];

/// What the user chose to see, independent of the simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewSettings {
    /// Upsampling (resolution, mode, `c`, options).
    pub render: RenderSettings,
    /// Surface colouring: texture, node types (Fig. 2) or strain.
    pub color_mode: ColorMode,
    /// Draw the key mesh (the simulated 10 × 10 springs) as lines.
    pub key_wireframe: bool,
    /// Draw the render mesh's edges over the surface.
    pub render_wireframe: bool,
    /// Draw one `Δv` segment per key node.
    pub dv_overlay: bool,
    /// Length of a `Δv` segment per m/s of velocity change, s (so the segment is in metres).
    /// Range 0.001..=10. Default 0.5.
    pub dv_scale: f32,
    /// Draw the Fig. 8 comparison (active integrator and precomputed filter) when published.
    pub compare: bool,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            render: RenderSettings::default(),
            color_mode: ColorMode::Texture,
            key_wireframe: false,
            render_wireframe: false,
            dv_overlay: false,
            dv_scale: 0.5,
            compare: false,
        }
    }
}

/// Key positions in f32 (the GPU side's precision).
pub fn key_positions(x: &[DVec3]) -> Vec<Vec3> {
    x.iter().map(glam::DVec3::as_vec3).collect()
}

/// Gives a shaped flag's cut nodes (`cut`, in grid order) positions that continue the cloth, so
/// the splines through the kept nodes near the outline stay as the cloth bends: along each row a
/// cut node between kept ones is interpolated linearly between the nearest on each side, one
/// beyond the last kept node continues the line through the last two (a row with fewer than two
/// kept nodes copies the row below or above). A flat, evenly spaced grid comes back exactly.
pub fn fill_cut_keys(keys: &mut [Vec3], cut: &[bool], nx: usize, ny: usize) {
    if cut.len() != keys.len() || keys.len() != nx * ny || !cut.iter().any(|c| *c) {
        return;
    }
    // Whether row `j` has the two kept nodes its cut ones are drawn from.
    let filled = |j: usize| cut[j * nx..(j + 1) * nx].iter().filter(|c| !**c).count() >= 2;
    for j in (0..ny).filter(|&j| filled(j)) {
        let row = j * nx;
        let kept = |i: usize| !cut[row + i];
        // Each run of cut nodes `s..e`, between (or beside) the kept nodes around it.
        let (mut last, mut before_last) = (None, None);
        let mut i = 0;
        while i < nx {
            if kept(i) {
                (before_last, last) = (last, Some(i));
                i += 1;
                continue;
            }
            let s = i;
            while i < nx && !kept(i) {
                i += 1;
            }
            let first_after = (i..nx).find(|&k| kept(k));
            let (a, b) = match (last, first_after) {
                (Some(l), Some(r)) => (l, r),
                (Some(l), None) => (before_last.unwrap_or(l), l),
                (None, Some(r)) => (r, (r + 1..nx).find(|&k| kept(k)).unwrap_or(r)),
                (None, None) => continue,
            };
            if a == b {
                continue;
            }
            let (pa, pb) = (keys[row + a], keys[row + b]);
            for k in s..i {
                let t = (k as f32 - a as f32) / (b as f32 - a as f32);
                keys[row + k] = pa + (pb - pa) * t;
            }
        }
    }
    // Rows with fewer than two kept nodes take the nearest filled row's positions, shifted by
    // the step between that row and the next one towards this row.
    for j in (0..ny).filter(|&j| !filled(j)) {
        let Some(r) = (0..ny)
            .filter(|&r| filled(r))
            .min_by_key(|&r| r.abs_diff(j))
        else {
            return;
        };
        let toward =
            if r < j { r.checked_sub(1) } else { Some(r + 1) }.filter(|&q| q < ny && filled(q));
        for i in 0..nx {
            let base = keys[r * nx + i];
            let step = toward.map_or(Vec3::ZERO, |q| base - keys[q * nx + i]);
            let k = j * nx + i;
            if cut[k] {
                keys[k] = base + step * r.abs_diff(j) as f32;
            }
        }
    }
}

/// The upsampler's view of a grid cloth.
pub fn key_grid<'a>(grid: &GridInfo, positions: &'a [Vec3]) -> KeyGrid<'a> {
    KeyGrid {
        nx: grid.nx,
        ny: grid.ny,
        positions,
        l0_u: grid.l0_u as f32,
        l0_v: grid.l0_v as f32,
    }
}

/// The ground plane's height: the ground collider's, else 0 (drawn for context).
pub(crate) fn ground_height(params: &Params) -> f32 {
    params
        .colliders
        .iter()
        .find_map(|c| match c {
            Collider::Ground(g) => Some(g.height as f32),
            Collider::Sphere(_) => None,
        })
        .unwrap_or(0.0)
}

/// Sphere colliders as drawn (the margin is not drawn, so the cloth rests slightly above).
pub(crate) fn spheres(params: &Params) -> Vec<Sphere> {
    params
        .colliders
        .iter()
        .filter_map(|c| match c {
            Collider::Sphere(s) => Some(Sphere {
                center: DVec3::from_array(s.center).as_vec3(),
                radius: s.radius as f32,
            }),
            Collider::Ground(_) => None,
        })
        .collect()
}

/// The pole a flag is tied to: present when the whole hoist edge `i = 0` is pinned. It runs from
/// the ground (or, when the pole is waved above it, from below the hoist) to just above the top
/// hoist node.
pub fn pole(snap: &Snapshot) -> Option<Pole> {
    let grid = snap.grid?;
    let hoist: Vec<usize> = (0..grid.ny).map(|j| j * grid.nx).collect();
    if !hoist.iter().all(|&i| snap.pinned[i]) {
        return None;
    }
    // Where the hoist edge would be at the top of the pole: a lowered flag leaves its pole.
    let up = glam::DVec3::Y * snap.hoist_drop;
    let bottom = (snap.x[hoist[0]] + up).as_vec3();
    let top = (snap.x[hoist[grid.ny - 1]] + up).as_vec3();
    let along = (top - bottom).normalize_or(Vec3::Y);
    let ground = ground_height(&snap.params);
    let base = if bottom.y > ground + 0.05 && along.y > 0.5 {
        bottom - along * ((bottom.y - ground) / along.y)
    } else {
        bottom - along * 0.3
    };
    let radius = (0.012 * (top - base).length()).clamp(0.008, 0.05);
    Some(Pole {
        base,
        top: top + along * 0.04,
        radius,
    })
}

/// Axis-aligned bounds of what there is to see: every flag's key nodes and the top of its pole,
/// the spheres.
/// (The pole's foot is left out so a flag high on its pole still fills the picture.)
pub(crate) fn bounds(snap: &Snapshot) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::MAX);
    let mut hi = Vec3::splat(f32::MIN);
    let mut add = |p: Vec3| {
        if p.is_finite() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    };
    for flag in snap.all_flags() {
        flag.x.iter().for_each(|p| add(p.as_vec3()));
        if let Some(p) = pole(flag) {
            add(p.top);
        }
    }
    for s in spheres(&snap.params) {
        add(s.center - Vec3::splat(s.radius));
        add(s.center + Vec3::splat(s.radius));
    }
    if lo.x > hi.x {
        return (Vec3::splat(-1.0), Vec3::splat(1.0));
    }
    (lo, hi)
}

/// A camera looking from the front (+Z), a little from the fly side and above, at everything
/// in `snaps` (e.g. the initial and the current state).
pub fn framing_camera(snaps: &[&Snapshot]) -> OrbitCamera {
    let mut camera = OrbitCamera {
        yaw: 0.35,
        pitch: 0.12,
        ..OrbitCamera::default()
    };
    let (lo, hi) = snaps
        .iter()
        .map(|s| bounds(s))
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
        .unwrap_or((Vec3::splat(-1.0), Vec3::splat(1.0)));
    // Leave room for the cloth to move (wind, waving) around its initial place: a flag blown out
    // and drooping reaches below its rest rectangle.
    let pad = 0.1 * (hi - lo).length().max(0.2);
    camera.frame_bounds(
        lo - Vec3::new(pad, 0.35 * (hi - lo).length(), pad),
        hi + Vec3::splat(pad),
    );
    camera
}

/// Appends the overlay lines `view` asks for: key mesh (springs of an explicit cloth), `Δv`
/// segments, and the Fig. 8 comparison of the active integrator (red) with the filter (blue).
pub(crate) fn overlay_lines(snap: &Snapshot, view: &ViewSettings, out: &mut Vec<LineVertex>) {
    let keys = key_positions(&snap.x);
    let no_surface = snap.grid.is_none();
    if view.key_wireframe || no_surface {
        match snap.grid {
            Some(g) => out.extend(grid_wireframe(&keys, g.nx, g.ny, KEY_MESH_COLOR)),
            None => {
                for &[a, b] in &snap.mesh.springs {
                    push_segment(out, keys[a as usize], keys[b as usize], KEY_MESH_COLOR);
                }
            }
        }
    }
    let scale = view.dv_scale;
    if view.dv_overlay {
        for (x, dv) in keys.iter().zip(&snap.dv) {
            push_segment(out, *x, *x + scale * dv.as_vec3(), DV_COLOR);
        }
    }
    if view.compare
        && let Some(c) = &snap.compare
    {
        comparison_lines(&keys, c, scale, out);
    }
}

/// Fig. 8: for every key node a segment of the active integrator's `Δv` and one of the filter's.
pub(crate) fn comparison_lines(
    keys: &[Vec3],
    c: &Comparison,
    scale: f32,
    out: &mut Vec<LineVertex>,
) {
    for ((x, a), f) in keys.iter().zip(&c.dv_active).zip(&c.dv_filter) {
        push_segment(out, *x, *x + scale * a.as_vec3(), DV_COLOR);
        push_segment(out, *x, *x + scale * f.as_vec3(), FILTER_DV_COLOR);
    }
}

/// 1 where the key node nearest to the render node was interpolated by the last step, else 0,
/// for every render node of an `R_u × R_v` mesh (row-major). All 0 when the wavelet
/// interpolation is off: every node was integrated.
pub(crate) fn render_interpolated(snap: &Snapshot, resolution: [u32; 2], out: &mut Vec<f32>) {
    out.clear();
    let Some(g) = snap.grid else {
        return;
    };
    let [ru, rv] = resolution.map(|r| r.max(2) as usize);
    let nearest = |r: usize, count: usize, n: usize| -> usize {
        ((n - 1) as f64 * r as f64 / (count - 1) as f64).round() as usize
    };
    for s in 0..rv {
        let j = nearest(s, rv, g.ny);
        for r in 0..ru {
            let i = nearest(r, ru, g.nx);
            let k = j * g.nx + i;
            out.push(if snap.interpolated.get(k).copied().unwrap_or(false) {
                1.0
            } else {
                0.0
            });
        }
    }
}

/// Strain `|x_ab| / L - 1` per key node (mean over its structural grid neighbours), bilinearly
/// interpolated to every render node of an `R_u × R_v` mesh (row-major, `s * R_u + r`).
pub(crate) fn render_strain(snap: &Snapshot, resolution: [u32; 2], out: &mut Vec<f32>) {
    out.clear();
    let Some(g) = snap.grid else {
        return;
    };
    let (nx, ny) = (g.nx, g.ny);
    let x = |i: usize, j: usize| snap.x[j * nx + i];
    let key: Vec<f64> = (0..ny)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| {
            let mut sum = 0.0;
            let mut n = 0.0;
            let mut add = |a: DVec3, b: DVec3, rest: f64| {
                sum += (b - a).length() / rest - 1.0;
                n += 1.0;
            };
            if i > 0 {
                add(x(i - 1, j), x(i, j), g.l0_u);
            }
            if i + 1 < nx {
                add(x(i, j), x(i + 1, j), g.l0_u);
            }
            if j > 0 {
                add(x(i, j - 1), x(i, j), g.l0_v);
            }
            if j + 1 < ny {
                add(x(i, j), x(i, j + 1), g.l0_v);
            }
            if n > 0.0 { sum / n } else { 0.0 }
        })
        .collect();
    let [ru, rv] = resolution.map(|r| r.max(2) as usize);
    let sample = |r: usize, count: usize, n: usize| -> (usize, f64) {
        let u = (n - 1) as f64 * r as f64 / (count - 1) as f64;
        let seg = (u.floor() as usize).min(n - 2);
        (seg, u - seg as f64)
    };
    for s in 0..rv {
        let (j, tv) = sample(s, rv, ny);
        for r in 0..ru {
            let (i, tu) = sample(r, ru, nx);
            let k = |i: usize, j: usize| key[j * nx + i];
            let bottom = k(i, j) * (1.0 - tu) + k(i + 1, j) * tu;
            let top = k(i, j + 1) * (1.0 - tu) + k(i + 1, j + 1) * tu;
            out.push((bottom * (1.0 - tv) + top * tv) as f32);
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::fill_cut_keys;

    /// A flat 6 × 4 grid, 0.1 m apart along x and 0.2 m along y, tilted in z.
    fn flat(i: usize, j: usize) -> Vec3 {
        Vec3::new(
            0.1 * i as f32,
            0.2 * j as f32,
            0.05 * i as f32 - 0.02 * j as f32,
        )
    }

    #[test]
    fn cut_keys_continue_an_even_grid_exactly() {
        let (nx, ny) = (6, 4);
        let truth: Vec<Vec3> = (0..ny)
            .flat_map(|j| (0..nx).map(move |i| flat(i, j)))
            .collect();
        // Cut: the fly end of row 0, a gap inside row 1, all but one node of row 3.
        let mut cut = vec![false; nx * ny];
        for k in [4, 5, 8, 9, 19, 20, 21, 22, 23] {
            cut[k] = true;
        }
        let mut keys = truth.clone();
        for (k, c) in cut.iter().enumerate() {
            if *c {
                keys[k] = Vec3::splat(99.0);
            }
        }
        fill_cut_keys(&mut keys, &cut, nx, ny);
        for (k, (got, want)) in keys.iter().zip(&truth).enumerate() {
            assert!(got.abs_diff_eq(*want, 1e-5), "node {k}: {got} for {want}");
        }
        // Nothing cut: nothing changes, even a crumpled grid.
        let mut crumpled: Vec<Vec3> = truth
            .iter()
            .map(|p| *p * Vec3::new(1.0, 0.5, 3.0))
            .collect();
        let before = crumpled.clone();
        fill_cut_keys(&mut crumpled, &vec![false; nx * ny], nx, ny);
        assert_eq!(crumpled, before);
    }
}
