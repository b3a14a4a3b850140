//! What happens after `x += h v`: Provot's strain limiting (method.md §5), then colliders
//! (§6). Kinematic nodes are never moved here.

use glam::DVec3;

use super::cloth::{Cloth, limits_strain};
use super::params::{Collider, Provot};

/// Relative excess below which a spring counts as satisfied, so that the sweeps can finish
/// instead of chasing round-off.
pub const PROVOT_TOLERANCE: f64 = 1e-9;

/// Provot 1995: `iterations` Gauss–Seidel sweeps over the structural and shear springs (every
/// spring of an explicit cloth). A spring longer than `(1 + τ) L` is shortened to `(1 + τ) L`:
/// each end moves half the excess, the free end all of it when the other end is kinematic,
/// neither when both are. Springs with `L = 0` are left alone. Afterwards every moved node gets
/// `v = (x_corrected - x_before) / h`. Returns the number of corrections made.
pub fn strain_limit(
    cloth: &mut Cloth,
    kinematic: &[bool],
    x_before: &[DVec3],
    x_uncorrected: &mut Vec<DVec3>,
    h: f64,
    provot: &Provot,
) -> usize {
    if !provot.enabled || provot.iterations == 0 {
        return 0;
    }
    x_uncorrected.clear();
    x_uncorrected.extend_from_slice(&cloth.x);
    let limit = 1.0 + provot.max_stretch;
    let mut corrections = 0;
    for _ in 0..provot.iterations {
        let mut any = false;
        for s in &cloth.springs {
            if s.rest <= 0.0 || !limits_strain(s.family) {
                continue;
            }
            let (ka, kb) = (kinematic[s.a], kinematic[s.b]);
            if ka && kb {
                continue;
            }
            let d = cloth.x[s.b] - cloth.x[s.a];
            let len = d.length();
            let max_len = limit * s.rest;
            if len <= max_len * (1.0 + PROVOT_TOLERANCE) || len == 0.0 {
                continue;
            }
            let excess = (len - max_len) * d / len;
            match (ka, kb) {
                (false, false) => {
                    cloth.x[s.a] += 0.5 * excess;
                    cloth.x[s.b] -= 0.5 * excess;
                }
                (true, false) => cloth.x[s.b] -= excess,
                (false, true) => cloth.x[s.a] += excess,
                (true, true) => {}
            }
            corrections += 1;
            any = true;
        }
        if !any {
            break;
        }
    }
    if corrections > 0 {
        for i in 0..cloth.node_count() {
            if cloth.x[i] != x_uncorrected[i] {
                cloth.v[i] = (cloth.x[i] - x_before[i]) / h;
            }
        }
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
