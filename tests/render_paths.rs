//! The CPU-upsampling render path (for devices without compute shaders or storage buffers:
//! WebGL2) against the compute path, on a real adapter (lavapipe in CI): the same snapshots drawn
//! both ways give the same pictures, and a device held to WebGL2's limits draws through it
//! without a validation error. Without an adapter the tests print `SKIPPED` and pass, except
//! under `CI=true`, where they fail.

mod common;

use common::gpu_or_skip;
use flagsim::render::drawing::headless::HeadlessRenderer;
use flagsim::render::drawing::view::{self, ViewSettings};
use flagsim::render::{ColorMode, GpuContext, RenderPath};
use flagsim::sim::Scene;
use flagsim::sim::runtime::flags::FlagSet;
use flagsim::sim::runtime::snapshot::Snapshot;
use image::RgbaImage;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 200;

/// Largest share of pixels allowed to differ by more than [`LEVELS`] in a channel.
///
/// Why: both paths evaluate the same spline equations in f32 in the same order (the CPU twin
/// and the kernels), so their nodes differ by rounding alone, a few units in the last place
/// (about 1e-7 of the cloth's size; on lavapipe not at all): a node moves by well under a
/// micrometre against pixels of about 5 mm here, so a sample changes side of a triangle's edge
/// only where it lies within 1e-4 of a pixel of it, a few pixels of the silhouette at most.
/// Normals differ by about 1e-7 too; the shading's steepest part (the highlight,
/// `0.12 · 24 · x²³` per unit of `n·h`, times 12.92 where sRGB encodes the darkest values)
/// turns that into a thousandth of a level, which can still round either way: one level. A
/// fifth of a percent (a hundred pixels) leaves room for the silhouette; a broken path (the
/// normals zeroed, so the facets' own) changes several percent.
const DIFFERING_SHARE: f64 = 0.002;
/// Channel difference (of 255) a pixel may have before it counts as differing.
const LEVELS: u8 = 1;
/// Largest mean absolute channel difference (of 255) over the image: the few rounded pixels
/// above, averaged over all of them.
const MEAN_LEVELS: f64 = 0.02;

/// The share of pixels differing by more than [`LEVELS`] in a channel, and the mean absolute
/// channel difference (RGB).
fn difference(a: &RgbaImage, b: &RgbaImage) -> (f64, f64) {
    assert_eq!(a.dimensions(), b.dimensions());
    let (mut differing, mut sum) = (0usize, 0u64);
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d: Vec<u8> = (0..3).map(|c| p[c].abs_diff(q[c])).collect();
        differing += usize::from(d.iter().any(|&x| x > LEVELS));
        sum += d.iter().map(|&x| u64::from(x)).sum::<u64>();
    }
    let pixels = f64::from(a.width() * a.height());
    (differing as f64 / pixels, sum as f64 / (3.0 * pixels))
}

fn assert_nearly_equal(what: &str, a: &RgbaImage, b: &RgbaImage) {
    let (differing, mean) = difference(a, b);
    eprintln!("{what}: {differing:.5} of the pixels differ, mean {mean:.4} levels");
    if differing > DIFFERING_SHARE || mean > MEAN_LEVELS {
        let dir = std::env::temp_dir();
        a.save(dir.join("render_paths_compute.png")).ok();
        b.save(dir.join("render_paths_cpu.png")).ok();
        panic!(
            "{what}: {differing:.4} of the pixels differ by more than {LEVELS} (at most \
             {DIFFERING_SHARE}), mean {mean:.3} levels (at most {MEAN_LEVELS}); images in {}",
            dir.display()
        );
    }
}

/// A headless renderer on `path`, sharing `ctx`'s device.
fn renderer(ctx: &GpuContext, path: RenderPath) -> HeadlessRenderer {
    HeadlessRenderer::on(ctx.clone(), WIDTH, HEIGHT, path).expect("renderer")
}

/// The snapshot of `preset` after `steps` steps (every flag of it).
fn snapshot_after(preset: &str, steps: usize) -> Snapshot {
    let scene = Scene::load(preset).expect("preset");
    let mut flags = FlagSet::new(&scene).expect("flags");
    for _ in 0..steps {
        assert!(flags.step());
    }
    flags.snapshot()
}

#[test]
fn the_cpu_upsampling_path_draws_what_the_compute_path_draws() {
    let Some(ctx) = gpu_or_skip() else {
        return;
    };
    assert_eq!(
        RenderPath::of(&ctx.adapter, &ctx.device),
        RenderPath::Compute,
        "the test adapter runs compute shaders"
    );
    let mut compute = renderer(&ctx, RenderPath::Compute);
    let mut cpu = renderer(&ctx, RenderPath::CpuUpsampling);
    assert_eq!(compute.path(), RenderPath::Compute);
    assert_eq!(cpu.path(), RenderPath::CpuUpsampling);

    // One flag, wrinkled, after a second of wind; then coloured by strain with the render
    // mesh's wireframe over it (the per-node values and the second pipeline).
    let flag = snapshot_after("flag", 60);
    let mut camera = view::framing_camera(&[&flag]);
    // Nearer than the viewer frames it: the cloth fills most of the picture.
    camera.distance *= 0.5;
    let textured = ViewSettings::default();
    let strain = ViewSettings {
        color_mode: ColorMode::Strain,
        render_wireframe: true,
        ..ViewSettings::default()
    };
    let mut drawn = Vec::new();
    for (what, settings) in [("textured", &textured), ("strain", &strain)] {
        let a = compute
            .render(&flag, settings, &camera)
            .expect("compute path");
        let b = cpu
            .render(&flag, settings, &camera)
            .expect("CPU-upsampling path");
        assert_nearly_equal(what, &a, &b);
        drawn.push(a);
    }
    // The measure tells pictures apart: the strain colours against the texture.
    assert!(difference(&drawn[0], &drawn[1]).0 > 10.0 * DIFFERING_SHARE);

    // Four flags, two of them shaped (their cut key nodes continued on the CPU either way).
    let flags = snapshot_after("flags", 30);
    let camera = view::framing_camera(&[&flags]);
    let a = compute.render(&flags, &textured, &camera).expect("compute");
    let b = cpu.render(&flags, &textured, &camera).expect("CPU");
    assert_nearly_equal("four flags", &a, &b);

    // And it tells a cloth one step on from the last: what a path drawing the wrong nodes,
    // or stale ones, would show.
    let later = snapshot_after("flags", 31);
    let c = compute.render(&later, &textured, &camera).expect("compute");
    let (differing, _) = difference(&a, &c);
    assert!(
        differing > DIFFERING_SHARE,
        "one step later only {differing} of the pixels differ"
    );
}

#[test]
fn a_device_with_webgl2_limits_draws_through_the_cpu_upsampling_path_alone() {
    // lavapipe held to WebGL2's limits: no storage buffer in any stage, no compute workgroup.
    // wgpu checks every pass against them, so a storage binding or a compute pipeline fails.
    let limits = wgpu::Limits::downlevel_webgl2_defaults();
    let ctx = match GpuContext::new_headless_with_limits(limits) {
        Ok(ctx) => ctx,
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but no GPU adapter: {e}"
            );
            eprintln!("SKIPPED: no GPU adapter ({e})");
            return;
        }
    };
    let path = RenderPath::of(&ctx.adapter, &ctx.device);
    assert_eq!(path, RenderPath::CpuUpsampling);
    assert_eq!(RenderPath::of_device(&ctx.device), path);
    let mut held = HeadlessRenderer::on(ctx.clone(), WIDTH, HEIGHT, path).expect("renderer");
    // The same path on the adapter's own limits, for the pictures to compare with.
    let full = gpu_or_skip().expect("the adapter opened above");
    let mut free = renderer(&full, RenderPath::CpuUpsampling);
    let snap = snapshot_after("flags", 30);
    let camera = view::framing_camera(&[&snap]);
    for settings in [
        ViewSettings::default(),
        ViewSettings {
            color_mode: ColorMode::Strain,
            render_wireframe: true,
            ..ViewSettings::default()
        },
    ] {
        let a = free.render(&snap, &settings, &camera).expect("drawn");
        let b = (held.render(&snap, &settings, &camera))
            .expect("drawn without a validation error under WebGL2's limits");
        assert_nearly_equal("WebGL2's limits", &a, &b);
    }
    // The compute path on the same device is refused: the limits do hold the passes to them.
    let compute = HeadlessRenderer::on(ctx.clone(), WIDTH, HEIGHT, RenderPath::Compute);
    assert!(
        compute.is_err() || ctx.check().is_err(),
        "the compute path built on a device without storage buffers"
    );
}
