//! What can go wrong on the command line, and the exit code each means.

/// Exit code for bad input (unknown preset, unreadable file, invalid scene or value).
pub(crate) const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for a failure while running (a write, the GPU, the window).
pub(crate) const EXIT_FAILURE: i32 = 1;

/// What can go wrong on the command line; each is reported once, as one message.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user's input: an unknown preset, an unreadable or invalid scene, a bad value.
    #[error("{0}")]
    BadInput(String),
    /// An output could not be written (a full disk, a missing folder, a closed terminal).
    #[error("{what}: cannot write: {source}")]
    Write {
        what: String,
        source: std::io::Error,
    },
    /// The GPU, the window or the renderer failed while running.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    /// 2 for bad input, 1 for a failure while running.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::BadInput(_) => EXIT_BAD_INPUT,
            CliError::Write { .. } | CliError::Failed(_) => EXIT_FAILURE,
        }
    }

    pub(super) fn write(what: impl std::fmt::Display, source: std::io::Error) -> Self {
        CliError::Write {
            what: what.to_string(),
            source,
        }
    }
}

/// The command line's result.
pub(crate) type Result<T, E = CliError> = std::result::Result<T, E>;

pub(super) fn failed(e: impl std::fmt::Display) -> CliError {
    CliError::Failed(e.to_string())
}
