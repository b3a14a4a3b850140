//! Picking against what is drawn: a ray from the camera through the cursor is intersected with
//! the render mesh (the CPU twin of the GPU upsampler gives the same triangles), and the hit is
//! mapped back to the nearest key node, the node a drag will move.

use glam::Vec3;

use crate::upsample::RenderMesh;

/// [`ray_triangle`] with the hit's barycentric `(u, v)`: `hit = a + u (b − a) + v (c − a)`.
pub(crate) fn ray_triangle_uv(
    origin: Vec3,
    dir: Vec3,
    a: Vec3,
    b: Vec3,
    c: Vec3,
) -> Option<(f32, f32, f32)> {
    let e1 = b - a;
    let e2 = c - a;
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t > 0.0).then_some((t, u, v))
}

/// Where a ray hits the render mesh: distance and the fractional render indices `(r, s)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MeshHit {
    pub t: f32,
    pub point: Vec3,
    pub r: f32,
    pub s: f32,
}

/// The closest hit of the ray `origin + t dir` on `mesh` (two triangles per render quad) at a
/// point `drawn` says is drawn, given its render-grid `(u, v)` in `0..=1` (a shaped flag is not
/// drawn outside its outline: the ray goes on through).
pub(crate) fn pick_render_mesh(
    origin: Vec3,
    dir: Vec3,
    mesh: &RenderMesh,
    drawn: impl Fn(f64, f64) -> bool,
) -> Option<MeshHit> {
    let [ru, rv] = mesh.resolution;
    if ru < 2 || rv < 2 || mesh.positions.len() < (ru * rv) as usize {
        return None;
    }
    let mut best: Option<MeshHit> = None;
    for s in 0..rv - 1 {
        for r in 0..ru - 1 {
            let p00 = mesh.position(r, s);
            let p10 = mesh.position(r + 1, s);
            let p01 = mesh.position(r, s + 1);
            let p11 = mesh.position(r + 1, s + 1);
            // (b − a, c − a) in render-index units for the two triangles of the quad.
            let quads = [
                (p00, p10, p11, (1.0, 0.0), (1.0, 1.0)),
                (p00, p11, p01, (1.0, 1.0), (0.0, 1.0)),
            ];
            for (a, b, c, eb, ec) in quads {
                if let Some((t, u, v)) = ray_triangle_uv(origin, dir, a, b, c)
                    && best.is_none_or(|h| t < h.t)
                {
                    let hit = MeshHit {
                        t,
                        point: origin + t * dir,
                        r: r as f32 + u * eb.0 + v * ec.0,
                        s: s as f32 + u * eb.1 + v * ec.1,
                    };
                    let at = |x: f32, n: u32| f64::from(x) / f64::from(n - 1);
                    if drawn(at(hit.r, ru), at(hit.s, rv)) {
                        best = Some(hit);
                    }
                }
            }
        }
    }
    best
}

/// The key node nearest the render sample `(r, s)` of an `R_u × R_v` mesh over `nx × ny` key
/// nodes (render index `r` sits at key parameter `(nx − 1) r / (R_u − 1)`, docs/method.md §7).
pub(crate) fn nearest_key_node(
    nx: usize,
    ny: usize,
    resolution: [u32; 2],
    r: f32,
    s: f32,
) -> usize {
    let to_key = |x: f32, n: usize, res: u32| -> usize {
        let u = (n - 1) as f32 * x / (res.max(2) - 1) as f32;
        (u.round().max(0.0) as usize).min(n - 1)
    };
    to_key(s, ny, resolution[1]) * nx + to_key(r, nx, resolution[0])
}

/// [`nearest_key_node`] among the nodes not `cut` (a shaped flag's): the nearest in key-grid
/// steps to the render sample `(r, s)`. `None` when every node is cut.
pub(crate) fn nearest_kept_node(
    (nx, ny): (usize, usize),
    resolution: [u32; 2],
    (r, s): (f32, f32),
    cut: &[bool],
) -> Option<usize> {
    let node = nearest_key_node(nx, ny, resolution, r, s);
    if !cut.get(node).copied().unwrap_or(false) {
        return Some(node);
    }
    let key = |x: f32, n: usize, res: u32| (n - 1) as f32 * x / (res.max(2) - 1) as f32;
    let (ku, kv) = (key(r, nx, resolution[0]), key(s, ny, resolution[1]));
    (0..nx * ny)
        .filter(|&k| !cut.get(k).copied().unwrap_or(false))
        .min_by(|&a, &b| {
            let d = |k: usize| {
                let (i, j) = ((k % nx) as f32, (k / nx) as f32);
                (i - ku).powi(2) + (j - kv).powi(2)
            };
            d(a).total_cmp(&d(b))
        })
}

/// The node whose position is nearest the ray (perpendicular distance), within `radius`; for
/// cloths without a surface (explicit node lists).
pub(crate) fn nearest_node_to_ray(
    origin: Vec3,
    dir: Vec3,
    nodes: &[Vec3],
    radius: f32,
) -> Option<usize> {
    nodes
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let t = (*p - origin).dot(dir);
            (t > 0.0).then(|| (i, (*p - (origin + t * dir)).length()))
        })
        .filter(|(_, d)| *d <= radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// Where the ray meets the plane through `point` with `normal`; `None` if parallel or behind.
pub(crate) fn ray_plane(origin: Vec3, dir: Vec3, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let denom = dir.dot(normal);
    if denom.abs() < 1e-9 {
        return None;
    }
    let t = (point - origin).dot(normal) / denom;
    (t > 0.0).then(|| origin + t * dir)
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::{nearest_kept_node, pick_render_mesh};
    use crate::upsample::RenderMesh;

    #[test]
    fn a_ray_goes_on_through_what_is_not_drawn() {
        // Two flat 2 × 2 meshes' worth in one: a square at z = 0 over x, y in 0..1.
        let mesh = RenderMesh {
            resolution: [2, 2],
            positions: vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
            ],
            ..RenderMesh::default()
        };
        let (origin, dir) = (Vec3::new(0.75, 0.5, 1.0), Vec3::NEG_Z);
        let hit = pick_render_mesh(origin, dir, &mesh, |_, _| true).unwrap();
        assert!(
            (hit.r - 0.75).abs() < 1e-5 && (hit.s - 0.5).abs() < 1e-5,
            "{hit:?}"
        );
        // The right half not drawn: the ray misses.
        assert!(pick_render_mesh(origin, dir, &mesh, |u, _| u < 0.5).is_none());
        assert!(pick_render_mesh(origin, dir, &mesh, |u, _| u > 0.5).is_some());
    }

    #[test]
    fn a_pick_on_a_cut_node_takes_the_nearest_kept_one() {
        // 3 × 3 keys, 3 × 3 render nodes (one render node a key): the middle column's top and
        // the right column cut.
        let cut = [false, false, true, false, false, true, false, true, true];
        let at = |r: f32, s: f32| nearest_kept_node((3, 3), [3, 3], (r, s), &cut);
        assert_eq!(at(0.0, 0.0), Some(0));
        assert_eq!(
            at(1.9, 0.1),
            Some(1),
            "node 2 is cut; node 1 is one step away"
        );
        assert_eq!(at(1.1, 1.9), Some(4), "node 7 is cut; 4 is nearer than 6");
        assert_eq!(
            nearest_kept_node((1, 2), [2, 2], (0.0, 0.0), &[true, true]),
            None
        );
    }
}
