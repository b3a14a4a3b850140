//! The GPU upsampler (`shaders/upsample.wgsl` via `UpsamplePass`) computes what its CPU twin
//! computes, on every mode and option, at the default and at the largest resolution.
//!
//! Runs on any adapter, lavapipe included. Without one the tests print `SKIPPED: no GPU
//! adapter` and pass, except under `CI=true`, where a missing adapter is a failure.

mod common;

use std::io::Write;
use std::sync::OnceLock;

use common::{
    OwnedGrid, compressed_grid, crumpled_grid, every_mode_and_option, flat_grid, max_distance,
};
use flagsim::render::{GpuContext, GpuError, OutputBuffers, UpsamplePass};
use flagsim::upsample::{DisplayMode, KeyGrid, RenderSettings, upsample_cpu};

/// Positions may differ by this fraction of the cloth size (bounding-box diagonal): f32
/// rounding, fused multiply-adds and the GPU's `sin` differ from the CPU's in the last bits.
const POSITION_TOLERANCE: f32 = 1e-4;

/// Normals are unit vectors from central differences over one render spacing, so a position
/// difference `δ` turns them by about `δ / spacing`; this bounds `|n_gpu - n_cpu|`.
const NORMAL_TOLERANCE: f32 = 2e-3;

fn shared_gpu() -> Option<&'static GpuContext> {
    static GPU: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    match GPU.get_or_init(|| GpuContext::new_headless().map_err(|e| e.to_string())) {
        Ok(ctx) => Some(ctx),
        Err(message) => {
            assert!(
                !std::env::var("CI").is_ok_and(|v| v == "true"),
                "CI=true but no GPU adapter: {message}"
            );
            // Straight to the stderr handle: the test harness captures `eprintln!` of passing
            // tests, and a skip must be seen.
            let _ = writeln!(std::io::stderr(), "SKIPPED: no GPU adapter. {message}");
            None
        }
    }
}

/// A GPU device plus an upsample pass, reused across many comparisons.
pub struct GpuHarness {
    ctx: &'static GpuContext,
    pass: UpsamplePass,
}

/// The harness, or `None` after printing `SKIPPED` (a failure under `CI=true`).
pub fn gpu_harness() -> Option<GpuHarness> {
    let ctx = shared_gpu()?;
    let pass = UpsamplePass::new(&ctx.device).expect("upsample pipelines build");
    Some(GpuHarness { ctx, pass })
}

impl GpuHarness {
    /// Runs `grid` through the GPU pass and the CPU reference and asserts they agree:
    /// positions within [`POSITION_TOLERANCE`] × cloth size, normals within
    /// [`NORMAL_TOLERANCE`]. Returns the largest errors seen (position in metres, normal).
    pub fn assert_matches_cpu(
        &mut self,
        label: &str,
        grid: &KeyGrid,
        settings: &RenderSettings,
    ) -> (f32, f32) {
        let expected = upsample_cpu(grid, settings);
        assert!(
            !expected.positions.is_empty(),
            "{label}: the CPU rejected the input"
        );
        let _: OutputBuffers = self
            .pass
            .upload_keys(&self.ctx.device, &self.ctx.queue, grid, settings)
            .unwrap_or_else(|e| panic!("{label}: upload rejected: {e}"));
        let got = self
            .pass
            .run_and_read_back(self.ctx)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(got.resolution, expected.resolution, "{label}: resolution");
        let size = cloth_size(grid);
        let (dp, ip) = max_distance(&got.positions, &expected.positions);
        let (dn, inn) = max_distance(&got.normals, &expected.normals);
        assert!(
            dp <= POSITION_TOLERANCE * size,
            "{label}: position {ip} differs by {dp} m (cloth {size} m): gpu {} cpu {}",
            got.positions[ip],
            expected.positions[ip]
        );
        assert!(
            dn <= NORMAL_TOLERANCE,
            "{label}: normal {inn} differs by {dn}: gpu {} cpu {}",
            got.normals[inn],
            expected.normals[inn]
        );
        (dp, dn)
    }

    /// [`Self::assert_matches_cpu`] for every display mode and every combination of the
    /// key-aligned, symmetric and C¹-seam options at `resolution`.
    pub fn assert_matches_cpu_in_every_mode(
        &mut self,
        label: &str,
        grid: &KeyGrid,
        resolution: [u32; 2],
    ) {
        let mut worst = (0.0f32, 0.0f32);
        for settings in every_mode_and_option(resolution) {
            let case = format!("{label} {settings:?}");
            let (dp, dn) = self.assert_matches_cpu(&case, grid, &settings);
            worst = (worst.0.max(dp), worst.1.max(dn));
        }
        println!(
            "{label} at {resolution:?}: worst position error {} m, worst normal error {}",
            worst.0, worst.1
        );
    }
}

fn cloth_size(grid: &KeyGrid) -> f32 {
    OwnedGrid {
        nx: grid.nx,
        ny: grid.ny,
        positions: grid.positions.to_vec(),
        l0_u: grid.l0_u,
        l0_v: grid.l0_v,
    }
    .size()
}

fn test_grids() -> Vec<(&'static str, OwnedGrid)> {
    vec![
        ("flat", flat_grid(10, 10)),
        ("compressed", compressed_grid(10, 10, 0.3, 0.2)),
        ("crumpled", crumpled_grid(0x5EED_F1A6)),
    ]
}

#[test]
fn gpu_matches_cpu_at_50x50_for_every_grid_mode_and_option() {
    let Some(mut gpu) = gpu_harness() else { return };
    println!("adapter: {}", gpu.ctx.adapter_report());
    for (name, grid) in test_grids() {
        gpu.assert_matches_cpu_in_every_mode(name, &grid.view(), [50, 50]);
    }
}

#[test]
fn gpu_matches_cpu_at_1024x1024_for_every_grid_and_mode() {
    let Some(mut gpu) = gpu_harness() else { return };
    for (name, grid) in test_grids() {
        for mode in DisplayMode::ALL {
            let settings = RenderSettings {
                resolution: [1024, 1024],
                mode,
                ..RenderSettings::default()
            };
            let (dp, dn) =
                gpu.assert_matches_cpu(&format!("{name} {mode:?} 1024"), &grid.view(), &settings);
            println!("{name} {mode:?} 1024²: position error {dp} m, normal error {dn}");
        }
    }
}

#[test]
fn gpu_matches_cpu_at_1024x1024_with_every_option_on_the_crumpled_grid() {
    let Some(mut gpu) = gpu_harness() else { return };
    let grid = crumpled_grid(0x5EED_F1A6);
    let options = [
        (true, false, false),
        (false, true, false),
        (false, false, true),
        (true, true, true),
    ];
    for (key_aligned, symmetric, c1_seam) in options {
        let settings = RenderSettings {
            resolution: [1024, 1024],
            key_aligned,
            symmetric,
            c1_seam,
            ..RenderSettings::default()
        };
        let label =
            format!("crumpled 1024 aligned={key_aligned} symmetric={symmetric} c1={c1_seam}");
        let (dp, dn) = gpu.assert_matches_cpu(&label, &grid.view(), &settings);
        println!("{label}: position error {dp} m, normal error {dn}");
    }
}

#[test]
fn gpu_output_buffers_are_kept_until_the_key_count_or_resolution_changes() {
    let Some(mut gpu) = gpu_harness() else { return };
    let (device, queue) = (&gpu.ctx.device, &gpu.ctx.queue);
    let grid = crumpled_grid(1);
    let mut settings = RenderSettings::default();
    let upload = |pass: &mut UpsamplePass, grid: &OwnedGrid, settings: &RenderSettings| {
        pass.upload_keys(device, queue, &grid.view(), settings)
            .expect("valid input")
    };
    assert_eq!(
        upload(&mut gpu.pass, &grid, &settings),
        OutputBuffers::Recreated
    );
    assert_eq!(
        upload(&mut gpu.pass, &grid, &settings),
        OutputBuffers::Unchanged
    );
    settings.mode = DisplayMode::Smooth;
    settings.symmetric = true;
    assert_eq!(
        upload(&mut gpu.pass, &grid, &settings),
        OutputBuffers::Unchanged
    );
    settings.resolution = [64, 50];
    assert_eq!(
        upload(&mut gpu.pass, &grid, &settings),
        OutputBuffers::Recreated
    );
    assert_eq!(gpu.pass.resolution(), Some([64, 50]));
    assert_eq!(
        upload(&mut gpu.pass, &flat_grid(12, 10), &settings),
        OutputBuffers::Recreated
    );
}

#[test]
fn gpu_pass_rejects_invalid_input_and_reading_before_any_upload() {
    let Some(mut gpu) = gpu_harness() else { return };
    assert!(matches!(
        gpu.pass.read_back(gpu.ctx),
        Err(GpuError::NotUploaded)
    ));
    let mut grid = flat_grid(3, 3);
    grid.positions.pop();
    let result = gpu.pass.upload_keys(
        &gpu.ctx.device,
        &gpu.ctx.queue,
        &grid.view(),
        &RenderSettings::default(),
    );
    assert!(
        result.is_err(),
        "a grid with a missing node must be rejected"
    );
    assert!(gpu.pass.render_positions_buffer().is_none());
}

/// The key grid of the `flag` preset after `seconds` of simulation.
fn flag_after(seconds: f64) -> (flagsim::sim::GridInfo, Vec<glam::Vec3>) {
    let scene = flagsim::sim::Scene::load("flag").expect("preset");
    let mut sim = scene.simulation().expect("simulation");
    let steps = (seconds / scene.params.dt).round() as usize;
    for _ in 0..steps {
        assert!(sim.step());
    }
    let grid = sim.cloth.grid().expect("grid cloth");
    (
        grid,
        flagsim::render::drawing::view::key_positions(&sim.cloth.x),
    )
}

#[test]
fn gpu_matches_cpu_on_the_flag_preset_after_two_seconds() {
    let Some(mut g) = gpu_harness() else { return };
    let (info, keys) = flag_after(2.0);
    let grid = flagsim::render::drawing::view::key_grid(&info, &keys);
    g.assert_matches_cpu_in_every_mode("flag after 2 s", &grid, [50, 50]);
    for mode in DisplayMode::ALL {
        let settings = RenderSettings {
            resolution: [1024, 1024],
            mode,
            ..RenderSettings::default()
        };
        g.assert_matches_cpu("flag after 2 s at 1024²", &grid, &settings);
    }
}

#[test]
fn a_gpu_error_wgpu_reports_on_its_own_becomes_one_error_not_a_panic() {
    // A fresh context: the shared one must not see this test's error.
    let ctx = match GpuContext::new_headless() {
        Ok(ctx) => ctx,
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but {e}"
            );
            let _ = writeln!(std::io::stderr(), "SKIPPED: no GPU adapter ({e})");
            return;
        }
    };
    assert!(ctx.check().is_ok(), "a fresh device has nothing to report");
    // Writing into a buffer made without COPY_DST is a validation error wgpu reports through
    // the uncaptured-error handler (its default handler would panic).
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("no copy destination"),
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&buffer, 0, &[0u8; 16]);
    ctx.queue.submit([]);
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    let e = ctx.check().expect_err("the validation error is reported");
    assert!(matches!(e, GpuError::Device(_)), "{e:?}");
    assert!(e.to_string().starts_with("the GPU failed"), "{e}");
    // Reported once.
    assert!(ctx.check().is_ok());
}

/// Several cloths of different key counts, resolutions, modes and options upsampled together
/// in one batch (one dispatch of each kernel, as a scene's flags are; two of them symmetric, so
/// two write column-first frame nodes): each gets what it gets alone, bit for bit, and what the CPU twin computes, within the tolerances; each lies where
/// its placement says, from a multiple of 16 nodes, none over another.
#[test]
fn a_batch_of_cloths_gives_each_what_it_gives_alone() {
    let Some(mut gpu) = gpu_harness() else { return };
    let (device, queue) = (&gpu.ctx.device, &gpu.ctx.queue);
    let setting = |resolution, mode, symmetric, c1_seam| RenderSettings {
        resolution,
        mode,
        symmetric,
        c1_seam,
        ..RenderSettings::default()
    };
    let cloths = [
        (
            crumpled_grid(0x5EED_F1A6),
            setting([50, 50], DisplayMode::Wrinkled, true, false),
        ),
        (
            compressed_grid(10, 10, 0.3, 0.2),
            setting([37, 23], DisplayMode::Smooth, false, false),
        ),
        (
            flat_grid(12, 7),
            setting([20, 33], DisplayMode::KeyOnly, false, false),
        ),
        (
            crumpled_grid(2),
            setting([64, 50], DisplayMode::Wrinkled, true, true),
        ),
    ];
    let batch: Vec<(KeyGrid, &RenderSettings)> =
        cloths.iter().map(|(g, s)| (g.view(), s)).collect();
    let _ = gpu
        .pass
        .upload_batch(device, queue, &batch)
        .expect("valid input");
    assert_eq!(gpu.pass.cloth_count(), cloths.len());
    let together: Vec<_> = (0..cloths.len())
        .map(|k| {
            if k == 0 {
                gpu.pass.run_and_read_back(gpu.ctx)
            } else {
                gpu.pass.read_back_cloth(gpu.ctx, k)
            }
            .expect("read back")
        })
        .collect();
    let mut end = 0;
    for (k, ((grid, settings), got)) in cloths.iter().zip(&together).enumerate() {
        let place = gpu.pass.placement(k).expect("placed");
        let [ru, rv] = place.resolution;
        assert_eq!(
            place.resolution,
            settings.effective_resolution(grid.nx, grid.ny)
        );
        assert_eq!(
            place.first_node % 16,
            0,
            "cloth {k} at {}",
            place.first_node
        );
        assert!(place.first_node >= end, "cloth {k} over the one before");
        end = place.first_node + ru * rv;
        let expected = upsample_cpu(&grid.view(), settings);
        let size = cloth_size(&grid.view());
        let (dp, _) = max_distance(&got.positions, &expected.positions);
        let (dn, _) = max_distance(&got.normals, &expected.normals);
        assert!(
            dp <= POSITION_TOLERANCE * size,
            "cloth {k}: position off by {dp} m"
        );
        assert!(dn <= NORMAL_TOLERANCE, "cloth {k}: normal off by {dn}");
    }
    assert!(gpu.pass.placement(cloths.len()).is_none());
    for (k, ((grid, settings), got)) in cloths.iter().zip(&together).enumerate() {
        let _ = gpu
            .pass
            .upload_keys(device, queue, &grid.view(), settings)
            .expect("valid input");
        let alone = gpu.pass.run_and_read_back(gpu.ctx).expect("read back");
        assert_eq!(alone.resolution, got.resolution);
        assert!(
            alone.positions == got.positions && alone.normals == got.normals,
            "cloth {k}: the batch differs from the cloth alone"
        );
    }
}

/// `shaders/fill_cut.wgsl` (`CutFillPass`) against its CPU twin `view::fill_cut_keys`: each
/// shape's cut mask on a crumpled 13 × 11 grid, and masks made to reach every branch (a row
/// cut whole, rows with one kept node, a run before a row's first kept node, between two, past
/// the last, two filled rows as near to an unfilled one, a filled row with no filled row next
/// to it), the cloth placed after other nodes in the buffer.
#[test]
fn cut_key_nodes_are_continued_on_the_gpu_as_on_the_cpu() {
    use flagsim::render::{CutFillPass, drawing::view::fill_cut_keys};
    use flagsim::sim::format::outline::FlagShape;
    use wgpu::util::DeviceExt;
    let Some(ctx) = shared_gpu() else { return };
    let mut pass = CutFillPass::new(&ctx.device).expect("pipelines");
    let (nx, ny) = (13_usize, 11_usize);
    let mut masks: Vec<(String, Vec<bool>)> = Vec::new();
    for shape in FlagShape::ALL {
        let json = format!(
            r#"{{ "cloth": {{ "grid": {{ "nx": {nx}, "ny": {ny}, "pins": "hoist", "shape": {} }} }} }}"#,
            serde_json::to_string(&shape).unwrap()
        );
        let cloth = flagsim::sim::Scene::from_json(&json, "shape")
            .expect("scene")
            .build_cloth();
        let cut = cloth.topology.mesh.cut.clone();
        if cut.iter().any(|&c| c) {
            masks.push((format!("{shape:?}"), cut));
        }
    }
    assert!(
        masks.len() >= 3,
        "{:?}",
        masks.iter().map(|m| &m.0).collect::<Vec<_>>()
    );
    // Made by hand: row 0 cut whole, row 1 one kept node, rows 2–3 filled with runs at both
    // ends and between, row 4 one kept node (as near to row 3 as to row 5), row 5 filled,
    // rows 6–8 none kept (row 7 is as near to row 5 as to row 9 and takes 5; row 4, which would
    // give the step, is not filled), row 9 filled, row 10 one kept node.
    let mut made = vec![true; nx * ny];
    let keep = |mask: &mut Vec<bool>, j: usize, is: &[usize]| {
        for &i in is {
            mask[j * nx + i] = false;
        }
    };
    keep(&mut made, 1, &[4]);
    keep(&mut made, 2, &[2, 3, 7, 9]);
    keep(&mut made, 3, &[0, 1, 5, 12]);
    keep(&mut made, 4, &[6]);
    keep(&mut made, 5, &[3, 10]);
    keep(&mut made, 9, &[0, 6, 7]);
    keep(&mut made, 10, &[11]);
    masks.push(("made by hand".into(), made));
    let base = 7_u32;
    for (name, cut) in &masks {
        // A crumpled cloth, every node somewhere of its own.
        let raw: Vec<glam::Vec3> = (0..nx * ny)
            .map(|k| {
                let (i, j) = ((k % nx) as f32, (k / nx) as f32);
                glam::Vec3::new(
                    0.1 * i + 0.02 * (1.3 * j).sin(),
                    0.08 * j + 0.03 * (0.7 * i).cos(),
                    0.05 * (0.9 * i + 0.4 * j).sin(),
                )
            })
            .collect();
        let mut expected = raw.clone();
        fill_cut_keys(&mut expected, cut, nx, ny);
        let changed = (0..nx * ny).filter(|&k| expected[k] != raw[k]).count();
        assert!(changed > 0, "{name}: the CPU moved no cut node");
        // Every kept node stays; the GPU's buffer has `base` other nodes first.
        let mut values = vec![[9.0_f32; 4]; base as usize];
        values.extend(raw.iter().map(|p| [p.x, p.y, p.z, 0.5]));
        let keys = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("keys"),
                contents: bytemuck::cast_slice(&values),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            });
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let size = [nx as u32, ny as u32];
        assert!(pass.record(
            &ctx.device,
            &ctx.queue,
            &mut encoder,
            &keys,
            base,
            cut,
            size
        ));
        ctx.queue.submit([encoder.finish()]);
        let got =
            flagsim::gpu_sim::read_vec3s(&ctx.device, &ctx.queue, &keys, base + (nx * ny) as u32)
                .expect("read back");
        for (k, g) in got.iter().enumerate().take(base as usize) {
            assert_eq!(
                *g,
                glam::DVec3::splat(9.0),
                "{name}: node {k} before the cloth"
            );
        }
        let mut worst = 0.0_f32;
        for k in 0..nx * ny {
            let g = got[base as usize + k].as_vec3();
            let d = (g - expected[k]).length();
            if cut[k] {
                worst = worst.max(d);
            } else {
                assert_eq!(g, raw[k], "{name}: kept node {k} moved");
            }
        }
        // A few f32 operations on positions about 1 m from the origin.
        assert!(
            worst < 1e-6,
            "{name}: the GPU is {worst:e} m from the CPU ({changed} moved)"
        );
    }
    // Nothing cut, or sizes that disagree: nothing recorded.
    let keys = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16 * 200,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let none = vec![false; nx * ny];
    assert!(!pass.record(
        &ctx.device,
        &ctx.queue,
        &mut encoder,
        &keys,
        0,
        &none,
        [13, 11]
    ));
    assert!(!pass.record(
        &ctx.device,
        &ctx.queue,
        &mut encoder,
        &keys,
        0,
        &masks[0].1,
        [11, 13 + 1]
    ));
    assert!(!pass.record(
        &ctx.device,
        &ctx.queue,
        &mut encoder,
        &keys,
        100,
        &masks[0].1,
        [13, 11]
    ));
}
