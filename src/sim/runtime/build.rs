//! A scene made into a cloth and a simulation: the grid's springs of each family, the nodes a
//! flag's shape keeps, an explicit cloth's nodes and springs.

use glam::DVec3;

use crate::sim::format::error::SimError;
use crate::sim::format::outline::FlagShape;
use crate::sim::format::scene::{
    ClothSpec, GridSpec, PinPreset, Pins, Plane, Scene, ShearMode, grid_uv, kept_nodes, outline,
};
use crate::sim::model::cloth::GridInfo;
use crate::sim::model::cloth::{Cloth, Spring, SpringFamily};
use crate::sim::runtime::simulation::Simulation;

impl Scene {
    /// Builds the cloth (of several flags, the first: [`Scene::flag_scene`]). Call only on a
    /// validated scene.
    pub fn build_cloth(&self) -> Cloth {
        if !self.flags.is_empty() {
            return self.flag_scene(0).build_cloth();
        }
        match &self.cloth.grid {
            Some(g) => build_grid(g),
            None => build_explicit(&self.cloth),
        }
    }

    /// A ready simulation of this scene (of several flags, the first, with its hoist; every
    /// flag: [`crate::sim::runtime::flags::FlagSet`]).
    pub fn simulation(&self) -> Result<Simulation, SimError> {
        if !self.flags.is_empty() {
            return self.flag_scene(0).simulation();
        }
        Simulation::new(self.build_cloth(), self.params.clone())
    }
}

fn build_grid(g: &GridSpec) -> Cloth {
    let (nx, ny) = (g.nx, g.ny);
    let du = g.width / (nx - 1) as f64;
    let dv = g.height / (ny - 1) as f64;
    let origin = DVec3::from_array(g.origin);
    let (axis_u, axis_v) = match g.plane {
        Plane::Xy => (DVec3::X, DVec3::Y),
        Plane::Xz => (DVec3::X, DVec3::NEG_Z),
    };
    let x: Vec<DVec3> = match &g.positions {
        Some(p) => p.iter().map(|a| DVec3::from_array(*a)).collect(),
        None => (0..ny)
            .flat_map(|j| (0..nx).map(move |i| (i, j)))
            .map(|(i, j)| origin + axis_u * (i as f64 * du) + axis_v * (j as f64 * dv))
            .collect(),
    };
    let n = nx * ny;
    let springs = grid_springs(g, du, dv);
    let triangles = grid_triangles(nx, ny);
    let pinned = grid_pins(g);
    let grid = Some(GridInfo {
        nx,
        ny,
        l0_u: du,
        l0_v: dv,
        shape: g.shape,
    });
    if g.shape == FlagShape::Rectangle {
        let m = vec![g.mass / n as f64; n];
        return Cloth::new(x, vec![DVec3::ZERO; n], m, pinned, springs, triangles, grid);
    }
    let (kept, springs, triangles) = cut_to_shape(g, &pinned, springs, triangles);
    let count = kept.iter().filter(|k| **k).count().max(1);
    let m = vec![g.mass / count as f64; n];
    let cut = kept.iter().map(|k| !k).collect();
    let mask = (g.shape == FlagShape::Image)
        .then(|| g.alpha.clone())
        .flatten();
    Cloth::with_cut(
        x,
        vec![DVec3::ZERO; n],
        m,
        pinned,
        springs,
        triangles,
        grid,
        (cut, mask),
    )
}

/// The grid's springs, family by family in the order the step has always read them:
/// structural (along rows and columns), shear (across each cell), bend (every second node).
fn grid_springs(g: &GridSpec, du: f64, dv: f64) -> Vec<Spring> {
    let (nx, ny) = (g.nx, g.ny);
    let idx = |i: usize, j: usize| j * nx + i;
    let mut springs = Vec::new();
    let mut add = |a: usize, b: usize, family: SpringFamily, rest: f64| {
        springs.push(Spring {
            a,
            b,
            family,
            rest,
            k_custom: 0.0,
        });
    };
    let diag = (du * du + dv * dv).sqrt();
    for j in 0..ny {
        for i in 0..nx {
            if i + 1 < nx {
                add(idx(i, j), idx(i + 1, j), SpringFamily::Structural, du);
            }
            if j + 1 < ny {
                add(idx(i, j), idx(i, j + 1), SpringFamily::Structural, dv);
            }
        }
    }
    if g.shear != ShearMode::None {
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                add(idx(i, j), idx(i + 1, j + 1), SpringFamily::Shear, diag);
                if g.shear == ShearMode::Both {
                    add(idx(i + 1, j), idx(i, j + 1), SpringFamily::Shear, diag);
                }
            }
        }
    }
    if g.bend {
        for j in 0..ny {
            for i in 0..nx {
                if i + 2 < nx {
                    add(idx(i, j), idx(i + 2, j), SpringFamily::Bend, 2.0 * du);
                }
                if j + 2 < ny {
                    add(idx(i, j), idx(i, j + 2), SpringFamily::Bend, 2.0 * dv);
                }
            }
        }
    }
    springs
}

/// Two triangles a cell, counter-clockwise seen from +u × +v, matching the spring diagonal
/// (i,j)–(i+1,j+1).
fn grid_triangles(nx: usize, ny: usize) -> Vec<[usize; 3]> {
    let idx = |i: usize, j: usize| j * nx + i;
    let mut triangles = Vec::with_capacity(2 * (nx - 1) * (ny - 1));
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            triangles.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
            triangles.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
        }
    }
    triangles
}

/// Per node, whether the grid's pins hold it.
fn grid_pins(g: &GridSpec) -> Vec<bool> {
    let (nx, ny) = (g.nx, g.ny);
    let idx = |i: usize, j: usize| j * nx + i;
    let mut pinned = vec![false; nx * ny];
    match &g.pins {
        Pins::Preset(PinPreset::Hoist) => (0..ny).for_each(|j| pinned[idx(0, j)] = true),
        Pins::Preset(PinPreset::TopCorners) => {
            pinned[idx(0, ny - 1)] = true;
            pinned[idx(nx - 1, ny - 1)] = true;
        }
        Pins::Preset(PinPreset::TopEdge) => (0..nx).for_each(|i| pinned[idx(i, ny - 1)] = true),
        Pins::Preset(PinPreset::None) => {}
        Pins::List(list) => list.iter().for_each(|[i, j]| pinned[idx(*i, *j)] = true),
    }
    pinned
}

/// A shaped flag: the nodes of the cells the shape covers, the springs that run through it,
/// the triangles of those nodes with a point in it (returned as kept nodes, springs,
/// triangles). Pinned nodes stay, tied to the cloth by the springs that reach into the shape
/// (a round image's hoist is mostly transparent, and the flag still hangs from its pole).
fn cut_to_shape(
    g: &GridSpec,
    pinned: &[bool],
    mut springs: Vec<Spring>,
    mut triangles: Vec<[usize; 3]>,
) -> (Vec<bool>, Vec<Spring>, Vec<[usize; 3]>) {
    let (nx, n) = (g.nx, g.nx * g.ny);
    let mut kept = kept_nodes(g);
    for (k, p) in kept.iter_mut().zip(pinned) {
        *k |= *p;
    }
    let uv = |k: usize| grid_uv(g, k % nx, k / nx);
    let outline = outline(g);
    springs.retain(|s| {
        let (a, b) = (uv(s.a), uv(s.b));
        kept[s.a]
            && kept[s.b]
            && if pinned[s.a] || pinned[s.b] {
                outline.reaches_segment(a, b)
            } else {
                outline.covers_segment(a, b)
            }
    });
    // A free node left with fewer than two springs (by a notch's edge) would swing loose: it
    // is cut too, and so on until none is.
    loop {
        let mut degree = vec![0usize; n];
        for s in &springs {
            degree[s.a] += 1;
            degree[s.b] += 1;
        }
        let loose: Vec<usize> = (0..n)
            .filter(|&k| kept[k] && !pinned[k] && degree[k] < 2)
            .collect();
        if loose.is_empty() {
            break;
        }
        for k in loose {
            kept[k] = false;
        }
        springs.retain(|s| kept[s.a] && kept[s.b]);
    }
    triangles.retain(|t| {
        let [a, b, c] = t.map(uv);
        let centre = [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0];
        t.iter().all(|&k| kept[k])
            && [a, b, c].iter().any(|corner| {
                outline.covers_segment(centre, *corner) || outline.inside(centre[0], centre[1])
            })
    });
    (kept, springs, triangles)
}

fn build_explicit(c: &ClothSpec) -> Cloth {
    let nodes = c.nodes.as_deref().unwrap_or(&[]);
    let x: Vec<DVec3> = nodes.iter().map(|n| DVec3::from_array(n.x)).collect();
    let springs = c
        .springs
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|s| Spring {
            a: s.a,
            b: s.b,
            family: SpringFamily::Custom,
            rest: s.rest.unwrap_or_else(|| (x[s.b] - x[s.a]).length()),
            k_custom: s.k,
        })
        .collect();
    Cloth::new(
        x,
        nodes.iter().map(|n| DVec3::from_array(n.v)).collect(),
        nodes.iter().map(|n| n.m).collect(),
        nodes.iter().map(|n| n.pinned).collect(),
        springs,
        c.triangles.clone().unwrap_or_default(),
        None,
    )
}
