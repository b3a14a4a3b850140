//! Multi-resolution strain limiting on a grid (Wang, O'Brien & Ramamoorthi, "Multi-Resolution
//! Isotropic Strain Limiting", 2010), on Provot's springs: before the sweeps over the cloth's
//! own springs, the same limit on coarser grids, coarsest first.
//!
//! A sweep carries a correction one spring. A fine cloth pinned at a few nodes carries its
//! weight through the springs beside the pins, which stretch in proportion to the resolution;
//! shortening them pulls the whole cloth after them, a move hundreds of springs long that a
//! few sweeps a step cannot make, so they leave the sheet stretched (and pull its springs short
//! where they do act).
//! On a coarse grid the same move is a few springs long.
//!
//! Level `l` takes every second node of level `l − 1` along each direction, and the last one
//! when a direction's count is even ([`multigrid::coarse_len`], the multigrid's grids), so both
//! ends of the cloth are on every level. Its springs join neighbouring nodes of the level (along
//! rows and columns, and both diagonals unless `provot.shear` is off), each as long at rest as
//! the straight line between its nodes in the grid's rest plane; a spring shorter than that (a
//! fold) is left alone, as Provot's are. From the coarsest level down, each level runs Provot's sweeps on its springs
//! (by colours, forward and backward, stopping at the first sweep that corrects nothing), then
//! hands its nodes' moves to the next finer level: each node of that level not on this one
//! moves by the linear interpolation of its coarse neighbours' moves ([`multigrid::parents`],
//! the multigrid's prolongation). Then the tethers, then the cloth's own sweeps
//! ([`crate::sim::constraints::limit::limit_strain`]).
//!
//! A kinematic node never moves. On a coarse level a node is held when a node of the finer
//! level that interpolates from it is held there, so a pin, a grab or the pole holds the
//! coarse nodes around it (one that is not on the coarse grid included).

use glam::DVec3;

use crate::sim::constraints::provot::{Bounds, colour_springs, provot_moves};
use crate::sim::model::cloth::{Cloth, LimitedSpring};
use crate::sim::solvers::multigrid::{coarse_len, parents};

/// One coarse level.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StrainLevel {
    /// The cloth's column of each of the level's columns.
    pub cols: Vec<usize>,
    /// The cloth's row of each of the level's rows.
    pub rows: Vec<usize>,
    /// The level's springs (cloth node indices, rest lengths), coloured so that no two springs
    /// of a colour share a node.
    pub colours: Vec<Vec<LimitedSpring>>,
}

impl StrainLevel {
    /// Cloth node index of the level's node `(i, j)` on a grid `nx` nodes wide.
    #[inline]
    fn node(&self, i: usize, j: usize, nx: usize) -> usize {
        self.rows[j] * nx + self.cols[i]
    }
}

/// The coarse levels of one grid and their work arrays.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrainLevels {
    /// What the levels were built for: the grid's size, the levels asked for and whether
    /// they hold diagonal springs.
    built_for: (usize, usize, u32, bool),
    /// Levels 1, 2, …: `levels[0]` is every second node.
    pub levels: Vec<StrainLevel>,
    /// Per cloth node, the first level at which it is held (`u8::MAX`: never), for
    /// `held_for`.
    held_from: Vec<u8>,
    /// The kinematic set `held_from` was made for.
    held_for: Vec<bool>,
    /// The positions at the start of the stage.
    x0: Vec<DVec3>,
}

/// Level 0's columns and rows: the grid's own.
fn identity(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// The next coarser level's columns (or rows) from a level's: its node `k` is the level's
/// node `2k`, or its last one.
fn coarser(of: &[usize]) -> Vec<usize> {
    let n = of.len();
    (0..coarse_len(n)).map(|k| of[(2 * k).min(n - 1)]).collect()
}

impl StrainLevels {
    /// Builds (when the grid or `levels` changed) up to `levels` coarse levels of an
    /// `nx × ny` grid with rest spacings `l0_u`, `l0_v`: fewer where the grid runs out (a level
    /// of at most 2 × 2 nodes is the last). With `shear` each level has diagonal springs too,
    /// as the cloth's shear springs; without, its rows and columns alone.
    pub(crate) fn build(
        &mut self,
        nx: usize,
        ny: usize,
        l0_u: f64,
        l0_v: f64,
        levels: u32,
        shear: bool,
    ) {
        if self.built_for == (nx, ny, levels, shear) {
            return;
        }
        self.built_for = (nx, ny, levels, shear);
        self.levels.clear();
        self.held_for.clear();
        let (mut cols, mut rows) = (identity(nx), identity(ny));
        for _ in 0..levels {
            if cols.len() <= 2 && rows.len() <= 2 {
                break;
            }
            (cols, rows) = (coarser(&cols), coarser(&rows));
            let mut springs = Vec::new();
            let spring = |a: (usize, usize), b: (usize, usize)| {
                let du = (cols[b.0] - cols[a.0]) as f64 * l0_u;
                let dv = rows[b.1].abs_diff(rows[a.1]) as f64 * l0_v;
                LimitedSpring {
                    a: (rows[a.1] * nx + cols[a.0]) as u32,
                    b: (rows[b.1] * nx + cols[b.0]) as u32,
                    rest: du.hypot(dv),
                }
            };
            for j in 0..rows.len() {
                for i in 0..cols.len() {
                    if i + 1 < cols.len() {
                        springs.push(spring((i, j), (i + 1, j)));
                    }
                    if j + 1 < rows.len() {
                        springs.push(spring((i, j), (i, j + 1)));
                        if shear && i + 1 < cols.len() {
                            springs.push(spring((i, j), (i + 1, j + 1)));
                            springs.push(spring((i, j + 1), (i + 1, j)));
                        }
                    }
                }
            }
            let colours = colour_springs(springs, nx * ny);
            self.levels.push(StrainLevel {
                cols: cols.clone(),
                rows: rows.clone(),
                colours,
            });
        }
    }

    /// Marks, per cloth node, the first level at which it is held for `kinematic` (when the
    /// set changed): level 0's kinematic nodes, and on each coarser level the nodes a held node
    /// of the finer level interpolates from.
    pub(crate) fn hold(&mut self, nx: usize, ny: usize, kinematic: &[bool]) {
        if self.held_for == kinematic {
            return;
        }
        self.held_for = kinematic.to_vec();
        self.held_from.clear();
        self.held_from
            .extend(kinematic.iter().map(|&k| if k { 0 } else { u8::MAX }));
        let (mut fine_cols, mut fine_rows) = (identity(nx), identity(ny));
        for (l, level) in self.levels.iter().enumerate() {
            let this = (l + 1) as u8;
            for (j, &row) in fine_rows.iter().enumerate() {
                let (pj, cj) = parents(j, fine_rows.len());
                for (i, &col) in fine_cols.iter().enumerate() {
                    if self.held_from[row * nx + col] >= this {
                        continue;
                    }
                    let (pi, ci) = parents(i, fine_cols.len());
                    for &(b, _) in &pj[..cj] {
                        for &(a, _) in &pi[..ci] {
                            let c = level.node(a, b, nx);
                            self.held_from[c] = self.held_from[c].min(this);
                        }
                    }
                }
            }
            fine_cols.clone_from(&level.cols);
            fine_rows.clone_from(&level.rows);
        }
    }

    /// Per cloth node, the first level at which it is held (0: kinematic; `u8::MAX`: never),
    /// as [`Self::hold`] made it.
    pub(crate) fn held_from(&self) -> &[u8] {
        &self.held_from
    }

    /// The coarse levels' part of a strain-limiting stage on `x` (the grid they were built
    /// for), coarsest first: at most `iterations` sweeps on each level's springs, stopping at
    /// the first that corrects nothing, then the level's moves interpolated to the next finer
    /// level's other nodes. Moved nodes are marked in `moved`. Returns the corrections made.
    pub(crate) fn limit(
        &mut self,
        x: &mut [DVec3],
        kinematic: &[bool],
        moved: &mut [bool],
        limit: f64,
        iterations: u32,
    ) -> usize {
        if self.levels.is_empty() || iterations == 0 {
            return 0;
        }
        let (nx, ny, _, _) = self.built_for;
        self.hold(nx, ny, kinematic);
        self.x0.clear();
        self.x0.extend_from_slice(x);
        // Coarse springs are straight lines across the cloth: one shorter than at rest is a
        // fold, not a compression.
        let bounds = Bounds::stretch(limit);
        let mut corrections = 0;
        // Whether anything on the current level or a coarser one moved.
        let mut any = false;
        for l in (0..self.levels.len()).rev() {
            let level = &self.levels[l];
            let held = |n: u32| self.held_from[n as usize] <= (l + 1) as u8;
            for sweep in 0..iterations {
                let backward = sweep % 2 == 1;
                let mut made = 0;
                for c in 0..level.colours.len() {
                    let colour = if backward {
                        level.colours.len() - 1 - c
                    } else {
                        c
                    };
                    for s in &level.colours[colour] {
                        let (a, b) = (s.a as usize, s.b as usize);
                        let (ka, kb) = (held(s.a), held(s.b));
                        if let Some([da, db]) = provot_moves(x[a], x[b], s.rest, bounds, ka, kb) {
                            x[a] += da;
                            x[b] += db;
                            moved[a] |= !ka;
                            moved[b] |= !kb;
                            made += 1;
                        }
                    }
                }
                corrections += made;
                if made == 0 {
                    break;
                }
            }
            any |= corrections > 0;
            if any {
                let finer = l
                    .checked_sub(1)
                    .map(|f| (&self.levels[f].cols[..], &self.levels[f].rows[..]));
                interpolate(level, finer, nx, ny, kinematic, &self.x0, x, moved);
            }
        }
        corrections
    }
}

/// Each node of the level finer than `level` (`finer`: its columns and rows; `None`: the cloth
/// itself) that is not on `level` and not kinematic moves by the linear interpolation of its
/// coarse neighbours' moves since `x0`.
#[allow(clippy::too_many_arguments)] // reason: one pass over two levels' arrays
fn interpolate(
    level: &StrainLevel,
    finer: Option<(&[usize], &[usize])>,
    nx: usize,
    ny: usize,
    kinematic: &[bool],
    x0: &[DVec3],
    x: &mut [DVec3],
    moved: &mut [bool],
) {
    let (fnx, fny) = finer.map_or((nx, ny), |(c, r)| (c.len(), r.len()));
    let col = |i: usize| finer.map_or(i, |(c, _)| c[i]);
    let row = |j: usize| finer.map_or(j, |(_, r)| r[j]);
    for j in 0..fny {
        let (pj, cj) = parents(j, fny);
        for i in 0..fnx {
            let (pi, ci) = parents(i, fnx);
            if ci == 1 && cj == 1 {
                continue; // a node of `level` itself
            }
            let f = row(j) * nx + col(i);
            if kinematic[f] {
                continue;
            }
            let mut d = DVec3::ZERO;
            for &(b, wb) in &pj[..cj] {
                for &(a, wa) in &pi[..ci] {
                    let c = level.node(a, b, nx);
                    d += (wa * wb) * (x[c] - x0[c]);
                }
            }
            if d != DVec3::ZERO {
                x[f] += d;
                moved[f] = true;
            }
        }
    }
}

/// Whether the coarse levels apply to `cloth`: a grid with nothing cut away.
pub(crate) fn applies(cloth: &Cloth) -> bool {
    cloth.grid().is_some() && cloth.topology.mesh.cut.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_levels(nx: usize, ny: usize, u: f64, v: f64) -> StrainLevels {
        let mut levels = StrainLevels::default();
        levels.build(nx, ny, u, v, 12, true);
        levels
    }

    #[test]
    fn a_level_takes_every_second_node_and_both_ends_down_to_two_by_two() {
        let levels = all_levels(5, 4, 0.3, 0.7);
        let axes: Vec<_> = levels
            .levels
            .iter()
            .map(|l| (l.cols.clone(), l.rows.clone()))
            .collect();
        assert_eq!(
            axes,
            vec![(vec![0, 2, 4], vec![0, 2, 3]), (vec![0, 4], vec![0, 3])]
        );
        // Level 1, 3 × 3 nodes: 2 × 3 along rows, 3 × 2 along columns, 2 × 2 × 2 diagonals,
        // each as long as the straight line between its nodes at rest.
        let mut springs: Vec<(u32, u32, f64)> = levels.levels[0]
            .colours
            .iter()
            .flatten()
            .map(|s| (s.a.min(s.b), s.a.max(s.b), s.rest))
            .collect();
        springs.sort_by_key(|p| (p.0, p.1));
        assert_eq!(springs.len(), 20);
        let node = |i: usize, j: usize| (j * 5 + i) as u32;
        let rest = |a: u32, b: u32| {
            springs
                .iter()
                .find(|s| (s.0, s.1) == (a.min(b), a.max(b)))
                .map(|s| s.2)
        };
        let close = |got: Option<f64>, want: f64| (got.unwrap() - want).abs() < 1e-12;
        assert!(close(rest(node(0, 0), node(2, 0)), 0.6));
        assert!(close(rest(node(4, 2), node(4, 3)), 0.7));
        assert!(close(rest(node(2, 2), node(4, 3)), 0.6_f64.hypot(0.7)));
        assert!(close(rest(node(4, 0), node(2, 2)), 0.6_f64.hypot(1.4)));
        assert_eq!(rest(node(0, 0), node(1, 0)), None, "a cloth spring");
        // No two springs of a colour share a node.
        for colour in &levels.levels[0].colours {
            let mut ends: Vec<u32> = colour.iter().flat_map(|s| [s.a, s.b]).collect();
            let n = ends.len();
            ends.sort_unstable();
            ends.dedup();
            assert_eq!(ends.len(), n);
        }
        // A 2 × 2 grid has no coarser level; a level stops where the count asks.
        assert!(all_levels(2, 2, 1.0, 1.0).levels.is_empty());
        let mut one = StrainLevels::default();
        one.build(9, 9, 1.0, 1.0, 1, true);
        assert_eq!(one.levels.len(), 1);
    }

    /// Built again for another grid or another count of levels; the same asked again keeps them.
    #[test]
    fn the_levels_follow_a_new_grid_or_count() {
        let mut levels = all_levels(9, 9, 1.0, 1.0);
        assert_eq!(levels.levels.len(), 3);
        levels.build(5, 4, 0.3, 0.7, 12, true);
        let cols: Vec<_> = levels.levels.iter().map(|l| l.cols.clone()).collect();
        assert_eq!(cols, vec![vec![0, 2, 4], vec![0, 4]]);
        levels.build(5, 4, 0.3, 0.7, 1, true);
        assert_eq!(levels.levels.len(), 1);
        levels.build(2, 2, 1.0, 1.0, 12, true);
        assert!(levels.levels.is_empty());
        levels.build(2, 2, 1.0, 1.0, 12, true);
        assert!(levels.levels.is_empty());
        levels.build(9, 9, 1.0, 1.0, 12, true);
        assert_eq!(levels.levels.len(), 3);
    }

    /// With the shear springs left out, each level joins its rows and columns alone: a 9 × 9
    /// grid's 5 × 5 level has 2 · 5 · 4 = 40 springs (with the diagonals, 40 + 2 · 16 = 72),
    /// each as long as its nodes' rest distance along a row or a column; asked again with the
    /// diagonals, the levels are built again.
    #[test]
    fn the_levels_leave_out_the_diagonals_with_the_shear_springs() {
        let count = |levels: &StrainLevels| -> usize {
            levels.levels[0].colours.iter().map(Vec::len).sum()
        };
        let mut levels = StrainLevels::default();
        levels.build(9, 9, 0.5, 0.25, 12, false);
        assert_eq!(count(&levels), 40);
        for s in levels.levels[0].colours.iter().flatten() {
            let (a, b) = (s.a as usize, s.b as usize);
            let (di, dj) = ((a % 9).abs_diff(b % 9), (a / 9).abs_diff(b / 9));
            assert!(di == 0 || dj == 0, "{a}-{b} is along a row or a column");
            assert_eq!(s.rest, di as f64 * 0.5 + dj as f64 * 0.25);
        }
        levels.build(9, 9, 0.5, 0.25, 12, true);
        assert_eq!(count(&levels), 72);
    }

    /// A strip of 5 nodes 1 m apart at rest, pinned at node 0 and stretched to twice its
    /// length: level 2 (nodes 0 and 4) pulls node 4 to 1.1 × 4 m in its first sweep; level 1
    /// receives node 2 halfway between (2.2 m), whose springs are then at their limit; the
    /// cloth receives nodes 1 and 3 halfway between theirs (1.1 m, 3.3 m): every spring of the
    /// strip at its limit after one correction (a sweep of the strip's own springs would have
    /// taken node 1 to 1.1 m and left the rest at 2.9 × rest and more).
    #[test]
    fn a_strip_stretched_twice_over_comes_to_its_limit_from_the_coarsest_level() {
        let mut levels = StrainLevels::default();
        levels.build(5, 1, 1.0, 1.0, 12, true);
        assert_eq!(levels.levels.len(), 2);
        let mut x: Vec<DVec3> = (0..5)
            .map(|i| DVec3::new(2.0 * i as f64, 0.0, 0.0))
            .collect();
        let kinematic = [true, false, false, false, false];
        let mut moved = [false; 5];
        let corrections = levels.limit(&mut x, &kinematic, &mut moved, 1.1, 4);
        assert_eq!(corrections, 1);
        for (i, p) in x.iter().enumerate() {
            let want = 1.1 * i as f64;
            assert!(
                (p.x - want).abs() < 1e-12,
                "node {i}: {} m, want {want}",
                p.x
            );
            assert_eq!((p.y, p.z), (0.0, 0.0));
        }
        assert_eq!(moved, [false, true, true, true, true]);
    }

    /// A node held at (3, 5) of a 9 × 9 grid: level 1 (columns and rows 0, 2, …, 8) holds the
    /// four nodes it lies between, columns 2 and 4 of rows 4 and 6; level 2 (0, 4, 8) holds
    /// those its held nodes interpolate from: level-1 columns 1 and 2 interpolate from level-2
    /// columns 0 and 1, rows 2 and 3 from rows 1 and 2, so columns 0 and 4 of rows 4 and 8
    /// (column 4 of row 4 already held on level 1); on level 3 (0, 8) those interpolate from
    /// every corner, so the other three are held from there.
    #[test]
    fn a_held_node_holds_the_coarse_nodes_it_interpolates_from() {
        let mut levels = all_levels(9, 9, 1.0, 1.0);
        let mut kinematic = vec![false; 81];
        kinematic[5 * 9 + 3] = true;
        levels.hold(9, 9, &kinematic);
        let mut held: Vec<(usize, usize, u8)> = levels
            .held_from()
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l != u8::MAX)
            .map(|(n, &l)| (n % 9, n / 9, l))
            .collect();
        held.sort_unstable();
        let mut want = vec![
            (3, 5, 0),
            (2, 4, 1),
            (4, 4, 1),
            (2, 6, 1),
            (4, 6, 1),
            (0, 4, 2),
            (0, 8, 2),
            (4, 8, 2),
            (0, 0, 3),
            (8, 0, 3),
            (8, 8, 3),
        ];
        want.sort_unstable();
        assert_eq!(levels.levels.len(), 3);
        assert_eq!(held, want);
    }

    /// A 9 × 9 sheet folded in half along column 4, every spring of the cloth at its rest
    /// length: the coarse springs across the fold are shorter than at rest, which is a fold,
    /// not a compression, and nothing moves.
    #[test]
    fn a_fold_is_left_alone() {
        let mut levels = all_levels(9, 9, 1.0, 1.0);
        let mut x: Vec<DVec3> = (0..81)
            .map(|n| {
                let (i, j) = (n % 9, n / 9);
                let u = if i <= 4 { i as f64 } else { 8.0 - i as f64 };
                let w = if i <= 4 { 0.0 } else { 0.01 };
                DVec3::new(u, j as f64, w)
            })
            .collect();
        let before = x.clone();
        let mut moved = vec![false; 81];
        let mut kinematic = vec![false; 81];
        kinematic[0] = true;
        let corrections = levels.limit(&mut x, &kinematic, &mut moved, 1.05, 4);
        assert_eq!(corrections, 0);
        assert!(x == before);
        assert!(moved.iter().all(|&m| !m));
    }
}
