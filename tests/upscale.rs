//! The render scale's upscale pass (`shaders/upscale.wgsl`) against its CPU twin
//! (`upscale_bilinear`), on a real adapter (lavapipe in CI): without one the tests print
//! `SKIPPED` and pass, except under `CI=true`, where they fail.

use flagsim::app::screenshot::{capture_texture, create_capture_target};
use flagsim::render::upscale_pass::upscale_bilinear;
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

/// The GPU pass: `image` of `size` stretched into a `target`-sized texture within `visible`.
fn upscale_on_gpu(
    g: &GpuContext,
    image: &[[u8; 4]],
    size: [u32; 2],
    target: [u32; 2],
    visible: Option<PixelRect>,
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
    pass.record(&mut encoder, &bind, &view, visible);
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

/// The flag preset drawn through the viewer's frame code at `scale`, within `visible`.
fn draw_flag(
    g: &GpuContext,
    quality: flagsim::render::RenderQuality,
    scale: f32,
    visible: Option<PixelRect>,
    scaled: bool,
) -> image::RgbaImage {
    use flagsim::app::frame::{FrameView, SceneDraw};
    use flagsim::render::view::{self, ViewSettings};
    use flagsim::sim::snapshot::Snapshot;
    const SIZE: [u32; 2] = [320, 200];
    let mut draw = SceneDraw::new(&g.device, &g.queue, FORMAT, quality, SIZE).unwrap();
    draw.set_scale(&g.device, scale);
    let scene = flagsim::sim::Scene::load("flag").unwrap();
    let mut sim = scene.simulation().unwrap();
    for _ in 0..30 {
        sim.step();
    }
    let snap = Snapshot::of(&sim);
    let camera = view::framing_camera(&[&snap]);
    let out = create_capture_target(&g.device, FORMAT, SIZE);
    let target = out.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = g
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let frame = FrameView {
        snap: &snap,
        view: &ViewSettings::default(),
        camera: &camera,
        target: &target,
        visible,
        scaled,
    };
    draw.draw(&g.device, &g.queue, &mut encoder, &frame)
        .unwrap();
    g.queue.submit([encoder.finish()]);
    capture_texture(&g.device, &g.queue, &out).expect("read back")
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
