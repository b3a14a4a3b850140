//! The viewer's end of the latest-wins snapshot slot: the newest snapshot it has taken, the one
//! before it, and the key positions to draw between the two.
//!
//! The simulation publishes at its own fixed rate and the display draws at another, so the
//! viewer draws the current snapshot's key nodes interpolated from the previous one's by the
//! wall time since the current one was published: a 60 Hz simulation looks smooth on a 144 Hz
//! display. Never across a reset or a scene load (a new generation), never while paused, and
//! never between cloths of different sizes. Each of several flags is interpolated alike.

use std::sync::Arc;
use web_time::Instant;

use crate::sim::runtime::snapshot::Snapshot;

/// The snapshots the viewer draws from.
#[derive(Debug, Clone)]
pub struct SnapshotFeed {
    /// The snapshot before `curr`, of the same generation.
    prev: Option<Arc<Snapshot>>,
    curr: Arc<Snapshot>,
}

impl SnapshotFeed {
    pub fn new(first: Arc<Snapshot>) -> Self {
        Self {
            prev: None,
            curr: first,
        }
    }

    /// The newest snapshot taken.
    pub fn current(&self) -> &Arc<Snapshot> {
        &self.curr
    }

    /// Takes `latest` (what the slot holds now) if it is not the current one; the current one
    /// becomes the previous one if it is of the same generation. Returns whether it took it.
    pub fn update(&mut self, latest: Arc<Snapshot>) -> bool {
        if latest.seq == self.curr.seq {
            return false;
        }
        let old = std::mem::replace(&mut self.curr, latest);
        self.prev = (old.generation == self.curr.generation).then_some(old);
        true
    }

    /// The snapshot to draw at `now`: the current one, with its key positions interpolated
    /// from the previous one's by `α = (now − published) / interval`, clamped to `0..=1`, where
    /// `interval = dt / time_scale` is the wall time between two published steps.
    pub fn display(&self, now: Instant) -> Snapshot {
        let mut snap = (*self.curr).clone();
        let Some(prev) = &self.prev else {
            return snap;
        };
        if snap.paused || prev.generation != snap.generation || prev.x.len() != snap.x.len() {
            return snap;
        }
        let interval = (snap.params.dt / snap.time_scale.max(1e-3)).max(1e-4);
        let since = now.saturating_duration_since(snap.published_at);
        let alpha = (since.as_secs_f64() / interval).clamp(0.0, 1.0);
        let lerp = |now: &mut Snapshot, before: &Snapshot| {
            if now.x.len() == before.x.len() {
                for (x, p) in now.x.iter_mut().zip(&before.x) {
                    *x = *p + (*x - *p) * alpha;
                }
            }
        };
        lerp(&mut snap, prev);
        if snap.flags.len() == prev.flags.len() {
            for (flag, before) in snap.flags.iter_mut().zip(&prev.flags) {
                lerp(flag, before);
            }
        }
        snap
    }
}
