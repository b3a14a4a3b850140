//! The user-facing settings of the wrinkled-spline upsampler (docs/method.md §7).
//!
//! Pure data: the scene file (`"render"` section), the viewer's Detail panel and the command line
//! all fill this one struct, and both the CPU reference and the GPU pass read it.

use serde::{Deserialize, Serialize};

use crate::sim::format::error::SimError;
use crate::sim::format::params::spec;
use crate::sim::format::setting::Setting;

/// What the render mesh shows (paper Fig. 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DisplayMode {
    /// The simulated key mesh itself, bilinear between key nodes (Fig. 9a).
    KeyOnly,
    /// Catmull-Rom splines without wrinkles (Fig. 9b).
    Smooth,
    /// Wrinkled cubic splines, eq. 14 (Fig. 9c). The default.
    #[default]
    Wrinkled,
}

impl DisplayMode {
    pub const ALL: [DisplayMode; 3] = [
        DisplayMode::KeyOnly,
        DisplayMode::Smooth,
        DisplayMode::Wrinkled,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            DisplayMode::KeyOnly => "key-only",
            DisplayMode::Smooth => "smooth",
            DisplayMode::Wrinkled => "wrinkled",
        }
    }
}

/// Upsampling settings. Every field has a default, so a scene may omit any of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderSettings {
    /// Render nodes along u and v, `[R_u, R_v]`: [`spec::RESOLUTION`] each.
    pub resolution: [u32; 2],
    /// Master switch for eq. 14: [`spec::WRINKLES`].
    pub wrinkles: bool,
    /// Wrinkle frequency constant `c` of eq. 14 (radians per unit relative compression):
    /// [`spec::WRINKLE_C`].
    pub wrinkle_c: f64,
    /// Display mode: [`spec::DISPLAY_MODE`].
    pub mode: DisplayMode,
    /// Round the resolution to `(n - 1) s + 1`: [`spec::KEY_ALIGNED`].
    pub key_aligned: bool,
    /// Average the row-first and the column-first results: [`spec::SYMMETRIC`].
    pub symmetric: bool,
    /// Round `f` to a multiple of π: [`spec::C1_SEAM`].
    pub c1_seam: bool,
    /// The flag's image: a PNG, JPEG or WebP file (relative to the scene file in a scene);
    /// `None` (the default) draws the built-in flag. Not used by the upsampler: it travels here
    /// because the scene's `"render"` section is this struct.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<std::path::PathBuf>,
    /// What surrounds the flag: sky, background image, ground, pole colour and finial. Not used
    /// by the upsampler either; left out of a saved scene while it is the default.
    #[serde(skip_serializing_if = "Setting::is_default")]
    pub setting: Setting,
}

impl Default for RenderSettings {
    fn default() -> Self {
        Self {
            resolution: [spec::RESOLUTION.default; 2],
            wrinkles: spec::WRINKLES.default,
            wrinkle_c: spec::WRINKLE_C.default,
            mode: DisplayMode::Wrinkled,
            key_aligned: spec::KEY_ALIGNED.default,
            symmetric: spec::SYMMETRIC.default,
            c1_seam: spec::C1_SEAM.default,
            texture: None,
            setting: Setting::default(),
        }
    }
}

/// Largest render resolution per axis accepted from a scene or the UI.
pub(crate) const MAX_RESOLUTION: u32 = spec::RESOLUTION.max;

impl RenderSettings {
    /// Checks ranges; the failure names the field.
    pub(crate) fn validate(&self) -> Result<(), SimError> {
        for (axis, r) in ["u", "v"].iter().zip(self.resolution) {
            spec::RESOLUTION.check(r).map_err(|e| match e {
                SimError::CountOutOfRange {
                    field,
                    value,
                    min,
                    max,
                } => SimError::CountOutOfRange {
                    field: format!("{field} ({axis})"),
                    value,
                    min,
                    max,
                },
                other => other,
            })?;
        }
        spec::WRINKLE_C.check(self.wrinkle_c)
    }

    /// The mode actually drawn: `wrinkles = false` turns `wrinkled` into `smooth`.
    pub(crate) fn effective_mode(&self) -> DisplayMode {
        match self.mode {
            DisplayMode::Wrinkled if !self.wrinkles => DisplayMode::Smooth,
            m => m,
        }
    }

    /// The render resolution actually used for a key grid of `nx × ny` nodes. With `key_aligned`
    /// each axis becomes the smallest `(n - 1) s + 1 ≥ requested` (so every key node is a render
    /// node), capped at [`MAX_RESOLUTION`].
    pub fn effective_resolution(&self, nx: usize, ny: usize) -> [u32; 2] {
        if !self.key_aligned {
            return self.resolution;
        }
        let align = |n: usize, r: u32| -> u32 {
            let seg = (n.max(2) - 1) as u32;
            let s = (r.saturating_sub(1)).div_ceil(seg).max(1);
            let aligned = seg * s + 1;
            if aligned > MAX_RESOLUTION {
                seg * ((MAX_RESOLUTION - 1) / seg).max(1) + 1
            } else {
                aligned
            }
        };
        [align(nx, self.resolution[0]), align(ny, self.resolution[1])]
    }
}
