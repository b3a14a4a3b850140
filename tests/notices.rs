//! Messages appear where the user looks: over the 3-D view, not at the bottom of the side panel
//! (which at 1280 × 800 is scrolled out of sight). The viewer's own panel layout
//! (`app::frame::panels`) is run in a headless egui context and its shapes are read back: no
//! window or GPU is needed. `tests/viewer_smoke.rs` checks the same on a real window's pixels.

use std::time::Instant;

use egui::epaint::{ClippedShape, Shape};
use flagsim::app::frame::{panels, uncovered};
use flagsim::sim::Scene;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::ui::notices::{ERROR_FILL, INFO_FILL, INFO_SHOWN};
use flagsim::ui::{FrameInfo, UiState};

const SIZE: [u32; 2] = [1280, 800];

/// One frame of the viewer's panels: the rectangles filled with `fill`, the part of the window
/// left to the 3-D view, and how long egui asks to wait before the next frame.
fn frame(
    ctx: &egui::Context,
    state: &mut UiState,
    snap: &Snapshot,
    fill: egui::Color32,
) -> (Vec<egui::Rect>, egui::Rect, std::time::Duration) {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SIZE[0] as f32, SIZE[1] as f32),
        )),
        ..Default::default()
    };
    let mut view = None;
    let mut output = ctx.run_ui(input, |root| {
        let _ = panels(root, state, snap, &FrameInfo::default());
        view = uncovered(root, SIZE);
    });
    output.textures_delta.clear();
    let view = view.expect("the panels leave part of the window to the view");
    let view = egui::Rect::from_min_size(
        egui::pos2(view.x as f32, view.y as f32),
        egui::vec2(view.width as f32, view.height as f32),
    );
    let mut rects = Vec::new();
    fn collect(shape: &Shape, fill: egui::Color32, out: &mut Vec<egui::Rect>) {
        match shape {
            Shape::Rect(r) if r.fill == fill => out.push(r.rect),
            Shape::Vec(v) => v.iter().for_each(|s| collect(s, fill, out)),
            _ => {}
        }
    }
    for ClippedShape { shape, .. } in &output.shapes {
        collect(shape, fill, &mut rects);
    }
    let delay = output
        .viewport_output
        .values()
        .map(|v| v.repaint_delay)
        .min()
        .unwrap_or(std::time::Duration::MAX);
    (rects, view, delay)
}

fn setup() -> (egui::Context, UiState, Snapshot) {
    let scene = Scene::load("flag").unwrap();
    let snap = Snapshot::of(&scene.clone().simulation().unwrap());
    (egui::Context::default(), UiState::new(scene, 0.12), snap)
}

#[test]
fn a_failed_screenshot_is_shown_over_the_view_right_of_the_panel() {
    let (ctx, mut state, snap) = setup();
    state
        .notices
        .error("screenshot failed: cannot create directory screenshots");
    // egui lays an area out on its first frame and shows it from the second.
    frame(&ctx, &mut state, &snap, ERROR_FILL);
    let (rects, view, _) = frame(&ctx, &mut state, &snap, ERROR_FILL);
    assert!(
        view.min.x >= 200.0,
        "the side panel is on the left: {view:?}"
    );
    assert_eq!(rects.len(), 1, "one error notice drawn: {rects:?}");
    let notice = rects[0];
    assert!(
        view.contains_rect(notice),
        "the notice {notice:?} is not inside the view {view:?}"
    );
    // At the top of the view, where it is seen, and centred over it.
    assert!(notice.min.y < view.min.y + 60.0, "{notice:?}");
    assert!(
        (notice.center().x - view.center().x).abs() < 2.0,
        "{notice:?} in {view:?}"
    );
    // It stays: the error is still drawn much later, until dismissed.
    let (rects, _, _) = frame(&ctx, &mut state, &snap, ERROR_FILL);
    assert_eq!(rects.len(), 1);
}

#[test]
fn an_info_notice_asks_for_one_repaint_when_it_goes_and_then_none() {
    let (ctx, mut state, snap) = setup();
    // The first frames lay the panels out (egui asks for another frame at once); then it
    // waits for input.
    let settled = |ctx: &egui::Context, state: &mut UiState| {
        (0..10)
            .map(|_| frame(ctx, state, &snap, INFO_FILL).2)
            .find(|d| !d.is_zero())
    };
    let idle = settled(&ctx, &mut state);
    assert!(
        idle.is_none_or(|d| d > INFO_SHOWN),
        "without a notice egui waits for input, not {idle:?}"
    );
    state.notices.info("saved scene.json");
    let _ = settled(&ctx, &mut state);
    let started = Instant::now();
    let (rects, view, delay) = frame(&ctx, &mut state, &snap, INFO_FILL);
    assert_eq!(rects.len(), 1);
    assert!(view.contains_rect(rects[0]));
    // A repaint when it times out: not sooner than a frame away, not later than its time.
    assert!(
        delay <= INFO_SHOWN
            && delay + started.elapsed() + std::time::Duration::from_secs(1) > INFO_SHOWN,
        "repaint asked for in {delay:?} (idle: {idle:?})"
    );
}
