//! GPU side: device, passes, camera, capture.
