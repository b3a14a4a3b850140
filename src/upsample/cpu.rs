//! The three passes of the upsampler on the CPU, one function per GPU kernel of
//! `shaders/upsample.wgsl`:
//!
//! 1. **frame nodes**: a (wrinkled) Catmull-Rom spline along every key row, sampled at every
//!    render column `u_r` (and, for the symmetric option, along every key column at every `v_s`);
//! 2. **internal nodes**: a (wrinkled) spline along every render column through that column's
//!    frame nodes, sampled at every `v_s` (symmetric: also along every render row through the
//!    column-first frame nodes, then the average);
//! 3. **render normals**: central differences of the final grid.
//!
//! Per-node functions (`frame_node`, `internal_node`, …) are public so tests can check single
//! samples against the equations.

use glam::Vec3;

use super::grid::{KeyGrid, RenderMesh, UpsampleError};
use super::spline::{SplineSample, catmull_rom, control_points, key_sample, render_sample};
use super::surface::{key_bilinear, surface_normal, unit_normal};
use super::wrinkle::{WrinkleParams, wrinkled_point};
use crate::sim::format::render_settings::{DisplayMode, MAX_RESOLUTION, RenderSettings};

/// Render normal used where the final grid has no defined normal (a collapsed or folded-flat
/// neighbourhood): the rest orientation of a flag in the XY plane. Arbitrary but deterministic
/// and shared with the GPU.
pub(crate) const FALLBACK_NORMAL: Vec3 = Vec3::Z;

/// Everything the passes need, resolved once from a key grid and [`RenderSettings`]; the GPU
/// uniforms are built from the same struct, so CPU and GPU read identical numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UpsampleParams {
    /// `[nx, ny]` key nodes.
    pub key_count: [u32; 2],
    /// `[R_u, R_v]` render nodes actually produced (key-aligned if asked).
    pub resolution: [u32; 2],
    /// `[l0_u, l0_v]` in metres.
    pub rest_length: [f32; 2],
    /// The mode actually drawn ([`RenderSettings::effective_mode`]).
    pub mode: DisplayMode,
    /// Average row-first and column-first results (smooth and wrinkled modes).
    pub symmetric: bool,
    pub wrinkle: WrinkleParams,
}

impl UpsampleParams {
    /// Validates the grid and the settings and resolves the resolution and mode.
    pub(crate) fn new(grid: &KeyGrid, settings: &RenderSettings) -> Result<Self, UpsampleError> {
        grid.validate()?;
        settings.validate().map_err(UpsampleError::Settings)?;
        let mode = settings.effective_mode();
        let resolution = settings
            .effective_resolution(grid.nx, grid.ny)
            .map(|r| r.clamp(2, MAX_RESOLUTION));
        Ok(Self {
            key_count: grid.key_count(),
            resolution,
            rest_length: [grid.l0_u, grid.l0_v],
            mode,
            symmetric: settings.symmetric && mode != DisplayMode::KeyOnly,
            wrinkle: WrinkleParams {
                enabled: mode == DisplayMode::Wrinkled,
                c: settings.wrinkle_c as f32,
                c1_seam: settings.c1_seam,
            },
        })
    }

    /// Render sample of column `r` along u.
    pub(crate) fn u_sample(&self, r: u32) -> SplineSample {
        render_sample(self.key_count[0], r, self.resolution[0])
    }

    /// Render sample of row `s` along v.
    pub(crate) fn v_sample(&self, s: u32) -> SplineSample {
        render_sample(self.key_count[1], s, self.resolution[1])
    }
}

/// Frame node on key row `j` at render column `r` (pass 1): the wrinkled spline through the key
/// nodes of row `j` (`l0 = l0_u`), `N` taken on the key row at `(u_r, v = j)`.
pub(crate) fn frame_node(grid: &KeyGrid, params: &UpsampleParams, r: u32, j: u32) -> Vec3 {
    let su = params.u_sample(r);
    let p = control_points(params.key_count[0], su.segment, |i| grid.key(i, j));
    let q = catmull_rom(p, su.t);
    let d = (p[2] - p[1]).length();
    wrinkled_point(q, su.t, d, params.rest_length[0], params.wrinkle, || {
        surface_normal(grid, su, key_sample(params.key_count[1], j))
    })
}

/// All frame nodes, `ny × R_u`, index `j * R_u + r`.
pub(crate) fn frame_nodes(grid: &KeyGrid, params: &UpsampleParams) -> Vec<Vec3> {
    let [ru, _] = params.resolution;
    (0..params.key_count[1])
        .flat_map(|j| (0..ru).map(move |r| frame_node(grid, params, r, j)))
        .collect()
}

/// Internal node `(r, s)` (pass 2): the wrinkled spline through the frame nodes of render column
/// `r` (`l0 = l0_v`, `d` between those frame nodes), `N` at `(u_r, v_s)`.
pub(crate) fn internal_node(
    grid: &KeyGrid,
    params: &UpsampleParams,
    frame: &[Vec3],
    r: u32,
    s: u32,
) -> Vec3 {
    let [ru, _] = params.resolution;
    let sv = params.v_sample(s);
    let p = control_points(params.key_count[1], sv.segment, |j| {
        frame[(j * ru + r) as usize]
    });
    let q = catmull_rom(p, sv.t);
    let d = (p[2] - p[1]).length();
    wrinkled_point(q, sv.t, d, params.rest_length[1], params.wrinkle, || {
        surface_normal(grid, params.u_sample(r), sv)
    })
}

/// Column-first frame node on key column `i` at render row `s` (symmetric option): the wrinkled
/// spline through the key nodes of column `i` (`l0 = l0_v`), `N` at `(u = i, v_s)`.
pub(crate) fn column_frame_node(grid: &KeyGrid, params: &UpsampleParams, i: u32, s: u32) -> Vec3 {
    let sv = params.v_sample(s);
    let p = control_points(params.key_count[1], sv.segment, |j| grid.key(i, j));
    let q = catmull_rom(p, sv.t);
    let d = (p[2] - p[1]).length();
    wrinkled_point(q, sv.t, d, params.rest_length[1], params.wrinkle, || {
        surface_normal(grid, key_sample(params.key_count[0], i), sv)
    })
}

/// All column-first frame nodes, `R_v × nx`, index `s * nx + i`.
pub(crate) fn column_frame_nodes(grid: &KeyGrid, params: &UpsampleParams) -> Vec<Vec3> {
    let [_, rv] = params.resolution;
    (0..rv)
        .flat_map(|s| (0..params.key_count[0]).map(move |i| column_frame_node(grid, params, i, s)))
        .collect()
}

/// Column-first internal node `(r, s)`: the wrinkled spline through the column-first frame nodes
/// of render row `s` (`l0 = l0_u`), `N` at `(u_r, v_s)`.
pub(crate) fn column_first_internal_node(
    grid: &KeyGrid,
    params: &UpsampleParams,
    column_frame: &[Vec3],
    r: u32,
    s: u32,
) -> Vec3 {
    let nx = params.key_count[0];
    let su = params.u_sample(r);
    let p = control_points(nx, su.segment, |i| column_frame[(s * nx + i) as usize]);
    let q = catmull_rom(p, su.t);
    let d = (p[2] - p[1]).length();
    wrinkled_point(q, su.t, d, params.rest_length[0], params.wrinkle, || {
        surface_normal(grid, su, params.v_sample(s))
    })
}

/// Final render position `(r, s)`: the bilinear key mesh in key-only mode, else the row-first
/// internal node, averaged with the column-first one for the symmetric option.
pub(crate) fn render_position(
    grid: &KeyGrid,
    params: &UpsampleParams,
    frame: &[Vec3],
    column_frame: &[Vec3],
    r: u32,
    s: u32,
) -> Vec3 {
    if params.mode == DisplayMode::KeyOnly {
        return key_bilinear(grid, params.u_sample(r), params.v_sample(s));
    }
    let row_first = internal_node(grid, params, frame, r, s);
    if params.symmetric {
        let column_first = column_first_internal_node(grid, params, column_frame, r, s);
        (row_first + column_first) * 0.5
    } else {
        row_first
    }
}

/// Unit render normal at `(r, s)` from central differences of the final grid (one-sided on the
/// border), [`FALLBACK_NORMAL`] where the neighbourhood is degenerate.
pub(crate) fn render_normal(positions: &[Vec3], resolution: [u32; 2], r: u32, s: u32) -> Vec3 {
    let [ru, rv] = resolution;
    let at = |r: u32, s: u32| positions[(s * ru + r) as usize];
    let du = at((r + 1).min(ru - 1), s) - at(r.max(1) - 1, s);
    let dv = at(r, (s + 1).min(rv - 1)) - at(r, s.max(1) - 1);
    unit_normal(du, dv).unwrap_or(FALLBACK_NORMAL)
}

/// Upsamples the key grid (docs/method.md §7), or says why it cannot.
pub fn try_upsample_cpu(
    grid: &KeyGrid,
    settings: &RenderSettings,
) -> Result<RenderMesh, UpsampleError> {
    let params = UpsampleParams::new(grid, settings)?;
    Ok(upsample_with_params(grid, &params))
}

/// Upsamples the key grid (docs/method.md §7). An invalid grid or settings (see
/// [`KeyGrid::validate`], [`RenderSettings::validate`]) yields the empty mesh rather than a
/// panic; use [`try_upsample_cpu`] to learn why.
pub fn upsample_cpu(grid: &KeyGrid, settings: &RenderSettings) -> RenderMesh {
    try_upsample_cpu(grid, settings).unwrap_or_default()
}

/// The three passes for already validated parameters.
pub(crate) fn upsample_with_params(grid: &KeyGrid, params: &UpsampleParams) -> RenderMesh {
    let [ru, rv] = params.resolution;
    let spline_mode = params.mode != DisplayMode::KeyOnly;
    let frame = if spline_mode {
        frame_nodes(grid, params)
    } else {
        Vec::new()
    };
    let column_frame = if params.symmetric {
        column_frame_nodes(grid, params)
    } else {
        Vec::new()
    };
    let positions: Vec<Vec3> = (0..rv)
        .flat_map(|s| (0..ru).map(move |r| (r, s)))
        .map(|(r, s)| render_position(grid, params, &frame, &column_frame, r, s))
        .collect();
    let normals = (0..rv)
        .flat_map(|s| (0..ru).map(move |r| (r, s)))
        .map(|(r, s)| render_normal(&positions, params.resolution, r, s))
        .collect();
    RenderMesh {
        resolution: params.resolution,
        positions,
        normals,
    }
}
