//! The thesis's wavelet-guided interpolation (Chi 2007, ch. 5).
//!
//! Each step, a 2-D Haar transform of the key-node normals builds a quadtree of blocks; each
//! block's detail coefficients are the differences between the mean normals of its four
//! quarters. A block whose details are all below the threshold is flat: its edge nodes are
//! integrated as usual, its interior nodes are not integrated but interpolated from the edges
//! (bilinear along rows and along columns, weighted toward the direction whose normals differ
//! less, §5.2). Everything else is integrated.
//!
//! Decisions the thesis leaves open:
//! - Coefficients are normalised averages and differences: one level maps each 2 × 2 group
//!   `a₀₀ a₁₀ / a₀₁ a₁₁` (first index along rows, `u`) to its mean, `d_u = (a₀₀ − a₁₀ + a₀₁ − a₁₁)/4`,
//!   `d_v = (a₀₀ + a₁₀ − a₀₁ − a₁₁)/4` and `d_d = (a₀₀ − a₁₀ − a₀₁ + a₁₁)/4`, per normal component.
//! - A block is flat when the largest detail magnitude *anywhere inside it* (its own and all its
//!   descendants', found bottom-up) is below the threshold. The thesis stops at the first tree
//!   node under the threshold, but a block's own coefficients only compare its quarters' means,
//!   so a finely wrinkled block whose quarters average alike would pass as flat.
//! - Traversal is depth-first from the whole grid; the first flat block on a path is a region.
//!   A block needs an interior (at least 3 × 3 nodes) and no kinematic node inside it.
//! - The row/column weights use the sums of `|d_u|` and `|d_v|` over the block's subtree:
//!   `w_row = Σ|d_v| / (Σ|d_u| + Σ|d_v|)` (½ each when both are 0).
//! - The hierarchy needs a power-of-two grid. Other grids are padded to the next power of two
//!   by repeating the last row and column (which adds no differences) and blocks are clipped to
//!   the grid, so a `2ᵏ × 2ᵏ` grid gets exactly the thesis's blocks.

use glam::DVec3;

use crate::sim::model::cloth::GridInfo;

/// One Haar level on the leading `s × s` corner of a row-major `size × size` array
/// (`data[j * size + i]`): rows then columns, averages first, differences second.
fn forward_level(data: &mut [DVec3], size: usize, s: usize, tmp: &mut Vec<DVec3>) {
    let half = s / 2;
    tmp.resize(s, DVec3::ZERO);
    for j in 0..s {
        let row = &mut data[j * size..j * size + s];
        for k in 0..half {
            tmp[k] = (row[2 * k] + row[2 * k + 1]) * 0.5;
            tmp[half + k] = (row[2 * k] - row[2 * k + 1]) * 0.5;
        }
        row.copy_from_slice(&tmp[..s]);
    }
    for i in 0..s {
        for k in 0..half {
            let (a, b) = (data[2 * k * size + i], data[(2 * k + 1) * size + i]);
            tmp[k] = (a + b) * 0.5;
            tmp[half + k] = (a - b) * 0.5;
        }
        for k in 0..s {
            data[k * size + i] = tmp[k];
        }
    }
}

fn inverse_level(data: &mut [DVec3], size: usize, s: usize, tmp: &mut Vec<DVec3>) {
    let half = s / 2;
    tmp.resize(s, DVec3::ZERO);
    for i in 0..s {
        for k in 0..half {
            let (avg, diff) = (data[k * size + i], data[(half + k) * size + i]);
            tmp[2 * k] = avg + diff;
            tmp[2 * k + 1] = avg - diff;
        }
        for k in 0..s {
            data[k * size + i] = tmp[k];
        }
    }
    for j in 0..s {
        let row = &mut data[j * size..j * size + s];
        for k in 0..half {
            tmp[2 * k] = row[k] + row[half + k];
            tmp[2 * k + 1] = row[k] - row[half + k];
        }
        row.copy_from_slice(&tmp[..s]);
    }
}

/// The full 2-D (pyramid) Haar transform of a `size × size` array, `size` a power of two, in
/// place: afterwards `data[0]` is the mean and, at the level of current size `s` (half `h`),
/// block `(bi, bj)` has `d_u` at `(h + bi, bj)`, `d_v` at `(bi, h + bj)` and `d_d` at
/// `(h + bi, h + bj)` (as `(column, row)`).
pub fn haar_forward(data: &mut [DVec3], size: usize) {
    assert!(size.is_power_of_two() && data.len() == size * size);
    let mut tmp = Vec::new();
    let mut s = size;
    while s >= 2 {
        forward_level(data, size, s, &mut tmp);
        s /= 2;
    }
}

/// Undoes [`haar_forward`].
pub fn haar_inverse(data: &mut [DVec3], size: usize) {
    assert!(size.is_power_of_two() && data.len() == size * size);
    let mut tmp = Vec::new();
    let mut s = 2;
    while s <= size {
        inverse_level(data, size, s, &mut tmp);
        s *= 2;
    }
}

/// A flat block: nodes `i0..=i1` × `j0..=j1`; the edges are integrated, the interior
/// interpolated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    pub i0: usize,
    pub i1: usize,
    pub j0: usize,
    pub j1: usize,
    /// Weight of the interpolation along rows (between the left and right edges); columns get
    /// `1 − w_row`.
    pub w_row: f64,
}

/// Per-level block data of the quadtree.
#[derive(Debug, Clone, Default)]
struct Level {
    /// Blocks per side.
    blocks: usize,
    /// Largest detail magnitude in the block's subtree.
    rough: Vec<f64>,
    /// `Σ |d_u|` and `Σ |d_v|` over the subtree.
    sum_u: Vec<f64>,
    sum_v: Vec<f64>,
}

/// Work arrays and the last classification.
#[derive(Debug, Clone, Default)]
pub struct Segmentation {
    coeffs: Vec<DVec3>,
    levels: Vec<Level>,
    tmp: Vec<DVec3>,
    /// Flat regions found by the last [`Segmentation::classify`].
    pub regions: Vec<Region>,
    /// Per node: interpolated (true) or integrated (false).
    pub interpolated: Vec<bool>,
    /// Number of interpolated nodes.
    pub count: usize,
}

impl Segmentation {
    /// Segments the grid by its node normals. `kinematic` nodes are never interpolated. With
    /// `threshold == 0` nothing is.
    pub fn classify(
        &mut self,
        grid: &GridInfo,
        normals: &[DVec3],
        kinematic: &[bool],
        threshold: f64,
    ) {
        let (nx, ny) = (grid.nx, grid.ny);
        let n = nx * ny;
        self.regions.clear();
        self.interpolated.clear();
        self.interpolated.resize(n, false);
        // Every region has an interior node of its own, so there are fewer regions than
        // nodes: room for all of them once, and no step allocates when more are found.
        self.regions.reserve(n);
        self.count = 0;
        if threshold <= 0.0 || nx < 3 || ny < 3 {
            return;
        }
        let size = nx.max(ny).next_power_of_two();
        self.coeffs.clear();
        self.coeffs.resize(size * size, DVec3::ZERO);
        for j in 0..size {
            for i in 0..size {
                self.coeffs[j * size + i] = normals[j.min(ny - 1) * nx + i.min(nx - 1)];
            }
        }
        // Forward transform level by level, recording each level's details as block data.
        // The level arrays are kept between steps: no allocation once the grid is known.
        let mut s = size;
        let mut li = 0;
        while s >= 2 {
            forward_level(&mut self.coeffs, size, s, &mut self.tmp);
            let half = s / 2;
            if self.levels.len() <= li {
                self.levels.push(Level::default());
            }
            let (finer, rest) = self.levels.split_at_mut(li);
            let child = finer.last();
            let level = &mut rest[0];
            level.blocks = half;
            for v in [&mut level.rough, &mut level.sum_u, &mut level.sum_v] {
                v.clear();
                v.resize(half * half, 0.0);
            }
            for bj in 0..half {
                for bi in 0..half {
                    let du = self.coeffs[bj * size + half + bi].length();
                    let dv = self.coeffs[(half + bj) * size + bi].length();
                    let dd = self.coeffs[(half + bj) * size + half + bi].length();
                    let mut rough = du.max(dv).max(dd);
                    let (mut su, mut sv) = (du, dv);
                    if let Some(child) = child {
                        for (ci, cj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            let c = (2 * bj + cj) * child.blocks + 2 * bi + ci;
                            rough = rough.max(child.rough[c]);
                            su += child.sum_u[c];
                            sv += child.sum_v[c];
                        }
                    }
                    let b = bj * half + bi;
                    level.rough[b] = rough;
                    level.sum_u[b] = su;
                    level.sum_v[b] = sv;
                }
            }
            li += 1;
            s = half;
        }
        self.levels.truncate(li);
        // Depth-first from the root (the last level, one block).
        let top = self.levels.len() - 1;
        self.visit(top, 0, 0, size, grid, kinematic, threshold);
        for r in &self.regions {
            for j in r.j0 + 1..r.j1 {
                for i in r.i0 + 1..r.i1 {
                    self.interpolated[j * nx + i] = true;
                }
            }
        }
        self.count = self.interpolated.iter().filter(|b| **b).count();
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        level: usize,
        bi: usize,
        bj: usize,
        size: usize,
        grid: &GridInfo,
        kinematic: &[bool],
        threshold: f64,
    ) {
        let lv = &self.levels[level];
        let width = size / lv.blocks;
        let (i0, j0) = (bi * width, bj * width);
        if i0 >= grid.nx || j0 >= grid.ny {
            return;
        }
        let i1 = ((bi + 1) * width).min(grid.nx) - 1;
        let j1 = ((bj + 1) * width).min(grid.ny) - 1;
        let b = bj * lv.blocks + bi;
        if i1 < i0 + 2 || j1 < j0 + 2 {
            return; // no interior here or below
        }
        if lv.rough[b] < threshold {
            let pinned_inside =
                (j0 + 1..j1).any(|j| (i0 + 1..i1).any(|i| kinematic[j * grid.nx + i]));
            if !pinned_inside {
                let (su, sv) = (lv.sum_u[b], lv.sum_v[b]);
                let w_row = if su + sv > 0.0 { sv / (su + sv) } else { 0.5 };
                self.regions.push(Region {
                    i0,
                    i1,
                    j0,
                    j1,
                    w_row,
                });
                return;
            }
        }
        if level > 0 {
            for (ci, cj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                self.visit(
                    level - 1,
                    2 * bi + ci,
                    2 * bj + cj,
                    size,
                    grid,
                    kinematic,
                    threshold,
                );
            }
        }
    }

    /// Fills the interior nodes of every region from its edge nodes.
    pub(crate) fn interpolate(&self, nx: usize, values: &mut [DVec3]) {
        interpolate_regions(&self.regions, nx, values);
    }
}

/// Bilinear fill of each region's interior: `w_row · (row lerp) + (1 − w_row) · (column lerp)`.
pub fn interpolate_regions(regions: &[Region], nx: usize, values: &mut [DVec3]) {
    for r in regions {
        let (wu, wv) = ((r.i1 - r.i0) as f64, (r.j1 - r.j0) as f64);
        for j in r.j0 + 1..r.j1 {
            let tv = (j - r.j0) as f64 / wv;
            let (left, right) = (values[j * nx + r.i0], values[j * nx + r.i1]);
            for i in r.i0 + 1..r.i1 {
                let tu = (i - r.i0) as f64 / wu;
                let row = left.lerp(right, tu);
                let col = values[r.j0 * nx + i].lerp(values[r.j1 * nx + i], tv);
                values[j * nx + i] = r.w_row * row + (1.0 - r.w_row) * col;
            }
        }
    }
}
