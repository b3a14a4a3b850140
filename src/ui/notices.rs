//! Messages for the user where they look: a short-lived notice over the 3-D view and a log in
//! the panel's *Messages* section.
//!
//! Everything the viewer reports (a file saved or loaded, a screenshot that failed, a recording
//! stopped, a rejected command, a settings file that was ignored) is pushed here with the time it
//! happened. An info notice is shown over the view for [`INFO_SHOWN`] and then disappears; an
//! error stays until its × is clicked. The log keeps the last [`LOG_LEN`] of either kind.
//!
//! The viewer draws nothing while nothing changes, so a notice that times out asks egui for one
//! repaint at the moment it goes ([`egui::Context::request_repaint_after`]) rather than for a
//! frame every display refresh.

use std::collections::VecDeque;
use std::time::Duration;
use web_time::Instant;

use egui::{Color32, RichText, Ui};

/// How long an info notice stays over the view, s. Errors stay until dismissed.
pub const INFO_SHOWN: Duration = Duration::from_secs(4);
/// How many messages the log keeps (the oldest go first).
pub(crate) const LOG_LEN: usize = 50;
/// At most this many notices over the view at once (the newest); the log has them all.
pub(crate) const MAX_SHOWN: usize = 4;
/// An error notice's background (sRGB). Tests look for it in the window's pixels.
pub const ERROR_FILL: Color32 = Color32::from_rgb(168, 32, 44);
/// An info notice's background (sRGB).
pub const INFO_FILL: Color32 = Color32::from_rgb(36, 104, 64);

/// Whether a message reports a success or a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

/// One message.
#[derive(Debug, Clone)]
pub struct Notice {
    pub text: String,
    pub level: Level,
    /// When it was pushed.
    pub at: Instant,
    /// An error's × was clicked (it stays in the log).
    pub dismissed: bool,
}

/// The log, newest last, and the time the viewer started (the log shows times since then).
#[derive(Debug, Clone)]
pub struct Notices {
    log: VecDeque<Notice>,
    started: Instant,
}

impl Default for Notices {
    fn default() -> Self {
        Self {
            log: VecDeque::new(),
            started: Instant::now(),
        }
    }
}

impl Notices {
    /// A success or a piece of information, shown for [`INFO_SHOWN`].
    pub fn info(&mut self, text: impl Into<String>) {
        self.push(Level::Info, text.into(), Instant::now());
    }

    /// A failure, shown until dismissed.
    pub fn error(&mut self, text: impl Into<String>) {
        self.push(Level::Error, text.into(), Instant::now());
    }

    /// Adds a message taken at `at`, dropping the oldest past [`LOG_LEN`]. The same message
    /// as the newest one (a failure repeated every frame) only renews it.
    pub(crate) fn push(&mut self, level: Level, text: String, at: Instant) {
        if let Some(last) = self.log.back_mut()
            && last.level == level
            && last.text == text
        {
            last.at = at;
            last.dismissed = false;
            return;
        }
        self.log.push_back(Notice {
            text,
            level,
            at,
            dismissed: false,
        });
        while self.log.len() > LOG_LEN {
            self.log.pop_front();
        }
    }

    /// Every message kept, oldest first.
    pub(crate) fn log(&self) -> impl DoubleEndedIterator<Item = &Notice> + ExactSizeIterator {
        self.log.iter()
    }

    /// The newest message, if any.
    pub fn last(&self) -> Option<&Notice> {
        self.log.back()
    }

    /// Whether `notice` is over the view at `now`.
    fn is_shown(notice: &Notice, now: Instant) -> bool {
        match notice.level {
            Level::Error => !notice.dismissed,
            Level::Info => now.saturating_duration_since(notice.at) < INFO_SHOWN,
        }
    }

    /// The indices in the log of the notices over the view at `now`, oldest first, at most
    /// [`MAX_SHOWN`].
    pub(crate) fn shown(&self, now: Instant) -> Vec<usize> {
        let mut shown: Vec<usize> = (0..self.log.len())
            .rev()
            .filter(|&i| Self::is_shown(&self.log[i], now))
            .take(MAX_SHOWN)
            .collect();
        shown.reverse();
        shown
    }

    /// How long until the view must be drawn again to take a timed-out notice away (`None`:
    /// no info notice is shown).
    pub(crate) fn next_change(&self, now: Instant) -> Option<Duration> {
        self.shown(now)
            .into_iter()
            .filter(|&i| self.log[i].level == Level::Info)
            .map(|i| (self.log[i].at + INFO_SHOWN).saturating_duration_since(now))
            .min()
    }

    /// Takes the error at `index` in the log off the view.
    pub(crate) fn dismiss(&mut self, index: usize) {
        if let Some(n) = self.log.get_mut(index) {
            n.dismissed = true;
        }
    }

    /// `m:ss` since the viewer started, for the log.
    fn clock(&self, at: Instant) -> String {
        let s = at.saturating_duration_since(self.started).as_secs();
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// `error` and its sources, each once: `cannot create directory screenshots: File exists`.
pub(crate) fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = e.source();
    }
    text
}

/// Draws the notices shown at `now` over `area` (the part of the window the panels leave to the
/// 3-D view), centred at its top, and asks for one repaint when the next one times out.
pub(crate) fn overlay(ctx: &egui::Context, area: egui::Rect, notices: &mut Notices, now: Instant) {
    let shown = notices.shown(now);
    if let Some(wait) = notices.next_change(now) {
        ctx.request_repaint_after(wait);
    }
    if shown.is_empty() || area.width() < 40.0 {
        return;
    }
    let width = (area.width() - 24.0).clamp(16.0, 560.0);
    let mut dismissed = None;
    egui::Area::new(egui::Id::unique("notices"))
        .order(egui::Order::Foreground)
        // Shown at once: a fade would draw a frame per display refresh while it runs.
        .fade_in(false)
        .fixed_pos(area.center_top() + egui::vec2(0.0, 10.0))
        .pivot(egui::Align2::CENTER_TOP)
        .constrain_to(area)
        .show(ctx, |ui| {
            ui.set_max_width(width);
            for i in shown {
                let n = &notices.log[i];
                let fill = match n.level {
                    Level::Error => ERROR_FILL,
                    Level::Info => INFO_FILL,
                };
                egui::Frame::new()
                    .fill(fill)
                    .corner_radius(4.0)
                    .inner_margin(egui::Margin::symmetric(10, 6))
                    .show(ui, |ui| {
                        ui.set_width(width - 20.0);
                        ui.horizontal(|ui| {
                            if n.level == Level::Error
                                && ui
                                    .add(
                                        egui::Button::new(RichText::new("×").color(Color32::WHITE))
                                            .frame(false),
                                    )
                                    .on_hover_text("Dismiss (it stays under Messages)")
                                    .clicked()
                            {
                                dismissed = Some(i);
                            }
                            ui.add(
                                egui::Label::new(RichText::new(&n.text).color(Color32::WHITE))
                                    .wrap(),
                            );
                        });
                    });
                ui.add_space(4.0);
            }
        });
    if let Some(i) = dismissed {
        notices.dismiss(i);
    }
}

/// The *Messages* section: every message kept, newest first, with its time since the start
/// and a button that copies it to the clipboard.
pub(crate) fn log_ui(ui: &mut Ui, notices: &Notices) {
    if notices.log.is_empty() {
        ui.label(RichText::new("Nothing yet.").weak());
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("messages")
        .max_height(180.0)
        .show(ui, |ui| {
            for n in notices.log.iter().rev() {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(notices.clock(n.at)).monospace().weak());
                    if ui
                        .small_button("copy")
                        .on_hover_text("Copy this message to the clipboard")
                        .clicked()
                    {
                        ui.ctx().copy_text(n.text.clone());
                    }
                    let color = match n.level {
                        Level::Error => Color32::from_rgb(230, 90, 80),
                        Level::Info => ui.visuals().text_color(),
                    };
                    ui.add(egui::Label::new(RichText::new(&n.text).color(color)).wrap());
                });
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_info_notice_goes_after_its_time_and_an_error_stays_until_dismissed() {
        let mut n = Notices::default();
        let t = Instant::now();
        n.push(Level::Info, "saved".into(), t);
        n.push(Level::Error, "failed".into(), t);
        assert_eq!(n.shown(t), [0, 1]);
        assert_eq!(n.next_change(t), Some(INFO_SHOWN));
        let later = t + INFO_SHOWN;
        assert_eq!(n.shown(later), [1]);
        // Only the error is left: nothing to time out, no repaint to ask for.
        assert_eq!(n.next_change(later), None);
        assert_eq!(n.shown(t + Duration::from_hours(1)), [1]);
        n.dismiss(1);
        assert!(n.shown(later).is_empty());
        // Both stay in the log.
        assert_eq!(n.log().len(), 2);
    }

    #[test]
    fn a_repeated_message_renews_the_newest_instead_of_filling_the_log() {
        let mut n = Notices::default();
        let t = Instant::now();
        n.push(Level::Error, "drawing failed".into(), t);
        n.dismiss(0);
        n.push(Level::Error, "drawing failed".into(), t + INFO_SHOWN);
        assert_eq!(n.log().len(), 1);
        assert_eq!(n.shown(t), [0]);
        n.push(Level::Info, "drawing failed".into(), t);
        assert_eq!(n.log().len(), 2);
    }

    #[test]
    fn an_error_is_described_with_its_causes_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot create directory screenshots")]
        struct Outer(#[source] std::io::Error);
        let e = Outer(std::io::Error::other("File exists"));
        assert_eq!(
            describe(&e),
            "cannot create directory screenshots: File exists"
        );
    }

    #[test]
    fn the_repaint_is_asked_for_when_the_soonest_notice_goes() {
        let mut n = Notices::default();
        let t = Instant::now();
        n.push(Level::Info, "a".into(), t);
        n.push(Level::Info, "b".into(), t + Duration::from_secs(1));
        let now = t + Duration::from_secs(2);
        assert_eq!(
            n.next_change(now),
            INFO_SHOWN.checked_sub(Duration::from_secs(2))
        );
    }

    #[test]
    fn the_log_keeps_the_last_fifty_and_the_view_the_newest_few() {
        let mut n = Notices::default();
        let t = Instant::now();
        for k in 0..LOG_LEN + 7 {
            n.push(Level::Error, format!("e{k}"), t);
        }
        assert_eq!(n.log().len(), LOG_LEN);
        assert_eq!(n.log().next().map(|x| x.text.as_str()), Some("e7"));
        let shown = n.shown(t);
        assert_eq!(shown.len(), MAX_SHOWN);
        assert_eq!(
            n.log[shown[MAX_SHOWN - 1]].text,
            format!("e{}", LOG_LEN + 6)
        );
    }
}
