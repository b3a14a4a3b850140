//! GPU side: device, passes, camera, capture.

pub mod camera;
