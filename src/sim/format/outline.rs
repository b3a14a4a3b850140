//! Flag shapes: which part of a grid cloth's rectangle is cloth.
//!
//! Coordinates: `u` runs along the width from the hoist (0) to the fly (1), `v` along the
//! height from the bottom (0) to the top (1); a grid's node `(i, j)` sits at
//! `(i / (nx − 1), j / (ny − 1))`. The simulation keeps the nodes of every cell the shape
//! covers part of, and the springs that run through the shape (`Scene::build_cloth`); the
//! renderer draws the surface only where [`FlagShape::inside`] holds, so the outline is as
//! smooth as the pixels, whatever the key grid (`shaders/cloth.wgsl`, `outline_inside`, its twin).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::sim::format::error::SimError;

/// The deepest and shallowest notch, as a share of the width.
pub(crate) const NOTCH_RANGE: std::ops::RangeInclusive<f64> = 0.05..=0.9;
/// A swallowtail's notch when the scene does not say: a third of the width.
pub(crate) const SWALLOWTAIL_NOTCH: f64 = 1.0 / 3.0;
/// A burgee's notch when the scene does not say: a quarter of the width.
pub(crate) const BURGEE_NOTCH: f64 = 0.25;
/// A burgee's fly is this share of its hoist (it tapers in a straight line).
pub(crate) const BURGEE_FLY: f64 = 0.4;

/// A flag's outline.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum FlagShape {
    /// The whole rectangle. The default.
    #[default]
    Rectangle,
    /// A rectangle with a triangle cut from the fly: from the fly's two corners to a point
    /// `notch` of the width in from the fly, halfway up. The two tails end in points.
    Swallowtail { notch: f64 },
    /// A triangle: the whole hoist tapering to a point in the middle of the fly.
    Pennant,
    /// A swallow-tailed pennant: tapering from the whole hoist to a fly [`BURGEE_FLY`] as
    /// high, with a notch `notch` of the width deep from the fly's corners.
    Burgee { notch: f64 },
    /// The flag image's own outline: cloth where the image is at least half opaque
    /// ([`AlphaMask`]); the whole rectangle for an opaque image or the built-in flag.
    Image,
}

/// Where a flag image is opaque enough to be cloth (alpha ≥ ½), pixel by pixel, rows from the
/// image's top (the flag's top edge, `v = 1`) down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlphaMask {
    width: usize,
    height: usize,
    opaque: Vec<bool>,
}

impl AlphaMask {
    /// The mask of a `width × height` image from its alpha values, top row first; `None` for
    /// an empty image or the wrong number of values.
    pub(crate) fn from_alpha(width: usize, height: usize, alpha: &[u8]) -> Option<Self> {
        (width > 0 && height > 0 && alpha.len() == width * height).then(|| Self {
            width,
            height,
            opaque: alpha.iter().map(|&a| a >= 128).collect(),
        })
    }

    /// Whether the pixel at flag point `(u, v)` is opaque (outside `0..=1`: the nearest edge).
    pub(crate) fn opaque_at(&self, u: f64, v: f64) -> bool {
        let at = |t: f64, n: usize| ((t * n as f64).floor().max(0.0) as usize).min(n - 1);
        self.opaque[at(1.0 - v, self.height) * self.width + at(u, self.width)]
    }
}

/// A shape with the mask its image shape reads (`None`: the image is opaque or not known, and
/// [`FlagShape::Image`] is the rectangle).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Outline<'a> {
    pub shape: FlagShape,
    pub mask: Option<&'a AlphaMask>,
}

impl Outline<'_> {
    /// [`FlagShape::inside`], the image's transparency included.
    pub(crate) fn inside(self, u: f64, v: f64) -> bool {
        match (self.shape, self.mask) {
            (FlagShape::Image, Some(mask)) => mask.opaque_at(u, v),
            (shape, _) => shape.inside(u, v),
        }
    }

    /// Where no spring may pass: a notch, or a transparent part of the image.
    pub(crate) fn in_gap(self, u: f64, v: f64) -> bool {
        match self.shape {
            FlagShape::Image => !self.inside(u, v),
            shape => shape.in_notch(u, v),
        }
    }

    /// [`FlagShape::covers_cell`] with this outline.
    pub(crate) fn covers_cell(self, [u0, u1]: [f64; 2], [v0, v1]: [f64; 2]) -> bool {
        const N: usize = 16;
        (0..N).any(|a| {
            let u = u0 + (u1 - u0) * (a as f64 + 0.5) / N as f64;
            (0..N).any(|b| self.inside(u, v0 + (v1 - v0) * (b as f64 + 0.5) / N as f64))
        })
    }

    /// Whether one of 31 points strictly between `a` and `b` is inside (a gap on the way does
    /// not matter): how a spring from a pinned node is kept, tying the cloth to its pole across
    /// a transparent corner of the image.
    pub(crate) fn reaches_segment(self, a: [f64; 2], b: [f64; 2]) -> bool {
        (1..32).any(|k| {
            let t = f64::from(k) / 32.0;
            self.inside(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        })
    }

    /// [`FlagShape::covers_segment`] with this outline.
    pub(crate) fn covers_segment(self, a: [f64; 2], b: [f64; 2]) -> bool {
        let points = (1..32).map(|k| {
            let t = f64::from(k) / 32.0;
            (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        });
        points.clone().any(|(u, v)| self.inside(u, v))
            && !points.into_iter().any(|(u, v)| self.in_gap(u, v))
    }
}

impl FlagShape {
    /// Whether a spring from `a` to `b` belongs to the cloth: one of 31 points strictly
    /// between its ends is inside the shape and none is in its notch ([`FlagShape::in_notch`]).
    /// A spring wholly outside a pennant does not, nor one that crosses a notch, even near its
    /// point. (31 points tell every spring of a 10 × 10 grid apart as a dense test does.)
    #[cfg(test)]
    pub(crate) fn covers_segment(self, a: [f64; 2], b: [f64; 2]) -> bool {
        Outline {
            shape: self,
            mask: None,
        }
        .covers_segment(a, b)
    }

    /// Whether the shape covers part of the cell `[u0, u1] × [v0, v1]` (16 × 16 points inside
    /// it are tried, none on its edges).
    #[cfg(test)]
    pub(crate) fn covers_cell(self, u: [f64; 2], v: [f64; 2]) -> bool {
        Outline {
            shape: self,
            mask: None,
        }
        .covers_cell(u, v)
    }

    /// Every shape with its default notch, in the order the panel lists them.
    pub const ALL: [Self; 5] = [
        Self::Rectangle,
        Self::Swallowtail {
            notch: SWALLOWTAIL_NOTCH,
        },
        Self::Pennant,
        Self::Burgee {
            notch: BURGEE_NOTCH,
        },
        Self::Image,
    ];

    /// The name in a scene file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rectangle => "rectangle",
            Self::Swallowtail { .. } => "swallowtail",
            Self::Pennant => "pennant",
            Self::Burgee { .. } => "burgee",
            Self::Image => "image",
        }
    }

    /// Its notch's depth, a share of the width (`None` for shapes without one).
    pub(crate) fn notch(self) -> Option<f64> {
        match self {
            Self::Swallowtail { notch } | Self::Burgee { notch } => Some(notch),
            Self::Rectangle | Self::Pennant | Self::Image => None,
        }
    }

    /// The same shape with another notch (shapes without one stay as they are).
    #[must_use]
    pub(crate) fn with_notch(self, depth: f64) -> Self {
        match self {
            Self::Swallowtail { .. } => Self::Swallowtail { notch: depth },
            Self::Burgee { .. } => Self::Burgee { notch: depth },
            other => other,
        }
    }

    /// Whether `(u, v)` is cloth (the edges count as cloth). The image shape without its
    /// mask is the rectangle: [`Outline::inside`] reads the mask.
    pub fn inside(self, u: f64, v: f64) -> bool {
        let off = (v - 0.5).abs();
        match self {
            Self::Rectangle | Self::Image => true,
            Self::Swallowtail { notch } => !in_notch(u, off, notch, 0.5),
            Self::Pennant => off <= 0.5 * (1.0 - u),
            Self::Burgee { notch } => {
                off <= 0.5 * (1.0 - (1.0 - BURGEE_FLY) * u)
                    && !in_notch(u, off, notch, 0.5 * BURGEE_FLY)
            }
        }
    }

    /// Whether `(u, v)` is in the shape's notch (the triangle cut from a swallowtail's or a
    /// burgee's fly), where no spring may pass.
    pub(crate) fn in_notch(self, u: f64, v: f64) -> bool {
        let off = (v - 0.5).abs();
        match self {
            Self::Swallowtail { notch } => in_notch(u, off, notch, 0.5),
            Self::Burgee { notch } => in_notch(u, off, notch, 0.5 * BURGEE_FLY),
            Self::Rectangle | Self::Pennant | Self::Image => false,
        }
    }

    /// The shape's numbers for the cloth shader: its kind (0 rectangle, 1 swallowtail,
    /// 2 pennant, 3 burgee, 4 the image's alpha) and its notch.
    pub(crate) fn gpu(self) -> (u32, f32) {
        match self {
            Self::Rectangle => (0, 0.0),
            Self::Swallowtail { notch } => (1, notch as f32),
            Self::Pennant => (2, 0.0),
            Self::Burgee { notch } => (3, notch as f32),
            Self::Image => (4, 0.0),
        }
    }

    /// The failure, naming the field, when the notch is outside [`NOTCH_RANGE`] (or not a
    /// number).
    pub(crate) fn check(self) -> Result<(), SimError> {
        match self.notch() {
            Some(n) if !(n.is_finite() && NOTCH_RANGE.contains(&n)) => Err(SimError::BadNumber {
                field: format!("cloth.grid.shape.{}.notch", self.name()),
                expected: "a depth from 0.05 to 0.9 of the width",
                value: n,
            }),
            _ => Ok(()),
        }
    }
}

/// Whether a point `u` along the width and `off` from the middle line is in the notch cut
/// `depth` deep, `half` high at the fly.
fn in_notch(u: f64, off: f64, depth: f64, half: f64) -> bool {
    let into = u - (1.0 - depth);
    into > 0.0 && off < half * into / depth
}

impl Serialize for FlagShape {
    /// `"rectangle"`, `"pennant"`, or `{"swallowtail": {"notch": d}}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.notch() {
            None => serializer.serialize_str(self.name()),
            Some(notch) => {
                #[derive(Serialize)]
                struct Notch {
                    notch: f64,
                }
                let mut map = std::collections::BTreeMap::new();
                map.insert(self.name(), Notch { notch });
                map.serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for FlagShape {
    /// A name (`"swallowtail"` takes its default notch) or `{"swallowtail": {"notch": d}}`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let names = || {
            FlagShape::ALL
                .iter()
                .map(|s| format!("`{}`", s.name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let by_name = |name: &str| {
            FlagShape::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .ok_or_else(|| {
                    D::Error::custom(format!(
                        "unknown shape `{name}`, expected one of {}",
                        names()
                    ))
                })
        };
        let value = serde_json::Value::deserialize(deserializer)?;
        let shape = match &value {
            serde_json::Value::String(name) => by_name(name)?,
            serde_json::Value::Object(map) if map.len() == 1 => {
                let (name, fields) = map.iter().next().expect("one entry");
                let shape = by_name(name)?;
                let serde_json::Value::Object(fields) = fields else {
                    return Err(D::Error::custom(format!(
                        "`{name}` takes {{\"notch\": depth}}, got {fields}"
                    )));
                };
                let mut notch = shape.notch();
                for (field, v) in fields {
                    match (field.as_str(), notch) {
                        ("notch", Some(_)) => {
                            notch = Some(v.as_f64().ok_or_else(|| {
                                D::Error::custom(format!("notch: a number, got {v}"))
                            })?);
                        }
                        _ => {
                            return Err(D::Error::custom(format!(
                                "unknown field `{field}` of `{name}`{}",
                                if notch.is_some() {
                                    ", expected `notch`"
                                } else {
                                    ": it takes none"
                                }
                            )));
                        }
                    }
                }
                notch.map_or(shape, |n| shape.with_notch(n))
            }
            other => {
                return Err(D::Error::custom(format!(
                    "a shape is one of {} or {{\"swallowtail\": {{\"notch\": depth}}}}, got {other}",
                    names()
                )));
            }
        };
        // Serde's path names the field already (`cloth.grid.shape`, `flags[1].shape`).
        shape
            .check()
            .map_err(|e| D::Error::custom(e.with_field_prefix("cloth.grid.shape.", "")))?;
        Ok(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shape_holds_the_points_its_drawing_says() {
        let tail = FlagShape::Swallowtail { notch: 0.3 };
        // The notch: from (1, 0) and (1, 1) to (0.7, 0.5).
        assert!(tail.inside(0.69, 0.5) && !tail.inside(0.71, 0.5));
        assert!(!tail.inside(0.99, 0.5) && tail.inside(0.99, 0.005) && tail.inside(0.99, 0.995));
        assert!(
            !tail.inside(0.99, 0.02),
            "the tails narrow to points at the fly"
        );
        // Halfway into the notch its edge is a quarter of the height from the middle.
        assert!(tail.inside(0.85, 0.24) && !tail.inside(0.85, 0.26));
        let pennant = FlagShape::Pennant;
        assert!(pennant.inside(0.0, 0.0) && pennant.inside(0.0, 1.0) && pennant.inside(1.0, 0.5));
        assert!(pennant.inside(0.5, 0.26) && !pennant.inside(0.5, 0.24));
        let burgee = FlagShape::Burgee { notch: 0.25 };
        // Tapering to 0.4 of the hoist: at the fly's corners, 0.3 and 0.7, the tails' points.
        assert!(burgee.inside(0.0, 0.01) && !burgee.inside(0.5, 0.1) && burgee.inside(0.5, 0.2));
        assert!(burgee.inside(1.0, 0.3) && !burgee.inside(1.0, 0.29) && !burgee.inside(1.0, 0.5));
        assert!(burgee.inside(0.74, 0.5) && !burgee.inside(0.8, 0.5));
        assert!(FlagShape::Rectangle.inside(1.0, 0.0));
    }

    #[test]
    fn cells_and_springs_are_covered_when_the_shape_reaches_into_them() {
        let pennant = FlagShape::Pennant;
        // A cell the pennant's edge crosses, and one wholly outside.
        assert!(pennant.covers_cell([0.5, 0.6], [0.2, 0.3]));
        assert!(!pennant.covers_cell([0.8, 0.9], [0.0, 0.1]));
        let tail = FlagShape::Swallowtail { notch: 0.3 };
        // A spring across the notch, and one along a tail.
        assert!(!tail.covers_segment([0.9, 0.4], [0.9, 0.6]));
        assert!(tail.covers_segment([0.9, 0.0], [0.9, 0.1]));
    }

    #[test]
    fn a_mask_reads_the_image_top_row_first_and_refuses_what_does_not_fit() {
        // 2 × 2, top row first: opaque, clear / clear, opaque; 128 is opaque, 127 is not.
        let mask = AlphaMask::from_alpha(2, 2, &[128, 127, 0, 255]).unwrap();
        assert!(mask.opaque_at(0.25, 0.75), "top left");
        assert!(!mask.opaque_at(0.75, 0.75), "top right");
        assert!(!mask.opaque_at(0.25, 0.25), "bottom left");
        assert!(mask.opaque_at(0.75, 0.25), "bottom right");
        // Outside 0..=1: the nearest edge pixel.
        assert!(mask.opaque_at(-1.0, 2.0) && mask.opaque_at(2.0, -1.0));
        assert!(!mask.opaque_at(2.0, 2.0) && !mask.opaque_at(-1.0, -1.0));
        assert!(
            mask.opaque_at(1.0, 0.0),
            "u = 1 is the last column, v = 0 the last row"
        );
        for (w, h, n) in [(0, 2, 0), (2, 0, 0), (0, 0, 0), (2, 2, 3), (2, 2, 5)] {
            assert_eq!(
                AlphaMask::from_alpha(w, h, &vec![255; n]),
                None,
                "{w} × {h}, {n}"
            );
        }
        assert!(AlphaMask::from_alpha(3, 1, &[255; 3]).is_some());
        // The image shape reads it; the others do not.
        let image = Outline {
            shape: FlagShape::Image,
            mask: Some(&mask),
        };
        assert!(image.inside(0.25, 0.75) && !image.inside(0.75, 0.75));
        assert!(image.in_gap(0.75, 0.75) && !image.in_gap(0.25, 0.75));
        let plain = Outline {
            shape: FlagShape::Rectangle,
            mask: Some(&mask),
        };
        assert!(plain.inside(0.75, 0.75) && !plain.in_gap(0.75, 0.75));
        assert!(
            FlagShape::Image.inside(0.75, 0.75),
            "without its mask: the rectangle"
        );
    }

    fn read(json: &str) -> serde_json::Result<FlagShape> {
        serde_json::from_str(json)
    }

    #[test]
    fn shapes_are_read_by_name_or_with_their_notch_and_written_back() {
        assert_eq!(read(r#""pennant""#).unwrap(), FlagShape::Pennant);
        assert_eq!(
            read(r#""swallowtail""#).unwrap(),
            FlagShape::Swallowtail {
                notch: SWALLOWTAIL_NOTCH
            }
        );
        let burgee = read(r#"{"burgee": {"notch": 0.5}}"#).unwrap();
        assert_eq!(burgee, FlagShape::Burgee { notch: 0.5 });
        for shape in [burgee, FlagShape::Rectangle, FlagShape::Pennant] {
            let json = serde_json::to_string(&shape).unwrap();
            assert_eq!(read(&json).unwrap(), shape, "{json}");
        }
        for (json, says) in [
            (r#""hexagon""#, "unknown shape `hexagon`"),
            (r#"{"swallowtail": {"notch": 0.95}}"#, "0.05 to 0.9"),
            (r#"{"swallowtail": {"notch": 0.01}}"#, "got 0.01"),
            (
                r#"{"swallowtail": {"depth": 0.3}}"#,
                "unknown field `depth`",
            ),
            (r#"{"pennant": {"notch": 0.3}}"#, "it takes none"),
            (r#"{"swallowtail": {"notch": "deep"}}"#, "a number"),
            ("3", "a shape is one of"),
        ] {
            let e = read(json).unwrap_err().to_string();
            assert!(e.contains(says), "{json}: {e}");
        }
    }
}
