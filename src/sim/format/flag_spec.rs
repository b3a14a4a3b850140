//! One entry of a scene's `flags` ([`crate::sim::runtime::flags`]): what a flag changes of the scene's own
//! flag, and its checks. Plain data, below `scene` (which holds the list) and `flags` (which
//! makes each flag's scene from it).

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::sim::format::error::SimError;
use crate::sim::format::outline::{AlphaMask, FlagShape};
use crate::sim::format::params::{Hoist, spec};
use crate::sim::format::setting::{Color, Finial};

/// One flag of a scene's `flags`. Every field may be left out (the scene's own flag's value,
/// or for the pole, the next place along the row).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlagSpec {
    /// Shown in the viewer's list of flags; default `flag N`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The flag's image (PNG, JPEG or WebP, relative to the scene file); default the scene's
    /// `render.texture` (or the built-in flag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<PathBuf>,
    /// `[width, height]`, m, each in (0, 1e4]; default the scene's grid's (fitted to the
    /// image's proportions as the scene's own flag is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<[f64; 2]>,
    /// The outline ([`FlagShape`]); default the scene's grid's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<FlagShape>,
    #[serde(skip_serializing_if = "PoleSpec::is_default")]
    pub pole: PoleSpec,
    /// Where on its pole the flag is and how fast it moves there; default the scene's
    /// `params.hoist`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hoist: Option<Hoist>,
    /// The image's transparency, for the image shape (not a field: set with the image).
    #[serde(skip)]
    pub alpha: Option<Arc<AlphaMask>>,
}

/// A flag's pole. Every field may be left out.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoleSpec {
    /// Its foot, m (finite, within ±1e6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 3]>,
    /// From the foot to the top of the flag's hoist edge, m, in (0, 1e3].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Default the scene's `render.setting.pole_color`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// Default the scene's `render.setting.finial`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finial: Option<Finial>,
    /// Default the scene's `render.setting.finial_color`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finial_color: Option<Color>,
}

impl PoleSpec {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// The tallest pole, m.
pub(crate) const MAX_POLE_HEIGHT: f64 = 1e3;

impl FlagSpec {
    /// The name shown for flag `index` (0 is the first).
    pub fn label(&self, index: usize) -> String {
        if self.name.trim().is_empty() {
            format!("flag {}", index + 1)
        } else {
            self.name.clone()
        }
    }

    /// Checks what this entry writes, naming each field `flags[index].…`.
    pub(crate) fn validate(&self, index: usize) -> Result<(), SimError> {
        let field = |f: &str| format!("flags[{index}].{f}");
        if let Some(size) = self.size {
            for (f, v) in ["size[0]", "size[1]"].iter().zip(size) {
                if !(v.is_finite() && v > 0.0 && v <= 1e4) {
                    return Err(SimError::BadNumber {
                        field: field(f),
                        expected: "a finite length in (0, 1e4] m",
                        value: v,
                    });
                }
            }
        }
        if let Some(shape) = self.shape {
            shape
                .check()
                .map_err(|e| e.with_field_prefix("cloth.grid.shape", &field("shape")))?;
        }
        if let Some(p) = self.pole.position
            && !p.iter().all(|x| x.is_finite() && x.abs() <= 1e6)
        {
            return Err(SimError::NotFinite3 {
                field: field("pole.position"),
                value: p,
            });
        }
        if let Some(h) = self.pole.height
            && !(h.is_finite() && h > 0.0 && h <= MAX_POLE_HEIGHT)
        {
            return Err(SimError::BadNumber {
                field: field("pole.height"),
                expected: "a finite length in (0, 1e3] m",
                value: h,
            });
        }
        if let Some(hoist) = self.hoist {
            spec::HOIST_HEIGHT
                .check(hoist.height)
                .and_then(|()| spec::HOIST_SPEED.check(hoist.speed))
                .map_err(|e| e.with_field_prefix("params.hoist", &field("hoist")))?;
        }
        Ok(())
    }
}
