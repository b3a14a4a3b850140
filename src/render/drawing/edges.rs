//! Where a frame can have edges worth anti-aliasing: the screen rectangles of its geometry (the
//! cloth, the pole and its finial, the sphere colliders, the overlay lines). The sky is a smooth
//! gradient and the ground's checkers are box-filtered and fade into the horizon, so FXAA finds
//! nothing to smooth there; on a software rasteriser, where every shaded pixel costs, the viewer
//! runs FXAA only inside these rectangles (`SceneDraw::finish` in `app::frame`).
//!
//! Each rectangle is the projection of a world-space box, grown by a margin in pixels; a box
//! reaching behind the eye gives the whole viewport (it may cover any part of it).

use glam::{Mat4, Vec3, Vec4};

use crate::render::device::targets::PixelRect;
use crate::render::drawing::renderer::FrameData;

/// An axis-aligned world box, `[min, max]` (m).
pub(crate) type WorldBox = [Vec3; 2];

/// The box around `points` (`None` when there are none or any is not finite).
pub(crate) fn bounding_box(points: impl IntoIterator<Item = Vec3>) -> Option<WorldBox> {
    let mut it = points.into_iter();
    let first = it.next()?;
    let (lo, hi) = it.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p)));
    (lo.is_finite() && hi.is_finite()).then_some([lo, hi])
}

/// The box grown by `pad` metres on every side.
pub(crate) fn padded([lo, hi]: WorldBox, pad: f32) -> WorldBox {
    [lo - Vec3::splat(pad), hi + Vec3::splat(pad)]
}

/// The pixels of `viewport` that `world` covers seen through `view_proj` (world → clip, wgpu
/// depth 0..1, drawn over `viewport` as over a whole image), grown by `margin` pixels on every
/// side and clipped to `viewport`. `None` when it is wholly outside; all of `viewport` when a
/// corner is at or behind the eye's plane (its projection is unbounded there).
pub(crate) fn projected_rect(
    view_proj: Mat4,
    [lo, hi]: WorldBox,
    viewport: PixelRect,
    margin: f32,
) -> Option<PixelRect> {
    let mut min = [f32::INFINITY; 2];
    let mut max = [f32::NEG_INFINITY; 2];
    for corner in 0..8 {
        let pick = |bit: u32, a: f32, b: f32| if corner & bit == 0 { a } else { b };
        let p = Vec3::new(
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
        );
        let clip: Vec4 = view_proj * p.extend(1.0);
        if clip.w.is_nan() || clip.w <= 1e-6 {
            return Some(viewport);
        }
        let ndc = [clip.x / clip.w, clip.y / clip.w];
        // NDC y points up, pixel rows down.
        let px = [
            viewport.x as f32 + (ndc[0] + 1.0) * 0.5 * viewport.width as f32,
            viewport.y as f32 + (1.0 - ndc[1]) * 0.5 * viewport.height as f32,
        ];
        for a in 0..2 {
            min[a] = min[a].min(px[a]);
            max[a] = max[a].max(px[a]);
        }
    }
    // Coordinates so large that their pixels overflow.
    if !(min[0].is_finite() && min[1].is_finite() && max[0].is_finite() && max[1].is_finite()) {
        return Some(viewport);
    }
    // Wholly outside (also with the margin): `covering` or the intersection finds nothing.
    let size = [viewport.x + viewport.width, viewport.y + viewport.height];
    PixelRect::covering(
        [min[0] - margin, min[1] - margin],
        [max[0] + margin, max[1] + margin],
        1.0,
        size,
    )?
    .intersection(&viewport)
}

/// Merges rectangles whose overlap costs more than the extra pixels their union would shade
/// (the union's area is at most the sum of theirs), so no pixel is anti-aliased twice for
/// nothing; the rest stay apart. Every pixel of the input is in the output.
pub(crate) fn merge(rects: &mut Vec<PixelRect>) {
    let area = |r: &PixelRect| u64::from(r.width) * u64::from(r.height);
    'again: loop {
        for i in 0..rects.len() {
            for j in i + 1..rects.len() {
                let u = union(&rects[i], &rects[j]);
                if area(&u) <= area(&rects[i]) + area(&rects[j]) {
                    rects[i] = u;
                    rects.swap_remove(j);
                    continue 'again;
                }
            }
        }
        return;
    }
}

/// The smallest rectangle holding both.
pub(crate) fn union(a: &PixelRect, b: &PixelRect) -> PixelRect {
    let (x0, y0) = (a.x.min(b.x), a.y.min(b.y));
    let x1 = (a.x + a.width).max(b.x + b.width);
    let y1 = (a.y + a.height).max(b.y + b.height);
    PixelRect {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    }
}

/// The world boxes of what `frame` draws besides sky and ground: the cloth (its
/// [`ClothFrame::bounds`](crate::render::ClothFrame::bounds)), the pole with its finial, each sphere,
/// and the overlay lines. `None` for a cloth of unknown extent: then any pixel may be an edge.
pub(crate) fn world_boxes(frame: &FrameData<'_>, out: &mut Vec<WorldBox>) -> Option<()> {
    out.clear();
    for cloth in frame.cloth.iter().chain(frame.more_cloths) {
        out.push(cloth.bounds?);
    }
    let more = frame.scene.more_poles.iter().map(|p| p.pole);
    for pole in frame.scene.pole.into_iter().chain(more) {
        // With whichever finial it has (`ScenePass::prepare`).
        out.push(bounding_box(pole.reach())?);
    }
    for s in frame.scene.spheres.iter().filter(|s| s.radius > 0.0) {
        out.push(padded([s.center, s.center], s.radius));
    }
    if let Some(b) = bounding_box(frame.lines.iter().map(|v| Vec3::from(v.position))) {
        out.push(b);
    }
    Some(())
}

/// The pixels of an image of `size` in which `frame` (drawn into it, within its viewport) can
/// have edges, each grown by `margin` pixels, merged ([`merge`]); appended to `out`. The whole
/// viewport when the frame's cloth has no bounds.
pub fn edge_rects(
    frame: &FrameData<'_>,
    [w, h]: [u32; 2],
    margin: f32,
    scratch: &mut Vec<WorldBox>,
    out: &mut Vec<PixelRect>,
) {
    let viewport = frame.viewport.unwrap_or(PixelRect {
        x: 0,
        y: 0,
        width: w,
        height: h,
    });
    if world_boxes(frame, scratch).is_none() {
        out.push(viewport);
    } else {
        out.extend(
            scratch
                .iter()
                .filter_map(|&b| projected_rect(frame.camera.view_proj, b, viewport, margin)),
        );
    }
    merge(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: u32, y: u32, width: u32, height: u32) -> PixelRect {
        PixelRect {
            x,
            y,
            width,
            height,
        }
    }

    /// An orthographic view of x, y in -1..1 (z towards the eye, w = 1): NDC = world x, y.
    fn ortho() -> Mat4 {
        Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 0.1, 10.0)
            * Mat4::from_translation(-5.0 * Vec3::Z)
    }

    #[test]
    fn a_box_lands_where_its_corners_project_by_hand() {
        // Viewport 200 × 100 at (10, 20): x_px = 10 + (x + 1) · 100, y_px = 20 + (1 − y) · 50.
        let vp = rect(10, 20, 200, 100);
        let b = [Vec3::new(-0.5, 0.2, -0.1), Vec3::new(0.25, 0.6, 0.1)];
        // x: 10 + 50 = 60 .. 10 + 125 = 135; y: 20 + 0.4·50 = 40 .. 20 + 0.8·50 = 60.
        assert_eq!(
            projected_rect(ortho(), b, vp, 0.0),
            Some(rect(60, 40, 75, 20))
        );
        // Two pixels of margin on every side.
        assert_eq!(
            projected_rect(ortho(), b, vp, 2.0),
            Some(rect(58, 38, 79, 24))
        );
        // Fractional corners round outwards: a point at x_px 110.1, y_px 70.05 covers the pixel
        // it is in; half a pixel of margin reaches 109.6..110.6 × 69.55..70.55.
        let b = [Vec3::new(0.001, -0.001, 0.0), Vec3::new(0.001, -0.001, 0.0)];
        assert_eq!(
            projected_rect(ortho(), b, vp, 0.0),
            Some(rect(110, 70, 1, 1))
        );
        assert_eq!(
            projected_rect(ortho(), b, vp, 0.5),
            Some(rect(109, 69, 2, 2))
        );
    }

    #[test]
    fn boxes_are_clipped_to_the_viewport_and_off_screen_ones_vanish() {
        let vp = rect(10, 20, 200, 100);
        let wide = [Vec3::new(-3.0, -0.2, 0.0), Vec3::new(0.0, 3.0, 0.0)];
        assert_eq!(
            projected_rect(ortho(), wide, vp, 0.0),
            Some(rect(10, 20, 100, 60))
        );
        let right = [Vec3::new(1.5, 0.0, 0.0), Vec3::new(2.0, 0.5, 0.0)];
        assert_eq!(projected_rect(ortho(), right, vp, 4.0), None);
        // Just outside, but the margin reaches in: x from 210 − 4 = 206.
        let near = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.2, 0.5, 0.0)];
        assert_eq!(
            projected_rect(ortho(), near, vp, 4.0),
            Some(rect(206, 41, 4, 33))
        );
    }

    /// A box so large that a corner's pixel overflows to infinity, on any of the four sides,
    /// may cover any part of the viewport.
    #[test]
    fn a_box_beyond_the_floats_range_may_be_anywhere() {
        let vp = rect(10, 20, 200, 100);
        let (lo, hi) = (Vec3::new(-0.5, 0.2, 0.0), Vec3::new(0.25, 0.6, 0.0));
        let huge = 1e38;
        for (b, side) in [
            ([Vec3::new(-huge, lo.y, 0.0), hi], "left"),
            ([lo, Vec3::new(huge, hi.y, 0.0)], "right"),
            ([lo, Vec3::new(hi.x, huge, 0.0)], "top"),
            ([Vec3::new(lo.x, -huge, 0.0), hi], "bottom"),
        ] {
            assert_eq!(projected_rect(ortho(), b, vp, 0.0), Some(vp), "{side}");
        }
    }

    #[test]
    fn a_box_behind_the_eye_may_be_anywhere() {
        let persp = Mat4::perspective_rh(1.0, 2.0, 0.1, 100.0);
        let vp = rect(0, 0, 64, 32);
        // The eye looks down −z: a box reaching to z > 0 straddles the eye's plane.
        let b = [Vec3::new(-1.0, -1.0, -5.0), Vec3::new(1.0, 1.0, 1.0)];
        assert_eq!(projected_rect(persp, b, vp, 0.0), Some(vp));
        let ahead = [Vec3::new(-0.1, -0.1, -5.0), Vec3::new(0.1, 0.1, -5.0)];
        let r = projected_rect(persp, ahead, vp, 0.0).unwrap();
        assert!(r.width < 10 && r.height < 10, "{r:?}");
    }

    /// Seen from an oblique eye, the rectangle is the one around all eight corners, listed
    /// here by hand and projected one by one (any corner may be the one that reaches furthest).
    #[test]
    fn an_oblique_view_takes_every_corner() {
        let view_proj = Mat4::perspective_rh(1.0, 1.5, 0.1, 100.0)
            * Mat4::look_at_rh(Vec3::new(3.0, 2.5, 4.0), Vec3::ZERO, Vec3::Y);
        let vp = rect(0, 0, 300, 200);
        let (lo, hi) = (Vec3::new(-0.4, -0.2, -0.6), Vec3::new(0.5, 0.3, 0.2));
        let corners = [
            Vec3::new(lo.x, lo.y, lo.z),
            Vec3::new(hi.x, lo.y, lo.z),
            Vec3::new(lo.x, hi.y, lo.z),
            Vec3::new(hi.x, hi.y, lo.z),
            Vec3::new(lo.x, lo.y, hi.z),
            Vec3::new(hi.x, lo.y, hi.z),
            Vec3::new(lo.x, hi.y, hi.z),
            Vec3::new(hi.x, hi.y, hi.z),
        ];
        let (mut min, mut max) = ([f32::MAX; 2], [f32::MIN; 2]);
        for c in corners {
            let clip = view_proj * c.extend(1.0);
            let px = [
                (clip.x / clip.w + 1.0) * 150.0,
                (1.0 - clip.y / clip.w) * 100.0,
            ];
            for a in 0..2 {
                min[a] = min[a].min(px[a]);
                max[a] = max[a].max(px[a]);
            }
        }
        let expected = PixelRect {
            x: min[0].floor() as u32,
            y: min[1].floor() as u32,
            width: max[0].ceil() as u32 - min[0].floor() as u32,
            height: max[1].ceil() as u32 - min[1].floor() as u32,
        };
        assert_eq!(projected_rect(view_proj, [lo, hi], vp, 0.0), Some(expected));
    }

    #[test]
    fn overlapping_rectangles_merge_and_distant_ones_stay_apart() {
        // Overlapping: the union (0..12 × 0..10 = 120) is less than 100 + 80.
        let mut r = vec![rect(0, 0, 10, 10), rect(4, 0, 8, 10)];
        merge(&mut r);
        assert_eq!(r, vec![rect(0, 0, 12, 10)]);
        // A thin pole beside a flag: the union would shade 400 × 300 for 100 × 300 + 200 × 50.
        let mut r = vec![
            rect(0, 0, 100, 300),
            rect(200, 0, 200, 50),
            rect(50, 10, 10, 10),
        ];
        merge(&mut r);
        r.sort_by_key(|r| r.x);
        assert_eq!(r, vec![rect(0, 0, 100, 300), rect(200, 0, 200, 50)]);
        assert_eq!(
            union(&rect(5, 6, 1, 1), &rect(0, 0, 2, 2)),
            rect(0, 0, 6, 7)
        );
        assert_eq!(
            union(&rect(5, 6, 1, 1), &rect(2, 3, 2, 2)),
            rect(2, 3, 4, 4)
        );
        assert_eq!(
            union(&rect(2, 3, 9, 1), &rect(4, 1, 1, 8)),
            rect(2, 1, 9, 8)
        );
        // Two 10 × 10 squares 10 apart: their union (30 × 10 = 300) shades more than they do
        // (200), so they stay apart.
        let mut r = vec![rect(0, 0, 10, 10), rect(20, 0, 10, 10)];
        merge(&mut r);
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn boxes_of_points() {
        let b = bounding_box([Vec3::new(1.0, -2.0, 3.0), Vec3::new(-1.0, 4.0, 0.0)]).unwrap();
        assert_eq!(b, [Vec3::new(-1.0, -2.0, 0.0), Vec3::new(1.0, 4.0, 3.0)]);
        assert_eq!(bounding_box([]), None);
        assert_eq!(bounding_box([Vec3::new(f32::NAN, 0.0, 0.0)]), None);
        // One end infinite is enough to refuse the box.
        let far = Vec3::new(f32::NEG_INFINITY, 0.0, 0.0);
        assert_eq!(bounding_box([far, Vec3::ONE]), None);
        assert_eq!(bounding_box([-far, Vec3::ONE]), None);
        assert_eq!(
            padded(b, 0.5),
            [Vec3::new(-1.5, -2.5, -0.5), Vec3::new(1.5, 4.5, 3.5)]
        );
    }

    /// The boxes of a frame with a pole, two spheres (one of radius 0, not drawn) and lines,
    /// by hand; with a cloth of unknown extent, none (anything may be an edge).
    #[test]
    fn a_frames_boxes_are_its_pole_spheres_and_lines() {
        use crate::render::{LineVertex, OrbitCamera, Pole, SceneFrame, Sphere};
        let spheres = [
            Sphere {
                center: Vec3::new(1.0, 2.0, 3.0),
                radius: 0.5,
            },
            Sphere {
                center: Vec3::splat(9.0),
                radius: 0.0,
            },
        ];
        let line = |p: [f32; 3]| LineVertex {
            position: p,
            color: [1.0; 4],
        };
        let lines = [line([0.0, 1.0, -1.0]), line([2.0, -1.0, 0.5])];
        let frame = FrameData {
            lines: &lines,
            scene: SceneFrame {
                pole: Some(Pole {
                    base: Vec3::new(0.0, 0.0, 0.0),
                    top: Vec3::new(0.0, 3.0, 0.0),
                    radius: 0.1,
                }),
                spheres: &spheres,
                ..SceneFrame::default()
            },
            ..FrameData::new(&OrbitCamera::default(), 1.0)
        };
        let mut boxes = Vec::new();
        assert_eq!(world_boxes(&frame, &mut boxes), Some(()));
        let near =
            |a: WorldBox, b: WorldBox| a[0].abs_diff_eq(b[0], 1e-6) && a[1].abs_diff_eq(b[1], 1e-6);
        let expected = [
            // The pole, reaching a spear's 6 radii past its top, grown by a ball's 1.6 radii.
            [Vec3::new(-0.16, -0.16, -0.16), Vec3::new(0.16, 3.76, 0.16)],
            [Vec3::new(0.5, 1.5, 2.5), Vec3::new(1.5, 2.5, 3.5)],
            [Vec3::new(0.0, -1.0, -1.0), Vec3::new(2.0, 1.0, 0.5)],
        ];
        assert_eq!(boxes.len(), expected.len(), "{boxes:?}");
        for (b, e) in boxes.iter().zip(expected) {
            assert!(near(*b, e), "{b:?} is not {e:?}");
        }
    }
}
