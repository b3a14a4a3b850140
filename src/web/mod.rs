//! The viewer as a web page (wasm32, the `web` feature): the page's entry, its log, the files
//! and link it hands the viewer.
//!
//! `web/index.html` holds a canvas that fills the page, a hidden file input and a `notice`
//! element; [`start`] runs the same viewer as the desktop's on that canvas
//! ([`crate::app::viewer::run_in_page`]), its simulation stepped in the page's frames
//! ([`crate::sim_thread::Runner::InFrames`]). The page's address carries the scene
//! (`#scene=<JSON>&image=<address>`, [`crate::app::page::fragment`]): a copied link opens the
//! same flag in the same wind; the settings (the camera, the panels' values, the last scene)
//! are kept in the browser's local storage, as the desktop keeps them in a file. What the
//! viewer logs goes to the browser's console; an error the viewer cannot show itself (it did
//! not start, or stopped) also goes into the page, so a failure is never a blank page.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_futures::JsFuture;
use winit::event_loop::EventLoopProxy;

use crate::app::link::Link;
use crate::app::page::{self, FILE_INPUT_ID, PageInbox, PageInput};
use crate::app::settings::{Opened, Place, Store};
use crate::app::viewer::{ViewerOptions, run_in_page};
use crate::sim::format::scene::Scene;

/// The scene a page opens without a link (and nothing kept).
const DEFAULT_PRESET: &str = "flag";
/// The key of the settings in the browser's local storage.
const SETTINGS_KEY: &str = "flagsim.settings";

/// The page's `main`: the panic hook and the log, then the viewer on the page's canvas, then
/// the page's file input, drops and the link's image.
pub fn start() {
    // The lab's search loads this module again in a worker of its own
    // (`sim_thread::search::in_page`), where this runs too, with no page to draw in.
    if web_sys::window().is_none() {
        return;
    }
    // A panic stops the viewer where it is: the page says so, beside the console's trace.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_notice(&format!("flagsim stopped: {info}"));
    }));
    if log::set_logger(&PAGE_LOG).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    wasm_bindgen_futures::spawn_local(async {
        let link = page::link();
        let persisted = Store::open(Place::browser(SETTINGS_KEY));
        let (scene, restored) = match scene_of(&link, &persisted) {
            Ok(scene) => scene,
            Err(e) => return log::error!("{e}"),
        };
        let options = options(scene, persisted, restored);
        let inbox = PageInbox::default();
        let wake = match run_in_page(options, inbox.clone(), link.image.clone()).await {
            Ok(wake) => wake,
            Err(e) => return log::error!("{e}"),
        };
        let hand = Hand { inbox, wake };
        hand.listen();
        if let Some(address) = link.image {
            hand.fetch(address);
        }
    });
}

/// The viewer's options in a page: the settings kept in the browser, no window size of its own
/// (the canvas fills the page). `restored`: the scene is the last one kept, so its camera comes
/// back too.
fn options(scene: Scene, persisted: Opened, restored: bool) -> ViewerOptions {
    ViewerOptions {
        scene,
        size: (1280, 800),
        exit_after_frames: None,
        screenshot: None,
        render_scale: persisted.settings.scale_mode(),
        compare: Vec::new(),
        reference: false,
        flag_images: Vec::new(),
        background: None,
        press_f12_at_frame: None,
        toggle_recording_at_frames: Vec::new(),
        record_format: None,
        persisted,
        restore_camera: restored,
    }
}

/// The link's scene; without one the last scene kept (`true`: restored); the default preset
/// where there is neither, or with a notice where the link is bad.
fn scene_of(link: &Link, persisted: &Opened) -> Result<(Scene, bool), String> {
    if let Some(problem) = &link.problem {
        log::error!("{problem}");
    }
    let Some(json) = &link.scene else {
        if link.problem.is_none()
            && let Some(mut scene) = persisted.settings.last_scene()
        {
            // Its images were files of this machine, handed to the page once: not kept.
            scene.render.texture = None;
            scene.render.setting.background = None;
            for flag in &mut scene.flags {
                flag.image = None;
            }
            return Ok((scene, true));
        }
        return Ok((
            Scene::load(DEFAULT_PRESET).map_err(|e| e.to_string())?,
            false,
        ));
    };
    let scene = Scene::from_json(json, "the link's scene").or_else(|e| {
        log::error!("{e}; the {DEFAULT_PRESET} preset is shown");
        Scene::load(DEFAULT_PRESET).map_err(|e| e.to_string())
    })?;
    Ok((scene, false))
}

/// The mean wall time of a step of the preset `name`'s first flag over `steps` steps, s, on
/// the page's clock: the step's cost in wasm, which `scripts/web_bench.py` sets beside the
/// desktop's (`flagsim simulate NAME --steps N`, the same steps).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn bench_step(name: &str, steps: u32) -> Result<f64, wasm_bindgen::JsValue> {
    let fail = |e: String| wasm_bindgen::JsValue::from_str(&e);
    let scene = Scene::load(name).map_err(|e| fail(e.to_string()))?;
    let mut flags = crate::sim::runtime::flags::FlagSet::new(&scene)
        .map_err(|e| fail(e.to_string()))?
        .flags;
    let sim = flags
        .first_mut()
        .ok_or_else(|| fail(format!("{name} has no flag")))?;
    let start = web_time::Instant::now();
    let taken = sim.step_n(steps.max(1));
    Ok(start.elapsed().as_secs_f64() / f64::from(taken.max(1)))
}

/// Hands the viewer what the page is given, and wakes it.
#[derive(Clone)]
struct Hand {
    inbox: PageInbox,
    wake: EventLoopProxy<()>,
}

impl Hand {
    fn give(&self, input: PageInput) {
        self.inbox.borrow_mut().push_back(input);
        let _ = self.wake.send_event(());
    }

    /// The file input's choices and files dropped anywhere on the page.
    fn listen(&self) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        if let Some(input) = document
            .get_element_by_id(FILE_INPUT_ID)
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            let hand = self.clone();
            let chosen = input.clone();
            let on_change = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                if let Some(files) = chosen.files() {
                    hand.read_all(&files, true);
                }
                // The same file chosen again is a change too.
                chosen.set_value("");
            });
            let _ = input
                .add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
            on_change.forget();
        }
        let over = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
            // Without this the browser opens the dropped file itself.
            e.prevent_default();
        });
        let _ =
            document.add_event_listener_with_callback("dragover", over.as_ref().unchecked_ref());
        over.forget();
        let hand = self.clone();
        let drop = Closure::<dyn FnMut(web_sys::DragEvent)>::new(move |e: web_sys::DragEvent| {
            e.prevent_default();
            if let Some(files) = e.data_transfer().and_then(|d| d.files()) {
                hand.read_all(&files, false);
            }
        });
        let _ = document.add_event_listener_with_callback("drop", drop.as_ref().unchecked_ref());
        drop.forget();
    }

    /// Reads each of `files`; `chosen`: in the file chooser (else dropped).
    fn read_all(&self, files: &web_sys::FileList, chosen: bool) {
        for k in 0..files.length() {
            if let Some(file) = files.get(k) {
                self.read(file, chosen);
            }
        }
    }

    /// Reads `file` whole, then gives it.
    fn read(&self, file: web_sys::File, chosen: bool) {
        let hand = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let name = file.name();
            match JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => hand.give(PageInput::File {
                    name,
                    bytes: js_sys::Uint8Array::new(&buffer).to_vec(),
                    link: None,
                    chosen,
                }),
                Err(e) => hand.give(PageInput::Failed(format!("cannot read {name}: {e:?}"))),
            }
        });
    }

    /// Fetches the image at `address` (the browser may refuse another site's), then gives it.
    fn fetch(&self, address: String) {
        let hand = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match fetch_bytes(&address).await {
                Ok(bytes) => {
                    let name = address
                        .rsplit('/')
                        .next()
                        .filter(|n| !n.is_empty())
                        .unwrap_or("image")
                        .to_owned();
                    hand.give(PageInput::File {
                        name,
                        bytes,
                        link: Some(address),
                        chosen: false,
                    });
                }
                Err(e) => hand.give(PageInput::Failed(format!(
                    "the link's image {address} did not come ({e}); the flag stays"
                ))),
            }
        });
    }
}

async fn fetch_bytes(address: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no page")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(address))
        .await
        .map_err(|e| format!("{e:?}"))?
        .dyn_into()
        .map_err(|_| "not a response".to_owned())?;
    if !response.ok() {
        return Err(format!("status {}", response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The browser's console, and for errors the viewer does not show itself (a failure to start,
/// a bad link, the viewer stopped) the page's `notice` element too.
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
                if record.target() != page::SHOWN_BY_THE_VIEWER {
                    show_notice(&record.args().to_string());
                }
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
