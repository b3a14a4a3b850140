//! When the viewer draws a frame, and when it waits.

use web_time::Instant;

/// When the viewer draws: every display frame while the cloth moves, and otherwise only when
/// something changed (an input, a new snapshot, egui's own animations), so a paused, untouched
/// viewer draws nothing.
#[derive(Debug, Default)]
pub struct Redraw {
    /// An input or an action changed what is shown.
    pub wanted: bool,
    /// The sequence number of the snapshot last drawn.
    pub drawn_seq: u64,
    /// When egui asked to be run again (its animations, tooltips), if it did.
    pub egui_at: Option<Instant>,
    /// The viewer waited without drawing since the last frame (the frame-time statistics
    /// start over, or the wait would count as one long frame).
    pub idled: bool,
}

impl Redraw {
    /// How long to wait when idle before looking for a new snapshot again (a command sent while
    /// paused, such as a single step, publishes one).
    pub const POLL: std::time::Duration = std::time::Duration::from_millis(50);

    /// Whether to draw now: the cloth is moving (`running`, or a lock-step recording or a
    /// counted run is under way), a snapshot newer than the one drawn has arrived, or an input
    /// or egui asked for it.
    pub fn due(&self, running: bool, latest_seq: u64, now: Instant) -> bool {
        running
            || self.wanted
            || latest_seq != self.drawn_seq
            || self.egui_at.is_some_and(|t| t <= now)
    }

    /// When to wake up and look again if nothing is due.
    pub fn next_check(&self, now: Instant) -> Instant {
        let poll = now + Self::POLL;
        self.egui_at.map_or(poll, |t| t.min(poll))
    }
}
