//! Window, surface and egui glue for the interactive viewer.
//!
//! This module owns everything between the operating system's window and the renderer's passes:
//! the presentable surface ([`surface`]), the egui layer drawn over the 3-D view ([`egui_glue`]),
//! PNG capture of any copyable texture ([`screenshot`]) and frame-time statistics
//! ([`frame_stats`]). It never touches the simulation: the application handler reads the latest
//! simulation snapshot and hands it to the renderer, and egui panels return commands.
//!
//! # The frame
//!
//! [`viewer`] is the winit 0.30 `ApplicationHandler`: its GPU state is created on the first
//! `resumed` (no window exists before). Every window event goes to egui first
//! ([`egui_glue::EguiLayer::on_window_event`]); what egui does not consume goes to the camera and
//! picking ([`controls`]) or the key table ([`keys`]). A redraw takes the latest snapshot
//! ([`feed`] interpolates between the last two), runs the panels, draws the 3-D passes into the
//! renderer's multisampled targets, resolves them into the surface texture, paints egui over it
//! and presents. Screenshots and recordings read the frame before it is presented
//! ([`screenshot`], [`crate::video`]).
//!
//! # Routing input between egui and the 3-D view
//!
//! Only the pointer and keyboard events for which [`egui_glue::EguiLayer::on_window_event`]
//! returns `consumed == false` reach the 3-D view; a drag that starts on a slider therefore never
//! orbits the camera. egui's answers come from its previous frame, and:
//! - a button press or wheel over a panel is consumed; plain cursor motion is consumed only
//!   while egui is dragging. Hover effects in the 3-D view (picking highlights) should also
//!   check whether egui wants the pointer (`egui::Context::egui_wants_pointer_input`);
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
//! may be called twice in one frame for this.

pub mod controls;
pub(crate) mod dialogs;
pub mod egui_glue;
pub mod feed;
pub mod frame;
pub(crate) mod frame_stats;
pub mod keys;
pub(crate) mod lab_view;
#[cfg_attr(
    not(target_arch = "wasm32"),
    allow(dead_code, reason = "the page reads it; on the desktop its tests do")
)]
pub(crate) mod link;
#[cfg(target_arch = "wasm32")]
pub(crate) mod page;
pub(crate) mod redraw;
pub mod screenshot;
pub(crate) mod settings;
pub(crate) mod surface;
pub mod viewer;
