//! The upsampler's input (the key grid) and output (the render mesh), and the checks that make
//! every accepted input produce finite output.

use glam::Vec3;
use thiserror::Error;

/// Largest key grid per axis the upsampler accepts. Keeps every index product in `u32` and every
/// GPU buffer (`n × 1024` `vec4<f32>`, 16 MiB) well inside wgpu's default binding size limit.
pub(crate) const MAX_KEY_NODES_PER_AXIS: usize = 1024;

/// Largest key coordinate magnitude accepted, in metres. Bounds every squared length and cross
/// product far below `f32::MAX`, so the math cannot overflow into `inf`/NaN. A cloth this far out
/// has blown up; the simulator's stability guard stops it long before.
pub(crate) const MAX_ABS_COORDINATE: f32 = 1.0e6;

/// A borrowed view of the simulated key nodes (docs/method.md §7 input).
#[derive(Debug, Clone, Copy)]
pub struct KeyGrid<'a> {
    /// Key nodes along u (the width, index `i`). At least 2.
    pub nx: usize,
    /// Key nodes along v (the height, index `j`). At least 2.
    pub ny: usize,
    /// Positions in metres; node `(i, j)` at index `j * nx + i`.
    pub positions: &'a [Vec3],
    /// Rest spacing between neighbouring key nodes along u, metres (`l0` of row segments).
    pub l0_u: f32,
    /// Rest spacing between neighbouring key nodes along v, metres (`l0` of column segments).
    pub l0_v: f32,
}

/// Why a key grid or settings cannot be upsampled. The message names the offending value.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum UpsampleError {
    #[error(
        "key grid must have between 2 and {MAX_KEY_NODES_PER_AXIS} nodes per axis, got {nx} × {ny}"
    )]
    GridSize { nx: usize, ny: usize },
    #[error("key grid of {nx} × {ny} needs {expected} positions, got {got}")]
    PositionCount {
        nx: usize,
        ny: usize,
        expected: usize,
        got: usize,
    },
    #[error(
        "key node {index} is at {position}: coordinates must be finite and within ±{MAX_ABS_COORDINATE} m"
    )]
    Position { index: usize, position: Vec3 },
    #[error(
        "rest lengths must be finite, non-negative and at most {MAX_ABS_COORDINATE} m, got l0_u = {l0_u}, l0_v = {l0_v}"
    )]
    RestLength { l0_u: f32, l0_v: f32 },
    #[error(transparent)]
    Settings(crate::sim::format::error::SimError),
}

impl KeyGrid<'_> {
    /// Checks sizes, positions and rest lengths: what passes yields finite render output.
    pub(crate) fn validate(&self) -> Result<(), UpsampleError> {
        let (nx, ny) = (self.nx, self.ny);
        let axis_ok = |n: usize| (2..=MAX_KEY_NODES_PER_AXIS).contains(&n);
        if !axis_ok(nx) || !axis_ok(ny) {
            return Err(UpsampleError::GridSize { nx, ny });
        }
        if self.positions.len() != nx * ny {
            return Err(UpsampleError::PositionCount {
                nx,
                ny,
                expected: nx * ny,
                got: self.positions.len(),
            });
        }
        let coordinate_ok = |x: f32| x.is_finite() && x.abs() <= MAX_ABS_COORDINATE;
        if let Some((index, &position)) = self
            .positions
            .iter()
            .enumerate()
            .find(|(_, p)| !p.to_array().into_iter().all(coordinate_ok))
        {
            return Err(UpsampleError::Position { index, position });
        }
        let rest_ok = |l: f32| coordinate_ok(l) && l >= 0.0;
        if !rest_ok(self.l0_u) || !rest_ok(self.l0_v) {
            return Err(UpsampleError::RestLength {
                l0_u: self.l0_u,
                l0_v: self.l0_v,
            });
        }
        Ok(())
    }

    /// Key node `(i, j)`. Callers stay inside the validated grid.
    pub(crate) fn key(&self, i: u32, j: u32) -> Vec3 {
        self.positions[j as usize * self.nx + i as usize]
    }

    /// `[nx, ny]` as the `u32`s the per-sample math uses (lossless after [`Self::validate`]).
    pub(crate) fn key_count(&self) -> [u32; 2] {
        [self.nx as u32, self.ny as u32]
    }
}

/// The upsampled cloth: `R_u × R_v` render nodes, row-major at index `s * R_u + r` (`r` along u),
/// positions in metres and unit normals (`∂/∂u × ∂/∂v` orientation, +Z for a flag at rest in
/// the XY plane).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderMesh {
    /// `[R_u, R_v]`; `[0, 0]` for the empty mesh.
    pub resolution: [u32; 2],
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
}

impl RenderMesh {
    /// Index of render node `(r, s)`.
    pub(crate) fn index(&self, r: u32, s: u32) -> usize {
        s as usize * self.resolution[0] as usize + r as usize
    }

    /// Position of render node `(r, s)`.
    pub fn position(&self, r: u32, s: u32) -> Vec3 {
        self.positions[self.index(r, s)]
    }

    /// Unit normal of render node `(r, s)`.
    pub fn normal(&self, r: u32, s: u32) -> Vec3 {
        self.normals[self.index(r, s)]
    }
}
