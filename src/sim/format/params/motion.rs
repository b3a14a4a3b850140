//! What moves the cloth from outside: a dragged handle and the flag's hoist on its pole.

use serde::{Deserialize, Serialize};

use super::spec;

/// Scripted motion of the pinned nodes (the pole).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HandlePath {
    /// Pinned nodes stay where they are (apart from the user's pole drag).
    #[default]
    None,
    /// A figure 8 (lemniscate of Gerono) in the plane across the wind: `z = A sin ωt`,
    /// `y = (A/2) sin 2ωt`, standing in for the paper's motion-captured character.
    Figure8,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Handle {
    /// [`spec::HANDLE_PATH`].
    pub path: HandlePath,
    /// Size of the path: [`spec::HANDLE_AMPLITUDE`].
    pub amplitude: f64,
    /// Time for one loop: [`spec::HANDLE_PERIOD`].
    pub period: f64,
}

impl Default for Handle {
    fn default() -> Self {
        Self {
            path: HandlePath::None,
            amplitude: spec::HANDLE_AMPLITUDE.default,
            period: spec::HANDLE_PERIOD.default,
        }
    }
}

/// Raising and lowering the flag: every pinned node moves down the pole (along −Y)
/// by `(1 − η) · travel`, where `η` is how far up the flag is now and `travel` how far its
/// lowest pinned node is above the ground. `η` starts at `height` and then follows it at
/// `speed`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Hoist {
    /// Where the flag is at the start and goes to: [`spec::HOIST_HEIGHT`].
    pub height: f64,
    /// [`spec::HOIST_SPEED`].
    pub speed: f64,
}

impl Hoist {
    /// `height` at the top of the pole.
    pub(crate) const TOP: f64 = 1.0;
    /// `height` at half-mast: the middle of the hoist at half the pole's height.
    pub(crate) const HALF_MAST: f64 = 0.5;
    /// `height` lowered to the ground.
    pub(crate) const BOTTOM: f64 = 0.0;
}

impl Default for Hoist {
    fn default() -> Self {
        Self {
            height: spec::HOIST_HEIGHT.default,
            speed: spec::HOIST_SPEED.default,
        }
    }
}
