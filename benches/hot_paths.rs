//! Criterion benches of the hot paths (`cargo bench`): one full step of each integrator on the
//! 10 × 10 and 64 × 64 benchmark flags, and the CPU upsampler at 50 × 50. `flagsim bench` is
//! the broader suite; these give criterion's statistics on the innermost loops.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use flagsim::bench::square_flag;
use flagsim::render::drawing::view;
use flagsim::sim::IntegratorKind;
use flagsim::upsample::{RenderSettings, upsample_cpu};

fn steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("step");
    for n in [10usize, 64] {
        for kind in [
            IntegratorKind::Kang,
            IntegratorKind::SymplecticEuler,
            IntegratorKind::ImplicitCg,
        ] {
            let mut sim = square_flag(n, IntegratorKind::Kang).simulation().unwrap();
            for _ in 0..10 {
                sim.step();
            }
            let mut p = sim.params().clone();
            p.integrator = kind;
            sim.set_params(p).unwrap();
            sim.guard = false;
            group.bench_with_input(BenchmarkId::new(kind.name(), n), &sim, |b, sim| {
                b.iter_batched_ref(
                    || sim.clone(),
                    flagsim::sim::Simulation::step,
                    criterion::BatchSize::SmallInput,
                );
            });
        }
    }
    group.finish();
}

fn upsample(c: &mut Criterion) {
    let mut sim = square_flag(10, IntegratorKind::Kang).simulation().unwrap();
    for _ in 0..60 {
        sim.step();
    }
    let keys = view::key_positions(&sim.cloth.x);
    let grid = sim.cloth.grid().unwrap();
    let key_grid = view::key_grid(&grid, &keys);
    let settings = RenderSettings::default();
    c.bench_function("upsample_cpu 50x50", |b| {
        b.iter(|| upsample_cpu(&key_grid, &settings));
    });
}

criterion_group!(benches, steps, upsample);
criterion_main!(benches);
