//! The setting around the flag: the sky, a background image, the ground, the pole's colour and
//! its finial. Pure data, kept in a scene's `render.setting`; the renderer turns it
//! into what it draws (`render::passes::scene_pass::SceneStyle::from_setting`), the viewer's *Setting*
//! panel edits it, and a saved scene writes it back.
//!
//! Colours are sRGB with each channel in `0..=1`; a scene file writes one as `"#rrggbb"` (or
//! `"#rgb"`) or as `[r, g, b]`.

use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::sim::format::params::spec;

/// An sRGB colour, each channel in `0..=1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Color(pub [f32; 3]);

/// What is wrong with a colour in a scene file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ColorError {
    #[error("a colour is \"#rrggbb\" or [r, g, b] with each in 0–1; \"{0}\" is not a hex colour")]
    NotHex(String),
    #[error("a colour is \"#rrggbb\" or [r, g, b] with each in 0–1; got {0}")]
    Form(String),
    #[error("a colour is \"#rrggbb\" or [r, g, b] with each in 0–1; {0} is outside 0–1")]
    OutOfRange(f64),
}

impl Color {
    /// `#rrggbb`.
    pub fn from_rgb8([r, g, b]: [u8; 3]) -> Self {
        Self([r, g, b].map(|c| f32::from(c) / 255.0))
    }

    /// The colour as 8-bit sRGB, rounded.
    pub(crate) fn to_rgb8(self) -> [u8; 3] {
        self.0.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
    }

    /// `"#rrggbb"`.
    pub(crate) fn hex(self) -> String {
        let [r, g, b] = self.to_rgb8();
        format!("#{r:02x}{g:02x}{b:02x}")
    }

    /// Whether `"#rrggbb"` writes this colour exactly (each channel a whole number of 255ths).
    fn is_rgb8(self) -> bool {
        self.0.iter().all(|c| {
            let k = c * 255.0;
            (k - k.round()).abs() < 1e-3
        })
    }

    /// A colour from a scene file: `"#rrggbb"`, `"#rgb"` or `[r, g, b]` with each in `0..=1`.
    /// The error says what was wrong with `value`.
    pub(crate) fn from_json(value: &serde_json::Value) -> Result<Self, ColorError> {
        match value {
            serde_json::Value::String(text) => {
                Self::parse_hex(text).ok_or_else(|| ColorError::NotHex(text.clone()))
            }
            serde_json::Value::Array(items) => {
                let numbers: Vec<f64> =
                    items.iter().filter_map(serde_json::Value::as_f64).collect();
                if items.len() != 3 || numbers.len() != 3 {
                    return Err(ColorError::Form(value.to_string()));
                }
                if let Some(&bad) = numbers.iter().find(|c| !(0.0..=1.0).contains(*c)) {
                    return Err(ColorError::OutOfRange(bad));
                }
                Ok(Self([numbers[0], numbers[1], numbers[2]].map(|c| c as f32)))
            }
            other => Err(ColorError::Form(other.to_string())),
        }
    }

    /// `#rrggbb` or `#rgb` (either case).
    pub(crate) fn parse_hex(text: &str) -> Option<Self> {
        let digits = text.trim().strip_prefix('#')?;
        if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |s: &str| u8::from_str_radix(s, 16).ok();
        let rgb = match digits.len() {
            6 => [
                channel(&digits[0..2])?,
                channel(&digits[2..4])?,
                channel(&digits[4..6])?,
            ],
            3 => {
                let short = |i: usize| channel(&digits[i..=i]).map(|c| c * 17);
                [short(0)?, short(1)?, short(2)?]
            }
            _ => return None,
        };
        Some(Self::from_rgb8(rgb))
    }
}

impl Serialize for Color {
    /// `"#rrggbb"` when that is exact, else `[r, g, b]`: a saved scene gives back its colours.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.is_rgb8() {
            serializer.serialize_str(&self.hex())
        } else {
            self.0.serialize(serializer)
        }
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Self::from_json(&value).map_err(serde::de::Error::custom)
    }
}

/// The sky: a gradient from the horizon up to the zenith; one colour when both are the same.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sky {
    pub zenith: Color,
    pub horizon: Color,
}

impl Default for Sky {
    fn default() -> Self {
        Self {
            zenith: Color::from_rgb8([0x5c, 0x8f, 0xd6]),
            horizon: Color::from_rgb8([0xcc, 0xde, 0xed]),
        }
    }
}

impl Sky {
    /// One colour all over.
    pub fn plain(color: Color) -> Self {
        Self {
            zenith: color,
            horizon: color,
        }
    }

    /// Whether it is one colour.
    pub(crate) fn is_plain(&self) -> bool {
        self.zenith == self.horizon
    }
}

impl Serialize for Sky {
    /// One colour when plain, else `{"zenith": …, "horizon": …}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.is_plain() {
            return self.zenith.serialize(serializer);
        }
        #[derive(Serialize)]
        struct Gradient {
            zenith: Color,
            horizon: Color,
        }
        Gradient {
            zenith: self.zenith,
            horizon: self.horizon,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Sky {
    /// A colour (the whole sky), or `{"zenith": colour, "horizon": colour}` (either may be
    /// left out: it keeps the default sky's).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(deserializer)?;
        let serde_json::Value::Object(fields) = &value else {
            return Color::from_json(&value).map(Self::plain).map_err(|e| {
                D::Error::custom(format!(
                    "{e} (or a gradient {{\"zenith\": colour, \"horizon\": colour}})"
                ))
            });
        };
        let mut sky = Self::default();
        for (name, v) in fields {
            let slot = match name.as_str() {
                "zenith" => &mut sky.zenith,
                "horizon" => &mut sky.horizon,
                other => {
                    return Err(D::Error::custom(format!(
                        "unknown field `{other}` in the sky, expected `zenith` or `horizon`"
                    )));
                }
            };
            *slot = Color::from_json(v).map_err(|e| D::Error::custom(format!("{name}: {e}")))?;
        }
        Ok(sky)
    }
}

/// What sits on top of the pole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Finial {
    /// A ball of 1.6 pole radii. The default.
    #[default]
    Ball,
    /// A spearhead: a cone of 6 pole radii.
    Spear,
    /// The pole ends flat.
    None,
}

impl Finial {
    pub const ALL: [Self; 3] = [Self::Ball, Self::Spear, Self::None];

    /// The name in a scene file.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Ball => "ball",
            Self::Spear => "spear",
            Self::None => "none",
        }
    }
}

/// The setting: every field has a default, so a scene may leave out any of them (or all: the
/// blue sky, the ground, a grey pole with a golden ball).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Setting {
    /// [`spec::SKY`].
    pub sky: Sky,
    /// [`spec::BACKGROUND`]: an image drawn behind everything instead of the sky; relative to
    /// the scene file in a scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    /// [`spec::GROUND_SHOWN`]: draw the ground plane (a ground collider still acts without it).
    pub ground: bool,
    /// [`spec::POLE_COLOR`].
    pub pole_color: Color,
    /// [`spec::FINIAL`].
    pub finial: Finial,
    /// [`spec::FINIAL_COLOR`].
    pub finial_color: Color,
}

impl Default for Setting {
    fn default() -> Self {
        Self {
            sky: Sky::default(),
            background: None,
            ground: spec::GROUND_SHOWN.default,
            pole_color: Color::from_rgb8([0xc7, 0xc7, 0xcc]),
            finial: Finial::ALL
                .into_iter()
                .find(|f| f.name() == spec::FINIAL.default)
                .unwrap_or_default(),
            finial_color: Color::from_rgb8([0xe6, 0xb8, 0x4c]),
        }
    }
}

impl Setting {
    /// Whether nothing differs from the default (a saved scene then leaves it out).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Setting, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn colours_are_read_as_hex_and_as_arrays() {
        assert_eq!(
            Color::parse_hex("#ff8000"),
            Some(Color([1.0, 128.0 / 255.0, 0.0]))
        );
        assert_eq!(
            Color::parse_hex("#F80"),
            Some(Color::from_rgb8([255, 136, 0]))
        );
        assert_eq!(Color::parse_hex(" #000000 "), Some(Color([0.0; 3])));
        for bad in ["ff8000", "#ff80", "#ff80001", "#gg0000", "#+f0000", ""] {
            assert_eq!(Color::parse_hex(bad), None, "{bad}");
        }
        let s = parse(r##"{"pole_color": [0.25, 0.5, 1.0], "finial_color": "#102030"}"##).unwrap();
        assert_eq!(s.pole_color, Color([0.25, 0.5, 1.0]));
        assert_eq!(s.finial_color.to_rgb8(), [16, 32, 48]);
    }

    #[test]
    fn a_sky_is_one_colour_or_a_gradient() {
        let plain = parse(r##"{"sky": "#000080"}"##).unwrap().sky;
        assert_eq!(plain, Sky::plain(Color::from_rgb8([0, 0, 128])));
        let gradient = parse(r##"{"sky": {"zenith": "#000080", "horizon": [1, 1, 1]}}"##)
            .unwrap()
            .sky;
        assert_eq!(gradient.zenith, Color::from_rgb8([0, 0, 128]));
        assert_eq!(gradient.horizon, Color([1.0; 3]));
        // Half a gradient keeps the other end of the default sky.
        let half = parse(r##"{"sky": {"horizon": "#ffffff"}}"##).unwrap().sky;
        assert_eq!(half.zenith, Sky::default().zenith);
        assert_eq!(half.horizon, Color([1.0; 3]));
    }

    #[test]
    fn bad_colours_and_fields_say_what_is_wrong() {
        let cases = [
            (r#"{"sky": "blue"}"#, "\"blue\" is not a hex colour"),
            (r#"{"sky": [0.1, 0.2]}"#, "[r, g, b]"),
            (r#"{"pole_color": [0.1, 0.2, 1.5]}"#, "1.5 is outside 0–1"),
            (r#"{"pole_color": [0.1, "a", 0.5]}"#, "got [0.1,\"a\",0.5]"),
            (
                r##"{"sky": {"zenit": "#000000"}}"##,
                "unknown field `zenit`",
            ),
            (r#"{"sky": {"zenith": 3}}"#, "zenith: a colour is"),
            (r#"{"finial": "eagle"}"#, "unknown variant `eagle`"),
            (r#"{"ground": "yes"}"#, "expected a boolean"),
            (r#"{"grond": false}"#, "unknown field `grond`"),
        ];
        for (json, expected) in cases {
            let message = parse(json).unwrap_err();
            assert!(message.contains(expected), "{json}: {message}");
        }
    }

    #[test]
    fn the_defaults_are_the_ones_the_parameter_table_documents() {
        let d = Setting::default();
        let sky = format!("{} to {}", d.sky.zenith.hex(), d.sky.horizon.hex());
        assert_eq!(sky, spec::SKY.default_text);
        assert_eq!(d.pole_color.hex(), spec::POLE_COLOR.default_text);
        assert_eq!(d.finial_color.hex(), spec::FINIAL_COLOR.default_text);
        assert_eq!(d.finial.name(), spec::FINIAL.default);
        assert_eq!(spec::FINIAL.names, Finial::ALL.map(Finial::name));
        assert_eq!(spec::BACKGROUND.default_text, "none");
        assert_eq!(d.background, None);
        assert!(d.ground);
    }

    #[test]
    fn a_setting_round_trips_and_writes_hex_where_it_is_exact() {
        let setting = Setting {
            sky: Sky {
                zenith: Color::from_rgb8([10, 20, 30]),
                horizon: Color([0.3, 0.6, 0.9]),
            },
            background: Some(PathBuf::from("hills.jpg")),
            ground: false,
            pole_color: Color::from_rgb8([255, 255, 255]),
            finial: Finial::Spear,
            finial_color: Color([0.125, 0.25, 0.5]),
        };
        let json = serde_json::to_string(&setting).unwrap();
        assert!(json.contains(r##""zenith":"#0a141e""##), "{json}");
        assert!(json.contains(r##""pole_color":"#ffffff""##), "{json}");
        assert!(json.contains(r#""horizon":[0.3,0.6,0.9]"#), "{json}");
        assert_eq!(parse(&json).unwrap(), setting);
        // A plain sky is written as one colour.
        let plain = Setting {
            sky: Sky::plain(Color::from_rgb8([1, 2, 3])),
            ..Setting::default()
        };
        let json = serde_json::to_string(&plain).unwrap();
        assert!(json.contains(r##""sky":"#010203""##), "{json}");
        assert_eq!(parse(&json).unwrap(), plain);
        assert!(parse("{}").unwrap().is_default());
        assert!(!plain.is_default());
    }
}
