//! The viewer in a web page (wasm32): the device from the browser's promises, the files the
//! page hands it, its downloads, its link and its notices ([`super::super::page`]).

use std::sync::Arc;
use std::time::Duration;

use web_time::Instant;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::Window;

use super::{App, OpenedDevice, ViewerError, ViewerOptions, open_device};
use crate::app::page::{self, PageInbox, PageInput};
use crate::app::screenshot;
use crate::ui::notices::Level;
use crate::ui::panels::scene_files::{self, Pick};

/// Runs the viewer in a page, on its canvas ([`page::canvas`]): WebGPU where the browser
/// has an adapter for it, WebGL2 otherwise. Returns once the page's event loop runs (it never
/// ends); later failures go to the log. `inbox` is where the page puts the files it is handed
/// (the viewer takes them in its next turn), `image_link` the address the link's flag image
/// came from; the proxy returned wakes the viewer when something was put in the inbox.
pub(crate) async fn run_in_page(
    options: ViewerOptions,
    inbox: PageInbox,
    image_link: Option<String>,
) -> Result<winit::event_loop::EventLoopProxy<()>, ViewerError> {
    use winit::platform::web::EventLoopExtWebSys;
    let event_loop = EventLoop::new()?;
    let instance = wgpu::util::new_instance_with_webgpu_detection(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU | wgpu::Backends::GL,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    })
    .await;
    let mut app = App::new(options, instance, &event_loop)?;
    app.page.inbox = inbox;
    app.page.image_link = image_link;
    let wake = event_loop.create_proxy();
    event_loop.spawn_app(app);
    Ok(wake)
}

/// The page's side of the viewer: files arriving, the link kept in the address, the notices
/// told to the page.
#[derive(Default)]
pub(super) struct PageSide {
    pub(super) inbox: PageInbox,
    /// The `https` address the flag's image came from (it travels in the link).
    pub(super) image_link: Option<String>,
    /// The fragment last put in the address, and when the scene was last compared with it.
    pub(super) fragment: String,
    pub(super) link_seen: Option<Instant>,
    /// The time of the newest notice told to the page.
    pub(super) told: Option<Instant>,
    /// A screenshot being read back, to download.
    pub(super) shot: Option<screenshot::Mapping>,
    /// What the browser's file chooser was last opened for: the answer to a background's
    /// *open…* goes behind the flag; any other is taken as a dropped file is (a scene or the
    /// flag's image).
    pub(super) asked: Option<Pick>,
}

/// Where a page's device arrives when the browser's promises resolve.
pub(super) type PageAnswer =
    std::rc::Rc<std::cell::RefCell<Option<Result<OpenedDevice, ViewerError>>>>;

impl App {
    /// In a page the adapter and device come from the browser's promises: the window is made
    /// now, the rest when they resolve ([`Self::take_page_device`]).
    pub(super) fn open_in_page(&mut self, event_loop: &ActiveEventLoop) {
        if self.opening.is_some() {
            return;
        }
        let window = match self.create_window(event_loop) {
            Ok(window) => window,
            Err(e) => return self.fail(e, event_loop),
        };
        let answer = std::rc::Rc::new(std::cell::RefCell::new(None));
        self.opening = Some((window.clone(), answer.clone()));
        let instance = self.graphics.instance.clone();
        let wake = self.page_wake.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let opened = open_device(&instance, &window).await;
            *answer.borrow_mut() = Some(opened);
            let _ = wake.send_event(());
        });
    }

    /// The page's device once its promises resolved: the viewer's passes are made on it.
    pub(super) fn take_page_device(&mut self, event_loop: &ActiveEventLoop) {
        let Some((window, answer)) = &self.opening else {
            return;
        };
        let Some(opened) = answer.borrow_mut().take() else {
            return;
        };
        let window = window.clone();
        self.opening = None;
        match opened.and_then(|opened| self.finish_gpu(window, opened)) {
            Ok(gpu) => self.gpu_ready(gpu),
            Err(e) => self.fail(e, event_loop),
        }
    }

    /// A page's *open…* and *save as…*: the browser's file chooser (the file arrives in the
    /// page's inbox) and a download.
    pub(super) fn page_dialog(&mut self, pick: Pick) {
        let done = match pick {
            Pick::OpenScene => page::choose_file(".json,application/json"),
            Pick::OpenImage | Pick::OpenBackground => {
                page::choose_file("image/png,image/jpeg,image/webp")
            }
            Pick::SaveScene => {
                let json = self.ui.scene_as_shown().to_json();
                page::download("scene.json", "application/json", json.as_bytes())
            }
        };
        match done {
            Ok(()) => self.page.asked = Some(pick),
            Err(e) => self.ui.notices.error(e),
        }
    }

    /// A page's turn besides the simulation's: a recording's frame read back, the files it was
    /// handed, the notices it is told (errors go into the page too), the scene's link in its
    /// address (compared twice a second).
    pub(super) fn serve_page(&mut self, now: Instant) {
        self.serve_page_clip();
        loop {
            let Some(input) = self.page.inbox.borrow_mut().pop_front() else {
                break;
            };
            let mut actions = Vec::new();
            match input {
                PageInput::File {
                    name,
                    bytes,
                    chosen: true,
                    ..
                } if self.page.asked == Some(Pick::OpenBackground) => {
                    scene_files::set_background_bytes(&mut self.ui, &mut actions, &name, bytes);
                }
                PageInput::File {
                    name, bytes, link, ..
                } => {
                    let image = !name.to_ascii_lowercase().ends_with(".json");
                    if scene_files::drop_bytes(&mut self.ui, &mut actions, &name, bytes) && image {
                        self.page.image_link = link;
                    }
                }
                PageInput::Failed(e) => self.ui.notices.error(e),
            }
            for a in actions {
                self.apply(a);
            }
            self.clock.redraw.wanted = true;
        }
        if let Some(done) = self
            .page
            .shot
            .as_mut()
            .and_then(screenshot::Mapping::try_finish)
        {
            self.page.shot = None;
            let name = screenshot::timestamped_name();
            let downloaded = done
                .map_err(|e| e.to_string())
                .and_then(|image| screenshot::png_bytes(&image).map_err(|e| e.to_string()))
                .and_then(|png| page::download(&name, "image/png", &png));
            match downloaded {
                Ok(()) => self.ui.notices.info(format!("downloaded {name}")),
                Err(e) => self.ui.notices.error(format!("screenshot failed: {e}")),
            }
            self.clock.redraw.wanted = true;
        }
        let told = self.page.told;
        let new: Vec<(Level, String)> = (self.ui.notices.log().rev())
            .take_while(|n| told.is_none_or(|t| n.at > t))
            .map(|n| (n.level, n.text.clone()))
            .collect();
        self.page.told = self.ui.notices.last().map(|n| n.at);
        for (level, text) in new.into_iter().rev() {
            match level {
                Level::Error => log::error!(target: page::SHOWN_BY_THE_VIEWER, "{text}"),
                Level::Info => log::info!(target: page::SHOWN_BY_THE_VIEWER, "{text}"),
            }
        }
        if (self.page.link_seen)
            .is_some_and(|t| now.saturating_duration_since(t) < Duration::from_millis(500))
        {
            return;
        }
        self.page.link_seen = Some(now);
        let fragment = page::fragment(&self.ui.scene_as_shown(), self.page.image_link.as_deref());
        if fragment != self.page.fragment {
            page::set_fragment(&fragment);
            self.page.fragment = fragment;
        }
    }
}
