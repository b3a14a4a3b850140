//! The only place wall-clock time becomes fixed simulation steps.
//!
//! The physics always advances by its own `dt` (from the parameters); the wall clock only decides
//! *how many* steps are due. When the machine cannot keep up, at most `max_steps_per_update` run
//! and the rest of the backlog is dropped (the simulation slows down instead of spiralling).

/// Turns elapsed wall time into a count of fixed steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedStepper {
    /// Wall time owed to the simulation, s (scaled by `time_scale`).
    accumulator: f64,
    /// Simulated seconds per wall second. Range 0.01..=10. Default 1.
    pub time_scale: f64,
    /// Cap on steps per update. Default 8.
    pub max_steps_per_update: u32,
    /// True when the last update had to drop backlog (the machine is too slow for real time).
    pub behind: bool,
}

impl Default for FixedStepper {
    fn default() -> Self {
        Self {
            accumulator: 0.0,
            time_scale: 1.0,
            max_steps_per_update: 8,
            behind: false,
        }
    }
}

impl FixedStepper {
    /// Adds `wall_seconds` of elapsed time and returns how many steps of `dt` are due.
    pub fn advance(&mut self, wall_seconds: f64, dt: f64) -> u32 {
        if !(wall_seconds.is_finite() && wall_seconds > 0.0 && dt > 0.0) {
            return 0;
        }
        self.accumulator += wall_seconds * self.time_scale;
        let due = (self.accumulator / dt).floor();
        let steps = due.min(self.max_steps_per_update as f64);
        self.accumulator -= steps * dt;
        self.behind = due > steps;
        if self.behind {
            self.accumulator = self.accumulator.min(dt);
        }
        steps as u32
    }

    /// Wall seconds until the next step is due.
    pub fn until_next(&self, dt: f64) -> f64 {
        ((dt - self.accumulator) / self.time_scale).max(0.0)
    }

    /// Forgets any backlog (after a pause or a reset).
    pub fn reset(&mut self) {
        self.accumulator = 0.0;
        self.behind = false;
    }
}
