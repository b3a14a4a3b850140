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

use super::cloth::Cloth;
use super::forces::{External, for_each_node, for_each_node2};

/// The stiffness block `K_s = ∂f_a/∂x_b = k [P + (1 − L/|x|)(I − P)]` of one spring, its
/// second term dropped while the spring is compressed (so every block stays positive
/// semi-definite and the system symmetric positive definite).
pub fn spring_jacobian(x_ab: DVec3, k: f64, rest: f64) -> DMat3 {
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

/// Per spring, `K_s` into `jac` and `S_s = h² K_s + h c P` into `block` (`damping` = `c`,
/// N·s/m), in one pass.
pub fn spring_blocks(
    cloth: &Cloth,
    h: f64,
    damping: f64,
    parallel: bool,
    jac: &mut Vec<DMat3>,
    block: &mut Vec<DMat3>,
) {
    let ns = cloth.springs.len();
    jac.resize(ns, DMat3::ZERO);
    block.resize(ns, DMat3::ZERO);
    let h2 = h * h;
    for_each_node2(parallel, jac, block, |s, j, blk| {
        let sp = &cloth.springs[s];
        let x_ab = cloth.x[sp.b] - cloth.x[sp.a];
        *j = spring_jacobian(x_ab, cloth.k[s], sp.rest);
        *blk = *j * h2;
        if damping > 0.0 {
            let d = x_ab.normalize_or_zero();
            *blk += DMat3::from_cols(d * d.x, d * d.y, d * d.z) * (h * damping);
        }
    });
}

/// What the right-hand side reads besides the blocks.
#[derive(Clone, Copy)]
pub struct RhsInput<'a> {
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
pub fn right_hand_side(input: &RhsInput, jac: &[DMat3], block: &[DMat3], b: &mut Vec<DVec3>) {
    let RhsInput {
        cloth,
        kinematic,
        known_dv,
        h,
        force,
        ext,
        parallel,
    } = *input;
    let h2 = h * h;
    b.resize(cloth.node_count(), DVec3::ZERO);
    if !parallel {
        for (i, bi) in b.iter_mut().enumerate() {
            *bi = if kinematic[i] {
                DVec3::ZERO
            } else {
                h * (force[i] + ext.as_force(i, cloth.m[i]))
            };
        }
        for (s, &[ia, ib]) in cloth.ends.iter().enumerate() {
            let (ia, ib) = (ia as usize, ib as usize);
            let t = h2 * (jac[s] * (cloth.v[ib] - cloth.v[ia]));
            if !kinematic[ia] {
                b[ia] += t;
                if kinematic[ib] {
                    b[ia] += block[s] * known_dv[ib];
                }
            }
            if !kinematic[ib] {
                b[ib] -= t;
                if kinematic[ia] {
                    b[ib] += block[s] * known_dv[ia];
                }
            }
        }
        return;
    }
    for_each_node(parallel, b, |i, bi| {
        if kinematic[i] {
            *bi = DVec3::ZERO;
            return;
        }
        let mut rhs = h * (force[i] + ext.as_force(i, cloth.m[i]));
        for l in cloth.links(i) {
            let j = l.node as usize;
            let s = l.spring as usize;
            rhs += h2 * (jac[s] * (cloth.v[j] - cloth.v[i]));
            if kinematic[j] {
                rhs += block[s] * known_dv[j];
            }
        }
        *bi = rhs;
    });
}
