//! Colliders (docs/method.md §6): after strain limiting, free nodes pushed out of spheres and
//! the ground with Coulomb friction. Kinematic nodes are never moved here.

use glam::DVec3;

use crate::sim::format::params::Collider;
use crate::sim::model::cloth::Cloth;

/// Pushes penetrating free nodes to the collider surface (plus its margin), removes the inward
/// normal velocity and applies Coulomb friction to the tangential velocity: the tangential speed
/// drops by `μ` times the removed normal speed, never below zero.
pub(crate) fn collide(cloth: &mut Cloth, kinematic: &[bool], colliders: &[Collider]) -> usize {
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
