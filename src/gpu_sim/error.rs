//! Everything that can go wrong on the GPU side of the simulation.

/// Everything that can go wrong on the GPU side of the simulation.
#[derive(Debug, thiserror::Error)]
pub enum GpuSimError {
    /// The device rejected a shader, pipeline, buffer or command.
    #[error("the GPU rejected {context}: {message}")]
    Validation {
        context: &'static str,
        message: String,
    },
    /// Reading a buffer back failed (the device was lost, or mapping failed).
    #[error("reading the GPU simulation's buffer back failed: {0}")]
    ReadBack(String),
    /// A scene the GPU step cannot take (yet): the reason, in words for the user.
    #[error("this scene cannot run on the GPU: {0}")]
    Unsupported(String),
    /// A cloth too large for the device's buffers.
    #[error("a cloth of {nodes} nodes and {springs} springs does not fit the GPU's buffers")]
    TooLarge { nodes: usize, springs: usize },
}
