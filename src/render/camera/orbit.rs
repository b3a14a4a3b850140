//! Orbit camera: a point the camera looks at, and yaw/pitch/distance around it.
//!
//! Conventions (the whole renderer uses them): world units are metres, right-handed, **Y up**.
//! Clip space is wgpu's: x and y in −1..1 with y up, depth in **0..1** (near → 0). Pixel
//! coordinates start at the top-left corner of the image, y down, in physical pixels; the centre
//! of pixel `(i, j)` is `(i + 0.5, j + 0.5)`.
//!
//! With `yaw = 0` and `pitch = 0` the camera sits on the +Z side of the target and looks along −Z;
//! positive yaw turns the camera position counter-clockwise seen from above (towards +X), positive
//! pitch lifts it.

use glam::{Mat4, Vec3, Vec4};

/// Highest |pitch| the camera accepts, just short of the poles where `look_at` degenerates.
pub(crate) const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;

/// An orbit camera. All angles in radians, lengths in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at and orbited around (m).
    pub target: Vec3,
    /// Rotation of the camera around the vertical axis through `target` (rad). Default 0.
    pub yaw: f32,
    /// Elevation of the camera above the horizontal plane through `target` (rad), clamped to
    /// ±[`MAX_PITCH`]. Default 0.2.
    pub pitch: f32,
    /// Distance from `target` to the eye (m), > 0. Default 4.
    pub distance: f32,
    /// Vertical field of view (rad), in (0, π). Default 45°.
    pub fov_y: f32,
    /// Near clip distance (m), > 0. [`OrbitCamera::frame_bounds`] sets it from the scene size.
    pub near: f32,
    /// Far clip distance (m), > `near`.
    pub far: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.2,
            distance: 4.0,
            fov_y: 45f32.to_radians(),
            near: 0.02,
            far: 400.0,
        }
    }
}

impl OrbitCamera {
    /// Unit vector from the target towards the eye.
    pub(crate) fn offset_direction(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Eye position (m).
    pub fn eye(&self) -> Vec3 {
        self.target + self.distance * self.offset_direction()
    }

    /// Unit viewing direction, from the eye towards the target.
    pub fn forward(&self) -> Vec3 {
        -self.offset_direction()
    }

    /// World → view transform (right-handed, the camera looks along −Z of view space).
    pub(crate) fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }

    /// View → clip transform for an image of `aspect = width / height`, depth 0..1.
    pub(crate) fn projection(&self, aspect: f32) -> Mat4 {
        Mat4::perspective_rh(self.fov_y, aspect.max(1e-6), self.near, self.far)
    }

    /// World → clip transform.
    pub(crate) fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Rotates the camera around the target by `d_yaw`, `d_pitch` (rad); pitch stays clamped.
    pub(crate) fn orbit(&mut self, d_yaw: f32, d_pitch: f32) {
        self.yaw = (self.yaw + d_yaw).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + d_pitch).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Multiplies the distance by `factor` (> 1 moves away), keeping the clip planes in
    /// proportion.
    pub(crate) fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance *= factor;
            self.near *= factor;
            self.far *= factor;
        }
    }

    /// Aims at the centre of the axis-aligned box `min..max` (m) and moves back until its
    /// bounding sphere fits the vertical field of view with a small margin; keeps yaw, pitch and
    /// fov. Assumes `width ≥ height` (for a portrait image widen the box). Near and far are set so
    /// the box and a large ground plane around it stay inside the depth range.
    pub(crate) fn frame_bounds(&mut self, min: Vec3, max: Vec3) {
        let (lo, hi) = (min.min(max), min.max(max));
        let radius = (0.5 * (hi - lo).length()).max(1e-3);
        self.target = 0.5 * (lo + hi);
        let half_fov = 0.5 * self.fov_y.clamp(1e-3, std::f32::consts::PI - 1e-3);
        self.distance = 1.1 * radius / half_fov.sin();
        self.near = (0.01 * self.distance).max(1e-4);
        self.far = 100.0 * (self.distance + radius);
    }

    /// The world-space ray through the image point `(px, py)` (physical pixels, top-left origin,
    /// y down) of a `width × height` image: `(origin, direction)` with `origin` the eye and
    /// `direction` a unit vector. Used for picking.
    pub fn ray_through_pixel(&self, px: f32, py: f32, width: f32, height: f32) -> (Vec3, Vec3) {
        let (w, h) = (width.max(1.0), height.max(1.0));
        let ndc_x = 2.0 * px / w - 1.0;
        let ndc_y = 1.0 - 2.0 * py / h;
        let inv = self.view_proj(w / h).inverse();
        let far = inv * Vec4::new(ndc_x, ndc_y, 1.0, 1.0);
        let far = far.truncate() / far.w;
        let eye = self.eye();
        (eye, (far - eye).normalize_or(self.forward()))
    }

    /// Pixel position (top-left origin, y down) of the world point `p`, or `None` when `p` is
    /// behind the eye.
    pub fn project_to_pixel(&self, p: Vec3, width: f32, height: f32) -> Option<(f32, f32)> {
        let clip = self.view_proj(width / height) * p.extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some((0.5 * (ndc.x + 1.0) * width, 0.5 * (1.0 - ndc.y) * height))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.7, 1.9, -0.2),
            yaw: 0.6,
            pitch: 0.35,
            distance: 3.5,
            ..OrbitCamera::default()
        }
    }

    #[test]
    fn ray_through_centre_goes_along_view_direction_to_target() {
        let cam = camera();
        let (origin, dir) = cam.ray_through_pixel(320.0, 200.0, 640.0, 400.0);
        assert!((origin - cam.eye()).length() < 1e-5);
        assert!(
            dir.dot(cam.forward()) > 1.0 - 1e-5,
            "dir {dir} forward {}",
            cam.forward()
        );
        let hit = origin + cam.distance * dir;
        assert!((hit - cam.target).length() < 1e-3, "hit {hit}");
    }

    #[test]
    fn target_projects_to_screen_centre() {
        let cam = camera();
        let (x, y) = cam.project_to_pixel(cam.target, 640.0, 400.0).unwrap();
        assert!(
            (x - 320.0).abs() < 1e-3 && (y - 200.0).abs() < 1e-3,
            "{x} {y}"
        );
        let clip = cam.view_proj(1.6) * cam.target.extend(1.0);
        let depth = clip.z / clip.w;
        assert!((0.0..1.0).contains(&depth), "depth {depth}");
    }

    #[test]
    fn ray_through_projected_point_passes_through_it() {
        let cam = camera();
        let p = Vec3::new(1.1, 2.3, 0.4);
        let (x, y) = cam.project_to_pixel(p, 640.0, 400.0).unwrap();
        let (o, d) = cam.ray_through_pixel(x, y, 640.0, 400.0);
        let closest = o + d * (p - o).dot(d);
        assert!(
            (closest - p).length() < 1e-3,
            "miss by {}",
            (closest - p).length()
        );
    }

    #[test]
    fn pixel_up_is_world_up_at_zero_pitch() {
        let cam = OrbitCamera {
            pitch: 0.0,
            ..camera()
        };
        let (_, y_low) = cam.project_to_pixel(cam.target, 640.0, 400.0).unwrap();
        let (_, y_high) = cam
            .project_to_pixel(cam.target + Vec3::Y * 0.1, 640.0, 400.0)
            .unwrap();
        assert!(y_high < y_low, "higher point must have a smaller pixel row");
    }

    #[test]
    fn framed_box_corners_are_all_on_screen() {
        let mut cam = camera();
        let (min, max) = (Vec3::new(-0.2, 0.0, -0.1), Vec3::new(1.5, 2.5, 0.3));
        cam.frame_bounds(min, max);
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            );
            let (x, y) = cam.project_to_pixel(c, 640.0, 400.0).unwrap();
            assert!(
                (0.0..=640.0).contains(&x) && (0.0..=400.0).contains(&y),
                "corner {c}"
            );
        }
    }
}
