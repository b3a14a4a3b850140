//! The viewer's cached egui layer (`EguiPainter::paint_cached`) gives the frame that painting the
//! panels straight onto it gives (`EguiPainter::paint`), both when it paints the layer anew and
//! when it only lays the last layer over a new frame. On a real adapter (lavapipe in CI): without
//! one the test prints `SKIPPED` and passes, except under `CI=true`, where it fails.

use flagsim::app::egui_glue::{Canvas, EguiPainter};
use flagsim::app::frame::{panels, uncovered};
use flagsim::app::screenshot::{capture_texture, create_capture_target};
use flagsim::render::GpuContext;
use flagsim::sim::Scene;
use flagsim::sim::runtime::snapshot::Snapshot;
use flagsim::ui::{FrameInfo, UiState};

const SIZE: [u32; 2] = [640, 420];
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

fn gpu() -> Option<GpuContext> {
    match GpuContext::new_headless() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("no GPU adapter under CI=true: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

/// One egui frame of the viewer's panels (with the help window over them) from a fresh state.
fn frame(ctx: &egui::Context, state: &mut UiState, snap: &Snapshot) -> egui::FullOutput {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SIZE[0] as f32, SIZE[1] as f32),
        )),
        ..Default::default()
    };
    ctx.run_ui(input, |root| {
        panels(root, state, snap, &FrameInfo::default());
    })
}

/// A target of `size` filled with `color`, standing for the 3-D frame under the panels.
fn scene_frame(g: &GpuContext, color: wgpu::Color, size: [u32; 2]) -> wgpu::Texture {
    let target = create_capture_target(&g.device, FORMAT, size);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut enc = g
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    drop(enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: None,
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: &view,
            resolve_target: None,
            depth_slice: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(color),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    }));
    g.queue.submit([enc.finish()]);
    target
}

/// Paints with `paint` (`cached`: `paint_cached`) over a fresh frame of `color`; the pixels.
fn painted(
    g: &GpuContext,
    ctx: &egui::Context,
    painter: &mut EguiPainter,
    cached: bool,
    color: wgpu::Color,
) -> image::RgbaImage {
    painted_at(g, ctx, painter, cached, color, SIZE)
}

/// [`painted`] into a frame of `size` pixels.
fn painted_at(
    g: &GpuContext,
    ctx: &egui::Context,
    painter: &mut EguiPainter,
    cached: bool,
    color: wgpu::Color,
    size: [u32; 2],
) -> image::RgbaImage {
    let target = scene_frame(g, color, size);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut enc = g
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let ppp = painter.pixels_per_point();
    let canvas = Canvas {
        view: &view,
        size_px: size,
        pixels_per_point: ppp,
    };
    let extra = if cached {
        painter.paint_cached(ctx, &g.device, &g.queue, &mut enc, &canvas)
    } else {
        painter.paint(ctx, &g.device, &g.queue, &mut enc, &canvas)
    };
    g.queue.submit(extra.into_iter().chain([enc.finish()]));
    painter.after_submit();
    capture_texture(&g.device, &g.queue, &target).expect("read back")
}

/// Largest channel difference, and how many pixels differ from the bare background.
fn compare(a: &image::RgbaImage, b: &image::RgbaImage, background: [u8; 3]) -> (u8, usize) {
    let mut worst = 0;
    let mut painted = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        for c in 0..3 {
            worst = worst.max(p.0[c].abs_diff(q.0[c]));
        }
        if (0..3).any(|c| p.0[c].abs_diff(background[c]) > 8) {
            painted += 1;
        }
    }
    (worst, painted)
}

#[test]
fn the_cached_layer_gives_the_frame_painting_directly_gives() {
    let Some(g) = gpu() else {
        return;
    };
    let scene = Scene::load("flag").unwrap();
    let snap = Snapshot::of(&scene.clone().simulation().unwrap());
    // Two identical egui contexts and states, one painter each: the same frames go to both.
    let (ctx_a, ctx_b) = (egui::Context::default(), egui::Context::default());
    let mut state_a = UiState::new(scene.clone(), 0.12);
    let mut state_b = UiState::new(scene, 0.12);
    state_a.show_help = true;
    state_b.show_help = true;
    let mut direct = EguiPainter::new(&g.device, FORMAT);
    let mut cached = EguiPainter::new(&g.device, FORMAT);
    let blue = wgpu::Color {
        r: 0.1,
        g: 0.3,
        b: 0.6,
        a: 1.0,
    };
    let green = wgpu::Color {
        r: 0.5,
        g: 0.7,
        b: 0.2,
        a: 1.0,
    };
    // The first frame: the layer is painted, then laid over the frame.
    let _ = direct.accept(frame(&ctx_a, &mut state_a, &snap));
    let _ = cached.accept(frame(&ctx_b, &mut state_b, &snap));
    assert!(cached.is_dirty());
    let a = painted(&g, &ctx_a, &mut direct, false, blue);
    let b = painted(&g, &ctx_b, &mut cached, true, blue);
    let (worst, covered) = compare(&a, &b, [26, 77, 153]);
    // The panel and the help window cover a good part of the frame; the 8-bit layer may round
    // an edge pixel by a level or two.
    assert!(covered > 40_000, "only {covered} pixels painted");
    assert!(worst <= 3, "the composited frame differs by {worst} levels");
    // egui settles its layout and its animations (panels opening) over its first frames; then
    // the same panels change nothing, and the layer is only laid over the new frame.
    let mut settled = false;
    for _ in 0..60 {
        let _ = direct.accept(frame(&ctx_a, &mut state_a, &snap));
        let _ = cached.accept(frame(&ctx_b, &mut state_b, &snap));
        if !cached.is_dirty() {
            settled = true;
            break;
        }
        painted(&g, &ctx_a, &mut direct, false, blue);
        painted(&g, &ctx_b, &mut cached, true, blue);
    }
    assert!(
        settled,
        "the same panels frame after frame still repaint the layer"
    );
    let a = painted(&g, &ctx_a, &mut direct, false, green);
    let b = painted(&g, &ctx_b, &mut cached, true, green);
    let (worst, covered) = compare(&a, &b, [128, 179, 51]);
    assert!(covered > 40_000, "only {covered} pixels painted");
    assert!(worst <= 3, "the composited frame differs by {worst} levels");
}

/// The viewer shades only the pixels [`uncovered`] returns, so the panels must hide every other
/// one: painted over a magenta frame, no magenta pixel is left outside that rectangle (with the
/// side panel, and with the guard's banner above it too); with the panels hidden it is the
/// whole window.
#[test]
fn the_panels_hide_every_pixel_the_viewer_does_not_shade() {
    let Some(g) = gpu() else {
        return;
    };
    let scene = Scene::load("flag").unwrap();
    let mut snap = Snapshot::of(&scene.clone().simulation().unwrap());
    let magenta = wgpu::Color {
        r: 1.0,
        g: 0.0,
        b: 1.0,
        a: 1.0,
    };
    let check = |snap: &Snapshot, show_panels: bool| {
        let ctx = egui::Context::default();
        let mut state = UiState::new(scene.clone(), 0.12);
        state.show_panels = show_panels;
        let mut painter = EguiPainter::new(&g.device, FORMAT);
        let input = || egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(SIZE[0] as f32, SIZE[1] as f32),
            )),
            ..Default::default()
        };
        // A few frames, so egui's panels have finished opening.
        let mut visible = None;
        for _ in 0..5 {
            let out = ctx.run_ui(input(), |root| {
                panels(root, &mut state, snap, &FrameInfo::default());
                visible = uncovered(root, SIZE);
            });
            let _ = painter.accept(out);
        }
        let img = painted(&g, &ctx, &mut painter, false, magenta);
        let r = visible.expect("some of the window is left for the 3-D view");
        let inside = |x: u32, y: u32| {
            (r.x..r.x + r.width).contains(&x) && (r.y..r.y + r.height).contains(&y)
        };
        let unhidden = img
            .enumerate_pixels()
            .filter(|&(x, y, p)| !inside(x, y) && p.0[..3] == [255, 0, 255])
            .count();
        assert_eq!(unhidden, 0, "pixels neither shaded nor under a panel");
        r
    };
    let side = check(&snap, true);
    assert!(side.x > 100 && side.x + side.width == SIZE[0], "{side:?}");
    assert_eq!((side.y, side.height), (0, SIZE[1]));
    assert!(check(&snap, false).is_whole(SIZE));
    snap.divergence = Some(flagsim::sim::runtime::simulation::Divergence {
        integrator: snap.params.integrator,
        step: 10,
        time: 0.2,
        reason: "test".into(),
    });
    let banner = check(&snap, true);
    assert!(
        banner.y > 10 && banner.y + banner.height == SIZE[1],
        "{banner:?}"
    );
}

#[test]
fn the_painter_counts_the_triangles_it_tessellated() {
    let Some(g) = gpu() else {
        return;
    };
    let scene = Scene::load("flag").unwrap();
    let snap = Snapshot::of(&scene.clone().simulation().unwrap());
    let mut state = UiState::new(scene, 0.12);
    let ctx = egui::Context::default();
    let mut painter = EguiPainter::new(&g.device, FORMAT);
    assert_eq!(painter.tessellated_size(), (0, 0), "before any paint");
    let output = frame(&ctx, &mut state, &snap);
    // The same shapes tessellated here, counted mesh by mesh.
    let meshes = ctx.tessellate(output.shapes.clone(), output.pixels_per_point);
    let (vertices, indices) = meshes.iter().fold((0, 0), |(v, i), p| match &p.primitive {
        egui::epaint::Primitive::Mesh(m) => (v + m.vertices.len(), i + m.indices.len()),
        egui::epaint::Primitive::Callback(_) => (v, i),
    });
    assert!(meshes.len() > 1 && vertices > 100, "{vertices} vertices");
    let _ = painter.accept(output);
    let _ = painted(&g, &ctx, &mut painter, false, wgpu::Color::BLACK);
    assert_eq!(painter.tessellated_size(), (vertices, indices));
}

/// The lab as a new user drives it, at 1280 × 800 (the test display's size) and 1024 × 640:
/// four copies, the reference copy's distances, the largest stable `dt` found for each, the
/// plots open.
/// Laid out frame after frame, the control panel keeps within its widest allowed width
/// (rather than growing to fit its widest line and never shrinking) and leaves the 3-D view
/// most of the window. No GPU: layout only.
#[test]
fn the_control_panel_keeps_its_width_through_every_lab_view() {
    use flagsim::app::frame::controls_width;
    use flagsim::sim::IntegratorKind::{ChoiKo, ExplicitEuler, Kang, SymplecticEuler};
    use flagsim::sim::model::shape::Distance;
    use flagsim::sim::runtime::snapshot::ReferenceStatus;
    use flagsim::sim_thread::{Found, Search};
    let scene = Scene::load("flag").unwrap();
    let one = Snapshot::of(&scene.clone().simulation().unwrap());
    let kinds = vec![Kang, SymplecticEuler, ExplicitEuler, ChoiKo];
    // The widest figures a copy's motion row shows.
    let motion = flagsim::sim::lab::motion::Motion {
        sway: 1.234_567,
        frequency: 12.345_678,
        reach: 12.345_678,
        spread: 0.1,
        shortest_edge: 0.123_456,
        short_edges: 0.5,
        samples: 200,
    };
    let mut lab: Vec<Snapshot> = kinds
        .iter()
        .map(|&k| {
            let mut s = one.clone();
            s.params.integrator = k;
            s.reference_distance = Some(Distance {
                rms: 0.012_345_678,
                max: 0.098_765_432,
            });
            s.motion = Some(motion);
            s
        })
        .collect();
    let mut snap = lab.remove(0);
    snap.lab = lab;
    snap.reference = Some(ReferenceStatus {
        step_seconds: 0.000_123_456,
        diverged: false,
        motion: Some(motion),
    });
    let found = vec![
        Found {
            stable: Some(0.012_345_678),
            accurate: Some(0.001_234_567),
            closeness: Some(flagsim::sim::lab::stability::Closeness {
                sway: Some(-0.061),
                frequency: Some(0.012),
                reach: Some(0.003),
            }),
        };
        kinds.len()
    ];
    for size in [[1280.0f32, 800.0], [1024.0, 640.0]] {
        let ctx = egui::Context::default();
        let mut state = UiState::new(scene.clone(), 0.12);
        type Change = fn(&mut UiState, &[flagsim::sim::IntegratorKind], &[Found]);
        let stages: [(&str, Change); 3] = [
            ("the lab opened", |_, _, _| {}),
            ("after the largest stable dt", |state, kinds, found| {
                state.lab.dt_search = Some(std::sync::Arc::new(Search::done(
                    kinds.to_vec(),
                    found.to_vec(),
                )));
            }),
            ("with the plots", |state, _, _| state.plots.shown = true),
        ];
        let limit = controls_width(size[0]);
        for (stage, change) in stages {
            change(&mut state, &kinds, &found);
            for _ in 0..8 {
                let mut visible = None;
                let input = egui::RawInput {
                    screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size.into())),
                    ..Default::default()
                };
                let mut out = ctx.run_ui(input, |root| {
                    panels(root, &mut state, &snap, &FrameInfo::default());
                    visible = uncovered(root, [size[0] as u32, size[1] as u32]);
                });
                out.textures_delta.clear();
                let free = visible.expect("the 3-D view has room");
                let panel = free.x as f32;
                assert!(
                    panel <= *limit.end() + 1.0 && panel >= *limit.start() - 1.0,
                    "{size:?}, {stage}: the panel is {panel} px wide, allowed {limit:?}"
                );
                assert!(
                    free.width as f32 >= 0.55 * size[0],
                    "{size:?}, {stage}: the view has only {} px",
                    free.width
                );
            }
        }
    }
}

/// A filled rectangle shape, clipped to `clip`.
fn rect_shape(min: [f32; 2], max: [f32; 2], clip: egui::Rect) -> egui::epaint::ClippedShape {
    egui::epaint::ClippedShape::new(
        clip,
        egui::Shape::rect_filled(
            egui::Rect::from_min_max(min.into(), max.into()),
            0.0,
            egui::Color32::RED,
        ),
    )
}

/// `changed_area` is the shapes between the common start and end of the two lists, old and
/// new, each cut by its clip rectangle, grown by the 2 points egui's feathering and glyphs may
/// reach past a shape's bounds.
#[test]
fn the_changed_area_is_where_two_lists_of_shapes_differ() {
    use flagsim::app::egui_glue::changed_area;
    let all = egui::Rect::EVERYTHING;
    let a = rect_shape([10.0, 10.0], [20.0, 20.0], all);
    let b = rect_shape([100.0, 100.0], [110.0, 120.0], all);
    let b2 = rect_shape([100.0, 130.0], [104.0, 140.0], all);
    let c = rect_shape([300.0, 10.0], [320.0, 20.0], all);
    let grown = |min: [f32; 2], max: [f32; 2]| {
        egui::Rect::from_min_max(
            [min[0] - 2.0, min[1] - 2.0].into(),
            [max[0] + 2.0, max[1] + 2.0].into(),
        )
    };
    let list = vec![a.clone(), b.clone(), c.clone()];
    assert!(!changed_area(&list, &list).is_positive(), "equal lists");
    // The middle shape moved: its old and new places, not the first or the last shape.
    let moved = vec![a.clone(), b2.clone(), c.clone()];
    assert_eq!(
        changed_area(&list, &moved),
        grown([100.0, 100.0], [110.0, 140.0])
    );
    // A shape added or removed in the middle: that shape only.
    let fewer = vec![a.clone(), c.clone()];
    assert_eq!(
        changed_area(&list, &fewer),
        grown([100.0, 100.0], [110.0, 120.0])
    );
    assert_eq!(
        changed_area(&fewer, &list),
        grown([100.0, 100.0], [110.0, 120.0])
    );
    // A shape added at the end.
    let more = vec![a.clone(), b.clone(), c.clone(), b2.clone()];
    assert_eq!(
        changed_area(&list, &more),
        grown([100.0, 130.0], [104.0, 140.0])
    );
    // The first and the last changed in a list of the same length: those two, old and new,
    // not the one between them.
    let far = rect_shape([300.0, 300.0], [310.0, 310.0], all);
    let both = vec![a.clone(), b.clone(), far.clone()];
    let first_and_last = vec![b2.clone(), b.clone(), c.clone()];
    assert_eq!(
        changed_area(&both, &first_and_last),
        grown([10.0, 10.0], [320.0, 310.0])
    );
    let inner = rect_shape([40.0, 40.0], [50.0, 50.0], all);
    let apart = vec![inner.clone(), far.clone(), b.clone()];
    let moved_apart = vec![a.clone(), far.clone(), b2.clone()];
    assert_eq!(
        changed_area(&apart, &moved_apart),
        grown([10.0, 10.0], [110.0, 140.0])
    );
    // Of another length, everything between the common start and end counts.
    let longer = vec![inner, far, b.clone(), c.clone()];
    assert_eq!(
        changed_area(&moved_apart, &longer),
        grown([10.0, 10.0], [320.0, 310.0])
    );
    // Only the part a clip rectangle lets a shape paint counts, and a shape whose clip
    // rectangle changed has changed.
    let half = egui::Rect::from_min_max([100.0, 100.0].into(), [110.0, 110.0].into());
    let clipped = vec![
        a.clone(),
        rect_shape([100.0, 100.0], [110.0, 120.0], half),
        c.clone(),
    ];
    assert_eq!(
        changed_area(&list, &clipped),
        grown([100.0, 100.0], [110.0, 120.0])
    );
    let hidden = egui::Rect::from_min_max([500.0, 500.0].into(), [510.0, 510.0].into());
    let gone = vec![a, b, rect_shape([300.0, 10.0], [320.0, 20.0], hidden)];
    assert_eq!(
        changed_area(&list, &gone),
        grown([300.0, 10.0], [320.0, 20.0])
    );
}

/// A Stats refresh with other figures, some of them many digits longer, changes only the rows
/// of the figures: the control panel keeps its width (a figure wider than the rest of the panel
/// must not widen it, even by a fraction of a point, or every refresh paints the whole panel
/// anew).
/// No GPU: layout only.
#[test]
fn a_stats_refresh_changes_only_the_figures() {
    use flagsim::app::egui_glue::changed_area;
    let mut scene = Scene::load("flag").unwrap();
    scene.params.provot.enabled = true;
    let mut snap = Snapshot::of(&scene.clone().simulation().unwrap());
    // Paused: the figures follow at once, as after a single step.
    snap.paused = true;
    let ctx = egui::Context::default();
    let mut state = UiState::new(scene, 0.12);
    // Tall enough that the whole panel, Stats included, is in view.
    let size = egui::vec2(1280.0, 2400.0);
    let mut run = |snap: &Snapshot| {
        let mut visible = None;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |root| {
            panels(root, &mut state, snap, &FrameInfo::default());
            visible = uncovered(root, [1280, 2400]);
        });
        // Nothing paints here (egui asserts in debug builds that its texture changes are).
        out.textures_delta.clear();
        (out.shapes, visible.expect("a view").x)
    };
    let mut last = run(&snap);
    for _ in 0..20 {
        let next = run(&snap);
        let settled = !changed_area(&last.0, &next.0).is_positive();
        last = next;
        if settled {
            break;
        }
    }
    assert!(
        !changed_area(&last.0, &run(&snap).0).is_positive(),
        "the panels settle"
    );
    snap.step = 123_456_789;
    snap.time = 2_057_613.15;
    snap.stats.provot_sweeps = 1000;
    snap.stats.provot_corrections = 98_765_432;
    snap.stats.tethers = 12_345;
    snap.stats.tether_corrections = 54_321;
    snap.stats.max_strain = 1.234_5;
    let (shapes, x) = run(&snap);
    assert_eq!(x, last.1, "the panel's width changed with the figures");
    let area = changed_area(&last.0, &shapes);
    assert!(area.is_positive(), "the figures changed nothing");
    // The changed rows lie between "sim time" and "tethers": six rows of about 20 points.
    assert!(
        area.height() < 160.0 && area.max.x <= x as f32,
        "a refresh changes {area:?} of a panel {x} points wide"
    );
}

/// One egui frame of a small panel whose only changing part is the figure `n` in a striped
/// grid, like the viewer's Stats, and the same figure over the view (every digit is on screen
/// from the start, so the font atlas does not grow when `n` changes), at `ppp` pixels per
/// point over [`SIZE`] pixels.
fn figures_frame(ctx: &egui::Context, n: u32, ppp: f32) -> egui::FullOutput {
    figures_frame_in(ctx, n, ppp, SIZE)
}

/// [`figures_frame`] over `size` pixels.
fn figures_frame_in(ctx: &egui::Context, n: u32, ppp: f32, size: [u32; 2]) -> egui::FullOutput {
    let mut input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(size[0] as f32, size[1] as f32) / ppp,
        )),
        ..Default::default()
    };
    input
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .native_pixels_per_point = Some(ppp);
    ctx.run_ui(input, |root| {
        egui::Panel::left("figures").show(root, |ui| {
            ui.heading("figures");
            ui.label("0123456789 µs");
            ui.add_space(50.0);
            egui::Grid::new("grid").striped(true).show(ui, |ui| {
                for k in 0..8 {
                    ui.label(format!("row {k}"));
                    if k == 4 {
                        ui.label(format!("{n} µs"));
                    } else {
                        ui.label("the same");
                    }
                    ui.end_row();
                }
            });
            ui.add_space(100.0);
            let _ = ui.button("a button under them");
        });
        // And the figure once more over the view, where the layer is transparent (as the
        // viewer's notices are): its old glyphs must go.
        egui::Area::new(egui::Id::unique("over the view"))
            .fixed_pos([200.0, 150.0])
            .show(root.ctx(), |ui| ui.label(format!("{n} µs")));
        // A line that never changes beside it: a repaint reaching past the changed rectangle
        // would blend its glyphs' edges twice.
        egui::Area::new(egui::Id::unique("beside it"))
            .fixed_pos([280.0, 150.0])
            .show(root.ctx(), |ui| ui.label("the same line"));
    })
}

/// When only a figure changes, the cached layer is painted again only around it, and the
/// frame is still the one painting everything directly gives, refresh after refresh, at one and
/// at two pixels per point.
#[test]
fn a_partial_repaint_gives_the_frame_a_whole_one_gives() {
    use flagsim::app::egui_glue::Damage;
    let Some(g) = gpu() else {
        return;
    };
    let blue = wgpu::Color {
        r: 0.1,
        g: 0.3,
        b: 0.6,
        a: 1.0,
    };
    for ppp in [1.0, 2.0] {
        let (ctx_a, ctx_b) = (egui::Context::default(), egui::Context::default());
        let mut direct = EguiPainter::new(&g.device, FORMAT);
        let mut cached = EguiPainter::new(&g.device, FORMAT);
        let mut settled = false;
        for _ in 0..30 {
            let _ = direct.accept(figures_frame(&ctx_a, 1, ppp));
            let _ = cached.accept(figures_frame(&ctx_b, 1, ppp));
            if !cached.is_dirty() {
                settled = true;
                break;
            }
            painted(&g, &ctx_a, &mut direct, false, blue);
            painted(&g, &ctx_b, &mut cached, true, blue);
        }
        assert!(settled, "the panel settles");
        assert_eq!(cached.pixels_per_point(), ppp);
        // egui keeps each glyph at a few sub-pixel offsets in its font atlas: the figures once
        // through, so that the atlas has them all (a new glyph is a new texture: all repainted).
        let figures = [2, 345_678, 9, 1, 7];
        for n in figures {
            let _ = direct.accept(figures_frame(&ctx_a, n, ppp));
            let _ = cached.accept(figures_frame(&ctx_b, n, ppp));
            painted(&g, &ctx_a, &mut direct, false, blue);
            painted(&g, &ctx_b, &mut cached, true, blue);
        }
        let mut before = painted(&g, &ctx_b, &mut cached, true, blue);
        for n in figures {
            let _ = direct.accept(figures_frame(&ctx_a, n, ppp));
            let _ = cached.accept(figures_frame(&ctx_b, n, ppp));
            let Damage::Area(area) = cached.damage() else {
                panic!("a changed figure damages {:?}", cached.damage());
            };
            // The grid (a figure of another width changes the column's, and with it every
            // stripe) and the figure over the view, not the heading and the line over them,
            // nor the button under them (points).
            assert!(area.min.y > 90.0 && area.max.y < 300.0, "{n}: {area:?}");
            let a = painted(&g, &ctx_a, &mut direct, false, blue);
            let b = painted(&g, &ctx_b, &mut cached, true, blue);
            assert_eq!(cached.damage(), Damage::None, "painted");
            let (worst, covered) = compare(&a, &b, [26, 77, 153]);
            assert!(covered > 20_000, "only {covered} pixels painted");
            assert!(
                worst <= 3,
                "at {ppp}: the frame differs by {worst} levels after {n}"
            );
            let moved = b.pixels().zip(before.pixels()).filter(|(p, q)| p != q);
            assert!(moved.count() > 0, "the figure {n} was not painted");
            before = b;
        }
    }
}

/// A frame whose shapes are the last frame's but whose textures changed (an image egui shows
/// given new pixels under the same id) paints the whole layer anew: where the texture shows
/// is not among the changed shapes.
#[test]
fn new_textures_under_the_same_shapes_repaint_everything() {
    use flagsim::app::egui_glue::Damage;
    let Some(g) = gpu() else {
        return;
    };
    let ctx = egui::Context::default();
    let mut painter = EguiPainter::new(&g.device, FORMAT);
    let mut last = figures_frame(&ctx, 1, 1.0);
    let mut settled = false;
    for _ in 0..30 {
        let shapes = last.shapes.clone();
        let _ = painter.accept(last);
        painted(&g, &ctx, &mut painter, true, wgpu::Color::BLACK);
        last = figures_frame(&ctx, 1, 1.0);
        if last.shapes == shapes && last.textures_delta.is_empty() {
            settled = true;
            break;
        }
    }
    assert!(settled, "the panel settles");
    let _ = painter.accept(figures_frame(&ctx, 1, 1.0));
    assert_eq!(painter.damage(), Damage::None, "nothing changed");
    let mut same = figures_frame(&ctx, 1, 1.0);
    let image = egui::ColorImage::new([2, 2], vec![egui::Color32::RED; 4]);
    same.textures_delta
        .set
        .entry(egui::TextureId::Managed(7))
        .or_default()
        .push(egui::epaint::ImageDelta::full(
            image,
            egui::TextureOptions::LINEAR,
        ));
    let _ = painter.accept(same);
    assert_eq!(painter.damage(), Damage::All);
    painted(&g, &ctx, &mut painter, true, wgpu::Color::BLACK);
    assert_eq!(painter.damage(), Damage::None);
}

/// The same panels painted into a window of another size: the cached layer follows the size
/// (a layer of the old size would lay the panels over the new frame in the wrong place).
#[test]
fn the_cached_layer_follows_the_windows_size() {
    let Some(g) = gpu() else {
        return;
    };
    let blue = wgpu::Color {
        r: 0.1,
        g: 0.3,
        b: 0.6,
        a: 1.0,
    };
    let (ctx_a, ctx_b) = (egui::Context::default(), egui::Context::default());
    let mut direct = EguiPainter::new(&g.device, FORMAT);
    let mut cached = EguiPainter::new(&g.device, FORMAT);
    for _ in 0..30 {
        let _ = direct.accept(figures_frame(&ctx_a, 1, 1.0));
        let _ = cached.accept(figures_frame(&ctx_b, 1, 1.0));
        let settled = !cached.is_dirty();
        painted(&g, &ctx_a, &mut direct, false, blue);
        painted(&g, &ctx_b, &mut cached, true, blue);
        if settled {
            break;
        }
    }
    // A window twice as wide and a little taller: egui lays the panels out anew for it.
    let wide = [SIZE[0] * 2, SIZE[1] + 60];
    for _ in 0..30 {
        let _ = direct.accept(figures_frame_in(&ctx_a, 1, 1.0, wide));
        let _ = cached.accept(figures_frame_in(&ctx_b, 1, 1.0, wide));
        if !cached.is_dirty() {
            break;
        }
        painted_at(&g, &ctx_a, &mut direct, false, blue, wide);
        painted_at(&g, &ctx_b, &mut cached, true, blue, wide);
    }
    let a = painted_at(&g, &ctx_a, &mut direct, false, blue, wide);
    let b = painted_at(&g, &ctx_b, &mut cached, true, blue, wide);
    let (worst, covered) = compare(&a, &b, [26, 77, 153]);
    assert!(covered > 20_000, "only {covered} pixels painted");
    assert!(worst <= 3, "the frame differs by {worst} levels");
}
