//! The lab's search in a page, which has no threads: a web worker (`web/search-worker.js`) loads
//! the page's own module and runs [`super::run`] there ([`search_in_worker`]), posting each
//! [`Event`] as JSON, and the page's side hands them to the search's board as they come. Run in
//! the page's own turn, its trials (seconds each) would stop the page's frames.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::{Closure, JsValue, wasm_bindgen};

use super::{Event, run};
use crate::sim::format::params::IntegratorKind;
use crate::sim::format::scene::Scene;

/// The worker's script, beside the page's (`scripts/web build` copies it there).
const SCRIPT: &str = "search-worker.js";

/// What the page asks the worker to search: [`super::run`]'s arguments, the scene as its
/// scene file's JSON.
#[derive(Serialize, Deserialize)]
struct Request {
    scene: String,
    integrators: Vec<IntegratorKind>,
    grids: Vec<Option<[usize; 2]>>,
}

/// The page's side of a search's worker, by number: its JavaScript handles stay in [`RUNNING`]
/// on the page's one thread, so the search holding it can be shared as the desktop's is.
/// Dropped, it stops the worker at once.
#[derive(Debug)]
pub(crate) struct Worker(u64);

/// A worker's JavaScript handles: the worker and what answers its messages.
struct Running {
    handle: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    /// The workers running, by number.
    static RUNNING: RefCell<Vec<(u64, Running)>> = const { RefCell::new(Vec::new()) };
}

/// The next worker's number.
static NEXT: AtomicU64 = AtomicU64::new(0);

impl Worker {
    /// Starts a worker searching `scene` for `integrators`, each at its key grid in `grids`;
    /// each [`Event`] it posts goes to `write` (a worker that fails: a failure, then
    /// [`Event::Finished`]). `Err` says why no worker started.
    pub(crate) fn start(
        scene: &Scene,
        integrators: &[IntegratorKind],
        grids: &[Option<[usize; 2]>],
        write: impl FnMut(Event) + 'static,
    ) -> Result<Self, String> {
        let request = serde_json::to_string(&Request {
            scene: scene.to_json(),
            integrators: integrators.to_vec(),
            grids: grids.to_vec(),
        })
        .map_err(|e| format!("the search's request: {e}"))?;
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let handle = web_sys::Worker::new_with_options(SCRIPT, &options)
            .map_err(|e| format!("the search's worker did not start: {}", describe(&e)))?;
        let number = NEXT.fetch_add(1, Ordering::Relaxed);
        let write = Rc::new(RefCell::new(write));
        let to_board = write.clone();
        let on_message = Closure::<dyn FnMut(_)>::new(move |m: web_sys::MessageEvent| {
            let event = m
                .data()
                .as_string()
                .and_then(|text| serde_json::from_str::<Event>(&text).ok());
            let mut write = to_board.borrow_mut();
            if let Some(event) = event {
                // A worker done with its search holds a module's memory for nothing.
                if event == Event::Finished {
                    stop(number);
                }
                write(event);
            } else {
                stop(number);
                write(Event::Failure(
                    "the search's worker sent something that is not its findings".into(),
                ));
                write(Event::Finished);
            }
        });
        // An error inside the worker comes as an `ErrorEvent`; a script that could not be
        // loaded as a plain `Event`, with nothing to say.
        let on_error = Closure::<dyn FnMut(_)>::new(move |e: web_sys::Event| {
            let why = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(web_sys::ErrorEvent::message)
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| format!("its script ({SCRIPT}) could not be loaded"));
            let mut write = write.borrow_mut();
            write(Event::Failure(format!("the search stopped: {why}")));
            write(Event::Finished);
        });
        handle.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        handle.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        handle
            .post_message(&JsValue::from_str(&request))
            .map_err(|e| format!("the search's worker was not asked: {}", describe(&e)))?;
        let running = Running {
            handle,
            _on_message: on_message,
            _on_error: on_error,
        };
        RUNNING.with_borrow_mut(|r| r.push((number, running)));
        Ok(Self(number))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let running = RUNNING.with_borrow_mut(|r| {
            let at = r.iter().position(|(n, _)| *n == self.0)?;
            Some(r.swap_remove(at).1)
        });
        if let Some(running) = running {
            running.handle.terminate();
        }
    }
}

/// Stops worker `number`, keeping its handles (it may be answering a message of its own).
fn stop(number: u64) {
    RUNNING.with_borrow(|r| {
        if let Some((_, running)) = r.iter().find(|(n, _)| *n == number) {
            running.handle.terminate();
        }
    });
}

/// A JavaScript error's message, or what it is.
fn describe(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The worker's side (called by `web/search-worker.js` with the page's request): runs the
/// search, posting each [`Event`] to the page as JSON as it is learnt, then
/// [`Event::Finished`]. A request it cannot read is posted as a failure.
#[wasm_bindgen]
pub fn search_in_worker(request: &str) -> Result<(), JsValue> {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global()
        .dyn_into()
        .map_err(|_| JsValue::from_str("search_in_worker runs in a dedicated worker"))?;
    let post = |event: Event| {
        if let Ok(text) = serde_json::to_string(&event) {
            let _ = scope.post_message(&JsValue::from_str(&text));
        }
    };
    let asked = serde_json::from_str::<Request>(request)
        .map_err(|e| e.to_string())
        .and_then(|r| {
            let scene = Scene::from_json(&r.scene, "the lab's scene").map_err(|e| e.to_string())?;
            Ok((scene, r))
        });
    match asked {
        Ok((scene, r)) => run(
            &scene,
            &r.integrators,
            &r.grids,
            &AtomicBool::new(false),
            &mut |e| post(e),
        ),
        Err(why) => post(Event::Failure(format!("the search's request: {why}"))),
    }
    post(Event::Finished);
    Ok(())
}
