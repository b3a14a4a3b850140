//! The springs' force Jacobian and backward Euler's per-spring blocks and right-hand side,
//! shared by `implicit-cg`, `implicit-mg` and `choi-ko`'s buckling model (docs/method.md §3):
//!
//! ```text
//! (M + h C − h² ∂f/∂x − h ∂f/∂v) Δv = h (f + m g + F_air − C v_rel + h ∂f/∂x v)
//! ```
//!
//! Each spring `s` between `a` and `b` contributes its stiffness block `K_s = ∂f_a/∂x_b`
//! ([`spring_jacobian`]) and the matrix block `S_s = h² K_s + h c P` (`P = x̂ x̂ᵀ`, `c` the
//! spring damping): `S_s` on both diagonals, `−S_s` off them. Held (kinematic) nodes are not
//! unknowns: their rows are zero and their known `Δv` moves to the right-hand side.

use glam::{DMat3, DVec3};

use crate::sim::model::cloth::Cloth;
use crate::sim::model::forces::{External, inverse_length};
use crate::sim::model::par::for_each_node;

/// The stiffness block `K_s = ∂f_a/∂x_b = k [P + (1 − L/|x|)(I − P)]` of one spring, its
/// second term dropped while the spring is compressed (so every block stays positive
/// semi-definite and the system symmetric positive definite).
pub(crate) fn spring_jacobian(x_ab: DVec3, k: f64, rest: f64) -> DMat3 {
    let len = x_ab.length();
    if len == 0.0 {
        return DMat3::from_diagonal(DVec3::splat(k));
    }
    let d = x_ab / len;
    let p = DMat3::from_cols(d * d.x, d * d.y, d * d.z);
    let stretch = 1.0 - rest / len;
    if stretch > 0.0 {
        p * k + (DMat3::IDENTITY - p) * (k * stretch)
    } else {
        p * k
    }
}

/// One spring's two blocks in closed form. Both are a multiple of the identity plus a
/// multiple of `P = x̂ x̂ᵀ`:
///
/// ```text
/// h² K_s = iso I + along P                  iso   = h² k (1 − L/|x|)⁺
/// S_s    = iso I + (along + h c) P          along = h² k − iso
/// ```
///
/// (a compressed spring has `iso = 0`; one of zero length `h² K_s = h² k I` and no damping
/// block). Six numbers a spring instead of two 3 × 3 matrices: the assembly is a length and a
/// division, and a product `iso u + (β x̂·u) x̂` is 11 multiplications and additions against
/// the matrix's 15, on a third of the memory.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct SpringBlock {
    /// `x̂`, the unit vector from `a` to `b` (zero for a spring of zero length).
    pub dir: DVec3,
    /// `h² k (1 − L/|x|)⁺`: `h² K_s` in every direction.
    pub iso: f64,
    /// `h² K_s`'s extra along `x̂`.
    pub along: f64,
    /// `S_s`'s extra along `x̂`: `along + h c`.
    pub along_damped: f64,
}

impl SpringBlock {
    /// `h² K_s` as a matrix.
    #[cfg(test)]
    pub(crate) fn stiffness_matrix(&self) -> DMat3 {
        let d = self.dir * self.along;
        DMat3::from_cols(self.dir * d.x, self.dir * d.y, self.dir * d.z)
            + DMat3::from_diagonal(DVec3::splat(self.iso))
    }

    /// `S_s` as a matrix (the diagonal blocks' sums).
    #[cfg(test)]
    pub(crate) fn matrix(&self) -> DMat3 {
        let d = self.dir * self.along_damped;
        DMat3::from_cols(self.dir * d.x, self.dir * d.y, self.dir * d.z)
            + DMat3::from_diagonal(DVec3::splat(self.iso))
    }

    /// The blocks of a spring from `a` to `b` (`x_ab = x_b − x_a`) of stiffness `k` (N/m) and
    /// rest length `rest` (m), at step `h` (s) with spring damping `damping` (N·s/m).
    #[inline]
    pub(crate) fn new(x_ab: DVec3, k: f64, rest: f64, h: f64, damping: f64) -> Self {
        Self::with_inverse_length(
            x_ab,
            inverse_length(x_ab.length_squared()),
            k,
            rest,
            h,
            damping,
        )
    }

    /// [`SpringBlock::new`] given `1 / |x_ab|` ([`inverse_length`]: 0 for coincident ends), as
    /// the shared force pass computes it for all springs in batches
    /// ([`crate::sim::model::forces::ForceWork::inv_len`]). A spring's square root and division feed
    /// everything else in its block: one spring at a time they would stall `implicit-mg`'s
    /// assembly; in a batch they overlap.
    #[inline]
    pub(crate) fn with_inverse_length(
        x_ab: DVec3,
        inv_len: f64,
        k: f64,
        rest: f64,
        h: f64,
        damping: f64,
    ) -> Self {
        let h2k = h * h * k;
        if inv_len == 0.0 {
            return Self {
                dir: DVec3::ZERO,
                iso: h2k,
                along: 0.0,
                along_damped: 0.0,
            };
        }
        let dir = x_ab * inv_len;
        let stretch = 1.0 - rest * inv_len;
        let iso = if stretch > 0.0 { h2k * stretch } else { 0.0 };
        let along = h2k - iso;
        Self {
            dir,
            iso,
            along,
            along_damped: along + h * damping,
        }
    }

    /// `h² K_s u`.
    #[inline]
    pub(crate) fn stiffness_times(&self, u: DVec3) -> DVec3 {
        self.iso * u + (self.along * self.dir.dot(u)) * self.dir
    }

    /// `S_s u`.
    #[inline]
    pub(crate) fn times(&self, u: DVec3) -> DVec3 {
        self.iso * u + (self.along_damped * self.dir.dot(u)) * self.dir
    }

    /// The diagonal of `S_s`.
    #[inline]
    pub(crate) fn diagonal(&self) -> DVec3 {
        DVec3::splat(self.iso) + self.along_damped * self.dir * self.dir
    }
}

/// Every spring's [`SpringBlock`] at step `h` with spring damping `damping` (N·s/m).
pub(crate) fn spring_blocks(
    cloth: &Cloth,
    h: f64,
    damping: f64,
    parallel: bool,
    blocks: &mut Vec<SpringBlock>,
) {
    let topology = &*cloth.topology;
    blocks.resize(topology.springs.len(), SpringBlock::default());
    let k = cloth.k();
    let x = &cloth.x;
    for_each_node(parallel, blocks, |s, blk| {
        let sp = &topology.springs[s];
        *blk = SpringBlock::new(x[sp.b] - x[sp.a], k[s], sp.rest, h, damping);
    });
}

/// What the right-hand side reads besides the blocks.
#[derive(Clone, Copy)]
pub(crate) struct RhsInput<'a> {
    pub cloth: &'a Cloth,
    pub kinematic: &'a [bool],
    pub known_dv: &'a [DVec3],
    pub h: f64,
    /// Internal forces per node, N.
    pub force: &'a [DVec3],
    pub ext: &'a External,
    pub parallel: bool,
}

/// Backward Euler's right-hand side into `b`: on each free node `h (f + f_ext)` plus, over its
/// springs in order, `h² K_s (v_j − v_i)` and, where `j` is held, `S_s Δv_j`; zero on held
/// nodes. On one thread spring by spring (each `h² K_s (v_b − v_a)` once, added to `a` and taken
/// from `b`: `K (−u)` is `−(K u)` exactly and a node's links are in spring order, so every row
/// receives the gather's terms in the gather's order, the same bits with half the products);
/// in parallel as a gather per node.
pub(crate) fn right_hand_side(input: &RhsInput, blocks: &[SpringBlock], b: &mut Vec<DVec3>) {
    let RhsInput {
        cloth,
        kinematic,
        known_dv,
        h,
        force,
        ext,
        parallel,
    } = *input;
    b.resize(cloth.node_count(), DVec3::ZERO);
    if !parallel {
        for (i, bi) in b.iter_mut().enumerate() {
            *bi = if kinematic[i] {
                DVec3::ZERO
            } else {
                h * (force[i] + ext.as_force(i, cloth.m[i]))
            };
        }
        for (s, &[ia, ib]) in cloth.topology.ends.iter().enumerate() {
            let (ia, ib) = (ia as usize, ib as usize);
            let blk = &blocks[s];
            let t = blk.stiffness_times(cloth.v[ib] - cloth.v[ia]);
            if !kinematic[ia] {
                b[ia] += t;
                if kinematic[ib] {
                    b[ia] += blk.times(known_dv[ib]);
                }
            }
            if !kinematic[ib] {
                b[ib] -= t;
                if kinematic[ia] {
                    b[ib] += blk.times(known_dv[ia]);
                }
            }
        }
        return;
    }
    let topology = &*cloth.topology;
    for_each_node(parallel, b, |i, bi| {
        if kinematic[i] {
            *bi = DVec3::ZERO;
            return;
        }
        let mut rhs = h * (force[i] + ext.as_force(i, cloth.m[i]));
        for l in topology.links(i) {
            let j = l.node as usize;
            let s = l.spring as usize;
            rhs += blocks[s].stiffness_times(cloth.v[j] - cloth.v[i]);
            if kinematic[j] {
                rhs += blocks[s].times(known_dv[j]);
            }
        }
        *bi = rhs;
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::format::scene::Scene;

    /// A 5 × 4 sheet pinned at its top corners, crumpled (some springs stretched, some
    /// compressed) and moving.
    fn crumpled() -> Cloth {
        let json = r#"{ "cloth": { "grid": { "nx": 5, "ny": 4, "width": 1, "height": 0.8,
            "mass": 0.3, "pins": "top-corners" } } }"#;
        let mut cloth = Scene::from_json(json, "test")
            .unwrap()
            .simulation()
            .unwrap()
            .cloth;
        for i in 0..cloth.node_count() {
            let t = i as f64;
            cloth.x[i] += 0.05 * DVec3::new((1.7 * t).sin(), (0.9 * t).cos(), (2.3 * t).sin());
            cloth.v[i] = DVec3::new((0.4 * t).cos(), (1.1 * t).sin(), (0.6 * t).cos());
        }
        cloth
    }

    fn outer(d: DVec3) -> DMat3 {
        DMat3::from_cols(d * d.x, d * d.y, d * d.z)
    }

    /// `K_s` written out: `k P` compressed, `k [P + (1 − L/|x|)(I − P)]` stretched.
    fn expected_jacobian(x_ab: DVec3, k: f64, rest: f64) -> DMat3 {
        let p = outer(x_ab.normalize());
        let len = x_ab.length();
        if len > rest {
            k * p + k * (1.0 - rest / len) * (DMat3::IDENTITY - p)
        } else {
            k * p
        }
    }

    fn close(a: DMat3, b: DMat3) -> bool {
        (a - b).to_cols_array().iter().all(|e| e.abs() < 1e-9)
    }

    #[test]
    fn the_blocks_are_the_spring_jacobian_and_its_matrix_block() {
        let cloth = crumpled();
        let (h, c) = (0.02, 0.7);
        let (mut stretched, mut compressed) = (0, 0);
        let u = DVec3::new(0.3, -1.7, 0.9);
        for parallel in [false, true] {
            let mut blocks = vec![SpringBlock::default(); 2];
            spring_blocks(&cloth, h, c, parallel, &mut blocks);
            assert_eq!(blocks.len(), cloth.topology.springs.len());
            for (s, sp) in cloth.topology.springs.iter().enumerate() {
                let x_ab = cloth.x[sp.b] - cloth.x[sp.a];
                if x_ab.length() > sp.rest {
                    stretched += 1;
                } else {
                    compressed += 1;
                }
                let k = expected_jacobian(x_ab, cloth.k()[s], sp.rest);
                assert!(close(spring_jacobian(x_ab, cloth.k()[s], sp.rest), k));
                let blk = blocks[s];
                assert!(close(blk.stiffness_matrix(), h * h * k), "spring {s}");
                let s_s = h * h * k + h * c * outer(x_ab.normalize());
                assert!(close(blk.matrix(), s_s), "spring {s}");
                // The products and the diagonal are the matrices'.
                assert!((blk.times(u) - s_s * u).length() < 1e-12, "spring {s}");
                assert!((blk.stiffness_times(u) - h * h * (k * u)).length() < 1e-12);
                let diagonal = DVec3::new(s_s.x_axis.x, s_s.y_axis.y, s_s.z_axis.z);
                assert!((blk.diagonal() - diagonal).length() < 1e-12, "spring {s}");
            }
        }
        assert!(stretched > 0 && compressed > 0);
    }

    #[test]
    fn a_spring_of_zero_length_is_stiff_in_every_direction_and_undamped() {
        let (h, k, c) = (0.02, 50.0, 0.7);
        let blk = SpringBlock::new(DVec3::ZERO, k, 0.1, h, c);
        let expected = DMat3::from_diagonal(DVec3::splat(h * h * k));
        assert!(close(blk.stiffness_matrix(), expected));
        assert!(close(blk.matrix(), expected));
        assert!(close(
            spring_jacobian(DVec3::ZERO, k, 0.1),
            expected * (1.0 / (h * h))
        ));
    }

    #[test]
    fn the_right_hand_side_is_backward_eulers_on_both_paths() {
        let cloth = crumpled();
        let n = cloth.node_count();
        let (h, c) = (0.02, 0.7);
        let kinematic = cloth.pinned.clone();
        assert!(kinematic.iter().filter(|&&k| k).count() == 2);
        let known_dv: Vec<DVec3> = (0..n)
            .map(|i| DVec3::new(0.1 * i as f64, -0.2, 0.05))
            .collect();
        let force: Vec<DVec3> = (0..n)
            .map(|i| DVec3::new((i as f64).sin(), 0.5, (i as f64).cos()))
            .collect();
        let mut ext = External {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            ..External::default()
        };
        ext.resize(n);
        let mut blocks = Vec::new();
        spring_blocks(&cloth, h, c, false, &mut blocks);
        // b_i = h (f_i + m_i g) + Σ_s h² K_s (v_j − v_i) + Σ_{s, j held} S_s Δv_j.
        let mut expect: Vec<DVec3> = (0..n)
            .map(|i| h * (force[i] + cloth.m[i] * ext.gravity))
            .collect();
        for (s, sp) in cloth.topology.springs.iter().enumerate() {
            let x_ab = cloth.x[sp.b] - cloth.x[sp.a];
            let k = expected_jacobian(x_ab, cloth.k()[s], sp.rest);
            let s_s = h * h * k + h * c * outer(x_ab.normalize());
            for (i, j) in [(sp.a, sp.b), (sp.b, sp.a)] {
                expect[i] += h * h * (k * (cloth.v[j] - cloth.v[i]));
                if kinematic[j] {
                    expect[i] += s_s * known_dv[j];
                }
            }
        }
        for (i, e) in expect.iter_mut().enumerate() {
            if kinematic[i] {
                *e = DVec3::ZERO;
            }
        }
        let mut results = Vec::new();
        for parallel in [false, true] {
            let input = RhsInput {
                cloth: &cloth,
                kinematic: &kinematic,
                known_dv: &known_dv,
                h,
                force: &force,
                ext: &ext,
                parallel,
            };
            let mut b = vec![DVec3::NAN; 3];
            right_hand_side(&input, &blocks, &mut b);
            assert_eq!(b.len(), n);
            for i in 0..n {
                assert!(
                    (b[i] - expect[i]).length() < 1e-12,
                    "node {i}: {} {}",
                    b[i],
                    expect[i]
                );
            }
            results.push(b);
        }
        // The spring-by-spring sums are the gather's, bit for bit.
        assert_eq!(results[0], results[1]);
    }
}
