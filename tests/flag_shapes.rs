//! Flag shapes: the cloth keeps the nodes of the cells its outline covers and
//! the springs that run through it; a swallowtail's notch has no springs across it; the shapes
//! fly without tripping the guard; renders show the background through the notch (lavapipe in
//! CI; without an adapter the render test prints `SKIPPED`, except under `CI=true`).
//!
//! The expected counts are worked out here from the outlines' inequalities, densely sampled
//! (64 × 64 points a cell, 255 points a spring), not from the code's own sampling.

mod common;

use flagsim::render::drawing::headless::HeadlessRenderer;
use flagsim::render::drawing::view::{self, ViewSettings};
use flagsim::sim::Scene;
use flagsim::sim::format::outline::FlagShape;
use flagsim::sim::format::setting::{Color, Setting, Sky};
use flagsim::sim::runtime::snapshot::Snapshot;

/// Whether `(u, v)` is in the notch: a triangle `notch` deep from the fly's corners, `half`
/// from the middle line at the fly (0.5 for a swallowtail, 0.2 for a burgee).
fn in_notch(shape: &str, notch: f64, u: f64, v: f64) -> bool {
    let half = match shape {
        "swallowtail" => 0.5,
        "burgee" => 0.2,
        _ => return false,
    };
    u > 1.0 - notch && (v - 0.5).abs() < half * (u - (1.0 - notch)) / notch
}

/// The outlines written out here from their definitions, apart from the code under test: `u`
/// from the hoist, `v` from the bottom.
fn inside(shape: &str, notch: f64, u: f64, v: f64) -> bool {
    let off = (v - 0.5).abs();
    let cut = in_notch(shape, notch, u, v);
    match shape {
        "rectangle" => true,
        "swallowtail" => !cut,
        "pennant" => off <= 0.5 * (1.0 - u),
        // Tapering to 0.4 of the hoist at the fly.
        "burgee" => off <= 0.5 * (1.0 - 0.6 * u) && !cut,
        other => panic!("{other}"),
    }
}

/// `(kept nodes, kept springs)` of a 10 × 10 grid with shear and bend springs.
fn expected_counts(shape: &str, notch: f64) -> (usize, usize) {
    let n = 10;
    let at = |k: usize| k as f64 / (n - 1) as f64;
    let covered = |i: usize, j: usize| {
        (0..64).any(|a| {
            (0..64).any(|b| {
                let u = at(i) + (at(i + 1) - at(i)) * (f64::from(a) + 0.5) / 64.0;
                let v = at(j) + (at(j + 1) - at(j)) * (f64::from(b) + 0.5) / 64.0;
                inside(shape, notch, u, v)
            })
        })
    };
    let kept = |i: usize, j: usize| {
        let cells = |k: usize| [k.checked_sub(1), (k + 1 < n).then_some(k)];
        cells(i)
            .iter()
            .flatten()
            .any(|&ci| cells(j).iter().flatten().any(|&cj| covered(ci, cj)))
    };
    let mut springs = Vec::new();
    for j in 0..n {
        for i in 0..n {
            for (di, dj) in [(1, 0), (0, 1), (2, 0), (0, 2)] {
                if i + di < n && j + dj < n {
                    springs.push(((i, j), (i + di, j + dj)));
                }
            }
            if i + 1 < n && j + 1 < n {
                springs.push(((i, j), (i + 1, j + 1)));
                springs.push(((i + 1, j), (i, j + 1)));
            }
        }
    }
    assert_eq!(springs.len(), 502);
    let mut nodes: Vec<bool> = (0..n * n).map(|k| kept(k % n, k / n)).collect();
    // A spring runs through the cloth and not through the notch.
    let points = |((ia, ja), (ib, jb)): ((usize, usize), (usize, usize))| {
        (1..256).map(move |k| {
            let t = f64::from(k) / 256.0;
            (
                at(ia) + (at(ib) - at(ia)) * t,
                at(ja) + (at(jb) - at(ja)) * t,
            )
        })
    };
    let node = |(i, j): (usize, usize)| j * n + i;
    springs.retain(|&s| {
        nodes[node(s.0)]
            && nodes[node(s.1)]
            && points(s).any(|(u, v)| inside(shape, notch, u, v))
            && !points(s).any(|(u, v)| in_notch(shape, notch, u, v))
    });
    // Then a free node (not on the hoist) with under two springs goes, until none does.
    loop {
        let degree = |k: usize| {
            springs
                .iter()
                .filter(|(a, b)| node(*a) == k || node(*b) == k)
                .count()
        };
        let loose: Vec<usize> = (0..n * n)
            .filter(|&k| nodes[k] && k % n != 0 && degree(k) < 2)
            .collect();
        if loose.is_empty() {
            break;
        }
        for k in loose {
            nodes[k] = false;
        }
        springs.retain(|&(a, b)| nodes[node(a)] && nodes[node(b)]);
    }
    (nodes.iter().filter(|k| **k).count(), springs.len())
}

fn shaped(shape: FlagShape) -> Scene {
    let mut scene = Scene::load("flag").unwrap();
    scene.cloth.grid.as_mut().unwrap().shape = shape;
    scene.validate().unwrap();
    scene
}

#[test]
fn each_shape_keeps_the_nodes_and_springs_of_the_cells_it_covers() {
    for (shape, notch) in [
        (FlagShape::Rectangle, 0.0),
        (FlagShape::Swallowtail { notch: 1.0 / 3.0 }, 1.0 / 3.0),
        (FlagShape::Swallowtail { notch: 0.6 }, 0.6),
        (FlagShape::Pennant, 0.0),
        (FlagShape::Burgee { notch: 0.25 }, 0.25),
        (FlagShape::Burgee { notch: 0.5 }, 0.5),
    ] {
        let cloth = shaped(shape).build_cloth();
        let (nodes, springs) = expected_counts(shape.name(), notch);
        assert_eq!(cloth.cloth_node_count(), nodes, "{shape:?} nodes");
        assert_eq!(cloth.topology.springs.len(), springs, "{shape:?} springs");
        // The cut nodes have nothing attached, and the mass is the cloth's, on its nodes.
        let cut = &cloth.topology.mesh.cut;
        for k in (0..cloth.node_count()).filter(|&k| cut.get(k).copied().unwrap_or(false)) {
            assert!(
                cloth.topology.links(k).is_empty(),
                "{shape:?}: node {k} has springs"
            );
            assert!(!cloth.topology.mesh.triangles.iter().any(|t| t.contains(&k)));
            assert!(!cloth.pinned[k]);
        }
        assert!((cloth.total_mass() - 0.12).abs() < 1e-12, "{shape:?}");
    }
    // The rectangle by the grid's own formula: 2 · 9 · 10 structural, 2 · 81 shear and
    // 2 · 8 · 10 bend springs, every node.
    assert_eq!(expected_counts("rectangle", 0.0), (100, 180 + 162 + 160));
}

#[test]
fn a_swallowtails_notch_has_no_springs_across_it() {
    for notch in [1.0 / 3.0, 0.5, 0.8] {
        let cloth = shaped(FlagShape::Swallowtail { notch }).build_cloth();
        let apex = 1.0 - notch + 1e-9;
        let uv = |k: u32| (f64::from(k % 10) / 9.0, f64::from(k / 10) / 9.0);
        for [a, b] in &cloth.topology.mesh.springs {
            let ((ua, va), (ub, vb)) = (uv(*a), uv(*b));
            // Both ends in the tails (past the notch's point), one in each.
            let across = ua > apex && ub > apex && (va - 0.5) * (vb - 0.5) < 0.0;
            assert!(!across, "notch {notch}: spring {a}–{b} joins the two tails");
        }
        // Nor does any triangle (the air pushes on the cloth there, not on the gap).
        for t in &cloth.topology.mesh.triangles {
            let sides: Vec<f64> = t
                .iter()
                .map(|&k| uv(k as u32))
                .filter(|p| p.0 > apex)
                .map(|p| p.1 - 0.5)
                .collect();
            assert!(
                !(sides.len() == 3
                    && sides.iter().any(|s| *s > 0.0)
                    && sides.iter().any(|s| *s < 0.0)),
                "notch {notch}: triangle {t:?} spans the notch"
            );
        }
    }
}

#[test]
fn every_shape_flies_without_the_guard_and_its_cut_nodes_stay_still() {
    for shape in FlagShape::ALL {
        let scene = shaped(shape);
        let mut sim = scene.simulation().unwrap();
        let start = sim.cloth.x.clone();
        for step in 0..600 {
            assert!(sim.step(), "{shape:?}: guard at step {step}");
        }
        let cut = sim.cloth.topology.mesh.cut.clone();
        let mut moved = 0;
        for (k, (x, x0)) in sim.cloth.x.iter().zip(&start).enumerate() {
            if cut.get(k).copied().unwrap_or(false) {
                assert_eq!(x, x0, "{shape:?}: cut node {k} moved");
            } else if x.distance(*x0) > 0.05 {
                moved += 1;
            }
        }
        assert!(
            moved > 20,
            "{shape:?}: the flag does not fly ({moved} nodes moved)"
        );
        assert!(
            sim.stats.max_strain < 1.2,
            "{shape:?}: strain {}",
            sim.stats.max_strain
        );
    }
}

#[test]
fn a_scene_file_says_its_shape_and_a_bad_one_is_refused() {
    let scene = Scene::from_json(
        r#"{"cloth": {"grid": {"shape": {"burgee": {"notch": 0.4}}}}}"#,
        "t",
    )
    .unwrap();
    assert_eq!(
        scene.cloth.grid.as_ref().unwrap().shape,
        FlagShape::Burgee { notch: 0.4 }
    );
    let again = Scene::from_json(&scene.to_json(), "saved").unwrap();
    assert_eq!(
        again.cloth.grid.unwrap().shape,
        FlagShape::Burgee { notch: 0.4 }
    );
    // A rectangle is not written (old scenes stay as they were).
    assert!(!Scene::load("flag").unwrap().to_json().contains("shape"));
    for (json, says) in [
        (
            r#"{"cloth": {"grid": {"shape": "oval"}}}"#,
            "cloth.grid.shape: unknown shape `oval`",
        ),
        (
            r#"{"cloth": {"grid": {"shape": {"swallowtail": {"notch": 1.2}}}}}"#,
            "0.05 to 0.9",
        ),
        (
            r#"{"cloth": {"grid": {"shape": "pennant", "pins": [[0, 0], [9, 0]]}}}"#,
            "cloth.grid.pins[1]: [9, 0] is outside the pennant's shape",
        ),
    ] {
        let e = Scene::from_json(json, "t.json").unwrap_err().to_string();
        assert!(e.contains(says), "{json}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

/// Where point `(u, v)` of a flat 10 × 10 flag in `snap` lands on a 480 × 320 picture seen by
/// `camera`.
fn pixel_of(
    snap: &Snapshot,
    camera: &flagsim::render::OrbitCamera,
) -> impl Fn(f64, f64) -> (u32, u32) {
    let nx = snap.grid.unwrap().nx;
    let corner = |i: usize, j: usize| snap.x[j * nx + i];
    let (o, du, dv) = (
        corner(0, 0),
        corner(9, 0) - corner(0, 0),
        corner(0, 9) - corner(0, 0),
    );
    let vp = flagsim::render::CameraMatrices::from_orbit(camera, 480.0 / 320.0).view_proj;
    move |u, v| {
        let c = vp * (o + du * u + dv * v).as_vec3().extend(1.0);
        let ndc = c.truncate() / c.w;
        (
            ((ndc.x + 1.0) * 240.0) as u32,
            ((1.0 - ndc.y) * 160.0) as u32,
        )
    }
}

#[test]
fn the_background_shows_through_the_notch_and_not_through_the_flag() {
    let renderer = common::headless_or_skip(480, 320);
    let Some(mut headless) = renderer else {
        return;
    };
    // A still, flat flag seen square on, before a plain magenta sky.
    let magenta = [255u8, 0, 255];
    let mut view = ViewSettings::default();
    view.render.setting = Setting {
        sky: Sky::plain(Color::from_rgb8(magenta)),
        ground: false,
        ..Setting::default()
    };
    let draw = |headless: &mut HeadlessRenderer, shape: FlagShape| {
        let mut scene = shaped(shape);
        scene.params.gravity = [0.0; 3];
        scene.params.wind.velocity = [0.0; 3];
        scene.params.wind.gust.strength = 0.0;
        let snap = Snapshot::of(&scene.simulation().unwrap());
        let mut camera = view::framing_camera(&[&snap]);
        camera.pitch = 0.0;
        camera.yaw = 0.0;
        (
            headless.render(&snap, &view, &camera).unwrap(),
            snap,
            camera,
        )
    };
    let (rect, snap, camera) = draw(&mut headless, FlagShape::Rectangle);
    let (tail, _, _) = draw(&mut headless, FlagShape::Swallowtail { notch: 1.0 / 3.0 });
    // Where a point of the flag (u, v) lands on the picture.
    let pixel = pixel_of(&snap, &camera);
    // Magenta, as the sky is (a little darker below the horizon, where the view looks down
    // into the haze); none of the flag's colours comes near it.
    let is_sky = |image: &image::RgbaImage, (x, y): (u32, u32)| {
        let [r, g, b, _] = image.get_pixel(x, y).0;
        r > 200 && b > 200 && g < 40
    };
    // Deep in the notch (u = 0.93, the middle line) the rectangle is cloth and the swallowtail
    // shows the sky; on the body (u = 0.3) and on a tail (u = 0.93, v = 0.05) both are cloth.
    let notch = pixel(0.93, 0.5);
    assert!(
        !is_sky(&rect, notch),
        "the rectangle has a hole at {notch:?}"
    );
    assert!(
        is_sky(&tail, notch),
        "the notch at {notch:?} is not see-through"
    );
    for (u, v) in [(0.3, 0.5), (0.93, 0.05), (0.93, 0.95)] {
        let p = pixel(u, v);
        assert!(
            !is_sky(&tail, p),
            "the swallowtail at ({u}, {v}) → {p:?} shows the sky"
        );
    }
    // The shader's outline against the CPU's (`FlagShape::inside`), for every shape, on a 24 ×
    // 24 grid of points of the flat flag, leaving out those within 0.02 of the outline.
    for shape in FlagShape::ALL {
        let (image, _, _) = draw(&mut headless, shape);
        let mut checked = 0;
        for a in 0..24 {
            for b in 0..24 {
                let (u, v) = ((f64::from(a) + 0.5) / 24.0, (f64::from(b) + 0.5) / 24.0);
                let here = shape.inside(u, v);
                let d = 0.02;
                let clear = [
                    (d, 0.0),
                    (-d, 0.0),
                    (0.0, d),
                    (0.0, -d),
                    (d, d),
                    (-d, -d),
                    (d, -d),
                    (-d, d),
                ]
                .iter()
                .all(|(du, dv)| shape.inside(u + du, v + dv) == here);
                if !clear {
                    continue;
                }
                checked += 1;
                let p = pixel(u, v);
                assert_eq!(
                    !is_sky(&image, p),
                    here,
                    "{shape:?} at ({u:.3}, {v:.3}) → {p:?}"
                );
            }
        }
        assert!(checked > 400, "{shape:?}: only {checked} points checked");
    }
}

/// A 120 × 80 flag image: opaque inside the ellipse that touches its four sides, transparent
/// outside (a round flag), red.
fn oval_image() -> image::RgbaImage {
    image::RgbaImage::from_fn(120, 80, |x, y| {
        let (u, v) = ((f64::from(x) + 0.5) / 120.0, (f64::from(y) + 0.5) / 80.0);
        let inside = (u - 0.5).powi(2) / 0.25 + (v - 0.5).powi(2) / 0.25 <= 1.0;
        image::Rgba([200, 30, 30, if inside { 255 } else { 0 }])
    })
}

fn oval_scene() -> Scene {
    let path = std::env::temp_dir().join(format!("flagsim-oval-{}.png", std::process::id()));
    oval_image().save(&path).unwrap();
    let mut scene = shaped(FlagShape::Image);
    flagsim::cli::flag_image(&mut scene, Some(&path)).unwrap();
    scene
}

#[test]
fn the_image_shape_cuts_the_cloth_to_the_images_opaque_part() {
    let scene = oval_scene();
    let cloth = scene.build_cloth();
    // Worked out from the ellipse: a node is kept when a cell it is a corner of reaches into
    // the ellipse (|u − ½|² + |v − ½|² ≤ ¼ in flag coordinates), densely sampled.
    let n = 10;
    let at = |k: usize| k as f64 / (n - 1) as f64;
    let oval = |u: f64, v: f64| (u - 0.5).powi(2) + (v - 0.5).powi(2) <= 0.25;
    let covered = |i: usize, j: usize| {
        (0..32).any(|a| {
            (0..32).any(|b| {
                let u = at(i) + (at(i + 1) - at(i)) * (f64::from(a) + 0.5) / 32.0;
                let v = at(j) + (at(j + 1) - at(j)) * (f64::from(b) + 0.5) / 32.0;
                oval(u, v)
            })
        })
    };
    let cells = |k: usize| [k.checked_sub(1), (k + 1 < n).then_some(k)];
    let reachable = |i: usize, j: usize| {
        cells(i)
            .iter()
            .flatten()
            .any(|&ci| cells(j).iter().flatten().any(|&cj| covered(ci, cj)))
    };
    let cut = &cloth.topology.mesh.cut;
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (at(i), at(j));
            let depth = 0.5 - ((u - 0.5).powi(2) + (v - 0.5).powi(2)).sqrt();
            if cut[j * n + i] {
                // A node is cut outside the oval, or within a cell of its edge (a node there
                // whose springs all start in the transparent part is left with none).
                assert!(
                    depth < 1.0 / 9.0,
                    "node ({i}, {j}) cut {depth:.3} inside the oval"
                );
            } else {
                // The hoist's pinned nodes stay to tie the cloth to the pole.
                assert!(
                    reachable(i, j) || (i == 0 && cloth.pinned[j * n]),
                    "node ({i}, {j}) kept outside the oval"
                );
            }
        }
    }
    // The fly's corners are well outside the ellipse: cut; its middle is kept, and so is the
    // whole hoist, pinned, with springs from the pole into the oval.
    for k in [n - 1, n * n - 1] {
        assert!(cut[k], "corner node {k} kept");
    }
    for j in 0..n {
        assert!(!cut[j * n] && cloth.pinned[j * n], "hoist node {j}");
    }
    assert!(
        cloth
            .topology
            .mesh
            .springs
            .iter()
            .any(|s| s.contains(&(5 * n as u32)))
    );
    assert!(!cut[5 * n + 5]);
    // No spring between free nodes runs through the transparent part: each is inside the
    // ellipse all along, within the pixel size.
    let uv = |k: u32| (at(k as usize % n), at(k as usize / n));
    for [a, b] in &cloth.topology.mesh.springs {
        if cloth.pinned[*a as usize] || cloth.pinned[*b as usize] {
            continue;
        }
        let ((ua, va), (ub, vb)) = (uv(*a), uv(*b));
        for t in [0.25, 0.5, 0.75] {
            let (u, v) = (ua + (ub - ua) * t, va + (vb - va) * t);
            assert!(
                (u - 0.5).powi(2) + (v - 0.5).powi(2) <= 0.25 + 0.02,
                "spring {a}–{b} crosses the transparent part at ({u:.2}, {v:.2})"
            );
        }
    }
    // An opaque image leaves the image shape the whole rectangle.
    let mut opaque = shaped(FlagShape::Image);
    opaque.set_flag_alpha(2, 2, &[255; 4]);
    assert_eq!(opaque.build_cloth().cloth_node_count(), 100);
}

#[test]
fn the_image_shape_shows_the_background_where_the_image_is_transparent() {
    let Some(mut headless) = common::headless_or_skip(480, 320) else {
        return;
    };
    let mut scene = oval_scene();
    scene.params.gravity = [0.0; 3];
    scene.params.wind.velocity = [0.0; 3];
    scene.params.wind.gust.strength = 0.0;
    headless.set_flag_image(&oval_image()).unwrap();
    let snap = Snapshot::of(&scene.simulation().unwrap());
    let mut view = ViewSettings::default();
    view.render.setting = Setting {
        sky: Sky::plain(Color::from_rgb8([255, 0, 255])),
        ground: false,
        ..Setting::default()
    };
    let mut camera = view::framing_camera(&[&snap]);
    camera.pitch = 0.0;
    camera.yaw = 0.0;
    let image = headless.render(&snap, &view, &camera).unwrap();
    let pixel = pixel_of(&snap, &camera);
    let sky = |(x, y): (u32, u32)| {
        let [r, g, b, _] = image.get_pixel(x, y).0;
        r > 200 && b > 200 && g < 40
    };
    // The oval's middle is cloth; the image's transparent corners show the sky.
    assert!(!sky(pixel(0.5, 0.5)));
    for (u, v) in [(0.06, 0.1), (0.94, 0.1), (0.06, 0.9), (0.94, 0.9)] {
        assert!(
            sky(pixel(u, v)),
            "({u}, {v}) → {:?} is not see-through",
            pixel(u, v)
        );
    }
}
