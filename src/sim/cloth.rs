//! The cloth: immutable topology (springs, adjacency, triangles, rest lengths) beside mutable state
//! (positions, velocities, masses, pins), all as flat arrays indexed by node.
//!
//! Adjacency is stored per node (compressed rows), so every per-node sum in the step is a *gather*
//! over that node's springs in a fixed order. That makes the serial and the parallel step compute
//! the same floating-point sums in the same order: bit-identical results.

use glam::DVec3;

use super::params::Stiffness;

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
}

/// One neighbour of a node: the node at the other end and the spring index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub node: u32,
    pub spring: u32,
}

#[derive(Debug, Clone)]
pub struct Cloth {
    // ---- topology (fixed after construction) ----
    pub springs: Vec<Spring>,
    /// `links[link_start[i]..link_start[i + 1]]` are node `i`'s neighbours, in spring order.
    pub link_start: Vec<usize>,
    pub links: Vec<Link>,
    /// Key-mesh triangles with consistent orientation (for normals and air).
    pub triangles: Vec<[usize; 3]>,
    pub grid: Option<GridInfo>,

    // ---- state ----
    /// Positions, m.
    pub x: Vec<DVec3>,
    /// Velocities, m/s.
    pub v: Vec<DVec3>,
    /// Masses, kg (> 0).
    pub m: Vec<f64>,
    /// Kinematic nodes: the integrator never moves them; their motion is prescribed.
    pub pinned: Vec<bool>,
    /// Where each pinned node sits when the handle is at rest, m.
    pub anchor: Vec<DVec3>,
    /// Velocity change of the last published step, `v_after - v_before`, m/s.
    pub dv: Vec<DVec3>,
    /// Stiffness of each spring resolved from its family and the parameters, N/m.
    pub k: Vec<f64>,
    /// The springs Provot limits, grouped so that no two springs of a group share a node (a
    /// greedy edge colouring in spring order; a grid needs about eight colours).
    pub strain_colors: Vec<Vec<u32>>,
    /// Per colour, per node: the position in that colour's list of the one spring of the colour
    /// touching the node, or `u32::MAX`. Lets a colour's corrections be applied per node.
    pub strain_color_slot: Vec<Vec<u32>>,
    /// Every spring with `k > 0` coloured the same way, for `xpbd`'s constraint sweeps.
    pub all_colors: Vec<Vec<u32>>,
    pub all_color_slot: Vec<Vec<u32>>,
    /// `tri_start[i]..tri_start[i + 1]` index `tri_of_node`: the triangles around node `i`.
    pub tri_start: Vec<usize>,
    pub tri_of_node: Vec<u32>,
}

impl Cloth {
    /// Builds a cloth and its adjacency. Indices must already be validated.
    pub fn new(
        x: Vec<DVec3>,
        v: Vec<DVec3>,
        m: Vec<f64>,
        pinned: Vec<bool>,
        springs: Vec<Spring>,
        triangles: Vec<[usize; 3]>,
        grid: Option<GridInfo>,
    ) -> Self {
        let n = x.len();
        let mut degree = vec![0usize; n + 1];
        for s in &springs {
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
        let anchor = x.clone();
        let k = springs.iter().map(|s| s.k_custom).collect();
        let strain_colors = color_springs(n, &springs, |s| s.rest > 0.0 && limits_strain(s.family));
        let strain_color_slot = color_slots(n, &springs, &strain_colors);
        let all_colors = color_springs(n, &springs, |_| true);
        let all_color_slot = color_slots(n, &springs, &all_colors);
        let mut tri_start = vec![0usize; n + 1];
        for t in &triangles {
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
        Self {
            springs,
            link_start,
            links,
            triangles,
            grid,
            dv: vec![DVec3::ZERO; n],
            x,
            v,
            m,
            pinned,
            anchor,
            k,
            strain_colors,
            strain_color_slot,
            all_colors,
            all_color_slot,
            tri_start,
            tri_of_node,
        }
    }

    pub fn node_count(&self) -> usize {
        self.x.len()
    }

    /// Node `i`'s neighbours.
    #[inline]
    pub fn links(&self, i: usize) -> &[Link] {
        &self.links[self.link_start[i]..self.link_start[i + 1]]
    }

    /// Resolves every spring's `k` from its family (grid springs) or keeps its own (custom).
    pub fn apply_stiffness(&mut self, s: &Stiffness) {
        for (k, spring) in self.k.iter_mut().zip(&self.springs) {
            *k = match spring.family {
                SpringFamily::Structural => s.structural,
                SpringFamily::Shear => s.shear,
                SpringFamily::Bend => s.bend,
                SpringFamily::Custom => spring.k_custom,
            };
        }
    }

    pub fn total_mass(&self) -> f64 {
        self.m.iter().sum()
    }

    /// Scales every mass so the total becomes `total` kg (> 0).
    pub fn set_total_mass(&mut self, total: f64) {
        let scale = total / self.total_mass();
        for m in &mut self.m {
            *m *= scale;
        }
    }

    /// Largest `|x_ab| / L` over the springs Provot limits (structural and shear on a grid, every
    /// spring otherwise) with `L > 0`. 1 means at rest length. (A maximum does not depend on the
    /// order, so the parallel reduction gives the serial answer.)
    pub fn max_strain(&self) -> f64 {
        let strain2 = |s: &Spring| {
            if s.rest > 0.0 && limits_strain(s.family) {
                (self.x[s.b] - self.x[s.a]).length_squared() / (s.rest * s.rest)
            } else {
                0.0
            }
        };
        let max2 = if self.springs.len() >= 65_536 {
            use rayon::prelude::*;
            self.springs
                .par_iter()
                .map(strain2)
                .reduce(|| 0.0, f64::max)
        } else {
            self.springs.iter().map(strain2).fold(0.0, f64::max)
        };
        max2.sqrt()
    }

    /// Per-node area-weighted normals of the key mesh (the sum of the normals of the triangles
    /// around the node, in triangle order, normalised; zero where a node has no triangle or a
    /// degenerate neighbourhood). A gather per node, so it runs in parallel when asked.
    pub fn node_normals(&self, parallel: bool, out: &mut [DVec3]) {
        super::forces::for_each_node(parallel, out, |i, n| {
            let mut sum = DVec3::ZERO;
            for &ti in &self.tri_of_node[self.tri_start[i]..self.tri_start[i + 1]] {
                let t = &self.triangles[ti as usize];
                sum += (self.x[t[1]] - self.x[t[0]]).cross(self.x[t[2]] - self.x[t[0]]);
            }
            *n = sum.normalize_or_zero();
        });
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
        let c = (0..)
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
