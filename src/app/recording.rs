//! Lock-step recording of PNG sequences: the simulation is paused and stepped by the recorder,
//! so every frame is `steps_per_frame` steps after the one before whatever the display rate
//! (a 60 fps capture of a 1/60 s simulation is one frame per step, even at 5 fps on screen).

/// Which steps to capture and how many to ask for after each frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockStep {
    /// Frames captured so far.
    pub frames: u32,
    /// Simulation steps between two frames: `round(1 / (fps · dt))`, at least 1.
    pub steps_per_frame: u64,
    /// The step whose snapshot is captured next.
    pub next_step: u64,
}

impl LockStep {
    /// A recording at `fps` frames per simulated second of a simulation stepping `dt`, whose
    /// first frame is the snapshot of step `step`.
    pub fn new(fps: f64, dt: f64, step: u64) -> Self {
        let steps = (1.0 / (fps * dt)).round();
        Self {
            frames: 0,
            steps_per_frame: if steps.is_finite() && steps >= 1.0 {
                steps as u64
            } else {
                1
            },
            next_step: step,
        }
    }

    /// Whether the snapshot of `step` is the next frame: it has arrived and did not diverge
    /// (a diverged run keeps its last good state, which was captured already).
    pub fn due(&self, step: u64, diverged: bool) -> bool {
        step >= self.next_step && !diverged
    }

    /// The frame of `step` was saved: counts it and returns how many steps to ask for next.
    pub fn captured(&mut self, step: u64) -> u64 {
        self.frames += 1;
        self.next_step = step + self.steps_per_frame;
        self.steps_per_frame
    }
}
