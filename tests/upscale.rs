//! The render scale's upscale pass (`shaders/upscale.wgsl`) and the FXAA pass
//! (`shaders/fxaa.wgsl`) against their CPU twins (`upscale_bilinear`, `fxaa_cpu`), on a real
//! adapter (lavapipe in CI): without one the tests print `SKIPPED` and pass, except under
//! `CI=true`, where they fail.

use flagsim::app::screenshot::{capture_texture, create_capture_target};
use flagsim::render::passes::upscale_pass::{Fxaa, fxaa_cpu, upscale_bilinear};
use flagsim::render::{GpuContext, PixelRect, UpscalePass};
use wgpu::util::DeviceExt;

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

/// A small image with sharp steps and smooth ramps in every channel, so both the blend weights
/// and the texel addressing show in the result.
fn pattern([w, h]: [u32; 2]) -> Vec<[u8; 4]> {
    (0..h)
        .flat_map(|y| {
            (0..w).map(move |x| {
                [
                    ((x * 255) / (w - 1)) as u8,
                    ((y * 255) / (h - 1)) as u8,
                    if (x + y) % 2 == 0 { 240 } else { 20 },
                    255,
                ]
            })
        })
        .collect()
}

/// The GPU pass: `image` of `size` stretched into a `target`-sized texture within `visible`
/// (anti-aliased by FXAA instead when `fxaa`, `target` then `size`).
fn upscale_on_gpu(
    g: &GpuContext,
    image: &[[u8; 4]],
    size: [u32; 2],
    target: [u32; 2],
    visible: Option<PixelRect>,
) -> image::RgbaImage {
    pass_on_gpu(g, image, size, target, visible, false)
}

fn pass_on_gpu(
    g: &GpuContext,
    image: &[[u8; 4]],
    size: [u32; 2],
    target: [u32; 2],
    visible: Option<PixelRect>,
    fxaa: bool,
) -> image::RgbaImage {
    let texture = g.device.create_texture_with_data(
        &g.queue,
        &wgpu::TextureDescriptor {
            label: Some("upscale test image"),
            size: wgpu::Extent3d {
                width: size[0],
                height: size[1],
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(image),
    );
    let pass = UpscalePass::new(&g.device, FORMAT);
    let bind = pass.bind(
        &g.device,
        &texture.create_view(&wgpu::TextureViewDescriptor::default()),
    );
    let out = create_capture_target(&g.device, FORMAT, target);
    let view = out.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = g
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    if fxaa {
        pass.record_fxaa(&mut encoder, &bind, &view, visible);
    } else {
        pass.record(&mut encoder, &bind, &view, visible);
    }
    g.queue.submit([encoder.finish()]);
    capture_texture(&g.device, &g.queue, &out).expect("read back")
}

#[test]
fn the_gpu_stretches_an_image_as_its_cpu_twin_does() {
    let Some(g) = gpu() else {
        return;
    };
    // Scales the viewer uses (½, 0.8) and an uneven one, up and in both axes.
    for (size, target) in [([8, 5], [16, 10]), ([8, 8], [10, 10]), ([7, 4], [23, 13])] {
        let image = pattern(size);
        let gpu = upscale_on_gpu(&g, &image, size, target, None);
        let cpu = upscale_bilinear(&image, size, target);
        let worst = gpu
            .pixels()
            .zip(&cpu)
            .flat_map(|(p, q)| p.0.iter().zip(q).map(|(a, b)| a.abs_diff(*b)))
            .max()
            .unwrap_or(0);
        // The GPU blends 8-bit texels with fixed-point weights: a level or two apart.
        assert!(
            worst <= 2,
            "{size:?} → {target:?}: GPU and CPU differ by {worst} levels"
        );
    }
}

#[test]
fn only_the_visible_rectangle_is_written_and_the_rest_is_cleared() {
    let Some(g) = gpu() else {
        return;
    };
    let (size, target) = ([8, 5], [16, 10]);
    let image = pattern(size);
    let visible = PixelRect {
        x: 5,
        y: 2,
        width: 9,
        height: 6,
    };
    let gpu = upscale_on_gpu(&g, &image, size, target, Some(visible));
    let cpu = upscale_bilinear(&image, size, target);
    for (x, y, p) in gpu.enumerate_pixels() {
        let inside = (5..14).contains(&x) && (2..8).contains(&y);
        if inside {
            let q = cpu[(y * target[0] + x) as usize];
            assert!(
                (0..4).all(|c| p.0[c].abs_diff(q[c]) <= 2),
                "({x}, {y}): {:?} against {q:?}",
                p.0
            );
        } else {
            assert_eq!(p.0, [0, 0, 0, 255], "({x}, {y}) outside was written");
        }
    }
}

/// The twin itself, against values worked out by hand: a 2 × 1 image of black and white
/// stretched to 4 × 1 reads texel coordinates −¼, ¼, ¾, 1¼ (clamped at both ends), so the pixels
/// are 0, ¼, ¾ and 1 of white.
#[test]
fn the_cpu_twin_blends_by_distance_and_clamps_at_the_edges() {
    let image = [[0, 0, 0, 255], [255, 255, 255, 255]];
    let out = upscale_bilinear(&image, [2, 1], [4, 1]);
    let reds: Vec<u8> = out.iter().map(|p| p[0]).collect();
    assert_eq!(reds, [0, 64, 191, 255]);
    // The same size is a copy.
    let image = pattern([5, 3]);
    assert_eq!(upscale_bilinear(&image, [5, 3], [5, 3]), image);
}

/// Two colours split by a line through the image at `slope` (pixel `(x, y)` is `light` when
/// `y < slope · x + offset`), over a ramp in blue: slanted edges for FXAA to find, and a
/// smooth area it must leave alone.
fn slanted([w, h]: [u32; 2], slope: f32, offset: f32) -> Vec<[u8; 4]> {
    (0..h)
        .flat_map(|y| {
            (0..w).map(move |x| {
                let blue = ((x * 255) / (w - 1)) as u8 / 4;
                if (y as f32) < slope * x as f32 + offset {
                    [230, 220, blue, 255]
                } else {
                    [30, 60, blue, 255]
                }
            })
        })
        .collect()
}

#[test]
fn the_gpu_anti_aliases_an_image_as_its_cpu_twin_does() {
    let Some(g) = gpu() else {
        return;
    };
    for (size, slope, offset) in [
        ([24, 16], 0.4, 3.0),
        ([17, 23], 2.5, -9.0),
        ([20, 20], 1.0, 0.0),
    ] {
        let image = slanted(size, slope, offset);
        let gpu = pass_on_gpu(&g, &image, size, size, None, true);
        let cpu = fxaa_cpu(&image, size);
        let worst = gpu
            .pixels()
            .zip(&cpu)
            .flat_map(|(p, q)| p.0.iter().zip(q).map(|(a, b)| a.abs_diff(*b)))
            .max()
            .unwrap_or(0);
        // 8-bit texels blended with fixed-point weights: a few levels apart at most.
        assert!(
            worst <= 3,
            "{size:?} at slope {slope}: GPU and CPU differ by {worst} levels"
        );
        // And the pass did something: pixels along the edge took levels between the two sides.
        let between = cpu.iter().filter(|p| p[0] > 40 && p[0] < 220).count();
        assert!(
            between > 0,
            "{size:?} at slope {slope}: nothing anti-aliased"
        );
    }
    // The pattern with one-texel checks and ramps, through the GPU's sampler as through the twin's.
    let image = pattern([9, 7]);
    let gpu = pass_on_gpu(&g, &image, [9, 7], [9, 7], None, true);
    let cpu = fxaa_cpu(&image, [9, 7]);
    for (p, q) in gpu.pixels().zip(&cpu) {
        assert!(
            (0..3).all(|c| p.0[c].abs_diff(q[c]) <= 3),
            "{:?} against {q:?}",
            p.0
        );
    }
}

/// An `n × n` grey image, `above` where x > y and `below` elsewhere: a 45° staircase.
fn staircase(n: u32, above: u8, below: u8) -> Vec<[u8; 4]> {
    (0..n)
        .flat_map(|y| {
            (0..n).map(move |x| {
                let v = if x > y { above } else { below };
                [v, v, v, 255]
            })
        })
        .collect()
}

/// FXAA by hand on a 45° staircase (white where x > y, black elsewhere), at a black pixel (i, i)
/// on the diagonal: its corner lumas (means of the 2 × 2 blocks around each corner) are
/// NW = ¼, NE = ¾, SW = 0, SE = ¼, so the range is ¾ (an edge), and
/// dir = (−((NW + NE) − (SW + SE)), (NW + SW) − (NE + SE)) = (−¾, −¾); reduce =
/// max(1.25 / 4 · ⅛, 1/128) = 0.0390625 stretches it to d = −¾ / (¾ + reduce) per axis. A bilinear
/// sample at (i + f, i + f) or (i − f, i − f) sees the one white texel with weight f(1 − f), so
/// A = f₁(1 − f₁) with f₁ = |d| / 6, and B = ½ A + ½ f₂(1 − f₂) with f₂ = |d| / 2, within the range:
/// the pixel becomes B of white. Pixels far from the edge, and every pixel of an image split by a
/// vertical edge (the samples along it all read the pixel's own column), are left as they are.
#[test]
fn the_cpu_twin_smooths_a_staircase_by_the_formula_and_leaves_straight_edges_alone() {
    let n = 12u32;
    let image = staircase(n, 255, 0);
    let out = fxaa_cpu(&image, [n, n]);
    let reduce = (1.25f64 / 4.0 * 0.125).max(1.0 / 128.0);
    let d = 0.75 / (0.75 + reduce);
    let (f1, f2) = (d / 6.0, d / 2.0);
    let a = f1 * (1.0 - f1);
    let b = 0.5 * a + 0.5 * f2 * (1.0 - f2);
    let expected = (b * 255.0).round() as u8;
    for i in 2..n - 2 {
        let p = out[(i * n + i) as usize];
        assert_eq!(p, [expected, expected, expected, 255], "pixel ({i}, {i})");
    }
    // Three pixels from the diagonal every luma around is the same: untouched.
    for (x, y) in [(8u32, 2u32), (2, 8), (10, 5)] {
        let i = (y * n + x) as usize;
        assert_eq!(out[i], image[i], "({x}, {y})");
    }
    // A vertical edge and a flat image come back exactly.
    let vertical: Vec<[u8; 4]> = (0..n * n)
        .map(|i| {
            if i % n < n / 2 {
                [10, 20, 30, 255]
            } else {
                [200, 210, 220, 255]
            }
        })
        .collect();
    assert_eq!(fxaa_cpu(&vertical, [n, n]), vertical);
    let flat = vec![[90, 120, 150, 255]; (n * n) as usize];
    assert_eq!(fxaa_cpu(&flat, [n, n]), flat);
    // Below the thresholds nothing changes either: a step of 4 levels in the dark (under
    // EDGE_MIN of the luma range) is left as it is.
    let faint = staircase(n, 24, 20);
    const { assert!(4.0 / 255.0 < Fxaa::EDGE_MIN) };
    assert_eq!(fxaa_cpu(&faint, [n, n]), faint);
}

/// However the image looks, FXAA only blends what is there: each result lies within the lumas
/// of the five samples it started from, so within the image's own range of every channel.
#[test]
fn the_cpu_twin_never_leaves_the_range_of_the_image() {
    let size = [15, 11];
    let mut seed = 0x2545_f491u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 256) as u8
    };
    for _ in 0..20 {
        let image: Vec<[u8; 4]> = (0..size[0] * size[1])
            .map(|_| [next(), next(), next(), 255])
            .collect();
        let out = fxaa_cpu(&image, size);
        for c in 0..3 {
            let lo = image.iter().map(|p| p[c]).min().unwrap();
            let hi = image.iter().map(|p| p[c]).max().unwrap();
            assert!(out.iter().all(|p| (lo..=hi).contains(&p[c])), "channel {c}");
        }
    }
}

/// The flag preset drawn through the viewer's frame code at `scale`, within `visible`.
fn draw_flag(
    g: &GpuContext,
    quality: flagsim::render::RenderQuality,
    scale: f32,
    visible: Option<PixelRect>,
    scaled: bool,
) -> image::RgbaImage {
    use flagsim::app::frame::SceneDraw;
    const SIZE: [u32; 2] = [320, 200];
    let mut draw = SceneDraw::new(&g.device, &g.queue, FORMAT, quality, SIZE).unwrap();
    draw.set_scale(&g.device, scale);
    draw_into(g, &mut draw, visible, scaled)
}

/// A frame of the flag preset through `draw`.
fn draw_into(
    g: &GpuContext,
    draw: &mut flagsim::app::frame::SceneDraw,
    visible: Option<PixelRect>,
    scaled: bool,
) -> image::RgbaImage {
    let snap = flag_snapshot();
    let camera = flagsim::render::drawing::view::framing_camera(&[&snap]);
    draw_snapshot(g, draw, &snap, &camera, visible, scaled)
}

/// The flag preset after 30 steps.
fn flag_snapshot() -> flagsim::sim::runtime::snapshot::Snapshot {
    let scene = flagsim::sim::Scene::load("flag").unwrap();
    let mut sim = scene.simulation().unwrap();
    for _ in 0..30 {
        sim.step();
    }
    flagsim::sim::runtime::snapshot::Snapshot::of(&sim)
}

/// A frame of `snap` seen by `camera` through `draw`.
fn draw_snapshot(
    g: &GpuContext,
    draw: &mut flagsim::app::frame::SceneDraw,
    snap: &flagsim::sim::runtime::snapshot::Snapshot,
    camera: &flagsim::render::OrbitCamera,
    visible: Option<PixelRect>,
    scaled: bool,
) -> image::RgbaImage {
    use flagsim::app::frame::FrameView;
    use flagsim::render::drawing::view::ViewSettings;
    const SIZE: [u32; 2] = [320, 200];
    let out = create_capture_target(&g.device, FORMAT, SIZE);
    let target = out.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = g
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let frame = FrameView {
        snap,
        view: &ViewSettings::default(),
        camera,
        target: &target,
        visible,
        scaled,
    };
    draw.draw(&g.device, &g.queue, &mut encoder, &frame)
        .unwrap();
    g.queue.submit([encoder.finish()]);
    let image = capture_texture(&g.device, &g.queue, &out).expect("read back");
    if let Err(e) = g.check() {
        panic!("GPU error: {e}");
    }
    image
}

fn mean_abs_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> f64 {
    let sum: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| u64::from(x.abs_diff(y)))
        .sum();
    sum as f64 / a.as_raw().len() as f64
}

/// At a lower render scale the viewer's frame is the same picture, softer: it differs from the
/// full-size frame by a few levels on average (edges and the flag's emblem), and no pixel of the
/// visible rectangle is left unshaded, including its edge next to the panel. Captures
/// (`scaled: false`) are drawn at full size whatever the scale.
#[test]
fn a_lower_render_scale_draws_the_same_view_softer_and_captures_stay_full_size() {
    let Some(g) = gpu() else {
        return;
    };
    for quality in [
        flagsim::render::RenderQuality::FAST,
        flagsim::render::RenderQuality::HIGH,
    ] {
        let full = draw_flag(&g, quality, 1.0, None, true);
        let half = draw_flag(&g, quality, 0.5, None, true);
        let d = mean_abs_difference(&full, &half);
        assert!(
            d > 0.05 && d < 4.0,
            "{quality:?}: half scale differs by {d:.2} levels on average"
        );
        assert!(half.pixels().all(|p| p.0 != [0, 0, 0, 255]));
        assert_eq!(draw_flag(&g, quality, 0.5, None, false), full);
        // With a panel over the left 100 pixels: the rest is shaded up to its edge.
        let visible = PixelRect {
            x: 100,
            y: 0,
            width: 220,
            height: 200,
        };
        let part = draw_flag(&g, quality, 0.7, Some(visible), true);
        for (x, _, p) in part.enumerate_pixels() {
            if x >= 100 {
                // Sky, ground and flag are all brighter than the clear colour everywhere.
                assert!(p.0[..3].iter().any(|&c| c > 40), "({x}): {:?}", p.0);
            } else {
                assert_eq!(p.0, [0, 0, 0, 255]);
            }
        }
    }
}

/// With FXAA (the quality a software adapter starts at) the viewer's frame is the frame without
/// it, smoothed only along edges: a few pixels change (the flag's outline, the pole), flat sky and
/// ground do not, and nothing changes by more than the two sides of an edge differ. Switching
/// it off in place gives the frame drawn without it from the start.
#[test]
fn fxaa_smooths_only_the_edges_of_the_viewers_frame() {
    let Some(g) = gpu() else {
        return;
    };
    use flagsim::render::RenderQuality;
    let plain = RenderQuality {
        fxaa: false,
        ..RenderQuality::FAST
    };
    assert!(RenderQuality::FAST.post_aa() && !plain.post_aa());
    assert!(!RenderQuality::HIGH.post_aa());
    for scale in [1.0, 0.75] {
        let smooth = draw_flag(&g, RenderQuality::FAST, scale, None, true);
        let sharp = draw_flag(&g, plain, scale, None, true);
        let changed = smooth
            .pixels()
            .zip(sharp.pixels())
            .filter(|(a, b)| a.0 != b.0)
            .count();
        let share = changed as f64 / f64::from(smooth.width() * smooth.height());
        assert!(
            share > 0.002 && share < 0.2,
            "scale {scale}: FXAA changed {:.1} % of the pixels",
            share * 100.0
        );
        // Turned off in place: the same frame as without it.
        let mut draw = flagsim::app::frame::SceneDraw::new(
            &g.device,
            &g.queue,
            FORMAT,
            RenderQuality::FAST,
            [320, 200],
        )
        .unwrap();
        draw.set_scale(&g.device, scale);
        draw.set_quality(&g.device, &g.queue, plain).unwrap();
        assert_eq!(draw_into(&g, &mut draw, None, true), sharp, "scale {scale}");
    }
}

/// FXAA only within the rectangles where the viewer's frame can have edges
/// (`render::drawing::edges::edge_rects`, what the viewer does below scale 1) gives the same image as FXAA
/// over every pixel, on the flag preset seen by the viewer's camera, in the default display mode
/// and with the key mesh and `Δv` overlays drawn: FXAA changes nothing outside them. And the
/// rectangles are worth having: they are well under the image, and FXAA does change pixels in
/// them.
#[test]
fn fxaa_within_the_edge_rectangles_equals_fxaa_everywhere() {
    let Some(g) = gpu() else {
        return;
    };
    use flagsim::render::drawing::edges;
    use flagsim::render::drawing::frame::ClothScene;
    use flagsim::render::drawing::view::{self, ViewSettings};
    use flagsim::render::passes::fullscreen::layer_texture;
    use flagsim::render::{MsaaAttachments, RenderQuality, Renderer};
    use flagsim::sim::runtime::snapshot::Snapshot;
    const SIZE: [u32; 2] = [320, 200];
    let (device, queue) = (&g.device, &g.queue);
    let scene = flagsim::sim::Scene::load("flag").unwrap();
    let mut sim = scene.simulation().unwrap();
    for _ in 0..30 {
        sim.step();
    }
    let snap = Snapshot::of(&sim);
    let camera = view::framing_camera(&[&snap]);
    let plain = ViewSettings::default();
    let overlays = ViewSettings {
        key_wireframe: true,
        dv_overlay: true,
        ..ViewSettings::default()
    };
    for settings in [plain, overlays] {
        let mut renderer =
            Renderer::with_quality(device, queue, FORMAT, RenderQuality::FAST).unwrap();
        let msaa = MsaaAttachments::new(device, &renderer.targets(), SIZE[0], SIZE[1], "test");
        let mut cloth = ClothScene::new(device).unwrap();
        let (image, image_view) = layer_texture(device, "drawn", FORMAT, SIZE);
        let (every, every_view) = layer_texture(device, "FXAA everywhere", FORMAT, SIZE);
        let (within, within_view) = layer_texture(device, "FXAA within", FORMAT, SIZE);
        let up = UpscalePass::new(device, FORMAT);
        let bound = up.bind(device, &image_view);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        cloth
            .prepare(device, queue, &mut enc, &snap, &settings)
            .unwrap();
        let data = cloth.frame_data(&snap, &settings, &camera, SIZE[0] as f32 / SIZE[1] as f32);
        renderer
            .render(
                device,
                queue,
                &mut enc,
                &image_view,
                None,
                &msaa.depth_view,
                &data,
            )
            .unwrap();
        let (mut boxes, mut rects) = (Vec::new(), Vec::new());
        // A cloth of unknown extent may have edges anywhere.
        let unknown = flagsim::render::FrameData {
            cloth: data
                .cloth
                .map(|c| flagsim::render::ClothFrame { bounds: None, ..c }),
            ..data
        };
        edges::edge_rects(&unknown, SIZE, 2.0, &mut boxes, &mut rects);
        let whole = PixelRect {
            x: 0,
            y: 0,
            width: SIZE[0],
            height: SIZE[1],
        };
        assert_eq!(rects, [whole]);
        rects.clear();
        edges::edge_rects(&data, SIZE, 2.0, &mut boxes, &mut rects);
        up.record_fxaa(&mut enc, &bound, &every_view, None);
        enc.copy_texture_to_texture(image.as_image_copy(), within.as_image_copy(), image.size());
        up.record_fxaa_within(&mut enc, &bound, &within_view, &rects);
        queue.submit([enc.finish()]);
        let drawn = capture_texture(device, queue, &image).unwrap();
        let every = capture_texture(device, queue, &every).unwrap();
        let within = capture_texture(device, queue, &within).unwrap();
        let inside = |x: u32, y: u32| {
            rects
                .iter()
                .any(|r| (r.x..r.x + r.width).contains(&x) && (r.y..r.y + r.height).contains(&y))
        };
        let area: u32 = rects.iter().map(|r| r.width * r.height).sum();
        assert!(
            area * 2 < SIZE[0] * SIZE[1],
            "{rects:?} cover {area} of {} pixels",
            SIZE[0] * SIZE[1]
        );
        let smoothed_inside = drawn
            .enumerate_pixels()
            .filter(|&(x, y, p)| inside(x, y) && p.0 != every.get_pixel(x, y).0)
            .count();
        assert!(
            smoothed_inside > 100,
            "FXAA changed {smoothed_inside} pixels"
        );
        for (x, y, p) in every.enumerate_pixels() {
            assert_eq!(
                p.0,
                within.get_pixel(x, y).0,
                "({x}, {y}), in a rectangle: {}",
                inside(x, y)
            );
        }
    }
}

/// Frames whose sky and ground come from the backdrop (the second frame alike fills it, the
/// third reuses it) are the frames drawn whole, bit for bit, at full size and at 75 % with a
/// panel over the left (there stretched only where the cloth, the pole and the lines are, over
/// the backdrop stretched once), with the flag dragged half into the ground (the ground's depth
/// hides its lower part, as when the ground is drawn after it). A moved camera draws whole
/// again, as a fresh viewer would.
#[test]
fn frames_over_the_backdrop_are_the_frames_drawn_whole() {
    let Some(g) = gpu() else {
        return;
    };
    use flagsim::app::frame::SceneDraw;
    use flagsim::render::RenderQuality;
    let panel = PixelRect {
        x: 0,
        y: 0,
        width: 90,
        height: 200,
    };
    let visible = PixelRect {
        x: 90,
        width: 230,
        ..panel
    };
    let mut sunk = flag_snapshot();
    let low = sunk.x.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let high = sunk.x.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
    for p in &mut sunk.x {
        p.y -= low + 0.5 * (high - low);
    }
    let upright = flag_snapshot();
    for (snap, scale, seen) in [
        (&upright, 1.0, None),
        (&upright, 0.75, Some(visible)),
        (&sunk, 0.75, None),
    ] {
        let camera = flagsim::render::drawing::view::framing_camera(&[snap]);
        let mut draw =
            SceneDraw::new(&g.device, &g.queue, FORMAT, RenderQuality::FAST, [320, 200]).unwrap();
        draw.set_scale(&g.device, scale);
        let whole = draw_snapshot(&g, &mut draw, snap, &camera, seen, true);
        assert!(!draw.renderer.used_backdrop());
        assert!(!draw.used_stretched_backdrop());
        for frame in 2..=3 {
            let again = draw_snapshot(&g, &mut draw, snap, &camera, seen, true);
            assert!(draw.renderer.used_backdrop(), "frame {frame}");
            // Below scale 1 only the parts with edges are stretched, over the stretched
            // backdrop.
            assert_eq!(draw.used_stretched_backdrop(), scale < 1.0);
            same_image(&again, &whole, &format!("frame {frame} at {scale}"));
        }
        let mut moved = camera;
        moved.yaw += 0.3;
        let turned = draw_snapshot(&g, &mut draw, snap, &moved, seen, true);
        assert!(!draw.renderer.used_backdrop());
        let mut fresh =
            SceneDraw::new(&g.device, &g.queue, FORMAT, RenderQuality::FAST, [320, 200]).unwrap();
        fresh.set_scale(&g.device, scale);
        let fresh = draw_snapshot(&g, &mut fresh, snap, &moved, seen, true);
        same_image(&turned, &fresh, "turned");
        assert!(turned.as_raw() != whole.as_raw(), "the camera turned");
        // A background image set while the backdrop holds the sky: the next frame shows it.
        let _ = draw_snapshot(&g, &mut draw, snap, &moved, seen, true);
        assert!(draw.renderer.used_backdrop());
        let photo = image::RgbaImage::from_fn(4, 4, |x, y| {
            image::Rgba([(60 * x) as u8, (60 * y) as u8, 200, 255])
        });
        draw.set_background(&g.device, &g.queue, Some(photo.clone()))
            .unwrap();
        let over = draw_snapshot(&g, &mut draw, snap, &moved, seen, true);
        let mut fresh =
            SceneDraw::new(&g.device, &g.queue, FORMAT, RenderQuality::FAST, [320, 200]).unwrap();
        fresh.set_scale(&g.device, scale);
        fresh
            .set_background(&g.device, &g.queue, Some(photo))
            .unwrap();
        let fresh = draw_snapshot(&g, &mut fresh, snap, &moved, seen, true);
        same_image(&over, &fresh, "over a background set between frames");
        assert!(over.as_raw() != turned.as_raw(), "the background shows");
        // Another image in its place (the uniforms alike): the new one shows.
        let _ = draw_snapshot(&g, &mut draw, snap, &moved, seen, true);
        let other = image::RgbaImage::from_pixel(4, 4, image::Rgba([250, 240, 10, 255]));
        draw.set_background(&g.device, &g.queue, Some(other))
            .unwrap();
        let replaced = draw_snapshot(&g, &mut draw, snap, &moved, seen, true);
        assert!(replaced.as_raw() != over.as_raw(), "the second image shows");
    }
}

/// Asserts that two images are the same, naming the first pixels that differ (not the images).
fn same_image(a: &image::RgbaImage, b: &image::RgbaImage, what: &str) {
    let differ: Vec<_> = a
        .enumerate_pixels()
        .filter(|&(x, y, p)| p != b.get_pixel(x, y))
        .map(|(x, y, p)| (x, y, p.0, b.get_pixel(x, y).0))
        .collect();
    assert!(
        differ.is_empty(),
        "{what}: {} pixels differ, first {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );
}
