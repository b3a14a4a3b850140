//! The link a page keeps in its address: the scene's parameters and the address of the flag's
//! image, `#scene=<JSON>&image=<address>`, each part URI-encoded. A copied link opens the same
//! flag in the same wind; the user's own image files never travel in it.

use crate::sim::format::scene::Scene;

/// What a link asks for.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Link {
    /// The scene's JSON (the scene format's).
    pub scene: Option<String>,
    /// An `http(s)` address of the flag's image.
    pub image: Option<String>,
    /// What could not be read of it.
    pub problem: Option<String>,
}

impl Link {
    /// Reads a fragment (with or without its `#`), each value decoded by `decode` (the
    /// browser's `decodeURIComponent`; `None`: not decodable).
    pub(crate) fn parse(hash: &str, decode: impl Fn(&str) -> Option<String>) -> Self {
        let mut link = Self::default();
        for part in hash
            .trim_start_matches('#')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let Some(value) = decode(value) else {
                link.problem = Some(format!("the link's {key} is not URI-encoded text"));
                continue;
            };
            match key {
                "scene" => link.scene = Some(value),
                "image" if value.starts_with("https://") || value.starts_with("http://") => {
                    link.image = Some(value);
                }
                "image" => {
                    link.problem = Some(format!("the link's image is not a web address: {value}"));
                }
                other => link.problem = Some(format!("the link has an unknown part \"{other}\"")),
            }
        }
        link
    }

    /// The fragment for `scene` (its parameters, never its image files) and `image`, each
    /// value encoded by `encode` (the browser's `encodeURIComponent`).
    pub(crate) fn fragment(
        scene: &Scene,
        image: Option<&str>,
        encode: impl Fn(&str) -> String,
    ) -> String {
        let mut scene = scene.clone();
        scene.render.texture = None;
        scene.render.setting.background = None;
        for flag in &mut scene.flags {
            flag.image = None;
        }
        let json = serde_json::to_string(&scene).unwrap_or_default();
        let mut text = format!("scene={}", encode(&json));
        if let Some(image) = image {
            text.push_str(&format!("&image={}", encode(image)));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A stand-in for the browser's URI coding of the characters the tests use.
    fn encode(text: &str) -> String {
        text.replace('%', "%25")
            .replace('&', "%26")
            .replace('#', "%23")
    }

    fn decode(text: &str) -> Option<String> {
        (!text.contains("%E0")).then(|| {
            text.replace("%23", "#")
                .replace("%26", "&")
                .replace("%25", "%")
        })
    }

    #[test]
    fn a_link_gives_its_scene_and_image_and_names_what_it_cannot_read() {
        let link = Link::parse("#scene={}&image=https://a.b/f.png", decode);
        assert_eq!(link.scene.as_deref(), Some("{}"));
        assert_eq!(link.image.as_deref(), Some("https://a.b/f.png"));
        assert_eq!(link.problem, None);
        assert_eq!(Link::parse("", decode), Link::default());
        assert_eq!(Link::parse("#", decode), Link::default());
        let bad = Link::parse("#image=file:///etc/passwd", decode);
        assert_eq!(bad.image, None);
        assert!(bad.problem.is_some_and(|p| p.contains("not a web address")));
        assert!(
            Link::parse("#wind=3", decode)
                .problem
                .is_some_and(|p| p.contains("wind"))
        );
        let undecodable = Link::parse("#scene=%E0", decode);
        assert_eq!(undecodable.scene, None);
        assert!(undecodable.problem.is_some());
    }

    #[test]
    fn a_scene_goes_through_its_link_with_its_parameters_and_without_its_image_files() {
        let mut scene = Scene::load("flags").unwrap();
        scene.params.wind.velocity = [3.0, 0.5, -7.25];
        scene.params.stiffness.structural = 321.0;
        scene.render.texture = Some(PathBuf::from("/home/me/secret & flag.png"));
        scene.flags[1].image = Some(PathBuf::from("/home/me/other.png"));
        let text = Link::fragment(&scene, Some("https://x.y/a&b.png"), encode);
        assert!(!text.contains("secret") && !text.contains("other.png"));
        let link = Link::parse(&format!("#{text}"), decode);
        assert_eq!(link.problem, None);
        assert_eq!(link.image.as_deref(), Some("https://x.y/a&b.png"));
        let back = Scene::from_json(&link.scene.unwrap(), "the link").unwrap();
        assert_eq!(back.params.wind.velocity, [3.0, 0.5, -7.25]);
        assert_eq!(back.params.stiffness.structural, 321.0);
        assert_eq!(back.render.texture, None);
        assert_eq!(back.flags.len(), scene.flags.len());
        assert!(back.flags.iter().all(|f| f.image.is_none()));
        let mut expected = scene.clone();
        expected.render.texture = None;
        for f in &mut expected.flags {
            f.image = None;
        }
        assert_eq!(
            back.to_json(),
            expected.to_json(),
            "everything else as it was"
        );
    }
}
