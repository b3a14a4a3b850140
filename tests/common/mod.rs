//! Key grids shared by the upsampler tests. Deterministic: the random grid comes from a fixed
//! seed and a tiny local generator, so every run and every machine sees the same cloth.

#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use flagsim::upsample::{DisplayMode, RenderSettings};
use glam::Vec3;

/// Rest spacing of the test grids, metres (a 10 × 10 flag of 0.9 m).
pub const L0: f32 = 0.1;

/// An owned key grid; `view()` lends it as the upsampler's input.
#[derive(Debug, Clone)]
pub struct OwnedGrid {
    pub nx: usize,
    pub ny: usize,
    pub positions: Vec<Vec3>,
    pub l0_u: f32,
    pub l0_v: f32,
}

impl OwnedGrid {
    pub fn from_fn(
        nx: usize,
        ny: usize,
        l0_u: f32,
        l0_v: f32,
        f: impl Fn(usize, usize) -> Vec3,
    ) -> Self {
        let positions = (0..ny)
            .flat_map(|j| (0..nx).map(move |i| (i, j)))
            .map(|(i, j)| f(i, j))
            .collect();
        Self {
            nx,
            ny,
            positions,
            l0_u,
            l0_v,
        }
    }

    pub fn view(&self) -> flagsim::upsample::KeyGrid<'_> {
        flagsim::upsample::KeyGrid {
            nx: self.nx,
            ny: self.ny,
            positions: &self.positions,
            l0_u: self.l0_u,
            l0_v: self.l0_v,
        }
    }

    /// Diagonal of the key nodes' bounding box, metres: the "cloth size" tolerances scale with.
    pub fn size(&self) -> f32 {
        let lo = self
            .positions
            .iter()
            .copied()
            .fold(Vec3::splat(f32::MAX), Vec3::min);
        let hi = self
            .positions
            .iter()
            .copied()
            .fold(Vec3::splat(f32::MIN), Vec3::max);
        (hi - lo).length()
    }
}

/// A flat sheet in the XY plane at rest spacing `L0`.
pub fn flat_grid(nx: usize, ny: usize) -> OwnedGrid {
    OwnedGrid::from_fn(nx, ny, L0, L0, |i, j| {
        Vec3::new(i as f32 * L0, j as f32 * L0, 0.0)
    })
}

/// A flat sheet compressed to `1 - compression_u` of its rest spacing along u and
/// `1 - compression_v` along v.
pub fn compressed_grid(nx: usize, ny: usize, compression_u: f32, compression_v: f32) -> OwnedGrid {
    let (du, dv) = (L0 * (1.0 - compression_u), L0 * (1.0 - compression_v));
    OwnedGrid::from_fn(nx, ny, L0, L0, |i, j| {
        Vec3::new(i as f32 * du, j as f32 * dv, 0.0)
    })
}

/// `SplitMix64`: a tiny, well-mixed deterministic generator for test data.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    pub fn signed_unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// A crumpled 10 × 10 cloth: a sheet shrunk to 85 % × 90 % of rest size with every key node
/// jittered by up to 30 % of `L0` in each axis, so segments range from strongly compressed to
/// stretched and the surface bends in all directions.
pub fn crumpled_grid(seed: u64) -> OwnedGrid {
    let mut rng = SplitMix64(seed);
    let jitter: Vec<Vec3> = (0..100)
        .map(|_| Vec3::new(rng.signed_unit(), rng.signed_unit(), rng.signed_unit()) * (0.3 * L0))
        .collect();
    OwnedGrid::from_fn(10, 10, L0, L0, |i, j| {
        Vec3::new(i as f32 * 0.85 * L0, j as f32 * 0.9 * L0, 0.0) + jitter[j * 10 + i]
    })
}

/// Largest `|a - b|` over two equally long lists, with the index where it occurs.
pub fn max_distance(a: &[Vec3], b: &[Vec3]) -> (f32, usize) {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (*x - *y).length())
        .enumerate()
        .fold(
            (0.0, 0),
            |(m, k), (i, d)| if d > m { (d, i) } else { (m, k) },
        )
}

/// Every display mode with every combination of the three options, at `resolution`.
pub fn every_mode_and_option(resolution: [u32; 2]) -> Vec<RenderSettings> {
    let mut all = Vec::new();
    for mode in DisplayMode::ALL {
        for bits in 0..8u32 {
            all.push(RenderSettings {
                resolution,
                mode,
                key_aligned: bits & 1 != 0,
                symmetric: bits & 2 != 0,
                c1_seam: bits & 4 != 0,
                ..RenderSettings::default()
            });
        }
    }
    all
}

/// A headless renderer of `width × height` pixels; without a GPU adapter `None` after a loud
/// `SKIPPED` line, except under `CI=true`, where a missing adapter fails the test.
pub fn headless_or_skip(
    width: u32,
    height: u32,
) -> Option<flagsim::render::drawing::headless::HeadlessRenderer> {
    or_skip(flagsim::render::drawing::headless::HeadlessRenderer::new(
        width, height,
    ))
}

/// A headless GPU context, or `None` as [`headless_or_skip`] says.
pub fn gpu_or_skip() -> Option<flagsim::render::GpuContext> {
    or_skip(flagsim::render::GpuContext::new_headless())
}

/// `opened`, or `None` after a loud `SKIPPED` line where no GPU adapter opened (a failure under
/// `CI=true`, where CI runs the GPU tests on lavapipe).
fn or_skip<T, E: std::fmt::Display>(opened: Result<T, E>) -> Option<T> {
    match opened {
        Ok(r) => Some(r),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but no GPU adapter: {e}"
            );
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}
