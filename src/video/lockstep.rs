//! Lock-step capture: frame `k` of a recording at `fps` frames per simulated second shows the
//! step nearest to `k / fps` simulated seconds after the first frame, whatever the display or the
//! encoder does. The viewer pauses the simulation and steps it itself; `render --video` steps its
//! own. Counting from the first frame (not adding a rounded step count per frame) keeps the clip's
//! time exact when `1 / (fps · dt)` is not a whole number: at 24 fps of a 1/60 s simulation the
//! frames are 2.5 steps apart on average, 3 and 2 in turn, never drifting.

/// The step, counted from the first frame's, that frame `k` shows: `round(k / (fps · dt))`
/// (half away from zero). With no valid rate (`fps · dt` zero or not finite) one step a frame.
pub fn step_of_frame(k: u32, fps: f64, dt: f64) -> u64 {
    let per_step = fps * dt;
    if per_step.is_finite() && per_step > 0.0 {
        (f64::from(k) / per_step).round() as u64
    } else {
        u64::from(k)
    }
}

/// Which steps to capture and how many to ask for after each frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LockStep {
    /// Frames captured so far.
    pub frames: u32,
    /// The step whose snapshot is captured next.
    pub next_step: u64,
    /// The first frame's step.
    start: u64,
    /// Frames per simulated second.
    fps: f64,
    /// The simulation's time step, s.
    dt: f64,
}

impl LockStep {
    /// A recording at `fps` frames per simulated second of a simulation stepping `dt`, whose
    /// first frame is the snapshot of step `step`.
    pub fn new(fps: f64, dt: f64, step: u64) -> Self {
        Self {
            frames: 0,
            next_step: step,
            start: step,
            fps,
            dt,
        }
    }

    /// Whether the snapshot of `step` is the next frame: it has arrived and did not diverge
    /// (a diverged run keeps its last good state, which was captured already).
    pub fn due(&self, step: u64, diverged: bool) -> bool {
        step >= self.next_step && !diverged
    }

    /// The frame of `step` was saved: counts it and returns how many steps to ask for before the
    /// next (0 when the next frame shows the same step, at a frame rate above the step rate).
    pub fn captured(&mut self, step: u64) -> u64 {
        self.frames += 1;
        self.next_step = self.start + step_of_frame(self.frames, self.fps, self.dt);
        self.next_step.saturating_sub(step)
    }
}
