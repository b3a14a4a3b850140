//! Offscreen renders of a rippled flag on a pole, on a real adapter (lavapipe in CI).
//!
//! The cloth buffers are filled from the CPU in the upsample pass's layout (`vec4<f32>` per render
//! node, index `s * R_u + r`), so these tests need nothing from the upsampler. Without an adapter
//! the tests print `SKIPPED: no GPU adapter` and pass, except under `CI=true`, where they fail.
#![allow(clippy::trivially_copy_pass_by_ref)] // reason: pixel predicates take `&Rgba` as iterators hand them out

use flagsim::render::passes::flag_texture::FLAG_PALETTE;
use flagsim::render::passes::lines_pass::{grid_wireframe, vector_segments};
use flagsim::render::{
    ClothFrame, ClothNodes, ClothStyle, ColorMode, FrameData, LineVertex, OffscreenTarget,
    OrbitCamera, PixelRect, Pole, Renderer, SceneFrame, Sphere,
};
use glam::Vec3;
use image::RgbaImage;
use wgpu::util::DeviceExt;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 400;
/// Render nodes per axis: key-aligned for 10 key nodes (`(10 − 1)·5 + 1`), so the node-type view
/// shows all three kinds.
const R: u32 = 46;
/// Key nodes per axis, as the simulation's default.
const KEYS: u32 = 10;

/// Flag size (m) and placement: hoist along the pole at x = 0, top edge at `FLAG_TOP`.
const FLAG_WIDTH: f32 = 1.5;
const FLAG_HEIGHT: f32 = 1.0;
const FLAG_TOP: f32 = 1.95;
const POLE_RADIUS: f32 = 0.03;

/// Headless device for these tests (the project's `GpuContext::new_headless` will replace it).
fn gpu() -> Option<(wgpu::Device, wgpu::Queue)> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        match pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        {
            Ok(adapter) => adapter,
            Err(e) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "CI=true but no GPU adapter: {e}"
                );
                eprintln!("SKIPPED: no GPU adapter ({e})");
                return None;
            }
        };
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("render test device"),
        ..Default::default()
    };
    Some(
        pollster::block_on(adapter.request_device(&descriptor))
            .expect("adapter found but no device"),
    )
}

/// The flag surface `S(u, v)` with u along the width (+x) and v down the height: a travelling
/// ripple whose amplitude grows away from the pole. Returns `(positions, normals)` with normals
/// `∂S/∂u × ∂S/∂v`, both as `vec4` (w = 0), row-major `s * R + r`; `s = 0` is the top edge.
fn rippled_flag(resolution: u32) -> (Vec<[f32; 4]>, Vec<[f32; 4]>) {
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    let k = std::f32::consts::TAU * 1.4;
    for s in 0..resolution {
        for r in 0..resolution {
            let u = r as f32 / (resolution - 1) as f32;
            let v = s as f32 / (resolution - 1) as f32;
            let amp = 0.16 * u + 0.02 * v;
            let z = amp * (k * u + 1.5 * v).sin();
            let dz_du = 0.16 * (k * u + 1.5 * v).sin() + amp * k * (k * u + 1.5 * v).cos();
            let dz_dv = 0.02 * (k * u + 1.5 * v).sin() + amp * 1.5 * (k * u + 1.5 * v).cos();
            let x = POLE_RADIUS + FLAG_WIDTH * u;
            let y = FLAG_TOP - FLAG_HEIGHT * v - 0.05 * u * u;
            let du = Vec3::new(FLAG_WIDTH, -0.1 * u, dz_du);
            let dv = Vec3::new(0.0, -FLAG_HEIGHT, dz_dv);
            let n = du.cross(dv).normalize();
            positions.push([x, y, z, 0.0]);
            normals.push([n.x, n.y, n.z, 0.0]);
        }
    }
    (positions, normals)
}

/// A storage buffer as the upsample pass would hand it over.
fn storage<T: bytemuck::Pod>(device: &wgpu::Device, label: &str, data: &[T]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(data),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

struct Fixture {
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    target: OffscreenTarget,
    positions: wgpu::Buffer,
    normals: wgpu::Buffer,
    strain: wgpu::Buffer,
}

impl Fixture {
    fn new() -> Option<Self> {
        let (device, queue) = gpu()?;
        let renderer = Renderer::new(&device, &queue, OffscreenTarget::FORMAT).unwrap();
        let target = OffscreenTarget::new(&device, WIDTH, HEIGHT).unwrap();
        let (p, n) = rippled_flag(R);
        // Strain that varies across the flag, compressed near the pole and stretched at the fly.
        let strain: Vec<f32> = (0..R * R)
            .map(|i| 0.2 * ((i % R) as f32 / (R - 1) as f32) - 0.1)
            .collect();
        Some(Self {
            positions: storage(&device, "test render_positions", &p),
            normals: storage(&device, "test render_normals", &n),
            strain: storage(&device, "test render_strain", &strain),
            device,
            queue,
            renderer,
            target,
        })
    }

    /// Front view: the camera on the +z side, where the hoist is on the left (the obverse).
    fn front_camera() -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.8, 1.3, 0.0),
            yaw: 0.35,
            pitch: 0.15,
            distance: 3.3,
            ..OrbitCamera::default()
        }
    }

    fn cloth(&self, style: ClothStyle) -> ClothFrame<'_> {
        ClothFrame {
            resolution: [R, R],
            key_grid: [KEYS, KEYS],
            nodes: ClothNodes::Buffers {
                positions: &self.positions,
                normals: &self.normals,
                first_node: 0,
                strain: Some(&self.strain),
            },
            style,
            bounds: None,
        }
    }

    /// Renders the pole, a sphere, the ground and, with a style, the flag.
    fn render(
        &mut self,
        camera: &OrbitCamera,
        cloth: Option<ClothStyle>,
        lines: &[LineVertex],
    ) -> RgbaImage {
        self.render_within(camera, cloth, lines, None)
    }

    /// [`Self::render`] shading only the `visible` pixels.
    fn render_within(
        &mut self,
        camera: &OrbitCamera,
        cloth: Option<ClothStyle>,
        lines: &[LineVertex],
        visible: Option<PixelRect>,
    ) -> RgbaImage {
        let cloth = cloth.map(|style| ClothFrame {
            resolution: [R, R],
            key_grid: [KEYS, KEYS],
            nodes: ClothNodes::Buffers {
                positions: &self.positions,
                normals: &self.normals,
                first_node: 0,
                strain: Some(&self.strain),
            },
            style,
            bounds: None,
        });
        let spheres = [Sphere {
            center: Vec3::new(1.9, 0.35, -0.6),
            radius: 0.35,
        }];
        let frame = FrameData {
            cloth,
            lines,
            scene: SceneFrame {
                pole: Some(Pole {
                    base: Vec3::ZERO,
                    top: Vec3::new(0.0, 2.05, 0.0),
                    radius: POLE_RADIUS,
                }),
                spheres: &spheres,
                ground_height: Some(0.0),
                ..SceneFrame::default()
            },
            visible,
            ..FrameData::new(camera, self.target.aspect())
        };
        self.renderer
            .render_offscreen(&self.device, &self.queue, &self.target, &frame)
            .unwrap()
    }
}

/// Pixels of the middle `fraction` of the image (both axes).
fn centre(img: &RgbaImage, fraction: f32) -> impl Iterator<Item = (u32, u32)> + '_ {
    let (w, h) = img.dimensions();
    let (x0, x1) = (
        ((1.0 - fraction) * 0.5 * w as f32) as u32,
        ((1.0 + fraction) * 0.5 * w as f32) as u32,
    );
    let (y0, y1) = (
        ((1.0 - fraction) * 0.5 * h as f32) as u32,
        ((1.0 + fraction) * 0.5 * h as f32) as u32,
    );
    (y0..y1).flat_map(move |y| (x0..x1).map(move |x| (x, y)))
}

fn differs(a: &image::Rgba<u8>, b: &image::Rgba<u8>, tolerance: i32) -> bool {
    a.0.iter()
        .zip(b.0)
        .any(|(&x, y)| (i32::from(x) - i32::from(y)).abs() > tolerance)
}

/// Share of the centre region where `a` and `b` differ by more than `tolerance` in any channel.
fn changed_fraction(a: &RgbaImage, b: &RgbaImage, fraction: f32, tolerance: i32) -> f32 {
    let (mut changed, mut total) = (0usize, 0usize);
    for (x, y) in centre(a, fraction) {
        total += 1;
        changed += usize::from(differs(a.get_pixel(x, y), b.get_pixel(x, y), tolerance));
    }
    changed as f32 / total as f32
}

fn mean_abs_difference(a: &RgbaImage, b: &RgbaImage) -> f64 {
    let sum: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| u64::from(x.abs_diff(y)))
        .sum();
    sum as f64 / a.as_raw().len() as f64
}

/// Chromaticity distance: angle (rad) between two colours as RGB vectors, blind to brightness.
fn hue_angle(a: [u8; 3], b: [u8; 3]) -> f32 {
    let (a, b) = (Vec3::from(a.map(f32::from)), Vec3::from(b.map(f32::from)));
    a.normalize_or_zero()
        .dot(b.normalize_or_zero())
        .clamp(-1.0, 1.0)
        .acos()
}

fn save(img: &RgbaImage, path: &str) {
    img.save(path).unwrap();
    eprintln!("saved {path}");
}

#[test]
fn textured_flag_fills_the_centre_with_the_flag_colours() {
    let Some(mut fx) = Fixture::new() else { return };
    let camera = Fixture::front_camera();
    let style = ClothStyle::default();
    let with_flag = fx.render(&camera, Some(style), &[]);
    let without = fx.render(&camera, None, &[]);
    save(&with_flag, "/tmp/render-test.png");
    assert_eq!(with_flag.dimensions(), (WIDTH, HEIGHT));

    let changed = changed_fraction(&with_flag, &without, 0.4, 8);
    assert!(
        changed > 0.6,
        "only {:.0}% of the centre shows the flag",
        100.0 * changed
    );

    // Every flag colour shows up (within a small hue angle; lighting changes brightness).
    let covered: Vec<[u8; 3]> = centre(&with_flag, 0.6)
        .filter(|&(x, y)| differs(with_flag.get_pixel(x, y), without.get_pixel(x, y), 8))
        .map(|(x, y)| {
            let p = with_flag.get_pixel(x, y).0;
            [p[0], p[1], p[2]]
        })
        .collect();
    for colour in FLAG_PALETTE {
        let share = covered
            .iter()
            .filter(|&&p| hue_angle(p, colour) < 0.08)
            .count() as f32
            / covered.len() as f32;
        assert!(
            share > 0.02,
            "flag colour {colour:?} covers only {:.1}% of the flag",
            100.0 * share
        );
    }
}

#[test]
fn back_side_renders_when_the_camera_is_behind_the_flag() {
    let Some(mut fx) = Fixture::new() else { return };
    let camera = OrbitCamera {
        yaw: std::f32::consts::PI - 0.35,
        ..Fixture::front_camera()
    };
    let with_flag = fx.render(&camera, Some(ClothStyle::default()), &[]);
    let without = fx.render(&camera, None, &[]);
    save(&with_flag, "/tmp/render-test-back.png");
    let changed = changed_fraction(&with_flag, &without, 0.4, 8);
    assert!(
        changed > 0.6,
        "only {:.0}% of the centre shows the back of the flag",
        100.0 * changed
    );
}

#[test]
fn colour_modes_give_different_images() {
    let Some(mut fx) = Fixture::new() else { return };
    let camera = Fixture::front_camera();
    let images: Vec<(ColorMode, RgbaImage)> = ColorMode::ALL
        .iter()
        .map(|&color_mode| {
            let img = fx.render(
                &camera,
                Some(ClothStyle {
                    color_mode,
                    ..ClothStyle::default()
                }),
                &[],
            );
            save(&img, &format!("/tmp/render-test-{}.png", color_mode.name()));
            (color_mode, img)
        })
        .collect();
    for (i, (mode_a, a)) in images.iter().enumerate() {
        for (mode_b, b) in &images[i + 1..] {
            let d = mean_abs_difference(a, b);
            assert!(
                d > 3.0,
                "{mode_a:?} and {mode_b:?} differ by only {d:.2} per channel"
            );
        }
    }
}

#[test]
fn wireframes_and_delta_v_segments_draw_over_the_cloth() {
    let Some(mut fx) = Fixture::new() else { return };
    let camera = Fixture::front_camera();
    let plain = fx.render(&camera, Some(ClothStyle::default()), &[]);

    // Key mesh: every fifth-ish render node of the CPU copy stands in for the key nodes.
    let (p, _) = rippled_flag(KEYS);
    let keys: Vec<Vec3> = p.iter().map(|q| Vec3::new(q[0], q[1], q[2])).collect();
    let mut lines = grid_wireframe(&keys, KEYS as usize, KEYS as usize, [1.0, 1.0, 1.0, 1.0]);
    let dv: Vec<Vec3> = keys
        .iter()
        .map(|x| Vec3::new(0.0, 0.0, 0.5 + 0.2 * x.x))
        .collect();
    lines.extend(vector_segments(&keys, &dv, 0.3, [1.0, 0.2, 0.1, 1.0]));
    let style = ClothStyle {
        wireframe: Some([0.05, 0.05, 0.05, 0.6]),
        ..ClothStyle::default()
    };
    let overlaid = fx.render(&camera, Some(style), &lines);
    save(&overlaid, "/tmp/render-test-lines.png");

    let changed = changed_fraction(&overlaid, &plain, 0.4, 20);
    assert!(
        changed > 0.1,
        "wireframes changed only {:.1}% of the centre",
        100.0 * changed
    );
}

/// The viewer shades only what its panels leave uncovered: inside the visible rectangle the image
/// is the full render's, pixel for pixel; outside it keeps the clear colour (opaque black).
/// lavapipe's multisampled scissor also shades the one row and column just above and left of the
/// rectangle (without MSAA, as the viewer draws there, it is exact), so that frame is let be.
#[test]
fn only_the_visible_rectangle_is_shaded() {
    let Some(mut fx) = Fixture::new() else { return };
    let camera = Fixture::front_camera();
    let full = fx.render(&camera, Some(ClothStyle::default()), &[]);
    let visible = PixelRect {
        x: 200,
        y: 40,
        width: 300,
        height: 250,
    };
    let part = fx.render_within(&camera, Some(ClothStyle::default()), &[], Some(visible));
    let inside = |x: u32, y: u32| {
        (visible.x..visible.x + visible.width).contains(&x)
            && (visible.y..visible.y + visible.height).contains(&y)
    };
    let beside = |x: u32, y: u32| {
        (visible.x - 1..=visible.x + visible.width).contains(&x)
            && (visible.y - 1..=visible.y + visible.height).contains(&y)
    };
    let mut shaded_outside = 0;
    let mut differ_inside = 0;
    for (x, y, p) in part.enumerate_pixels() {
        if inside(x, y) {
            differ_inside += usize::from(p != full.get_pixel(x, y));
        } else if !beside(x, y) {
            shaded_outside += usize::from(p.0 != [0, 0, 0, 255]);
        }
    }
    assert_eq!(
        differ_inside, 0,
        "pixels inside differ from the full render"
    );
    assert_eq!(shaded_outside, 0, "pixels outside were shaded");
    // Not vacuous: the full render has no black pixels where the part has them.
    assert!(full.pixels().all(|p| p.0 != [0, 0, 0, 255]));
}

#[test]
fn bgra_unorm_target_encodes_srgb_in_the_shader_like_an_srgb_target() {
    let Some(mut fx) = Fixture::new() else { return };
    let camera = Fixture::front_camera();
    let srgb = fx.render(&camera, Some(ClothStyle::default()), &[]);

    let format = wgpu::TextureFormat::Bgra8Unorm;
    let mut renderer = Renderer::new(&fx.device, &fx.queue, format).unwrap();
    let target = OffscreenTarget::with_format(&fx.device, WIDTH, HEIGHT, format).unwrap();
    let spheres = [Sphere {
        center: Vec3::new(1.9, 0.35, -0.6),
        radius: 0.35,
    }];
    let frame = FrameData {
        cloth: Some(fx.cloth(ClothStyle::default())),
        scene: SceneFrame {
            pole: Some(Pole {
                base: Vec3::ZERO,
                top: Vec3::new(0.0, 2.05, 0.0),
                radius: POLE_RADIUS,
            }),
            spheres: &spheres,
            ground_height: Some(0.0),
            ..SceneFrame::default()
        },
        ..FrameData::new(&camera, target.aspect())
    };
    let bgra = renderer
        .render_offscreen(&fx.device, &fx.queue, &target, &frame)
        .unwrap();
    // MSAA resolves in different spaces (linear vs encoded) only disagree on edge pixels.
    let d = mean_abs_difference(&srgb, &bgra);
    assert!(
        d < 1.5,
        "Bgra8Unorm render differs from the sRGB one by {d:.2} per channel"
    );
    let mismatched = changed_fraction(&srgb, &bgra, 1.0, 3);
    assert!(
        mismatched < 0.05,
        "{:.1}% of pixels differ by more than 3",
        100.0 * mismatched
    );
}

/// A full-screen triangle whose fragments each run a loop: work whose GPU time grows with the
/// number of draws on any adapter.
const BUSY_WGSL: &str = "
@vertex fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}
@fragment fn fs_main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    var x = pos.x * 0.001 + pos.y * 0.002;
    for (var k = 0; k < 96; k++) { x = sin(x * 1.7 + 0.3); }
    return vec4<f32>(x, x, x, 1.0);
}";

#[test]
fn the_gpu_timer_measures_the_work_between_its_marks() {
    use flagsim::render::{GpuContext, GpuTimer};
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let gpu = match GpuContext::new_headless() {
        Ok(g) => g,
        Err(e) => {
            assert!(!ci, "CI=true but no GPU adapter: {e}");
            eprintln!("SKIPPED: no GPU adapter ({e})");
            return;
        }
    };
    let (device, queue) = (&gpu.device, &gpu.queue);
    let Some(timer) = GpuTimer::new(device, queue) else {
        // CI's adapter, lavapipe, has timestamp queries.
        assert!(!ci, "no timestamp queries on {}", gpu.adapter_report());
        eprintln!("SKIPPED: no timestamp queries on {}", gpu.adapter_report());
        return;
    };
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[],
    });
    let pipeline = flagsim::render::passes::fullscreen::pipeline(
        device, "busy", BUSY_WGSL, &layout, format, None,
    );
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &[],
    });
    let target = OffscreenTarget::with_format(device, 256, 256, format).unwrap();
    // The GPU's seconds for `draws` draws, and the wall clock from their submit to their end.
    let time = |draws: u32| {
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        timer.start(&mut enc);
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("busy"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target.resolved_view(),
                    resolve_target: None,
                    depth_slice: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            for _ in 0..draws {
                pass.draw(0..3, 0..1);
            }
        }
        timer.stop(&mut enc);
        let t = std::time::Instant::now();
        queue.submit([enc.finish()]);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        let wall = t.elapsed().as_secs_f64();
        (timer.read(device).expect("timestamps read back"), wall)
    };
    let _ = time(1);
    let (one, one_wall) = time(1);
    let (sixteen, sixteen_wall) = time(16);
    eprintln!("GPU time of 1 draw {one:.6} s (wall {one_wall:.6} s), of 16 {sixteen:.6} s");
    for (gpu_s, wall) in [(one, one_wall), (sixteen, sixteen_wall)] {
        // The GPU's work lies between the submit and the end of the wait.
        assert!(
            gpu_s > 0.0 && gpu_s <= wall + 1e-4,
            "GPU {gpu_s} s, wall {wall} s"
        );
    }
    assert!(
        sixteen > 4.0 * one,
        "16 draws took {sixteen} s, one {one} s"
    );
}
