//! The viewer as a web page (wasm32, the `web` feature): the page's entry, its log.
//!
//! `index.html` (in `web/`) holds a canvas with the id `flagsim` that fills the page and a
//! `notice` element; [`start`] runs the same viewer as the desktop's on that canvas
//! ([`crate::app::viewer::run_in_page`]), its simulation stepped in the page's frames
//! ([`crate::sim_thread::Runner::InFrames`]). What the viewer logs goes to the browser's
//! console; an error also goes into the page, so a failure is never a blank page.

use wasm_bindgen::JsCast;

use crate::app::settings::Store;
use crate::app::viewer::{ViewerOptions, run_in_page};
use crate::sim::format::scene::Scene;

/// The page's `main`: the panic hook and the log, then the viewer on the page's canvas.
pub fn start() {
    console_error_panic_hook::set_once();
    if log::set_logger(&PAGE_LOG).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    wasm_bindgen_futures::spawn_local(async {
        let options = match page_options() {
            Ok(options) => options,
            Err(e) => return log::error!("{e}"),
        };
        if let Err(e) = run_in_page(options).await {
            log::error!("{e}");
        }
    });
}

/// The viewer's options in a page: the `flag` preset, no settings file.
fn page_options() -> Result<ViewerOptions, String> {
    let scene = Scene::load("flag").map_err(|e| e.to_string())?;
    Ok(ViewerOptions {
        scene,
        size: (1280, 800),
        exit_after_frames: None,
        screenshot: None,
        render_scale: None,
        compare: Vec::new(),
        reference: false,
        flag_images: Vec::new(),
        background: None,
        press_f12_at_frame: None,
        toggle_recording_at_frames: Vec::new(),
        record_format: None,
        persisted: Store::open(None),
        restore_camera: false,
    })
}

/// The browser's console, and for errors the page's `notice` element too.
struct PageLog;

static PAGE_LOG: PageLog = PageLog;

impl log::Log for PageLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Info
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = format!("{}: {}", record.target(), record.args());
        let line = wasm_bindgen::JsValue::from_str(&text);
        match record.level() {
            log::Level::Error => {
                web_sys::console::error_1(&line);
                show_notice(&record.args().to_string());
            }
            log::Level::Warn => web_sys::console::warn_1(&line),
            _ => web_sys::console::log_1(&line),
        }
    }

    fn flush(&self) {}
}

/// Puts `text` in the page's `notice` element and shows it.
fn show_notice(text: &str) {
    let Some(notice) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("notice"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    notice.set_text_content(Some(text));
    let _ = notice.style().set_property("display", "block");
}
