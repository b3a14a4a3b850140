//! How large the viewer draws its 3-D view (`app::frame::SceneDraw::set_scale`): a fixed fraction of the window, or one that follows
//! the frame's cost (*auto*), so that a software rasteriser keeps the frame rate up by drawing
//! fewer pixels and a real GPU draws every pixel.

/// The smallest render scale: a quarter of the pixels.
pub(crate) const MIN_RENDER_SCALE: f32 = 0.5;

/// The smallest scale *auto* chooses: below it the stretched view looks soft, so a machine too
/// slow for its frame budget there gets fewer frames rather than a blurrier view. A fixed scale
/// may still go down to [`MIN_RENDER_SCALE`].
pub(crate) const AUTO_MIN_RENDER_SCALE: f32 = 0.75;

/// What the user chose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScaleMode {
    /// Follow the frame's cost ([`RenderScale::observe`]).
    Auto,
    /// This fraction of the window's width and height, [`MIN_RENDER_SCALE`]..=1.
    Fixed(f32),
}

impl ScaleMode {
    /// Parses `auto` or a fraction (`0.75`) or a percentage (`75%`) within
    /// [`MIN_RENDER_SCALE`]..=1, for `--render-scale`.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("auto") {
            return Ok(Self::Auto);
        }
        let (number, divisor) = match text.strip_suffix('%') {
            Some(n) => (n.trim(), 100.0),
            None => (text, 1.0),
        };
        let value = number
            .parse::<f32>()
            .ok()
            .map(|v| v / divisor)
            .filter(|v| (MIN_RENDER_SCALE..=1.0).contains(v));
        value.map(Self::Fixed).ok_or_else(|| {
            format!(
                "expected `auto` or a scale from {MIN_RENDER_SCALE} to 1 (or {:.0}% to 100%), got `{text}`",
                MIN_RENDER_SCALE * 100.0
            )
        })
    }
}

/// The scale the view is drawn at, and in *auto* mode the recent frames it is chosen from.
#[derive(Debug, Clone)]
pub(crate) struct RenderScale {
    mode: ScaleMode,
    scale: f32,
    recent: Vec<f64>,
    /// When the last drawn frame began, and whether it counts ([`Self::interval`]).
    previous: Option<(web_time::Instant, bool)>,
    /// Frames observed in *auto* mode.
    frames: u64,
    /// For each of [`RenderScale::AUTO_LEVELS`], the frame at which it was last found over the
    /// budget.
    over_at: [Option<u64>; 4],
}

impl RenderScale {
    /// The frame time *auto* aims below, ms: 45 frames a second leaves room under the viewer's
    /// 40 fps aim for a busy machine.
    pub(crate) const BUDGET_MS: f64 = 1000.0 / 45.0;
    /// *Auto* steps up to a scale it has not tried only while frames take less than this
    /// fraction of the budget: a step up costs more fragments, (1 / 0.9)² − 1 ≈ 23 % more from
    /// 0.9 to 1.
    pub(crate) const RAISE_BELOW: f64 = 0.9;
    /// A scale found over the budget is not tried again for this many frames (about 6 s), so
    /// *auto* settles one step below it instead of going up and down; after that it tries
    /// again, in case the machine got less busy.
    pub(crate) const RETRY_FRAMES: u64 = 300;
    /// The scales *auto* chooses from, lowest first: one step is the next of them.
    pub(crate) const AUTO_LEVELS: [f32; 4] = [AUTO_MIN_RENDER_SCALE, 0.8, 0.9, 1.0];
    /// Frames per decision: their median is compared with the budget.
    pub(crate) const WINDOW: usize = 15;
    /// Frames not counted after *auto* starts: the first frames build pipelines, lay out the
    /// panels for the first time and upload the font atlas, and say nothing about the rest.
    pub(crate) const WARMUP_FRAMES: u64 = 30;

    pub(crate) fn new(mode: ScaleMode) -> Self {
        let mut s = Self {
            mode,
            scale: 1.0,
            recent: Vec::with_capacity(Self::WINDOW),
            previous: None,
            frames: 0,
            over_at: [None; 4],
        };
        s.set_mode(mode);
        s
    }

    pub(crate) fn mode(&self) -> ScaleMode {
        self.mode
    }

    /// The fraction of the window's width and height to draw at now.
    pub(crate) fn scale(&self) -> f32 {
        self.scale
    }

    /// A fixed mode takes effect at once; *auto* starts again from the current scale, with
    /// nothing remembered.
    pub(crate) fn set_mode(&mut self, mode: ScaleMode) {
        self.mode = mode;
        self.recent.clear();
        self.over_at = [None; 4];
        self.frames = 0;
        match mode {
            ScaleMode::Fixed(s) => {
                self.scale = if s.is_finite() {
                    s.clamp(MIN_RENDER_SCALE, 1.0)
                } else {
                    1.0
                };
            }
            ScaleMode::Auto => self.scale = Self::AUTO_LEVELS[self.level()],
        }
    }

    /// The index of the highest of [`Self::AUTO_LEVELS`] at or below the scale (the lowest when
    /// the scale is below them all).
    fn level(&self) -> usize {
        Self::AUTO_LEVELS
            .iter()
            .rposition(|&l| l <= self.scale + 1e-6)
            .unwrap_or(0)
    }

    /// The longest gap between two frames [`Self::interval`] counts as one frame's cost, s: a
    /// longer one is the viewer waiting for something to draw, not drawing.
    pub(crate) const LONGEST_INTERVAL_S: f64 = 1.0;

    /// A frame's cost where the work it hands on is done after it returns (a page: the
    /// browser's GPU process draws it between animation frames, so the page's own part of a
    /// frame says nothing of the rasteriser's): the time from the previous frame's start to
    /// this one's `started`, ms, when the previous frame `counts` too and began at most
    /// [`Self::LONGEST_INTERVAL_S`] before. Remembers this frame for the next call.
    pub(crate) fn interval(&mut self, started: web_time::Instant, counts: bool) -> Option<f64> {
        let cost = self.previous.and_then(|(at, counted)| {
            let gap = started.checked_duration_since(at)?.as_secs_f64();
            (counted && gap <= Self::LONGEST_INTERVAL_S).then_some(gap * 1e3)
        });
        self.previous = Some((started, counts));
        cost
    }

    /// One drawn frame's cost in ms (its work from the start of the frame to the image handed
    /// to the display, waiting for a free swapchain image not counted). In *auto* mode, every
    /// [`Self::WINDOW`] frames the median decides: over [`Self::BUDGET_MS`], one step down
    /// (to [`AUTO_MIN_RENDER_SCALE`] at the least); under it, one step up (to 1 at the most) if the
    /// scale above was never found over the budget and the median is under
    /// [`Self::RAISE_BELOW`] of it, or if it was found over the budget at least
    /// [`Self::RETRY_FRAMES`] frames ago. Returns the new scale when it changed.
    pub(crate) fn observe(&mut self, frame_ms: f64) -> Option<f32> {
        if self.mode != ScaleMode::Auto || !frame_ms.is_finite() || frame_ms < 0.0 {
            return None;
        }
        self.frames += 1;
        if self.frames <= Self::WARMUP_FRAMES {
            return None;
        }
        self.recent.push(frame_ms);
        if self.recent.len() < Self::WINDOW {
            return None;
        }
        self.recent.sort_by(f64::total_cmp);
        let median = self.recent[Self::WINDOW / 2];
        self.recent.clear();
        let level = self.level();
        let top = Self::AUTO_LEVELS.len() - 1;
        let next = if median > Self::BUDGET_MS {
            self.over_at[level] = Some(self.frames);
            level.saturating_sub(1)
        } else if median < Self::BUDGET_MS {
            // A scale never found slow needs headroom; one found slow long ago is tried again.
            let up = (level + 1).min(top);
            let allowed = match self.over_at[up] {
                None => median < Self::RAISE_BELOW * Self::BUDGET_MS,
                Some(at) => self.frames - at >= Self::RETRY_FRAMES,
            };
            if allowed { up } else { level }
        } else {
            level
        };
        let before = self.scale;
        self.scale = Self::AUTO_LEVELS[next];
        (self.scale != before).then_some(self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::{RenderScale, ScaleMode};

    /// Feeds `n` frames of `ms` each; the scale after each change.
    fn feed(s: &mut RenderScale, ms: f64, n: usize) -> Vec<f32> {
        (0..n).filter_map(|_| s.observe(ms)).collect()
    }

    /// *Auto* from `start`, past its warm-up (30 frames of any cost, not counted).
    fn auto_from(start: f32) -> RenderScale {
        let mut s = RenderScale::new(ScaleMode::Fixed(start));
        s.set_mode(ScaleMode::Auto);
        assert!(feed(&mut s, 1000.0, 30).is_empty());
        s
    }

    #[test]
    fn an_interval_is_the_time_between_two_counted_frames_within_a_second() {
        use web_time::{Duration, Instant};
        let mut s = RenderScale::new(ScaleMode::Auto);
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // The first frame has nothing before it.
        assert_eq!(s.interval(at(0), true), None);
        assert_eq!(s.interval(at(130), true), Some(130.0));
        // A frame that does not count is measured, but the next is not measured from it.
        assert_eq!(s.interval(at(300), false), Some(170.0));
        assert_eq!(s.interval(at(400), true), None);
        // A gap over a second is the viewer idling; exactly a second still counts.
        assert_eq!(s.interval(at(1401), true), None);
        assert_eq!(s.interval(at(2401), true), Some(1000.0));
        // A clock that went backwards measures nothing.
        assert_eq!(s.interval(at(2000), true), None);
    }

    #[test]
    fn slow_frames_step_down_a_tenth_per_window_to_the_minimum() {
        let mut s = RenderScale::new(ScaleMode::Auto);
        assert!((s.scale() - 1.0).abs() < f32::EPSILON);
        // The first 30 frames are not counted, however slow.
        assert!(feed(&mut s, 1000.0, 30).is_empty());
        // 14 frames decide nothing; the 15th, over the 22.2 ms budget, steps down.
        assert!(feed(&mut s, 30.0, 14).is_empty());
        assert_eq!(s.observe(30.0), Some(0.9));
        // Then one step per 15 frames: 0.8, then 0.75, *auto*'s lowest, and no lower.
        assert_eq!(feed(&mut s, 30.0, 15 * 6), vec![0.8, 0.75]);
        assert!((s.scale() - 0.75).abs() < f32::EPSILON);
    }

    #[test]
    fn fast_frames_step_up_to_one_and_the_band_between_holds() {
        let mut s = auto_from(0.75);
        // 21 ms: under the 22.2 ms budget, over 0.9 of it (20 ms): stays.
        assert!(feed(&mut s, 21.0, 60).is_empty());
        assert!((s.scale() - 0.75).abs() < f32::EPSILON);
        // 19 ms: up a step per window, to 1 and no higher.
        assert_eq!(feed(&mut s, 19.0, 15 * 6), vec![0.8, 0.9, 1.0]);
    }

    #[test]
    fn a_scale_found_too_slow_is_tried_again_only_after_a_while() {
        let mut s = auto_from(1.0);
        // 1.0 is over the budget (at frame 15 after the warm-up): down to 0.9, where frames are quick.
        assert_eq!(feed(&mut s, 25.0, 15), vec![0.9]);
        // 0.9 holds until 300 frames after 1.0 was found slow (frame 15): windows end at
        // frames 30, 45, …; the first at least 300 frames later is frame 315.
        let mut changed_at = None;
        for frame in 16..=400u64 {
            if s.observe(15.0).is_some() {
                changed_at = Some(frame);
                break;
            }
        }
        assert_eq!(changed_at, Some(315));
        assert!((s.scale() - 1.0).abs() < f32::EPSILON);
        // The retry needs no headroom: 1.0 slow again (frame 330), 0.9 at 21 ms, within the
        // budget but over 0.9 of it, is left for 1.0 again 300 frames later (frame 630).
        assert_eq!(feed(&mut s, 25.0, 15), vec![0.9]);
        let mut changed_at = None;
        for frame in 331..=700u64 {
            if s.observe(21.0).is_some() {
                changed_at = Some(frame);
                break;
            }
        }
        assert_eq!(changed_at, Some(630));
        // Lower scales never found slow go up at once: from 0.75, one step per window.
        let mut s = auto_from(0.75);
        assert_eq!(feed(&mut s, 15.0, 30), vec![0.8, 0.9]);
    }

    #[test]
    fn auto_starts_from_the_nearest_of_its_levels_at_or_below_the_scale_and_never_below_three_quarters()
     {
        // From a fixed half scale, auto starts at its lowest, 0.75: the view is never softer.
        let mut s = RenderScale::new(ScaleMode::Fixed(0.5));
        s.set_mode(ScaleMode::Auto);
        assert!((s.scale() - 0.75).abs() < f32::EPSILON);
        // From 0.85, the level below it, 0.8; from 0.95, 0.9; from 1, 1.
        for (fixed, auto) in [(0.85, 0.8), (0.95, 0.9), (1.0, 1.0), (0.8, 0.8)] {
            let mut s = RenderScale::new(ScaleMode::Fixed(fixed));
            s.set_mode(ScaleMode::Auto);
            assert!(
                (s.scale() - auto).abs() < f32::EPSILON,
                "{fixed} → {}",
                s.scale()
            );
        }
        // However slow the frames, 0.75 holds.
        let mut s = auto_from(0.75);
        assert!(feed(&mut s, 1000.0, 150).is_empty());
        assert!((s.scale() - 0.75).abs() < f32::EPSILON);
    }

    #[test]
    fn the_median_decides_so_a_few_slow_frames_do_not() {
        let mut s = auto_from(1.0);
        // 7 of 15 frames very slow, 8 at 20 ms: the median is 20 ms, within the budget.
        for i in 0..15 {
            assert_eq!(s.observe(if i % 2 == 0 { 20.0 } else { 500.0 }), None);
        }
        // 8 of 15 slow: the median is slow.
        for i in 0..14 {
            assert_eq!(s.observe(if i % 2 == 0 { 500.0 } else { 20.0 }), None);
        }
        assert_eq!(s.observe(500.0), Some(0.9));
    }

    #[test]
    fn a_fixed_scale_holds_and_bad_values_are_ignored() {
        let mut s = RenderScale::new(ScaleMode::Fixed(0.75));
        assert!(feed(&mut s, 100.0, 60).is_empty());
        assert!((s.scale() - 0.75).abs() < f32::EPSILON);
        s.set_mode(ScaleMode::Fixed(0.1));
        assert!((s.scale() - 0.5).abs() < f32::EPSILON);
        s.set_mode(ScaleMode::Fixed(f32::NAN));
        assert!((s.scale() - 1.0).abs() < f32::EPSILON);
        s.set_mode(ScaleMode::Auto);
        assert!(feed(&mut s, f64::NAN, 60).is_empty());
        assert!(feed(&mut s, -1.0, 60).is_empty());
    }

    #[test]
    fn the_command_line_takes_auto_fractions_and_percentages() {
        assert_eq!(ScaleMode::parse("auto"), Ok(ScaleMode::Auto));
        assert_eq!(ScaleMode::parse(" AUTO "), Ok(ScaleMode::Auto));
        assert_eq!(ScaleMode::parse("0.75"), Ok(ScaleMode::Fixed(0.75)));
        assert_eq!(ScaleMode::parse("75%"), Ok(ScaleMode::Fixed(0.75)));
        assert_eq!(ScaleMode::parse("1"), Ok(ScaleMode::Fixed(1.0)));
        assert_eq!(ScaleMode::parse("0.5"), Ok(ScaleMode::Fixed(0.5)));
        for bad in ["0.49", "1.01", "120%", "fast", "", "NaN", "inf"] {
            let e = ScaleMode::parse(bad).unwrap_err();
            assert!(e.contains("auto") && e.contains("0.5"), "{bad}: {e}");
        }
    }

    #[test]
    fn frames_that_are_not_a_time_do_not_count_and_a_zero_does() {
        let mut s = auto_from(1.0);
        assert!(feed(&mut s, 30.0, 14).is_empty());
        for bad in [f64::NAN, -1.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(s.observe(bad), None, "{bad} counted");
        }
        // The 15th real frame decides.
        assert_eq!(s.observe(30.0), Some(0.9));
        // A frame of no measurable time is a quick frame.
        let mut s = auto_from(0.75);
        assert_eq!(feed(&mut s, 0.0, 15), vec![0.8]);
    }

    #[test]
    fn the_thresholds_themselves_hold_the_scale() {
        // Exactly the budget is not over it: no step down.
        let mut s = auto_from(1.0);
        assert!(feed(&mut s, RenderScale::BUDGET_MS, 60).is_empty());
        // Exactly 0.9 of the budget is not under it: no step up to an untried scale.
        let mut s = auto_from(0.75);
        let edge = RenderScale::RAISE_BELOW * RenderScale::BUDGET_MS;
        assert!(feed(&mut s, edge, 60).is_empty());
        // A scale found slow long ago is tried again only under the budget, not at it.
        let mut s = auto_from(1.0);
        assert_eq!(feed(&mut s, 30.0, 15), vec![0.9]);
        assert!(feed(&mut s, RenderScale::BUDGET_MS, 600).is_empty());
        assert!((s.scale() - 0.9).abs() < f32::EPSILON);
    }
}
