//! The integrator lab in the viewer: which copy the mouse works on, and the label over each
//! copy's cell.
//!
//! The renderer draws copy `i` in cell `i` of the 3-D view ([`lab_cells`]), each seen by the
//! same camera. A drag belongs to the cell it started in: its cursor positions are taken
//! relative to that cell and its commands go to that copy ([`Command::Copy`]).

use egui::{Color32, RichText};
use glam::Vec2;

use super::controls::{Controls, Input};
use crate::render::{PixelRect, lab_cells, lab_zoom};
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::ui::UiAction;
use crate::ui::plots::colour;

/// Routes the mouse to the lab's copies.
#[derive(Debug, Default)]
pub(crate) struct LabPointer {
    /// The cells in window pixels, copy 0 first (empty outside the lab).
    cells: Vec<PixelRect>,
    /// The copy the mouse works on: the cell of the last press, or the last cell moved over.
    copy: usize,
    /// The size of the area the cells divide, pixels.
    area: [u32; 2],
}

impl LabPointer {
    /// The cells of `n` copies in `area` (window pixels; `None`: the whole `size`). One
    /// cloth has one cell, the whole area: the view the camera frames, beside the panels.
    pub(crate) fn set_area(&mut self, area: Option<PixelRect>, size: [u32; 2], n: usize) {
        self.cells.clear();
        if n == 0 {
            return;
        }
        let a = area.unwrap_or(PixelRect {
            x: 0,
            y: 0,
            width: size[0],
            height: size[1],
        });
        self.area = [a.width, a.height];
        let (lo, hi) = (
            [a.x as f32, a.y as f32],
            [(a.x + a.width) as f32, (a.y + a.height) as f32],
        );
        self.cells = lab_cells(lo, hi, n)
            .into_iter()
            .filter_map(|(lo, hi)| PixelRect::covering(lo, hi, 1.0, size))
            .collect();
    }

    /// How much farther the camera stands in the current cell than in the whole area the
    /// cells divide ([`lab_zoom`]); 1 outside the lab.
    pub(crate) fn zoom(&self) -> f32 {
        self.cells.get(self.copy).map_or(1.0, |c| {
            let area = [self.area[0] as f32, self.area[1] as f32];
            lab_zoom(area, [c.width as f32, c.height as f32])
        })
    }

    /// Which copy `input` is for, and the input as that copy's cell sees it (cursor positions
    /// relative to the cell, whose size becomes the controls' view size). Before any area is
    /// set: copy 0 and the input unchanged.
    pub(crate) fn route(&mut self, input: Input, controls: &mut Controls) -> (usize, Input) {
        if self.cells.is_empty() {
            return (0, input);
        }
        let input = match input {
            Input::CursorMoved(p) => {
                if !controls.dragging()
                    && let Some(i) = self.cells.iter().position(|c| contains(c, p))
                {
                    self.copy = i;
                }
                let c = self.cells[self.copy.min(self.cells.len() - 1)];
                Input::CursorMoved(p - Vec2::new(c.x as f32, c.y as f32))
            }
            other => other,
        };
        let c = self.cells[self.copy.min(self.cells.len() - 1)];
        controls.size = Vec2::new(c.width as f32, c.height as f32);
        (self.copy, input)
    }
}

fn contains(c: &PixelRect, p: Vec2) -> bool {
    p.x >= c.x as f32
        && p.y >= c.y as f32
        && p.x < (c.x + c.width) as f32
        && p.y < (c.y + c.height) as f32
}

pub(crate) use crate::ui::panels::lab::copy_of;

/// A command for copy `n` (unwrapped outside the lab).
pub(crate) fn for_copy(snap: &Snapshot, n: usize, cmd: Command) -> Command {
    if snap.lab.is_empty() {
        cmd
    } else {
        Command::Copy(n, Box::new(cmd))
    }
}

/// How a diverged copy goes on (the buttons of its label).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Resume {
    /// From a state kept before it failed, at the lab's time, with its `dt`.
    AsIs,
    /// The same with half its `dt` (not below the smallest `dt`).
    HalveDt,
    /// The same at this `dt` (the largest stable one found), s.
    AtDt(f64),
    /// From copy `k`'s state, keeping its integrator and `dt`.
    From(usize),
}

/// The commands that resume diverged copy `i` as `how` says.
pub(crate) fn resume_commands(snap: &Snapshot, i: usize, how: Resume) -> Vec<Command> {
    let to_copy = |cmd| Command::Copy(i, Box::new(cmd));
    match how {
        Resume::AsIs => vec![to_copy(Command::ClearDivergence)],
        Resume::HalveDt => {
            let dt =
                (copy_of(snap, i).params.dt * 0.5).max(crate::sim::format::params::spec::DT.min);
            vec![
                to_copy(Command::SetCopyDt(dt)),
                to_copy(Command::ClearDivergence),
            ]
        }
        Resume::AtDt(dt) => vec![
            to_copy(Command::SetCopyDt(dt)),
            to_copy(Command::ClearDivergence),
        ],
        Resume::From(k) => vec![to_copy(Command::TakeState(k))],
    }
}

/// The first copy other than `i` that has not diverged: the state a diverged copy can start
/// again from.
pub(crate) fn healthy_copy(snap: &Snapshot, i: usize) -> Option<usize> {
    (0..=snap.lab.len()).find(|&k| k != i && copy_of(snap, k).divergence.is_none())
}

/// The label over each copy's cell of `area` (egui points): its integrator in its colour,
/// step time and max strain; a diverged copy's says where and offers to resume it; every
/// label offers to give the other copies its state (*sync*).
///
/// `figures` holds each copy's step time and strain as last refreshed
/// ([`crate::ui::panels::lab::figures`]), `stable_dt` its largest stable and accurate `dt` where the *Lab* panel's
/// search found it.
pub(crate) fn labels(
    ctx: &egui::Context,
    area: egui::Rect,
    snap: &Snapshot,
    figures: &[String],
    stable_dt: &[crate::sim_thread::Found],
) -> Vec<UiAction> {
    let mut actions = Vec::new();
    let n = 1 + snap.lab.len();
    let cells = lab_cells(area.min.into(), area.max.into(), n);
    // A dark line where two cells meet.
    let painter = ctx.layer_painter(egui::LayerId::background());
    let stroke = egui::Stroke::new(2.0, Color32::from_gray(30));
    for (lo, hi) in &cells {
        if lo[0] > area.min.x + 1.0 {
            painter.vline(lo[0], lo[1]..=hi[1], stroke);
        }
        if lo[1] > area.min.y + 1.0 {
            painter.hline(lo[0]..=hi[0], lo[1], stroke);
        }
    }
    for (i, (lo, hi)) in cells.into_iter().enumerate() {
        let copy = copy_of(snap, i);
        egui::Area::new(egui::Id::unique(("lab label", i)))
            .fixed_pos(egui::pos2(lo[0] + 8.0, lo[1] + 6.0))
            .show(ctx, |ui| {
                // Within its own cell: what does not fit wraps rather than running over the
                // next cell's label.
                ui.set_max_width((hi[0] - lo[0] - 40.0).max(120.0));
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal_wrapped(|ui| {
                        let name = crate::ui::panels::lab::copy_name(snap, i);
                        let label = if copy.params.dt == snap.params.dt || i == 0 {
                            name
                        } else {
                            format!("{name} @ dt {:.4} s", copy.params.dt)
                        };
                        ui.label(RichText::new(label).color(colour(i)).strong());
                        if let Some(f) = figures.get(i) {
                            ui.label(f);
                        }
                        if ui
                            .small_button("sync")
                            .on_hover_text("Give the other copies this one's state")
                            .clicked()
                        {
                            actions.push(UiAction::Sim(Command::Sync(i)));
                        }
                    });
                    if let Some(text) = stable_dt
                        .get(i)
                        .and_then(crate::ui::panels::lab::found_text)
                    {
                        ui.label(text);
                    }
                    if let Some(d) = &copy.divergence {
                        let stable = stable_dt.get(i).and_then(|f| f.stable);
                        diverged_ui(ui, snap, i, d, stable, &mut actions);
                    }
                });
            });
    }
    actions
}

/// What a stopped copy's label says and offers: where it diverged and how it can go on; after
/// a resume that failed again at once, that in words, and only what can still work (an earlier
/// state while one is kept, a smaller `dt`, the largest stable `dt` where the search found one
/// below the copy's, another copy's state).
fn diverged_ui(
    ui: &mut egui::Ui,
    snap: &Snapshot,
    i: usize,
    d: &crate::sim::runtime::simulation::Divergence,
    stable: Option<f64>,
    actions: &mut Vec<UiAction>,
) {
    let copy = copy_of(snap, i);
    let red = Color32::from_rgb(235, 80, 60);
    let again = copy.resumed.filter(|r| r.failed_at_once(d));
    let text = match again {
        None => format!("diverged at step {} (t = {:.2} s)", d.step, d.time),
        Some(r) => format!(
            "diverged again {} steps after resuming from the state at t = {:.2} s: {} cannot go \
             on at dt {:.4} s",
            d.step - r.at_step,
            r.from_time,
            d.integrator.name(),
            copy.params.dt
        ),
    };
    ui.label(RichText::new(text).color(red))
        .on_hover_text(d.reason.as_str());
    if again.is_some_and(|r| r.earlier == 0) {
        ui.label("no earlier state is kept to go back to");
    }
    ui.horizontal_wrapped(|ui| {
        let mut how = None;
        let resume = match again {
            None => Some("resume"),
            Some(r) if r.earlier > 0 => Some("resume from an earlier state"),
            Some(_) => None,
        };
        if let Some(label) = resume
            && ui
                .small_button(label)
                .on_hover_text(
                    "Go back to a state kept before it failed (one every half second of lab \
                     time, the last two seconds) and go on from there at the lab's time",
                )
                .clicked()
        {
            how = Some(Resume::AsIs);
        }
        if ui.small_button("halve dt and resume").clicked() {
            how = Some(Resume::HalveDt);
        }
        if let Some(dt) = stable.filter(|&dt| dt > 0.0 && dt < copy.params.dt)
            && ui
                .small_button(format!("resume at the stable dt {dt:.4} s"))
                .on_hover_text("The largest stable dt the Lab panel's search found for it")
                .clicked()
        {
            how = Some(Resume::AtDt(dt));
        }
        if let Some(k) = healthy_copy(snap, i) {
            let name = copy_of(snap, k).params.integrator.name();
            if ui
                .small_button(format!("restart from {name}'s state"))
                .on_hover_text(
                    "Take that copy's positions and velocities, keeping this one's integrator \
                     and dt",
                )
                .clicked()
            {
                how = Some(Resume::From(k));
            }
        }
        if let Some(how) = how {
            let cmds = resume_commands(snap, i, how);
            actions.extend(cmds.into_iter().map(UiAction::Sim));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::OrbitCamera;
    use crate::sim::format::scene::Scene;
    use crate::sim::runtime::simulation::Divergence;

    /// A lab of three copies of the flag at these `dt`s, those marked diverged.
    fn lab_snapshot(dts: [f64; 3], diverged: [bool; 3]) -> Snapshot {
        let sim = Scene::load("flag").unwrap().simulation().unwrap();
        let copies: Vec<Snapshot> = (0..3)
            .map(|i| {
                let mut s = Snapshot::of(&sim);
                s.params.dt = dts[i];
                s.divergence = diverged[i].then(|| Divergence {
                    integrator: s.params.integrator,
                    step: 7,
                    time: 0.05,
                    reason: "a test".into(),
                });
                s
            })
            .collect();
        let mut snap = copies[0].clone();
        snap.lab = copies[1..].to_vec();
        snap
    }

    #[test]
    fn a_diverged_copy_resumes_as_is_with_half_its_dt_or_from_a_healthy_copy() {
        let snap = lab_snapshot([0.01, 0.008, 0.006], [false, true, false]);
        let cmds = resume_commands(&snap, 1, Resume::AsIs);
        assert!(
            matches!(&cmds[..], [Command::Copy(1, c)] if matches!(**c, Command::ClearDivergence))
        );
        // Half of copy 1's own dt, not of copy 0's.
        let cmds = resume_commands(&snap, 1, Resume::HalveDt);
        assert!(matches!(
            &cmds[..],
            [Command::Copy(1, a), Command::Copy(1, b)]
                if matches!(**a, Command::SetCopyDt(dt) if dt == 0.004)
                && matches!(**b, Command::ClearDivergence)
        ));
        let cmds = resume_commands(&snap, 1, Resume::From(2));
        assert!(matches!(&cmds[..], [Command::Copy(1, c)] if matches!(**c, Command::TakeState(2))));
        // Never below the smallest dt.
        let min = crate::sim::format::params::spec::DT.min;
        let snap = lab_snapshot([0.01, min * 1.5, 0.006], [false, true, false]);
        let cmds = resume_commands(&snap, 1, Resume::HalveDt);
        assert!(
            matches!(&cmds[0], Command::Copy(1, a) if matches!(**a, Command::SetCopyDt(dt) if dt == min))
        );
    }

    /// The texts of the labels over a 1200 × 800 area as accessibility reports them (buttons'
    /// labels and labels' values), and the actions of clicking nothing.
    fn label_texts(snap: &Snapshot, stable: &[crate::sim_thread::Found]) -> Vec<String> {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1200.0, 800.0),
            )),
            ..Default::default()
        };
        let area = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1200.0, 800.0));
        // An area is laid out unseen on its first frame: the second shows it.
        let mut update = None;
        for _ in 0..2 {
            let mut out = ctx.run_ui(input.clone(), |ui| {
                assert!(labels(ui.ctx(), area, snap, &[], stable).is_empty());
            });
            out.textures_delta.clear();
            update = out.platform_output.accesskit_update;
        }
        let update = update.expect("a tree");
        (update.nodes.iter())
            .filter_map(|(_, n)| n.label().or(n.value()).map(str::to_owned))
            .collect()
    }

    #[test]
    fn a_copy_that_failed_again_at_once_says_so_and_offers_only_what_can_work() {
        use crate::sim::runtime::snapshot::Resumed;
        let mut snap = lab_snapshot([1.0 / 60.0; 3], [false, true, false]);
        let texts = label_texts(&snap, &[]);
        let has = |texts: &[String], t: &str| texts.iter().any(|x| x == t);
        assert!(has(&texts, "diverged at step 7 (t = 0.05 s)"), "{texts:?}");
        assert!(has(&texts, "resume") && has(&texts, "halve dt and resume"));
        assert!(!texts.iter().any(|t| t.contains("stable dt")), "{texts:?}");
        // Resumed at step 4 from the state at 1/60 s, then step 7 failed again at once.
        let resumed = Resumed {
            from_time: 1.0 / 60.0,
            at_time: 0.04,
            at_step: 4,
            dt: 1.0 / 60.0,
            earlier: 0,
        };
        snap.lab[0].resumed = Some(resumed);
        let stable = [
            crate::sim_thread::Found::default(),
            crate::sim_thread::Found {
                stable: Some(0.002),
                ..Default::default()
            },
        ];
        let texts = label_texts(&snap, &stable);
        assert!(
            has(
                &texts,
                "diverged again 3 steps after resuming from the state at t = 0.02 s: \
                 implicit-mg cannot go on at dt 0.0167 s"
            ),
            "{texts:?}"
        );
        assert!(has(&texts, "no earlier state is kept to go back to"));
        assert!(!has(&texts, "resume") && !has(&texts, "resume from an earlier state"));
        assert!(has(&texts, "halve dt and resume"));
        assert!(has(&texts, "resume at the stable dt 0.0020 s"), "{texts:?}");
        assert!(has(&texts, "restart from implicit-mg's state"));
        // A stable dt of 0 (nothing stable down to 1e-4 s), or the copy's own: not offered.
        for dt in [0.0, 1.0 / 60.0] {
            let found = [
                crate::sim_thread::Found::default(),
                crate::sim_thread::Found {
                    stable: Some(dt),
                    ..Default::default()
                },
            ];
            let texts = label_texts(&snap, &found);
            assert!(
                !texts
                    .iter()
                    .any(|t| t.starts_with("resume at the stable dt")),
                "{dt}: {texts:?}"
            );
        }
        // With an earlier state kept, that is offered; a stable dt above the copy's is not.
        snap.lab[0].resumed = Some(Resumed {
            earlier: 2,
            ..resumed
        });
        snap.lab[0].params.dt = 0.001;
        let texts = label_texts(&snap, &stable);
        assert!(has(&texts, "resume from an earlier state"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("no earlier")));
        assert!(!texts.iter().any(|t| t.contains("stable dt 0.0020")));
        // A failure long after the resume is a new one.
        snap.lab[0].resumed = Some(Resumed {
            at_time: -2.0,
            ..resumed
        });
        let texts = label_texts(&snap, &stable);
        assert!(has(&texts, "diverged at step 7 (t = 0.05 s)"), "{texts:?}");
        assert!(has(&texts, "resume"));
    }

    #[test]
    fn the_healthy_copy_offered_is_the_first_other_one_that_runs() {
        let snap = lab_snapshot([0.01; 3], [false, true, false]);
        assert_eq!(healthy_copy(&snap, 1), Some(0));
        assert_eq!(
            healthy_copy(&snap, 0),
            Some(2),
            "not itself, not the diverged one"
        );
        let snap = lab_snapshot([0.01; 3], [true, true, false]);
        assert_eq!(healthy_copy(&snap, 0), Some(2));
        assert_eq!(healthy_copy(&snap, 1), Some(2));
        let snap = lab_snapshot([0.01; 3], [true, true, true]);
        assert_eq!((0..3).find_map(|i| healthy_copy(&snap, i)), None);
        let snap = lab_snapshot([0.01; 3], [false, true, true]);
        assert_eq!(healthy_copy(&snap, 0), None, "copy 0 has no healthy other");
        assert_eq!(healthy_copy(&snap, 2), Some(0));
    }

    fn pointer(n: usize) -> LabPointer {
        let mut p = LabPointer::default();
        // Panels take the left 400 pixels of a 1200 × 800 window.
        let area = PixelRect {
            x: 400,
            y: 0,
            width: 800,
            height: 800,
        };
        p.set_area(Some(area), [1200, 800], n);
        p
    }

    #[test]
    fn the_cursor_goes_to_the_cell_under_it_in_that_cells_coordinates() {
        let mut p = pointer(2);
        let mut controls = Controls::new(OrbitCamera::default(), Vec2::new(1200.0, 800.0));
        // Two cells of 400 × 800 from x = 400 and x = 800.
        let (copy, input) = p.route(Input::CursorMoved(Vec2::new(1000.0, 300.0)), &mut controls);
        assert_eq!(copy, 1);
        assert_eq!(input, Input::CursorMoved(Vec2::new(200.0, 300.0)));
        assert_eq!(controls.size, Vec2::new(400.0, 800.0));
        let (copy, input) = p.route(Input::CursorMoved(Vec2::new(450.0, 10.0)), &mut controls);
        assert_eq!(copy, 0);
        assert_eq!(input, Input::CursorMoved(Vec2::new(50.0, 10.0)));
        // A wheel turn goes to the copy last moved over, unchanged.
        assert_eq!(
            p.route(Input::Wheel(1.0), &mut controls),
            (0, Input::Wheel(1.0))
        );
    }

    #[test]
    fn four_copies_sit_in_a_two_by_two_grid_and_one_cloth_has_the_whole_free_area() {
        let mut p = pointer(4);
        let mut controls = Controls::new(OrbitCamera::default(), Vec2::new(1200.0, 800.0));
        let (copy, input) = p.route(Input::CursorMoved(Vec2::new(1100.0, 700.0)), &mut controls);
        assert_eq!(copy, 3);
        assert_eq!(input, Input::CursorMoved(Vec2::new(300.0, 300.0)));
        // One cloth: the 800 × 800 pixels right of the panels are its view, as the camera
        // frames them (the cursor relative to them, their size the controls').
        let mut single = pointer(1);
        let moved = Input::CursorMoved(Vec2::new(1100.0, 700.0));
        assert_eq!(
            single.route(moved, &mut controls),
            (0, Input::CursorMoved(Vec2::new(700.0, 700.0)))
        );
        assert_eq!(controls.size, Vec2::new(800.0, 800.0));
        assert_eq!(single.zoom(), 1.0);
        // No area yet: the input as it came.
        let mut unset = LabPointer::default();
        assert_eq!(unset.route(moved, &mut controls), (0, moved));
    }
}
