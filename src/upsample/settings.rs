//! The user-facing settings of the wrinkled-spline upsampler (method.md §7).
//!
//! Pure data: the scene file (`"render"` section), the viewer's Detail panel and the command line
//! all fill this one struct, and both the CPU reference and the GPU pass read it.

use serde::{Deserialize, Serialize};

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

    pub fn name(self) -> &'static str {
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
    /// Render nodes along u and v, `[R_u, R_v]`. Range 2..=1024 each. Default `[50, 50]`.
    pub resolution: [u32; 2],
    /// Master switch for eq. 14; `false` shows the smooth spline even in `wrinkled` mode.
    /// Default `true`.
    pub wrinkles: bool,
    /// Wrinkle frequency constant `c` of eq. 14 (radians per unit relative compression).
    /// Range 0..=500. Default 60.
    pub wrinkle_c: f64,
    /// Display mode. Default `wrinkled`.
    pub mode: DisplayMode,
    /// Round the resolution to `(n - 1) s + 1` so every key node is a render node. Default `false`.
    pub key_aligned: bool,
    /// Average the row-first and the column-first results. Default `false`.
    pub symmetric: bool,
    /// Round `f` to a multiple of π so a wrinkle meets the next segment smoothly. Default `false`.
    pub c1_seam: bool,
}

impl Default for RenderSettings {
    fn default() -> Self {
        Self {
            resolution: [50, 50],
            wrinkles: true,
            wrinkle_c: 60.0,
            mode: DisplayMode::Wrinkled,
            key_aligned: false,
            symmetric: false,
            c1_seam: false,
        }
    }
}

/// Largest render resolution per axis accepted from a scene or the UI.
pub const MAX_RESOLUTION: u32 = 1024;

impl RenderSettings {
    /// Checks ranges; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        for (axis, r) in ["u", "v"].iter().zip(self.resolution) {
            if !(2..=MAX_RESOLUTION).contains(&r) {
                return Err(format!(
                    "render.resolution ({axis}): must be between 2 and {MAX_RESOLUTION}, got {r}"
                ));
            }
        }
        if !self.wrinkle_c.is_finite() || !(0.0..=500.0).contains(&self.wrinkle_c) {
            return Err(format!(
                "render.wrinkle_c: must be a finite number between 0 and 500, got {}",
                self.wrinkle_c
            ));
        }
        Ok(())
    }

    /// The mode actually drawn: `wrinkles = false` turns `wrinkled` into `smooth`.
    pub fn effective_mode(&self) -> DisplayMode {
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
