//! Whether a result is the same cloth: its distance from an accurate solve of the same springs,
//! and whether it has collapsed in its own plane (its shortest structural edges).
//!
//! A stretch limit alone passes a cloth that folds in its plane (edges squeezed to half their
//! length still satisfy `|x| ≤ (1 + τ) L`). These are the measures `flagsim compare`, the peer
//! comparison and the lab report beside the stretch.

use glam::DVec3;

use crate::sim::format::params::{IntegratorKind, Params, spec};
use crate::sim::model::cloth::{Cloth, SpringFamily};

/// A structural edge shorter than this fraction of its rest length counts as squeezed.
pub const SHORT_EDGE: f64 = 0.95;

/// The reference's CG tolerance: converged to round-off for these systems.
pub(crate) const REFERENCE_CG_TOLERANCE: f64 = 1e-10;
/// The reference's CG iteration cap: a safeguard, far above what that tolerance needs.
pub(crate) const REFERENCE_CG_ITERATIONS: u32 = 5000;
/// The reference takes this many physics steps per step of the run it checks.
pub(crate) const REFERENCE_SUBSTEPS: u32 = 4;

/// Distance of one set of node positions from another, m.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Distance {
    /// `sqrt(mean |a_i − b_i|²)`.
    pub rms: f64,
    /// `max |a_i − b_i|`.
    pub max: f64,
}

/// How a flag moved over a run, or over the last seconds of one
/// ([`crate::sim::lab::motion::MotionProbe::motion`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    /// Standard deviation over time of the fly edge's out-of-plane position, m.
    pub sway: f64,
    /// The dominant frequency of that out-of-plane motion, Hz (0 when it does not move).
    pub frequency: f64,
    /// Mean distance from the hoist's point to the fly edge's, m (a flag streaming flat in the
    /// wind reaches its width; a folded one less).
    pub reach: f64,
    /// Mean over time of the nodes' RMS out-of-plane distance from their mean: the ripple, m.
    pub spread: f64,
    /// The shortest structural edge over the samples, as a fraction of its rest length.
    pub shortest_edge: f64,
    /// Mean over time of the share of structural edges shorter than
    /// [`SHORT_EDGE`] of their rest length, 0–1.
    pub short_edges: f64,
    /// Samples the figures are taken over.
    pub samples: usize,
}

/// RMS and largest distance between `a` and `b`, node by node (the shorter length counts).
pub fn distance(a: &[DVec3], b: &[DVec3]) -> Distance {
    let n = a.len().min(b.len());
    if n == 0 {
        return Distance::default();
    }
    let (mut sum, mut max) = (0.0_f64, 0.0_f64);
    for (p, q) in a.iter().zip(b) {
        let d2 = p.distance_squared(*q);
        sum += d2;
        max = max.max(d2);
    }
    Distance {
        rms: (sum / n as f64).sqrt(),
        max: max.sqrt(),
    }
}

/// [`distance`] between two cloths of one sheet: node by node on the same grid, and where
/// their key grids differ, `a` taken at `b`'s nodes ([`resample`]), so that a copy at a finer
/// grid is measured at the places of the material the other's nodes stand for.
pub fn cloth_distance(a: &Cloth, xa: &[DVec3], b: &Cloth, xb: &[DVec3]) -> Distance {
    match (a.grid(), b.grid()) {
        (Some(ga), Some(gb)) if (ga.nx, ga.ny) != (gb.nx, gb.ny) => {
            distance(&resample(xa, [ga.nx, ga.ny], [gb.nx, gb.ny]), xb)
        }
        _ => distance(xa, xb),
    }
}

/// `x`, the nodes of a `from[0] × from[1]` key grid (node `(i, j)` at `j · nx + i`), taken at
/// the nodes of a `to[0] × to[1]` grid over the same sheet: each new node at the same share of
/// the width and height, bilinear between the four old nodes around it. On the same grid, `x`
/// itself. Each side has at least 2 nodes (a grid's least).
pub fn resample(x: &[DVec3], from: [usize; 2], to: [usize; 2]) -> Vec<DVec3> {
    let [fx, fy] = from;
    if from == to {
        return x.to_vec();
    }
    // Where new node `k` of `n` falls among the old `m`: the old interval and the share of it.
    let place = |k: usize, n: usize, m: usize| -> (usize, f64) {
        let s = k as f64 * (m - 1) as f64 / (n.max(2) - 1) as f64;
        let lo = (s.floor() as usize).min(m - 2);
        (lo, s - lo as f64)
    };
    let mut out = Vec::with_capacity(to[0] * to[1]);
    for j in 0..to[1] {
        let (j0, t) = place(j, to[1], fy);
        for i in 0..to[0] {
            let (i0, s) = place(i, to[0], fx);
            let at = |i: usize, j: usize| x[j * fx + i];
            let low = at(i0, j0).lerp(at(i0 + 1, j0), s);
            let high = at(i0, j0 + 1).lerp(at(i0 + 1, j0 + 1), s);
            out.push(low.lerp(high, t));
        }
    }
    out
}

/// The structural edges' lengths over their rest lengths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edges {
    /// The shortest edge's ratio (1 when there is no edge).
    pub shortest: f64,
    /// The longest edge's ratio (1 when there is no edge).
    pub longest: f64,
    /// Share of edges shorter than [`SHORT_EDGE`], 0–1.
    pub share_short: f64,
}

impl Default for Edges {
    fn default() -> Self {
        Self {
            shortest: 1.0,
            longest: 1.0,
            share_short: 0.0,
        }
    }
}

/// The structural edges of `cloth` at positions `x` (the grid's 4-neighbour springs; for a
/// cloth given as a node and spring list, every spring). Springs of rest length 0 are left out.
pub fn structural_edges(cloth: &Cloth, x: &[DVec3]) -> Edges {
    let grid = cloth.grid().is_some();
    let mut edges = Edges {
        shortest: f64::INFINITY,
        longest: 0.0,
        share_short: 0.0,
    };
    let (mut count, mut short) = (0usize, 0usize);
    for s in &cloth.topology.springs {
        let structural = if grid {
            s.family == SpringFamily::Structural
        } else {
            true
        };
        if !structural || s.rest <= 0.0 {
            continue;
        }
        let ratio = x[s.a].distance(x[s.b]) / s.rest;
        edges.shortest = edges.shortest.min(ratio);
        edges.longest = edges.longest.max(ratio);
        count += 1;
        short += usize::from(ratio < SHORT_EDGE);
    }
    if count == 0 {
        return Edges::default();
    }
    edges.share_short = short as f64 / count as f64;
    edges
}

/// The parameters of an accurate solve of the same springs as `params`: backward Euler with
/// the full spring Jacobian (`implicit-cg`), CG to [`REFERENCE_CG_TOLERANCE`],
/// [`REFERENCE_SUBSTEPS`] times as many physics steps, no strain limiting and no tethers. The
/// forces (stiffness, damping, gravity, wind, colliders, the pole's motion) stay the same.
pub fn reference_params(params: &Params) -> Params {
    let mut p = params.clone();
    p.integrator = IntegratorKind::ImplicitCg;
    p.substeps = (params.substeps * REFERENCE_SUBSTEPS).min(spec::SUBSTEPS.max);
    p.cg.tolerance = REFERENCE_CG_TOLERANCE;
    p.cg.max_iterations = REFERENCE_CG_ITERATIONS;
    p.provot.enabled = false;
    p.provot.tethers = false;
    p.wavelet.enabled = false;
    p
}
