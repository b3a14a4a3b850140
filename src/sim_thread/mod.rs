//! The threads that serve the viewer: the simulation thread and the lab's background search for
//! the largest stable `dt`.
//!
//! ```text
//! UI ──Command──▶ channel ──▶ [sim thread: apply commands between steps, FixedStepper, step]
//!                                        │
//!                                        ▼ publish Arc<Snapshot> (copies, never shared state)
//! renderer ◀── SnapshotSlot::latest() ───┘
//! ```
//!
//! Commands are applied only between steps. The renderer never sees the simulation, only copies.
//! The worker's state is split by what it serves: the scene's flags ([`flags`]), the lab's
//! copies ([`lab`]) and the GPU the cloths may step on ([`devices`]).

mod command;
mod devices;
mod flags;
mod handle;
mod lab;
mod search;
mod worker;

pub use command::Command;
pub use handle::{RateMeter, Runner, SimThread, SnapshotSlot, wait_for};
pub use lab::MOTION_WINDOW;
pub use search::{Found, Search};
