//! The cloth: immutable topology (springs, adjacency, triangles, rest lengths) beside mutable state
//! (positions, velocities, masses, pins), all as flat arrays indexed by node.
//!
//! Adjacency is stored per node (compressed rows), so every per-node sum in the step is a *gather*
//! over that node's springs in a fixed order. That makes the serial and the parallel step compute
//! the same floating-point sums in the same order: bit-identical results.

use std::sync::{Arc, OnceLock};

use glam::DVec3;

use crate::sim::format::params::Stiffness;

/// Which stiffness a spring takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpringFamily {
    /// 4-neighbour springs of a grid.
    Structural,
    /// Diagonal springs of a grid.
    Shear,
    /// Springs two apart along rows and columns.
    Bend,
    /// A spring of an explicit cloth, with its own `k`.
    Custom,
}

/// A Hooke spring between nodes `a` and `b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spring {
    pub a: usize,
    pub b: usize,
    pub family: SpringFamily,
    /// Rest length `L`, m.
    pub rest: f64,
    /// Stiffness of a `Custom` spring, N/m (unused for grid families).
    pub k_custom: f64,
}

/// Grid layout of a grid cloth: node `(i, j)` is `j * nx + i`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridInfo {
    pub nx: usize,
    pub ny: usize,
    /// Rest spacing along `i` (u), m.
    pub l0_u: f64,
    /// Rest spacing along `j` (v), m.
    pub l0_v: f64,
    /// The flag's outline: the renderer draws the surface only inside it. The rectangle
    /// unless the scene gives a shape (`cloth.grid.shape`).
    pub shape: crate::sim::format::outline::FlagShape,
}

/// One neighbour of a node: the node at the other end and the spring index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub node: u32,
    pub spring: u32,
}

/// The key mesh's topology: what the renderer needs besides the positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMesh {
    /// Each spring's ends, in spring order (an explicit cloth's drawn mesh).
    pub springs: Vec<[u32; 2]>,
    /// Triangles with consistent orientation (for normals and air).
    pub triangles: Vec<[usize; 3]>,
    /// Per node, whether a shaped flag cut it away ([`crate::sim::format::outline`]): it has no springs
    /// and no triangles, never moves and is not drawn. Empty when nothing is cut.
    pub cut: Vec<bool>,
    /// The flag image's transparency the cloth was cut to (its image shape), for picking.
    pub alpha: Option<Arc<crate::sim::format::outline::AlphaMask>>,
}

impl KeyMesh {
    /// Whether node `i` was cut away.
    pub fn is_cut(&self, i: usize) -> bool {
        self.cut.get(i).copied().unwrap_or(false)
    }
}

/// What never changes once a cloth is built: its springs, adjacency, triangles, grid and the
/// orders and layouts the step's loops read. Made once by [`Cloth::new`] and shared through an
/// `Arc` by every copy of the cloth (the lab's copies, saved histories); it has no `Clone`, so
/// nothing can make a changed copy of it behind the cloth's back.
#[derive(Debug)]
pub struct Topology {
    /// Each node's position as built, m: where a pinned node sits when its handle is at rest,
    /// and what tethers measure their rest lengths on.
    pub anchor: Vec<DVec3>,
    pub springs: Vec<Spring>,
    /// `links[link_start[i]..link_start[i + 1]]` are node `i`'s neighbours, in spring order.
    pub link_start: Vec<usize>,
    pub links: Vec<Link>,
    /// The key mesh (springs and triangles) as drawn: shared by every snapshot of this cloth
    /// (a publish copies the state, never the topology).
    pub mesh: Arc<KeyMesh>,
    pub grid: Option<GridInfo>,
    /// The order of Provot's sweeps over the structural and shear springs ([`StrainOrder`]).
    pub strain_order: StrainOrder,
    /// The same over the structural springs alone (`provot.shear` off), made on first use.
    structural_order: OnceLock<StrainOrder>,
    /// Every spring coloured so that no two springs of a colour share a node (a greedy edge
    /// colouring in spring order; a grid needs about eight colours), for `xpbd`'s sweeps.
    pub all_colors: Vec<Vec<u32>>,
    pub all_color_slot: Vec<Vec<u32>>,
    /// `tri_start[i]..tri_start[i + 1]` index `tri_of_node`: the triangles around node `i`.
    pub tri_start: Vec<usize>,
    pub tri_of_node: Vec<u32>,

    // ---- the same topology laid out for the step's loops ----
    /// Per spring, its ends `[a, b]` (4 bytes each, so a pass over the springs reads 8 bytes of
    /// topology per spring instead of a whole [`Spring`]).
    pub ends: Vec<[u32; 2]>,
    /// Per spring, its rest length `L`, m (a copy of `Spring::rest`).
    pub rest: Vec<f64>,
    /// Per spring, `1 / L²` (0 where `L = 0`), 1/m²: strain from a squared length, no root.
    pub inv_rest2: Vec<f64>,
    /// Per spring, 1 where Provot limits it and `L > 0`, else 0 (see [`limits_strain`]).
    pub limited: Vec<f64>,
    /// Per link (parallel to `links`): +1 when the node is its spring's end `a`, −1 at end `b`,
    /// so a gather adds `sign · f_spring` without looking the spring up.
    pub link_sign: Vec<f64>,
}

impl Topology {
    /// The order of Provot's sweeps over the springs they limit: the structural and shear
    /// springs (`shear`), or the structural springs alone (every spring of an explicit cloth
    /// either way).
    pub fn strain_order(&self, shear: bool) -> &StrainOrder {
        if shear {
            &self.strain_order
        } else {
            self.structural_order
                .get_or_init(|| StrainOrder::new(self.anchor.len(), &self.springs, false))
        }
    }

    #[cfg(test)]
    pub(crate) fn node_count(&self) -> usize {
        self.link_start.len() - 1
    }

    /// Node `i`'s neighbours.
    #[inline]
    pub fn links(&self, i: usize) -> &[Link] {
        &self.links[self.link_start[i]..self.link_start[i + 1]]
    }
}

/// Each spring's stiffness and the tables derived from it, in one place: the fields are private
/// and [`SpringStiffness::new`] is the only way to make them, so `link_k` and `k_sum` always
/// agree with `k`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpringStiffness {
    k: Vec<f64>,
    link_k: Vec<f64>,
    k_sum: Vec<f64>,
}

impl SpringStiffness {
    /// The tables for `k` (per spring, N/m) on `topology`. `k` must have one entry per spring.
    pub(crate) fn new(topology: &Topology, k: Vec<f64>) -> Self {
        assert_eq!(k.len(), topology.springs.len(), "one stiffness per spring");
        let link_k: Vec<f64> = topology
            .links
            .iter()
            .map(|l| k[l.spring as usize])
            .collect();
        let k_sum = topology
            .link_start
            .windows(2)
            .map(|w| link_k[w[0]..w[1]].iter().sum::<f64>())
            .collect();
        Self { k, link_k, k_sum }
    }

    /// Per spring: its stiffness `k`, N/m.
    pub(crate) fn k(&self) -> &[f64] {
        &self.k
    }

    /// Per link (parallel to [`Topology::links`]): its spring's `k`, N/m.
    pub(crate) fn link_k(&self) -> &[f64] {
        &self.link_k
    }

    /// Per node: `Σ_j k_ij` over its links, N/m (so `D_i = m_i + h² Σ_j k_ij` needs no loop).
    pub(crate) fn k_sum(&self) -> &[f64] {
        &self.k_sum
    }
}

/// A cloth: its shared, fixed [`Topology`] and spring stiffness, and its own state. Cloning a
/// cloth copies the state and shares the rest.
#[derive(Debug, Clone)]
pub struct Cloth {
    pub topology: Arc<Topology>,
    /// Changed only by [`Cloth::apply_stiffness`] (a new table, shared until the next change).
    stiffness: Arc<SpringStiffness>,

    // ---- state ----
    /// Positions, m.
    pub x: Vec<DVec3>,
    /// Velocities, m/s.
    pub v: Vec<DVec3>,
    /// Masses, kg (> 0). State, not topology: the user tunes the total mass live.
    pub m: Vec<f64>,
    /// Kinematic nodes: the integrator never moves them; their motion is prescribed.
    pub pinned: Vec<bool>,
    /// Velocity change of the last published step, `v_after - v_before`, m/s.
    pub dv: Vec<DVec3>,
}

impl Cloth {
    /// Builds a cloth and its adjacency. Indices must already be validated. Each spring's
    /// stiffness starts as its `k_custom` until [`Cloth::apply_stiffness`].
    pub fn new(
        x: Vec<DVec3>,
        v: Vec<DVec3>,
        m: Vec<f64>,
        pinned: Vec<bool>,
        springs: Vec<Spring>,
        triangles: Vec<[usize; 3]>,
        grid: Option<GridInfo>,
    ) -> Self {
        Self::with_cut(
            x,
            v,
            m,
            pinned,
            springs,
            triangles,
            grid,
            (Vec::new(), None),
        )
    }

    /// [`Cloth::new`] for a shaped flag: the nodes marked in `cut` (none of the springs or
    /// triangles may use them) are held where they are and not drawn ([`KeyMesh::cut`]); `alpha`
    /// is the image's transparency an image shape was cut to ([`KeyMesh::alpha`]).
    #[allow(clippy::too_many_arguments)] // reason: `new`'s parts, plus the one this adds
    pub(crate) fn with_cut(
        x: Vec<DVec3>,
        v: Vec<DVec3>,
        m: Vec<f64>,
        pinned: Vec<bool>,
        springs: Vec<Spring>,
        triangles: Vec<[usize; 3]>,
        grid: Option<GridInfo>,
        (cut, alpha): (
            Vec<bool>,
            Option<Arc<crate::sim::format::outline::AlphaMask>>,
        ),
    ) -> Self {
        let n = x.len();
        let (link_start, links) = node_links(n, &springs);
        let anchor = x.clone();
        let k = springs.iter().map(|s| s.k_custom).collect();
        let strain_order = StrainOrder::new(n, &springs, true);
        let all_colors = color_springs(n, &springs, |_| true);
        let all_color_slot = color_slots(n, &springs, &all_colors);
        let (tri_start, tri_of_node) = node_triangles(n, &triangles);
        let ends = springs.iter().map(|s| [s.a as u32, s.b as u32]).collect();
        let rest: Vec<f64> = springs.iter().map(|s| s.rest).collect();
        let inv_rest2 = rest
            .iter()
            .map(|&r| if r > 0.0 { 1.0 / (r * r) } else { 0.0 })
            .collect();
        let limited = springs
            .iter()
            .map(|s| f64::from(u8::from(s.rest > 0.0 && limits_strain(s.family))))
            .collect();
        let link_sign = (0..n)
            .flat_map(|i| {
                links[link_start[i]..link_start[i + 1]]
                    .iter()
                    .map(move |l| (i, l.spring))
            })
            .map(|(i, si)| {
                if springs[si as usize].a == i {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        let mesh = Arc::new(KeyMesh {
            springs: springs.iter().map(|s| [s.a as u32, s.b as u32]).collect(),
            triangles,
            cut,
            alpha,
        });
        let topology = Topology {
            anchor,
            springs,
            link_start,
            links,
            mesh,
            grid,
            strain_order,
            structural_order: OnceLock::new(),
            all_colors,
            all_color_slot,
            tri_start,
            tri_of_node,
            ends,
            rest,
            inv_rest2,
            limited,
            link_sign,
        };
        let stiffness = Arc::new(SpringStiffness::new(&topology, k));
        Self {
            topology: Arc::new(topology),
            stiffness,
            dv: vec![DVec3::ZERO; n],
            x,
            v,
            m,
            pinned,
        }
    }

    pub fn node_count(&self) -> usize {
        self.x.len()
    }

    /// Node `i`'s neighbours.
    #[inline]
    pub fn links(&self, i: usize) -> &[Link] {
        self.topology.links(i)
    }

    /// The grid layout, if the cloth is a grid.
    pub fn grid(&self) -> Option<GridInfo> {
        self.topology.grid
    }

    /// The springs' stiffness and its derived tables.
    pub fn stiffness(&self) -> &SpringStiffness {
        &self.stiffness
    }

    /// Per spring: its stiffness `k`, N/m.
    pub fn k(&self) -> &[f64] {
        self.stiffness.k()
    }

    /// Resolves every spring's `k` from its family (grid springs) or keeps its own (custom).
    pub(crate) fn apply_stiffness(&mut self, s: &Stiffness) {
        let k = self
            .topology
            .springs
            .iter()
            .map(|spring| match spring.family {
                SpringFamily::Structural => s.structural,
                SpringFamily::Shear => s.shear,
                SpringFamily::Bend => s.bend,
                SpringFamily::Custom => spring.k_custom,
            })
            .collect();
        self.stiffness = Arc::new(SpringStiffness::new(&self.topology, k));
    }

    pub fn total_mass(&self) -> f64 {
        let mesh = &self.topology.mesh;
        if mesh.cut.is_empty() {
            return self.m.iter().sum();
        }
        (self.m.iter().zip(&mesh.cut))
            .filter(|(_, cut)| !**cut)
            .map(|(m, _)| m)
            .sum()
    }

    /// Nodes of cloth: all but those a shaped flag cut away.
    pub fn cloth_node_count(&self) -> usize {
        self.node_count() - self.topology.mesh.cut.iter().filter(|c| **c).count()
    }

    /// Scales every mass so the total becomes `total` kg (> 0).
    pub(crate) fn set_total_mass(&mut self, total: f64) {
        let scale = total / self.total_mass();
        for m in &mut self.m {
            *m *= scale;
        }
    }

    /// Largest `|x_ab| / L` over the springs Provot limits (structural and shear on a grid, every
    /// spring otherwise) with `L > 0`. 1 means at rest length. (A maximum does not depend on the
    /// order, so the parallel reduction gives the serial answer.)
    pub fn max_strain(&self) -> f64 {
        self.strain_maxima(self.topology.ends.len() >= 65_536).1
    }

    /// `(largest |x_ab| / L over every spring with L > 0, largest over the springs Provot
    /// limits)`: one pass for the guard's blow-up test and the strain statistic. (A maximum does
    /// not depend on the order, so the parallel reduction gives the serial answer.)
    pub fn strain_maxima(&self, parallel: bool) -> (f64, f64) {
        let topology = &*self.topology;
        let strain2 = |s: usize| {
            let [a, b] = topology.ends[s];
            let r2 =
                (self.x[b as usize] - self.x[a as usize]).length_squared() * topology.inv_rest2[s];
            (r2, r2 * self.topology.limited[s])
        };
        let max = |p: (f64, f64), q: (f64, f64)| (p.0.max(q.0), p.1.max(q.1));
        let (all2, limited2) = if parallel {
            use rayon::prelude::*;
            (0..topology.ends.len())
                .into_par_iter()
                .with_min_len(4096)
                .map(strain2)
                .reduce(|| (0.0, 0.0), max)
        } else {
            // Four running maxima: one would chain every spring's `max` on the last.
            let mut lanes = [(0.0, 0.0); 4];
            let whole = topology.ends.len() / 4 * 4;
            for s in (0..whole).step_by(4) {
                for (lane, acc) in lanes.iter_mut().enumerate() {
                    *acc = max(*acc, strain2(s + lane));
                }
            }
            let tail = (whole..topology.ends.len())
                .map(strain2)
                .fold((0.0, 0.0), max);
            lanes.into_iter().fold(tail, max)
        };
        (all2.sqrt(), limited2.sqrt())
    }

    /// Per-node area-weighted normals of the key mesh (the sum of the normals of the triangles
    /// around the node, in triangle order, normalised; zero where a node has no triangle or a
    /// degenerate neighbourhood). Each triangle's cross product is computed once into
    /// `tri_normals`, then gathered per node in a fixed order, so the parallel path gives the
    /// serial answer bit for bit.
    pub fn node_normals(&self, parallel: bool, tri_normals: &mut Vec<DVec3>, out: &mut [DVec3]) {
        let topology = &*self.topology;
        let triangles = &topology.mesh.triangles;
        tri_normals.resize(triangles.len(), DVec3::ZERO);
        let x = &self.x;
        crate::sim::model::par::for_each_node(parallel, tri_normals, |ti, n| {
            let [a, b, c] = triangles[ti];
            *n = (x[b] - x[a]).cross(x[c] - x[a]);
        });
        let tri_normals = &*tri_normals;
        let gather = |i: usize| {
            let mut sum = DVec3::ZERO;
            for &ti in &topology.tri_of_node[topology.tri_start[i]..topology.tri_start[i + 1]] {
                sum += tri_normals[ti as usize];
            }
            sum
        };
        if parallel {
            crate::sim::model::par::for_each_node(parallel, out, |i, n| {
                *n = gather(i).normalize_or_zero();
            });
        } else {
            // On one thread normalised in a loop of their own: each node's square root and
            // division then overlap the others' (after each node's gather they waited).
            for (i, n) in out.iter_mut().enumerate() {
                *n = gather(i);
            }
            for n in out.iter_mut() {
                *n = n.normalize_or_zero();
            }
        }
    }
}

/// The order in which Provot's sweeps visit the springs they limit: spring order (on a grid,
/// row by row from node 0), within *bands* of [`StrainOrder::BAND_NODES`] consecutive nodes.
///
/// A Gauss–Seidel sweep in spring order carries a correction along the whole sweep direction
/// at once, where a sweep colour by colour moves it one node per sweep, so the same few sweeps
/// leave a hanging cloth's springs less stretched in spring order. The bands make it parallel:
/// a band's springs touch only the band's nodes, so bands are independent; the springs between bands come after them. The bands depend on
/// the node count alone, never on the threads, so the serial and parallel sweeps are the same
/// sequence of corrections, bit for bit.
#[derive(Debug, Clone, Default)]
pub struct StrainOrder {
    /// Nodes per band (the last may be shorter).
    pub band_nodes: usize,
    /// Per band, its springs in spring order.
    pub bands: Vec<Vec<LimitedSpring>>,
    /// Springs whose ends lie in different bands, in spring order.
    pub boundary: Vec<LimitedSpring>,
}

/// A spring Provot limits, as a sweep reads it: 16 bytes, in the order they are visited.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimitedSpring {
    pub a: u32,
    pub b: u32,
    /// Rest length `L`, m.
    pub rest: f64,
}

impl StrainOrder {
    /// Target number of nodes per band. A band edge slows the sweeps' convergence a little (the
    /// springs between bands are corrected after the bands, not in the sweep's flow), so bands
    /// are large: a cloth below 16 384 nodes (128 × 128) is one band, serial.
    pub const BAND_NODES: usize = 8192;

    /// The order over `springs`' limited ones ([`limits_strain`]; with `shear` false, not the
    /// shear springs).
    fn new(nodes: usize, springs: &[Spring], shear: bool) -> Self {
        let bands = (nodes / Self::BAND_NODES).max(1);
        let band_nodes = nodes.div_ceil(bands).max(1);
        let mut order = Self {
            band_nodes,
            bands: vec![Vec::new(); bands],
            boundary: Vec::new(),
        };
        for s in springs {
            if !(s.rest > 0.0 && limits_strain(s.family))
                || (!shear && s.family == SpringFamily::Shear)
            {
                continue;
            }
            let limited = LimitedSpring {
                a: s.a as u32,
                b: s.b as u32,
                rest: s.rest,
            };
            let (ba, bb) = (s.a / band_nodes, s.b / band_nodes);
            if ba == bb {
                order.bands[ba].push(limited);
            } else {
                order.boundary.push(limited);
            }
        }
        order
    }
}

/// Provot limits structural and shear springs of a grid, and every spring of an explicit cloth.
pub fn limits_strain(family: SpringFamily) -> bool {
    !matches!(family, SpringFamily::Bend)
}

/// Per colour, per node: the position in the colour's list of its spring touching the node, or
/// `u32::MAX`.
fn color_slots(nodes: usize, springs: &[Spring], colors: &[Vec<u32>]) -> Vec<Vec<u32>> {
    colors
        .iter()
        .map(|color| {
            let mut slot = vec![u32::MAX; nodes];
            for (k, &si) in color.iter().enumerate() {
                let s = &springs[si as usize];
                slot[s.a] = k as u32;
                slot[s.b] = k as u32;
            }
            slot
        })
        .collect()
}

/// Greedy edge colouring of the springs `keep` accepts: each spring, in order, takes the
/// smallest colour neither of its nodes has yet. Deterministic.
fn color_springs(
    nodes: usize,
    springs: &[Spring],
    keep: impl Fn(&Spring) -> bool,
) -> Vec<Vec<u32>> {
    let mut used: Vec<Vec<bool>> = vec![Vec::new(); nodes];
    let mut colors: Vec<Vec<u32>> = Vec::new();
    for (si, s) in springs.iter().enumerate() {
        if !keep(s) {
            continue;
        }
        let free = |u: &Vec<bool>, c: usize| !u.get(c).copied().unwrap_or(false);
        // One of the first `max(used) + 1` colours is free at both ends.
        let bound = used[s.a].len().max(used[s.b].len());
        let c = (0..=bound)
            .find(|&c| free(&used[s.a], c) && free(&used[s.b], c))
            .unwrap_or(0);
        for node in [s.a, s.b] {
            if used[node].len() <= c {
                used[node].resize(c + 1, false);
            }
            used[node][c] = true;
        }
        if colors.len() <= c {
            colors.resize(c + 1, Vec::new());
        }
        colors[c].push(si as u32);
    }
    colors
}

/// Each node's springs as a compressed list: node `i`'s links are
/// `links[link_start[i]..link_start[i + 1]]`, in the springs' order.
fn node_links(n: usize, springs: &[Spring]) -> (Vec<usize>, Vec<Link>) {
    let mut degree = vec![0usize; n + 1];
    for s in springs {
        degree[s.a] += 1;
        degree[s.b] += 1;
    }
    let mut link_start = vec![0usize; n + 1];
    for i in 0..n {
        link_start[i + 1] = link_start[i] + degree[i];
    }
    let mut fill = link_start.clone();
    let mut links = vec![Link { node: 0, spring: 0 }; link_start[n]];
    for (si, s) in springs.iter().enumerate() {
        links[fill[s.a]] = Link {
            node: s.b as u32,
            spring: si as u32,
        };
        fill[s.a] += 1;
        links[fill[s.b]] = Link {
            node: s.a as u32,
            spring: si as u32,
        };
        fill[s.b] += 1;
    }
    (link_start, links)
}

/// Each node's triangles as a compressed list: node `i`'s are
/// `tri_of_node[tri_start[i]..tri_start[i + 1]]`.
fn node_triangles(n: usize, triangles: &[[usize; 3]]) -> (Vec<usize>, Vec<u32>) {
    let mut tri_start = vec![0usize; n + 1];
    for t in triangles {
        for &i in t {
            tri_start[i + 1] += 1;
        }
    }
    for i in 0..n {
        tri_start[i + 1] += tri_start[i];
    }
    let mut fill = tri_start.clone();
    let mut tri_of_node = vec![0u32; tri_start[n]];
    for (ti, t) in triangles.iter().enumerate() {
        for &i in t {
            tri_of_node[fill[i]] = ti as u32;
            fill[i] += 1;
        }
    }
    (tri_start, tri_of_node)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 × 3 grid of unit spacing with every family: structural between neighbours, shear
    /// on the diagonals, bend two apart (node `(i, j)` is `3 j + i`).
    fn grid3() -> Cloth {
        let idx = |i: usize, j: usize| 3 * j + i;
        let mut springs = Vec::new();
        let mut add = |a, b, family, rest| {
            springs.push(Spring {
                a,
                b,
                family,
                rest,
                k_custom: 0.0,
            });
        };
        for j in 0..3 {
            for i in 0..3 {
                if i + 1 < 3 {
                    add(idx(i, j), idx(i + 1, j), SpringFamily::Structural, 1.0);
                }
                if j + 1 < 3 {
                    add(idx(i, j), idx(i, j + 1), SpringFamily::Structural, 1.0);
                }
                if i + 1 < 3 && j + 1 < 3 {
                    add(
                        idx(i, j),
                        idx(i + 1, j + 1),
                        SpringFamily::Shear,
                        2f64.sqrt(),
                    );
                    add(
                        idx(i + 1, j),
                        idx(i, j + 1),
                        SpringFamily::Shear,
                        2f64.sqrt(),
                    );
                }
                if i + 2 < 3 {
                    add(idx(i, j), idx(i + 2, j), SpringFamily::Bend, 2.0);
                }
                if j + 2 < 3 {
                    add(idx(i, j), idx(i, j + 2), SpringFamily::Bend, 2.0);
                }
            }
        }
        let x = (0..9)
            .map(|n| DVec3::new((n % 3) as f64, (n / 3) as f64, 0.0))
            .collect();
        Cloth::new(
            x,
            vec![DVec3::ZERO; 9],
            vec![0.1; 9],
            vec![false; 9],
            springs,
            Vec::new(),
            None,
        )
    }

    #[test]
    fn the_stiffness_tables_follow_each_family_and_sum_per_node() {
        let mut cloth = grid3();
        let (ks, kh, kb) = (100.0, 30.0, 2.0);
        cloth.apply_stiffness(&Stiffness {
            structural: ks,
            shear: kh,
            bend: kb,
        });
        for (s, spring) in cloth.topology.springs.iter().enumerate() {
            let expected = match spring.family {
                SpringFamily::Structural => ks,
                SpringFamily::Shear => kh,
                SpringFamily::Bend => kb,
                SpringFamily::Custom => unreachable!(),
            };
            assert_eq!(cloth.k()[s], expected, "spring {s}");
        }
        // Counted on the grid: a corner has 2 structural, 1 shear and 2 bend neighbours; an
        // edge middle 3, 2 and 1; the centre 4, 4 and none.
        let expected_sum =
            |structural: f64, shear: f64, bend: f64| structural * ks + shear * kh + bend * kb;
        let table = cloth.stiffness();
        for corner in [0, 2, 6, 8] {
            assert_eq!(table.k_sum()[corner], expected_sum(2.0, 1.0, 2.0));
        }
        for edge in [1, 3, 5, 7] {
            assert_eq!(table.k_sum()[edge], expected_sum(3.0, 2.0, 1.0));
        }
        assert_eq!(table.k_sum()[4], expected_sum(4.0, 4.0, 0.0));
        // Each link carries its own spring's k.
        for (link, &k) in cloth.topology.links.iter().zip(table.link_k()) {
            assert_eq!(k, cloth.k()[link.spring as usize]);
        }
        assert_eq!(table.link_k().len(), 2 * cloth.topology.springs.len());
    }

    /// The springs Provot limits on the 3 × 3 grid: 12 structural and 8 shear (every other
    /// family left out), or the 12 structural alone; each once, with its rest length.
    #[test]
    fn the_strain_order_holds_the_shear_springs_only_when_asked() {
        let cloth = grid3();
        let limited = |shear: bool| {
            let order = cloth.topology.strain_order(shear);
            let mut springs: Vec<(u32, u32, f64)> = order
                .bands
                .iter()
                .flatten()
                .chain(&order.boundary)
                .map(|s| (s.a.min(s.b), s.a.max(s.b), s.rest))
                .collect();
            springs.sort_by(|p, q| p.partial_cmp(q).expect("no NaN"));
            springs
        };
        let (with, without) = (limited(true), limited(false));
        assert_eq!(with.len(), 20);
        assert_eq!(without.len(), 12);
        for (a, b, rest) in &without {
            let (ia, ja, ib, jb) = (a % 3, a / 3, b % 3, b / 3);
            assert_eq!(
                ia.abs_diff(ib) + ja.abs_diff(jb),
                1,
                "{a}-{b} is a neighbour"
            );
            assert_eq!(*rest, 1.0);
        }
        let diagonals = with.iter().filter(|s| s.2 == 2f64.sqrt()).count();
        assert_eq!(diagonals, 8);
        assert!(without.iter().all(|s| with.contains(s)));
    }

    #[test]
    fn a_change_of_stiffness_makes_new_tables_and_leaves_copies_alone() {
        let mut cloth = grid3();
        let soft = Stiffness {
            structural: 10.0,
            shear: 1.0,
            bend: 0.1,
        };
        cloth.apply_stiffness(&soft);
        let copy = cloth.clone();
        assert!(std::ptr::eq(copy.stiffness(), cloth.stiffness()));
        cloth.apply_stiffness(&Stiffness {
            structural: 20.0,
            ..soft
        });
        assert_eq!(cloth.k()[0], 20.0);
        assert_eq!(copy.k()[0], 10.0, "the copy keeps its own stiffness");
        assert_eq!(
            cloth.stiffness().k_sum()[4] - copy.stiffness().k_sum()[4],
            40.0
        );
        assert!(Arc::ptr_eq(&copy.topology, &cloth.topology));
    }

    #[test]
    fn custom_springs_keep_their_own_stiffness() {
        let spring = |a, b, k_custom| Spring {
            a,
            b,
            family: SpringFamily::Custom,
            rest: 1.0,
            k_custom,
        };
        let mut cloth = Cloth::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y],
            vec![DVec3::ZERO; 3],
            vec![1.0; 3],
            vec![false; 3],
            vec![spring(0, 1, 5.0), spring(0, 2, 7.0)],
            Vec::new(),
            None,
        );
        assert_eq!(cloth.k(), [5.0, 7.0]);
        assert_eq!(cloth.stiffness().k_sum(), [12.0, 5.0, 7.0]);
        cloth.apply_stiffness(&Stiffness {
            structural: 1.0,
            shear: 1.0,
            bend: 1.0,
        });
        assert_eq!(cloth.k(), [5.0, 7.0]);
        assert_eq!(cloth.topology.node_count(), 3);
        assert_eq!(cloth.links(0).len(), 2);
    }
}
