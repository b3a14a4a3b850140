//! The GPU simulation's kernels (`flagsim::gpu_sim`) against their CPU twins in `flagsim::sim`.
//!
//! Runs on any adapter, lavapipe included. Without one the tests print `SKIPPED: no GPU
//! adapter` and pass, except under `CI=true`, where a missing adapter is a failure.

use std::io::Write;
use std::sync::OnceLock;

use flagsim::gpu_sim::{ClothBuffers, ForcePass, read_vec3s};
use flagsim::render::GpuContext;
use flagsim::sim::forces::spring_forces;
use flagsim::sim::{Cloth, Scene};
use glam::DVec3;

/// f32's unit round-off.
const EPS32: f64 = f32::EPSILON as f64;

fn shared_gpu() -> Option<&'static GpuContext> {
    static GPU: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    match GPU.get_or_init(|| GpuContext::new_headless().map_err(|e| e.to_string())) {
        Ok(ctx) => Some(ctx),
        Err(message) => {
            assert!(
                !std::env::var("CI").is_ok_and(|v| v == "true"),
                "CI=true but no GPU adapter: {message}"
            );
            let _ = writeln!(std::io::stderr(), "SKIPPED: no GPU adapter. {message}");
            None
        }
    }
}

/// An `n × n` sheet of 1 m with every spring family, k = 2000 / 500 / 50 N/m (the peer's).
fn sheet(n: usize) -> Cloth {
    let json = format!(
        r#"{{ "cloth": {{ "grid": {{ "nx": {n}, "ny": {n}, "width": 1, "height": 1,
            "mass": 0.2, "shear": "both", "bend": true, "pins": "top-corners" }} }},
            "params": {{ "stiffness": {{ "structural": 2000, "shear": 500, "bend": 50 }} }} }}"#
    );
    Scene::from_json(&json, "test")
        .expect("scene")
        .simulation()
        .expect("simulation")
        .cloth
}

/// [`sheet`] crumpled (springs stretched and compressed, none at rest) and moving.
fn crumpled(n: usize, seed: f64) -> Cloth {
    let mut cloth = sheet(n);
    for i in 0..cloth.node_count() {
        let t = i as f64 + seed;
        cloth.x[i] += 0.01 * DVec3::new((1.7 * t).sin(), (0.9 * t).cos(), (2.3 * t).sin());
        cloth.v[i] = DVec3::new((0.4 * t).cos(), (1.1 * t).sin(), (0.6 * t).cos());
    }
    cloth
}

/// The CPU's forces (f64, the parallel path the kernels mirror) and, per node, the bound on
/// the f32 kernels' error: each term of a spring is a few f32 operations on inputs rounded to
/// f32, so it is off by at most a few round-offs of its size. Summed over the node's links:
/// `Σ 8 ε (k |x_ab| + c |v_ab| + h k |v_ab|)`, plus `8 ε k |x_a|` for the positions' own
/// rounding to f32 (which moves `x_ab` by up to `ε |x|`).
fn cpu_forces(cloth: &Cloth, damping: f64, viscosity: Option<f64>) -> (Vec<DVec3>, Vec<f64>) {
    let n = cloth.node_count();
    let mut spring_f = Vec::new();
    let mut out = vec![DVec3::ZERO; n];
    spring_forces(
        cloth,
        damping,
        viscosity,
        true,
        &[],
        &mut spring_f,
        &mut out,
    );
    let topology = &*cloth.topology;
    let bound = (0..n)
        .map(|i| {
            topology
                .links(i)
                .iter()
                .map(|l| {
                    let (j, s) = (l.node as usize, l.spring as usize);
                    let k = cloth.k()[s];
                    let x_ab = (cloth.x[j] - cloth.x[i]).length();
                    let v_ab = (cloth.v[j] - cloth.v[i]).length();
                    let x_size = cloth.x[i].length().max(cloth.x[j].length());
                    8.0 * EPS32
                        * (k * (x_ab + x_size)
                            + damping * v_ab
                            + viscosity.unwrap_or(0.0) * k * v_ab)
                })
                .sum()
        })
        .collect();
    (out, bound)
}

fn gpu_forces(
    ctx: &GpuContext,
    buffers: &ClothBuffers,
    pass: &ForcePass,
    damping: f64,
    viscosity: Option<f64>,
) -> Vec<DVec3> {
    pass.set_params(&ctx.queue, damping, viscosity);
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    pass.record(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    read_vec3s(&ctx.device, &ctx.queue, pass.force(), buffers.nodes()).expect("read back")
}

/// Asserts every node's GPU force is within its bound of the CPU's; returns the largest error
/// as a share of its bound.
fn assert_close(label: &str, got: &[DVec3], want: &[DVec3], bound: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "{label}: node count");
    let mut worst = 0.0_f64;
    for (i, ((g, w), b)) in got.iter().zip(want).zip(bound).enumerate() {
        let error = (*g - *w).length();
        assert!(
            error <= *b,
            "{label}: node {i}: GPU {g} CPU {w}, off by {error:e} N (bound {b:e} N)"
        );
        worst = worst.max(error / b);
    }
    worst
}

#[test]
fn spring_forces_match_the_cpu_with_and_without_damping_and_viscosity() {
    let Some(ctx) = shared_gpu() else { return };
    let cloth = crumpled(16, 0.0);
    let buffers = ClothBuffers::new(&ctx.device, &cloth).expect("buffers");
    let pass = ForcePass::new(&ctx.device, &buffers).expect("pipelines");
    for (damping, viscosity) in [
        (0.0, None),
        (0.7, None),
        (0.0, Some(1.0 / 60.0)),
        (0.7, Some(0.01)),
    ] {
        let label = format!("damping {damping}, viscosity {viscosity:?}");
        let (want, bound) = cpu_forces(&cloth, damping, viscosity);
        let got = gpu_forces(ctx, &buffers, &pass, damping, viscosity);
        assert_close(&label, &got, &want, &bound);
        // The forces are not all small: the comparison compares something.
        let largest = want.iter().map(|f| f.length()).fold(0.0, f64::max);
        assert!(largest > 10.0, "{label}: largest force {largest} N");
    }
}

#[test]
fn each_term_of_the_spring_force_is_on_the_gpu() {
    // Turning each term on must move the GPU's forces by what it moves the CPU's: a kernel that
    // dropped the damping or the viscosity (or added them the wrong way) fails here even where
    // the term is small beside Hooke's.
    let Some(ctx) = shared_gpu() else { return };
    let cloth = crumpled(8, 3.0);
    let buffers = ClothBuffers::new(&ctx.device, &cloth).expect("buffers");
    let pass = ForcePass::new(&ctx.device, &buffers).expect("pipelines");
    let base = gpu_forces(ctx, &buffers, &pass, 0.0, None);
    let (cpu_base, bound_base) = cpu_forces(&cloth, 0.0, None);
    for (damping, viscosity) in [(2.0, None), (0.0, Some(0.05))] {
        let with = gpu_forces(ctx, &buffers, &pass, damping, viscosity);
        let (cpu_with, bound_with) = cpu_forces(&cloth, damping, viscosity);
        let mut moved = 0.0_f64;
        for i in 0..with.len() {
            let got = with[i] - base[i];
            let want = cpu_with[i] - cpu_base[i];
            let bound = bound_base[i] + bound_with[i];
            assert!(
                (got - want).length() <= bound,
                "damping {damping}, viscosity {viscosity:?}: node {i}: the term is {got} on the GPU, {want} on the CPU"
            );
            moved = moved.max(want.length() / bound);
        }
        // The term is far larger than the rounding, so the check above can tell it is there.
        assert!(moved > 100.0, "the term is lost in the rounding ({moved})");
    }
}

#[test]
fn the_forces_follow_a_new_state_and_new_stiffness() {
    let Some(ctx) = shared_gpu() else { return };
    let first = crumpled(12, 0.0);
    let buffers = ClothBuffers::new(&ctx.device, &first).expect("buffers");
    let pass = ForcePass::new(&ctx.device, &buffers).expect("pipelines");
    let _ = gpu_forces(ctx, &buffers, &pass, 0.5, None);
    // Another state of the same cloth, written over the first.
    let second = crumpled(12, 7.5);
    buffers.write_state(&ctx.queue, &second);
    let (want, bound) = cpu_forces(&second, 0.5, None);
    assert_close(
        "second state",
        &gpu_forces(ctx, &buffers, &pass, 0.5, None),
        &want,
        &bound,
    );
    // Stiffer springs: every Hooke force doubles.
    let mut stiffer = second.clone();
    stiffer.apply_stiffness(&flagsim::sim::params::Stiffness {
        structural: 4000.0,
        shear: 1000.0,
        bend: 100.0,
    });
    buffers.write_stiffness(&ctx.queue, &stiffer);
    let (want, bound) = cpu_forces(&stiffer, 0.0, None);
    let (half, _) = cpu_forces(&second, 0.0, None);
    assert!((want[40] - 2.0 * half[40]).length() < 1e-9 * want[40].length().max(1.0));
    assert_close(
        "stiffer",
        &gpu_forces(ctx, &buffers, &pass, 0.0, None),
        &want,
        &bound,
    );
}

#[test]
fn a_sheet_at_rest_has_no_spring_force_on_the_gpu() {
    // At rest length every Hooke term is k (1 − L/|x|) x_ab with |x| = L: zero up to rounding,
    // on a sheet of 32 × 32 whose corner is 1.4 m from the origin.
    let Some(ctx) = shared_gpu() else { return };
    let cloth = sheet(32);
    let buffers = ClothBuffers::new(&ctx.device, &cloth).expect("buffers");
    let pass = ForcePass::new(&ctx.device, &buffers).expect("pipelines");
    let (want, bound) = cpu_forces(&cloth, 0.0, None);
    assert!(want.iter().all(|f| f.length() < 1e-9));
    let got = gpu_forces(ctx, &buffers, &pass, 0.0, None);
    assert_close("at rest", &got, &want, &bound);
}
