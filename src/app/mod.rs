//! Window, surface and egui glue for the interactive viewer.
//!
//! This module owns everything between the operating system's window and the renderer's passes:
//! the presentable surface ([`surface`]), the egui layer drawn over the 3-D view ([`egui_glue`]),
//! PNG capture of any copyable texture ([`screenshot`]) and frame-time statistics
//! ([`frame_stats`]). It never touches the simulation: the application handler reads the latest
//! simulation snapshot and hands it to the renderer, and egui panels return commands.
//!
//! # How the winit 0.30 `ApplicationHandler` is meant to be structured
//!
//! winit 0.30 drives the program through [`winit::application::ApplicationHandler`]; the event
//! loop owns the main thread, and the handler is a plain struct whose GPU state is `Option`al
//! because no window may exist before the first `resumed`.
//!
//! ```text
//! main():
//!     let event_loop = EventLoop::new()?;                 // must be on the main thread
//!     let instance = surface::create_instance(Box::new(event_loop.owned_display_handle()));
//!     let mut app = App { instance, gpu: None, window: None, egui: None, .. };
//!     event_loop.run_app(&mut app)?;                      // returns after event_loop.exit()
//!
//! impl ApplicationHandler for App {
//!     resumed(event_loop):
//!         if self.window.is_some() { return }             // resumed can repeat (Android, iOS)
//!         window  = Arc::new(event_loop.create_window(attributes)?)
//!         adapter = surface::pick_adapter(&instance, &window)       // Vulkan first, then GL
//!         (device, queue) = adapter.request_device(..)
//!         surface = WindowSurface::new(&instance, &adapter, &device, window.clone())?
//!         egui    = EguiLayer::new(&device, &window, surface.format())
//!         spawn the simulation thread here (it only needs the command/snapshot channels)
//!
//!     window_event(event_loop, id, event):
//!         let response = egui.on_window_event(&window, &event);   // egui sees input FIRST
//!         if response.repaint { window.request_redraw() }
//!         match event {
//!             CloseRequested      => event_loop.exit(),            // clean exit, code 0
//!             Resized(size)       => surface.resize(size.width, size.height),  // 0×0 = minimised
//!             RedrawRequested     => self.redraw(),                // see below
//!             mouse/keyboard if !response.consumed => camera / picking gets the event
//!             _ => {}
//!         }
//!
//!     about_to_wait(event_loop):
//!         window.request_redraw();                        // continuous animation while simulating
//! }
//!
//! redraw():
//!     stats.tick(Instant::now());
//!     let out = egui.run(&window, |ui| panels(ui));     // always run egui, even when minimised,
//!                                                      // so texture deltas are never lost
//!     let Some(frame) = surface.acquire() else { return };   // every skip reason handled inside
//!     encoder: 3-D passes into frame.view (+ surface.depth_view()), clearing colour and depth
//!     let extra = egui.paint(&device, &queue, &mut encoder, &frame.view, surface.size_px(),
//!                            egui.pixels_per_point());   // LOADs the colour: egui over the scene
//!     queue.submit(extra.into_iter().chain([encoder.finish()]));
//!     egui.after_submit();                              // frees textures egui released
//!     optional: screenshot::capture_texture(&device, &queue, &frame.texture.texture)  // before present
//!     window.pre_present_notify();
//!     surface.present(&queue, frame);
//! ```
//!
//! # Routing input between egui and the 3-D view
//!
//! Only the pointer and keyboard events for which [`egui_glue::EguiLayer::on_window_event`]
//! returns `consumed == false` reach the 3-D view; a drag that starts on a slider therefore never
//! orbits the camera. egui's answers come from its previous frame, and:
//! - a button press or wheel over a panel is consumed; plain cursor motion is consumed only
//!   while egui is dragging. Hover effects in the 3-D view (picking highlights) should also
//!   check [`egui_glue::EguiLayer::wants_pointer_input`];
//! - a drag that starts in the 3-D view stays the view's: its motion and its release are not
//!   consumed even over a panel (checked under Xvfb with xdotool);
//! - events injected faster than frames (scripted input) are judged against the last frame's
//!   pointer position; give the program a frame between moving and clicking.
//!
//! # Screenshots
//!
//! The surface is configured with `COPY_SRC` when the platform offers it (Vulkan does, GL does
//! not), so [`screenshot::capture_texture`] can read `frame.texture.texture` after the frame's
//! commands are submitted and before it is presented. Without `COPY_SRC`, record the frame again
//! into [`screenshot::create_capture_target`] and capture that; [`egui_glue::EguiLayer::paint`]
//! may be called twice in one frame for this. `src/bin/viewer_demo.rs` does both.

pub mod controls;
pub mod egui_glue;
pub mod feed;
pub mod frame_stats;
pub mod keys;
pub mod recording;
pub mod screenshot;
pub mod surface;
pub mod viewer;
