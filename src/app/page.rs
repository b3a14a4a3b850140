//! What the viewer does in a web page (wasm32) where the desktop has the operating system: the
//! page's canvas, files arriving from the page (a file input, a drop, a link's image), files
//! leaving as downloads, and the link that carries the scene.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::JsCast;

use super::link::Link;
use crate::sim::format::scene::Scene;

/// The id of the page's canvas (`web/index.html`).
pub(crate) const CANVAS_ID: &str = "flagsim";
/// The id of the page's hidden file input, which *open…* clicks.
pub(crate) const FILE_INPUT_ID: &str = "open-file";

/// What the page hands the viewer between frames.
#[derive(Debug)]
pub(crate) enum PageInput {
    /// A file chosen, dropped, or fetched from `link`: its name and its bytes. `chosen`: from
    /// the browser's file chooser, which answers the last *open…*; a dropped file is a scene or
    /// the flag's image, whatever was asked for before.
    File {
        name: String,
        bytes: Vec<u8>,
        link: Option<String>,
        chosen: bool,
    },
    /// An image link that gave no image, with why.
    Failed(String),
}

/// Where the page puts what it hands the viewer; the viewer takes it in its next turn.
pub(crate) type PageInbox = Rc<RefCell<VecDeque<PageInput>>>;

/// The page's canvas for the viewer.
pub(crate) fn canvas() -> Option<web_sys::HtmlCanvasElement> {
    web_sys::window()?
        .document()?
        .get_element_by_id(CANVAS_ID)?
        .dyn_into()
        .ok()
}

/// Opens the browser's file chooser through the page's file input, for files of `accept`
/// (its answer arrives in the inbox).
pub(crate) fn choose_file(accept: &str) -> Result<(), String> {
    let input: web_sys::HtmlInputElement = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(FILE_INPUT_ID))
        .and_then(|e| e.dyn_into().ok())
        .ok_or("the page has no file input")?;
    input.set_accept(accept);
    input.click();
    Ok(())
}

/// Hands `bytes` to the browser as a download named `name`.
pub(crate) fn download(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: wasm_bindgen::JsValue| format!("cannot download {name}: {e:?}");
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no page to download from")?;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob =
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(fail)?
        .dyn_into()
        .map_err(|_| format!("cannot download {name}"))?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    web_sys::Url::revoke_object_url(&url).map_err(fail)?;
    Ok(())
}

/// The link's fragment for `scene` and the image's address ([`Link::fragment`], encoded as
/// the browser's `encodeURIComponent` does).
pub(crate) fn fragment(scene: &Scene, image_link: Option<&str>) -> String {
    Link::fragment(scene, image_link, |text| {
        js_sys::encode_uri_component(text).into()
    })
}

/// What the page's address asks for ([`Link::parse`], decoded as the browser's
/// `decodeURIComponent` does).
pub(crate) fn link() -> Link {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    Link::parse(&hash, |text| {
        js_sys::decode_uri_component(text).ok().map(String::from)
    })
}

/// Puts `fragment` in the page's address without a new history entry.
pub(crate) fn set_fragment(fragment: &str) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{fragment}")),
        );
    }
}

/// The log target of the viewer's own notices, copied to the browser's console: the viewer
/// shows them over its frame, so the page does not show them again in its `notice` element.
pub(crate) const SHOWN_BY_THE_VIEWER: &str = "flagsim::notice";

/// Logs the first frame's time since the page began to load (the browser's clock).
pub(crate) fn tell_first_frame() {
    if let Some(ms) = web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
    {
        log::info!("first frame {ms:.0} ms after the page began to load");
    }
}
