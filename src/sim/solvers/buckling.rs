//! Choi & Ko's immediate buckling model ("Stable but Responsive Cloth", §3), the material model
//! of the `choi-ko` integrator.
//!
//! - **Type 1** links join sequential neighbours (the structural and shear springs, or every
//!   spring of an explicit cloth): linear springs for *tension only* (eqs. 1–3). A compressed
//!   type-1 link exerts nothing and has a zero Jacobian, so it can never make the system matrix
//!   indefinite.
//! - **Type 2** links join interlaced neighbours, two apart along rows, columns *and* diagonals
//!   (`(i ± 2, j)`, `(i, j ± 2)`, `(i ± 2, j ± 2)`). They resist compression and bending in one:
//!   a compressed link is assumed to have already buckled into a circular arc of its rest length
//!   `L` (the static post-buckling shape), whose bending energy `E = ½ k_b L κ²` (eq. 6) with
//!   `κ = (2/L) sinc⁻¹(|x|/L)` (eq. 7) gives the force `f_b` of eq. 9. Eq. 11 clamps it:
//!   `f_b* = max(f_b, c_b (|x| − L))`. A stretched type-2 link exerts nothing (stretch belongs to
//!   type 1; the course slides: "type 1: for stretch, type 2: for compression").
//! - The Jacobian of a type-2 link keeps only `df_b*/d|x| · x̂x̂ᵀ`; the term
//!   `f_b*/|x| (I − x̂x̂ᵀ)`, negative, is dropped (§3.3) so the matrix stays positive definite.
//! - Damping (§3.4): a linear damper along each type-1 link, `k_d ((v_j − v_i)·x̂) x̂`.
//!
//! Forces are evaluated per link and gathered per node in a fixed order, like [`crate::sim::model::forces`],
//! so the serial and parallel paths agree bit for bit.

use glam::{DMat3, DVec3};

use crate::sim::model::cloth::{Cloth, SpringFamily};
use crate::sim::model::par::for_each_node;
use crate::sim::solvers::jacobian::spring_jacobian;

/// `(cos θ − sinc θ) / θ²` and its derivative, with series near 0 where the difference cancels.
/// `g(0) = −1/3`.
fn g_and_dg_over_theta(theta: f64) -> (f64, f64) {
    if theta < 0.05 {
        let t2 = theta * theta;
        let g = -1.0 / 3.0 + t2 / 30.0 - t2 * t2 / 840.0 + t2 * t2 * t2 / 45360.0;
        let dg_over_t = 1.0 / 15.0 - t2 / 210.0 + t2 * t2 / 7560.0;
        (g, dg_over_t)
    } else {
        let (s, c) = theta.sin_cos();
        let cdiff = c - s / theta;
        let t2 = theta * theta;
        let g = cdiff / t2;
        // g' = −sin θ / θ² − 3 (cos θ − sinc θ) / θ³
        let dg = -s / t2 - 3.0 * cdiff / (t2 * theta);
        (g, dg / theta)
    }
}

/// `sinc θ = sin θ / θ` (1 at 0).
pub(crate) fn sinc(theta: f64) -> f64 {
    if theta.abs() < 1e-8 {
        1.0 - theta * theta / 6.0
    } else {
        theta.sin() / theta
    }
}

/// The half-angle `θ ∈ [0, π]` of the arc with `sinc θ = s`, for `s ∈ [0, 1]` (`s ≤ 0` gives
/// `π`, `s ≥ 1` gives 0). Safeguarded Newton: never leaves the bracket, converges to a few ulps.
pub(crate) fn inverse_sinc(s: f64) -> f64 {
    if s >= 1.0 {
        return 0.0;
    }
    if s <= 0.0 {
        return std::f64::consts::PI;
    }
    let (mut lo, mut hi) = (0.0_f64, std::f64::consts::PI);
    // sinc θ ≈ 1 − θ²/6 near 0.
    let mut theta = (6.0 * (1.0 - s)).sqrt().min(3.0);
    for _ in 0..60 {
        let f = sinc(theta) - s;
        // sinc is decreasing on [0, π]: f > 0 means θ is too small.
        if f > 0.0 {
            lo = theta;
        } else {
            hi = theta;
        }
        let (g, _) = g_and_dg_over_theta(theta);
        // d sinc / dθ = (θ cos θ − sin θ) / θ² = θ g(θ)
        let slope = theta * g;
        let mut next = if slope == 0.0 {
            0.5 * (lo + hi)
        } else {
            theta - f / slope
        };
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - theta).abs() <= 1e-15 * theta.max(1e-300) {
            return next;
        }
        theta = next;
    }
    theta
}

/// The buckled-arc force `f_b(|x|)` of eq. 9 (unclamped), N, for `0 ≤ d < L`, and its
/// derivative `df_b/d|x|`, N/m. Negative: it pushes the ends apart. `f_b → −12 k_b / L²` as
/// `d → L⁻`, and `−4π² k_b / L²` as `d → 0`.
pub fn buckled_arc_force(d: f64, rest: f64, k_b: f64) -> (f64, f64) {
    let theta = inverse_sinc(d / rest);
    let (g, dg_over_t) = g_and_dg_over_theta(theta);
    // κ = 2θ/L, f_b = k_b κ² / (cos θ − sinc θ) = 4 k_b / (L² g(θ)).
    let f = 4.0 * k_b / (rest * rest * g);
    // d(d)/dθ = L θ g(θ),  df/dθ = −4 k_b g'(θ) / (L² g²)  ⇒  df/dd = −4 k_b (g'/θ) / (L³ g³).
    let df = -4.0 * k_b * dg_over_t / (rest * rest * rest * g * g * g);
    (f, df)
}

/// Eq. 11 on a type-2 link of length `d`: `(f_b*, df_b*/d|x|)`, compression only.
pub fn type2_force(d: f64, rest: f64, k_b: f64, c_b: f64) -> (f64, f64) {
    if d >= rest || rest <= 0.0 {
        return (0.0, 0.0);
    }
    let (fb, dfb) = buckled_arc_force(d, rest, k_b);
    let linear = c_b * (d - rest);
    if fb < linear {
        (linear, c_b)
    } else {
        (fb, dfb)
    }
}

/// Eqs. 1–2 on a type-1 link of length `d`: the tension `k (|x| − L)` when stretched, else 0.
pub fn type1_force(d: f64, rest: f64, k: f64) -> f64 {
    if d > rest { k * (d - rest) } else { 0.0 }
}

/// Relative tolerance within which a type-1 link counts as at its rest length, for eq. 3's
/// `|x| ≥ L` (rest lengths and initial positions are computed separately and may differ in the
/// last bits).
pub(crate) const AT_REST: f64 = 1e-9;

/// One interaction of the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BuckleLink {
    pub a: u32,
    pub b: u32,
    /// Rest length `L`, m.
    pub rest: f64,
    /// The cloth spring whose `k` a type-1 link takes, or `u32::MAX` for a type-2 link.
    pub spring: u32,
}

impl BuckleLink {
    pub(crate) fn is_type1(&self) -> bool {
        self.spring != u32::MAX
    }
}

/// The model's links and per-node adjacency (built once per cloth).
#[derive(Debug, Clone, Default)]
pub(crate) struct BuckleTopology {
    pub links: Vec<BuckleLink>,
    pub start: Vec<usize>,
    /// `(other node, link)` per node, in link order.
    pub adj: Vec<(u32, u32)>,
    /// Node and spring counts it was built for.
    built_for: (usize, usize),
}

impl BuckleTopology {
    /// Type 1 from the structural, shear and custom springs; type 2 from the bend springs plus,
    /// on a grid, the interlaced diagonals `(i, j)–(i ± 2, j + 2)`.
    pub(crate) fn build(cloth: &Cloth) -> Self {
        let mut links = Vec::new();
        for (si, s) in cloth.topology.springs.iter().enumerate() {
            let type1 = s.family != SpringFamily::Bend;
            links.push(BuckleLink {
                a: s.a as u32,
                b: s.b as u32,
                rest: s.rest,
                spring: if type1 { si as u32 } else { u32::MAX },
            });
        }
        if let Some(g) = cloth.grid() {
            let diag = 2.0 * (g.l0_u * g.l0_u + g.l0_v * g.l0_v).sqrt();
            for j in 0..g.ny.saturating_sub(2) {
                for i in 0..g.nx.saturating_sub(2) {
                    let id = |i: usize, j: usize| (j * g.nx + i) as u32;
                    for (a, b) in [(id(i, j), id(i + 2, j + 2)), (id(i + 2, j), id(i, j + 2))] {
                        links.push(BuckleLink {
                            a,
                            b,
                            rest: diag,
                            spring: u32::MAX,
                        });
                    }
                }
            }
        }
        let n = cloth.node_count();
        let mut start = vec![0usize; n + 1];
        for l in &links {
            start[l.a as usize + 1] += 1;
            start[l.b as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![(0u32, 0u32); start[n]];
        for (li, l) in links.iter().enumerate() {
            adj[fill[l.a as usize]] = (l.b, li as u32);
            fill[l.a as usize] += 1;
            adj[fill[l.b as usize]] = (l.a, li as u32);
            fill[l.b as usize] += 1;
        }
        Self {
            links,
            start,
            adj,
            built_for: (n, cloth.topology.springs.len()),
        }
    }

    /// Rebuilds when the cloth is not the one this was built for.
    pub(crate) fn ensure(&mut self, cloth: &Cloth) {
        if self.built_for != (cloth.node_count(), cloth.topology.springs.len())
            || self.start.is_empty()
        {
            *self = Self::build(cloth);
        }
    }

    pub(crate) fn adjacent(&self, i: usize) -> &[(u32, u32)] {
        &self.adj[self.start[i]..self.start[i + 1]]
    }
}

/// Per-link state of one evaluation, kept for the implicit solve.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct LinkState {
    /// Force on end `a`, N (the force on `b` is the negative).
    pub force: DVec3,
    /// `∂f_a/∂x_b`, the link's stiffness block, N/m (type 2: only the `x̂x̂ᵀ` term).
    pub jacobian: DMat3,
    /// `x̂ = x_ab / |x_ab|` (zero for coincident ends).
    pub dir: DVec3,
    /// Damping coefficient along `x̂`, N·s/m (type 1 only).
    pub damping: f64,
}

/// The model's material constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Material {
    /// Flexural rigidity `k_b`, N·m².
    pub k_b: f64,
    /// Clamp slope `c_b` of eq. 11, N/m.
    pub c_b: f64,
    /// Damping `k_d` along type-1 links, N·s/m.
    pub k_d: f64,
}

/// Evaluates every link at the cloth's current state, then gathers the internal force per node
/// into `out`.
pub(crate) fn evaluate(
    cloth: &Cloth,
    topo: &BuckleTopology,
    material: &Material,
    parallel: bool,
    state: &mut Vec<LinkState>,
    out: &mut [DVec3],
) {
    state.resize(topo.links.len(), LinkState::default());
    for_each_node(parallel, state, |li, st| {
        let l = topo.links[li];
        let (a, b) = (l.a as usize, l.b as usize);
        let x_ab = cloth.x[b] - cloth.x[a];
        let d = x_ab.length();
        let dir = if d > 0.0 { x_ab / d } else { DVec3::ZERO };
        *st = if l.is_type1() {
            let k = cloth.k()[l.spring as usize];
            let tension = type1_force(d, l.rest, k);
            let damping = material.k_d;
            let mut force = tension * dir;
            if damping > 0.0 {
                force += damping * (cloth.v[b] - cloth.v[a]).dot(dir) * dir;
            }
            LinkState {
                force,
                // Eq. 3 holds for |x| ≥ L: a link at its rest length (to round-off) is linearised
                // on its tension side, or a cloth starting at rest would have no stretch
                // stiffness in its first solve and fall freely for a whole step.
                jacobian: if d >= l.rest * (1.0 - AT_REST) {
                    spring_jacobian(x_ab, k, l.rest)
                } else {
                    DMat3::ZERO
                },
                dir,
                damping,
            }
        } else {
            let (f, df) = type2_force(d, l.rest, material.k_b, material.c_b);
            LinkState {
                force: f * dir,
                jacobian: DMat3::from_cols(dir * dir.x, dir * dir.y, dir * dir.z) * df,
                dir,
                damping: 0.0,
            }
        };
    });
    let state = &**state;
    for_each_node(parallel, out, |i, f| {
        let mut sum = DVec3::ZERO;
        for &(_, li) in topo.adjacent(i) {
            let l = &topo.links[li as usize];
            if l.a as usize == i {
                sum += state[li as usize].force;
            } else {
                sum -= state[li as usize].force;
            }
        }
        *f = sum;
    });
}
