//! What happens after `x += h v`: Provot's strain limiting (method.md §5), then colliders
//! (§6). Kinematic nodes are never moved here.

use glam::DVec3;

use super::cloth::Cloth;
use super::forces::for_each_node;
use super::params::{Collider, Provot};

/// Relative excess below which a spring counts as satisfied, so that the sweeps can finish
/// instead of chasing round-off.
pub const PROVOT_TOLERANCE: f64 = 1e-9;

/// Work arrays of [`strain_limit`], reused between steps.
#[derive(Debug, Clone, Default)]
pub struct ProvotScratch {
    x_uncorrected: Vec<DVec3>,
    /// Per spring of the current colour: the moves of its two ends, if it was too long.
    moves: Vec<Option<[DVec3; 2]>>,
}

/// The moves that shorten spring `(a, b, rest)` to `limit · rest` if it is longer (by more than
/// [`PROVOT_TOLERANCE`]): half each, all on the free end when the other is kinematic.
#[inline]
fn provot_moves(
    xa: DVec3,
    xb: DVec3,
    rest: f64,
    limit: f64,
    ka: bool,
    kb: bool,
) -> Option<[DVec3; 2]> {
    let d = xb - xa;
    let len2 = d.length_squared();
    // Squared lengths first: most springs are within the limit and need no square root.
    let tol = limit * (1.0 + PROVOT_TOLERANCE);
    if len2 <= tol * tol * rest * rest || (ka && kb) {
        return None;
    }
    let len = len2.sqrt();
    let excess = (len - limit * rest) * d / len;
    Some(match (ka, kb) {
        (false, false) => [0.5 * excess, -0.5 * excess],
        (true, false) => [DVec3::ZERO, -excess],
        (false, true) => [excess, DVec3::ZERO],
        (true, true) => [DVec3::ZERO, DVec3::ZERO],
    })
}

/// Provot 1995: `iterations` Gauss–Seidel sweeps over the structural and shear springs (every
/// spring of an explicit cloth). A spring longer than `(1 + τ) L` is shortened to `(1 + τ) L`:
/// each end moves half the excess, the free end all of it when the other end is kinematic,
/// neither when both are. Springs with `L = 0` are left alone. Afterwards every moved node gets
/// `v = (x_corrected - x_before) / h`. Returns the number of corrections made.
///
/// A sweep visits the springs colour by colour ([`Cloth::strain_colors`]): springs of one colour
/// share no node, so their corrections are independent and are computed in parallel when
/// `parallel`, with results bit-identical to the serial order.
pub fn strain_limit(
    cloth: &mut Cloth,
    kinematic: &[bool],
    x_before: &[DVec3],
    scratch: &mut ProvotScratch,
    h: f64,
    provot: &Provot,
    parallel: bool,
) -> usize {
    if !provot.enabled || provot.iterations == 0 {
        return 0;
    }
    scratch.x_uncorrected.clear();
    scratch.x_uncorrected.extend_from_slice(&cloth.x);
    let limit = 1.0 + provot.max_stretch;
    let mut corrections = 0;
    for _ in 0..provot.iterations {
        let before = corrections;
        for (color, slot) in cloth.strain_colors.iter().zip(&cloth.strain_color_slot) {
            scratch.moves.resize(color.len(), None);
            let moves = &mut scratch.moves[..color.len()];
            let (x, springs) = (&cloth.x, &cloth.springs);
            for_each_node(parallel, moves, |k, m| {
                let s = &springs[color[k] as usize];
                *m = provot_moves(
                    x[s.a],
                    x[s.b],
                    s.rest,
                    limit,
                    kinematic[s.a],
                    kinematic[s.b],
                );
            });
            corrections += moves.iter().filter(|m| m.is_some()).count();
            // No two springs of a colour share a node: each node takes at most one move.
            let moves = &*moves;
            for_each_node(parallel, &mut cloth.x, |i, xi| {
                let k = slot[i];
                if k == u32::MAX {
                    return;
                }
                if let Some([da, db]) = moves[k as usize] {
                    *xi += if springs[color[k as usize] as usize].a == i {
                        da
                    } else {
                        db
                    };
                }
            });
        }
        if corrections == before {
            break;
        }
    }
    if corrections > 0 {
        let (x, v, x_uncorrected) = (&cloth.x, &mut cloth.v, &scratch.x_uncorrected);
        for_each_node(parallel, v, |i, vi| {
            if x[i] != x_uncorrected[i] {
                *vi = (x[i] - x_before[i]) / h;
            }
        });
    }
    corrections
}

/// Pushes penetrating free nodes to the collider surface (plus its margin), removes the inward
/// normal velocity and applies Coulomb friction to the tangential velocity: the tangential speed
/// drops by `μ` times the removed normal speed, never below zero.
pub fn collide(cloth: &mut Cloth, kinematic: &[bool], colliders: &[Collider]) -> usize {
    let mut contacts = 0;
    for c in colliders {
        for (i, &is_kinematic) in kinematic.iter().enumerate() {
            if is_kinematic {
                continue;
            }
            let x = cloth.x[i];
            let (normal, depth, mu) = match c {
                Collider::Sphere(s) => {
                    let center = DVec3::from_array(s.center);
                    let d = x - center;
                    let dist = d.length();
                    let r = s.radius + s.margin;
                    if dist >= r {
                        continue;
                    }
                    let n = if dist > 0.0 { d / dist } else { DVec3::Y };
                    (n, r - dist, s.friction)
                }
                Collider::Ground(g) => {
                    let top = g.height + g.margin;
                    if x.y >= top {
                        continue;
                    }
                    (DVec3::Y, top - x.y, g.friction)
                }
            };
            contacts += 1;
            cloth.x[i] += depth * normal;
            let v = cloth.v[i];
            let vn = v.dot(normal);
            if vn < 0.0 {
                let vt = v - vn * normal;
                let vt_len = vt.length();
                let scale = if vt_len > 0.0 {
                    (1.0 - mu * (-vn) / vt_len).max(0.0)
                } else {
                    0.0
                };
                cloth.v[i] = vt * scale;
            }
        }
    }
    contacts
}
