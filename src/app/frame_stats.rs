//! Rolling frame-time statistics for the fps label and the timing panel.
//!
//! [`FrameStats`] keeps the durations of the last `capacity` frames in a ring. The mean gives
//! the frame rate actually delivered; the median is robust against the odd stall (a shader
//! compile, a resize) and is what the eye perceives as the typical frame. These are wall-clock
//! display timings only; the simulation's time step never comes from here.

use std::collections::VecDeque;
use std::time::Duration;
use web_time::Instant;

/// Number of frames [`FrameStats::default`] averages over (two seconds at 60 fps).
pub(crate) const DEFAULT_WINDOW: usize = 120;

/// Rolling statistics over the most recent frame times.
#[derive(Clone, Debug)]
pub(crate) struct FrameStats {
    frame_times: VecDeque<Duration>,
    capacity: usize,
    last_tick: Option<Instant>,
    total_frames: u64,
}

/// A snapshot of [`FrameStats`] for display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FrameSummary {
    /// Mean frame time over the window.
    pub mean: Duration,
    /// Median frame time over the window.
    pub median: Duration,
    /// Shortest frame time in the window.
    pub min: Duration,
    /// Longest frame time in the window.
    pub max: Duration,
    /// Frames per second from the mean frame time (frames delivered per second).
    pub fps: f64,
    /// Number of frame times the summary is based on.
    pub samples: usize,
}

impl Default for FrameStats {
    fn default() -> Self {
        Self::new(DEFAULT_WINDOW)
    }
}

impl FrameStats {
    /// The most recent frame time.
    #[cfg(test)]
    pub(crate) fn last(&self) -> Option<Duration> {
        self.frame_times.back().copied()
    }

    /// Frames recorded since creation, including those that left the window.
    #[cfg(test)]
    pub(crate) fn total_frames(&self) -> u64 {
        self.total_frames
    }

    /// Whether no frame time has been recorded yet.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.frame_times.is_empty()
    }

    /// Statistics over the last `capacity` frames (at least one).
    pub(crate) fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            frame_times: VecDeque::with_capacity(capacity),
            capacity,
            last_tick: None,
            total_frames: 0,
        }
    }

    /// Marks the start of a frame at `now`; the time since the previous tick is recorded as one
    /// frame time. The first tick only starts the clock.
    pub(crate) fn tick(&mut self, now: Instant) {
        if let Some(last) = self.last_tick.replace(now) {
            self.record(now.saturating_duration_since(last));
        }
    }

    /// Records one frame time directly.
    pub(crate) fn record(&mut self, frame_time: Duration) {
        if self.frame_times.len() == self.capacity {
            self.frame_times.pop_front();
        }
        self.frame_times.push_back(frame_time);
        self.total_frames += 1;
    }

    /// Forgets the recorded frames and the last tick (e.g. after the window was minimised, so
    /// the pause does not count as one long frame).
    pub(crate) fn reset(&mut self) {
        self.frame_times.clear();
        self.last_tick = None;
    }

    /// Number of frame times currently in the window.
    pub(crate) fn len(&self) -> usize {
        self.frame_times.len()
    }

    /// Mean frame time over the window.
    pub(crate) fn mean(&self) -> Option<Duration> {
        let n = u32::try_from(self.frame_times.len())
            .ok()
            .filter(|&n| n > 0)?;
        Some(self.frame_times.iter().sum::<Duration>() / n)
    }

    /// Median frame time over the window (mean of the two middle values for an even count).
    pub(crate) fn median(&self) -> Option<Duration> {
        let mut sorted: Vec<Duration> = self.frame_times.iter().copied().collect();
        sorted.sort_unstable();
        let n = sorted.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(sorted[n / 2]),
            _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
        }
    }

    /// Frames per second from the mean frame time; `None` without frames or if they took no
    /// measurable time.
    pub(crate) fn fps(&self) -> Option<f64> {
        let mean = self.mean()?.as_secs_f64();
        (mean > 0.0).then(|| 1.0 / mean)
    }

    /// `--exit-after-frames`' last line: `frames` drawn at `[w, h]`, their median time and
    /// rate, the render scale (and whether it is *auto*) and the simulation's step rate.
    pub(crate) fn report(
        &self,
        frames: u64,
        [w, h]: [u32; 2],
        scale: f32,
        auto: bool,
        steps_per_second: f64,
        repainted: u64,
    ) -> Option<String> {
        let s = self.summary()?;
        Some(format!(
            "flagsim: {frames} frames at {w}×{h}: median {:.2} ms ({:.1} fps), render scale {:.0} % ({}), simulation {steps_per_second:.0} steps/s, panels painted anew in {repainted} frames",
            s.median.as_secs_f64() * 1e3,
            s.fps,
            scale * 100.0,
            if auto { "auto" } else { "fixed" },
        ))
    }

    /// Everything at once, for display.
    pub(crate) fn summary(&self) -> Option<FrameSummary> {
        Some(FrameSummary {
            mean: self.mean()?,
            median: self.median()?,
            min: self.frame_times.iter().copied().min()?,
            max: self.frame_times.iter().copied().max()?,
            fps: self.fps().unwrap_or(0.0),
            samples: self.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn empty_stats_report_nothing() {
        let stats = FrameStats::new(4);
        assert!(stats.is_empty());
        assert_eq!(stats.mean(), None);
        assert_eq!(stats.median(), None);
        assert_eq!(stats.fps(), None);
        assert_eq!(stats.summary(), None);
    }

    #[test]
    fn the_exit_line_gives_the_median_the_rate_and_the_repaints() {
        let mut stats = FrameStats::new(8);
        assert_eq!(stats.report(3, [1280, 800], 0.75, true, 60.0, 2), None);
        for t in [20, 30, 50] {
            stats.record(ms(t));
        }
        // Median 30 ms; mean 100/3 ms, so 30 frames a second delivered.
        assert_eq!(
            stats.report(3, [1280, 800], 0.75, true, 60.0, 2).as_deref(),
            Some(
                "flagsim: 3 frames at 1280×800: median 30.00 ms (30.0 fps), render scale 75 % \
                 (auto), simulation 60 steps/s, panels painted anew in 2 frames"
            )
        );
    }

    #[test]
    fn mean_and_fps_match_hand_computation() {
        let mut stats = FrameStats::new(8);
        for t in [10, 20, 30, 40] {
            stats.record(ms(t));
        }
        assert_eq!(stats.mean(), Some(ms(25)));
        let fps = stats.fps().unwrap();
        assert!((fps - 40.0).abs() < 1e-9, "fps = {fps}");
    }

    #[test]
    fn median_ignores_a_single_stall() {
        let mut stats = FrameStats::new(8);
        for t in [16, 17, 16, 500, 17] {
            stats.record(ms(t));
        }
        assert_eq!(stats.median(), Some(ms(17)));
        assert!(stats.mean().unwrap() > ms(100));
    }

    #[test]
    fn median_of_even_count_is_mean_of_middle_pair() {
        let mut stats = FrameStats::new(8);
        for t in [40, 10, 30, 20] {
            stats.record(ms(t));
        }
        assert_eq!(stats.median(), Some(ms(25)));
    }

    #[test]
    fn window_keeps_only_the_last_n_frames() {
        let mut stats = FrameStats::new(3);
        for t in [1000, 1000, 10, 20, 30] {
            stats.record(ms(t));
        }
        assert_eq!(stats.len(), 3);
        assert_eq!(stats.total_frames(), 5);
        assert_eq!(stats.mean(), Some(ms(20)));
        assert_eq!(stats.last(), Some(ms(30)));
        let summary = stats.summary().unwrap();
        assert_eq!(
            (summary.min, summary.max, summary.samples),
            (ms(10), ms(30), 3)
        );
    }

    #[test]
    fn tick_records_intervals_between_ticks_and_reset_restarts_the_clock() {
        let mut stats = FrameStats::new(8);
        let t0 = Instant::now();
        stats.tick(t0);
        assert!(stats.is_empty(), "first tick only starts the clock");
        stats.tick(t0 + ms(16));
        stats.tick(t0 + ms(36));
        assert_eq!(stats.len(), 2);
        assert_eq!(stats.mean(), Some(ms(18)));
        stats.reset();
        stats.tick(t0 + ms(5000));
        assert!(stats.is_empty(), "the pause before reset is not a frame");
    }

    #[test]
    fn zero_capacity_is_treated_as_one() {
        let mut stats = FrameStats::new(0);
        stats.record(ms(5));
        stats.record(ms(7));
        assert_eq!(stats.len(), 1);
        assert_eq!(stats.mean(), Some(ms(7)));
    }
}
