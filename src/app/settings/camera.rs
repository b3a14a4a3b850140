//! The camera as remembered.

use crate::render::camera::orbit::{MAX_PITCH, OrbitCamera};
use serde::Serialize;

/// The camera as remembered: what the user moved. Field of view and clip planes come from the
/// scene's framing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CameraSettings {
    /// The point orbited, m; each coordinate finite, at most 10 000 from the origin.
    pub target: [f32; 3],
    /// rad, finite.
    pub yaw: f32,
    /// rad, within ±89°.
    pub pitch: f32,
    /// m, in (0, 10 000].
    pub distance: f32,
}

impl CameraSettings {
    pub(crate) fn of(camera: &OrbitCamera) -> Self {
        Self {
            target: camera.target.to_array(),
            yaw: camera.yaw,
            pitch: camera.pitch,
            distance: camera.distance,
        }
    }

    /// `framing` moved to where this camera was.
    pub(crate) fn applied_to(&self, framing: OrbitCamera) -> OrbitCamera {
        OrbitCamera {
            target: glam::Vec3::from_array(self.target),
            yaw: self.yaw,
            pitch: self.pitch,
            distance: self.distance,
            ..framing
        }
    }

    pub(super) fn check(&self) -> Result<(), String> {
        let ok = self.target.iter().all(|v| v.is_finite() && v.abs() <= 1e4)
            && self.yaw.is_finite()
            && self.pitch.abs() <= MAX_PITCH
            && self.distance > 0.0
            && self.distance <= 1e4;
        ok.then_some(())
            .ok_or_else(|| "not finite, or out of range".into())
    }
}
