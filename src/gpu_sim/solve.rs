//! The multigrid solve on the GPU (`shaders/sim_solve.wgsl`): `kang-mg`'s system
//! `(D + h C − h² K) Δv = b` by V-cycles over a hierarchy built on the CPU
//! ([`crate::sim::solvers::multigrid::Multigrid`], uploaded once and again when it is rebuilt).
//!
//! Twins: the residual and the Gauss–Seidel sweep of each level
//! ([`crate::sim::solvers::multigrid::node_coloured_sweep`]: nodes coloured by `(x mod 3, y mod 3)`,
//! one dispatch a colour, so every node of a colour is updated at once), the grid transfers
//! ([`super::TransferPass`]), the coarsest level's dense solve from the CPU's factor, and level
//! 0's air diagonal ([`crate::sim::solvers::multigrid::Multigrid::set_extra_diagonal`]). A V-cycle is the
//! CPU's with [`crate::sim::solvers::multigrid::Multigrid::set_node_colours`] on.

use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch, dispatch_all};
use super::{GpuLevel, GpuSimError, TransferPass, validated};
use crate::sim::solvers::multigrid::{Multigrid, NODE_COLOURS, POST_SMOOTH};

/// The kernels' WGSL.
pub(crate) const SIM_SOLVE_WGSL: &str = include_str!("../../shaders/sim_solve.wgsl");

/// WGSL `struct LevelParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct LevelParams {
    nodes: u32,
    nx: u32,
    ny: u32,
    ox: u32,
    oy: u32,
    unknowns: u32,
    h: f32,
    has_air: u32,
}

impl LevelParams {
    /// A level of `nodes` nodes on an `nx × ny` grid, every other field zero.
    fn level(nodes: u32, nx: usize, ny: usize) -> Self {
        Self {
            nodes,
            nx: nx as u32,
            ny: ny as u32,
            ox: 0,
            oy: 0,
            unknowns: 0,
            h: 0.0,
            has_air: 0,
        }
    }
}

/// One level's matrix on the device and the bind groups of its kernels.
#[derive(Debug)]
struct LevelMatrix {
    diag: wgpu::Buffer,
    residual: wgpu::BindGroup,
    /// One a colour, `3 oy + ox`, each with its own uniforms.
    sweeps: Vec<(wgpu::BindGroup, u32)>,
}

/// The hierarchy of one cloth's system on the device, and its kernels.
#[derive(Debug)]
pub(crate) struct GpuMultigrid {
    levels: Vec<GpuLevel>,
    matrices: Vec<LevelMatrix>,
    transfers: Vec<TransferPass>,
    /// Level 0's uniforms for `air_diagonal` (its `h` changes with the step).
    air_params: wgpu::Buffer,
    air_group: wgpu::BindGroup,
    coarsest_group: wgpu::BindGroup,
    residual: wgpu::ComputePipeline,
    sweep: wgpu::ComputePipeline,
    coarsest: wgpu::ComputePipeline,
    air_diagonal: wgpu::ComputePipeline,
}

fn f32s(values: &[f64]) -> Vec<f32> {
    values.iter().map(|&v| v as f32).collect()
}

/// A storage buffer holding `words` (at least one word: a binding may not be empty).
fn storage<T: bytemuck::Pod + Default>(
    device: &wgpu::Device,
    label: &'static str,
    words: &[T],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let one = [T::default()];
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(if words.is_empty() { &one } else { words }),
        usage: wgpu::BufferUsages::STORAGE | usage,
    })
}

impl GpuMultigrid {
    /// Uploads `mg`'s hierarchy (prepared, of a grid cloth, at least two levels: a cloth of
    /// more than [`crate::sim::solvers::multigrid::COARSEST_NODES`] nodes) and compiles its kernels.
    /// `coefficients` is the air pass's `(c_air, c_drag)` a node, read by
    /// [`Self::record_air_diagonal`].
    pub(crate) fn new(
        device: &wgpu::Device,
        mg: &Multigrid,
        coefficients: &wgpu::Buffer,
    ) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        let depth = mg.depth();
        assert!(
            depth >= 2,
            "the GPU solves a hierarchy of at least two levels"
        );
        let mut levels = Vec::with_capacity(depth);
        for l in 0..depth {
            let m = mg.level_matrix(l);
            assert!(
                m.reach < NODE_COLOURS,
                "a grid level reaches two nodes at most"
            );
            levels.push(GpuLevel::new(device, m.nx, m.ny, m.diag)?);
        }
        let mut transfers = Vec::with_capacity(depth - 1);
        for l in 0..depth - 1 {
            transfers.push(TransferPass::new(device, &levels[l], &levels[l + 1])?);
        }
        validated(device, "the multigrid kernels", || {
            let program = Program::new(device, "sim_solve.wgsl", SIM_SOLVE_WGSL);
            let residual_layout = program.layout(
                "gpu_sim residual",
                &[
                    (0, Uniform),
                    (1, Write),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (7, Read),
                    (8, Write),
                ],
            );
            let sweep_layout = program.layout(
                "gpu_sim sweep",
                &[
                    (0, Uniform),
                    (1, Write),
                    (2, Write),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (7, Read),
                ],
            );
            let coarsest_layout = program.layout(
                "gpu_sim coarsest",
                &[
                    (0, Uniform),
                    (6, Write),
                    (7, Read),
                    (8, Write),
                    (9, Read),
                    (10, Read),
                    (11, Read),
                ],
            );
            let air_layout = program.layout(
                "gpu_sim air diagonal",
                &[(0, Uniform), (1, Write), (2, Write), (12, Read), (13, Read)],
            );
            let uniform = |params: LevelParams, usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("gpu_sim level params"),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM | usage,
                })
            };
            let factor = mg.coarsest_factor();
            let mut matrices = Vec::with_capacity(depth);
            let mut inverse = Vec::with_capacity(depth);
            for (l, level) in levels.iter().enumerate() {
                let m = mg.level_matrix(l);
                let base = LevelParams::level(level.nodes(), m.nx, m.ny);
                let copy = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
                let diag = storage(device, "gpu_sim diag", &f32s(m.diag), copy);
                let inv_diag = storage(device, "gpu_sim inv diag", &f32s(m.inv_diag), copy);
                let start = storage(device, "gpu_sim row starts", m.start, copy);
                let col = storage(device, "gpu_sim columns", m.col, copy);
                let val = storage(device, "gpu_sim values", &f32s(m.val), copy);
                let with = |group: &'static str, layout, params: &wgpu::Buffer, extra: bool| {
                    let mut list = vec![
                        (0, params),
                        (1, &diag),
                        (3, &start),
                        (4, &col),
                        (5, &val),
                        (6, &level.x),
                        (7, &level.b),
                    ];
                    if extra {
                        list.push((2, &inv_diag));
                    } else {
                        list.push((8, &level.r));
                    }
                    program.bind_group(group, layout, &list)
                };
                let first = uniform(base, wgpu::BufferUsages::empty());
                let residual = with("gpu_sim residual", &residual_layout, &first, false);
                let mut sweeps = Vec::with_capacity(NODE_COLOURS * NODE_COLOURS);
                for oy in 0..NODE_COLOURS as u32 {
                    for ox in 0..NODE_COLOURS as u32 {
                        let params =
                            uniform(LevelParams { ox, oy, ..base }, wgpu::BufferUsages::empty());
                        let group = with("gpu_sim sweep", &sweep_layout, &params, true);
                        let across = (m.nx as u32).saturating_sub(ox).div_ceil(3);
                        let rows = (m.ny as u32).saturating_sub(oy).div_ceil(3);
                        sweeps.push((group, across * rows));
                    }
                }
                matrices.push(LevelMatrix {
                    diag,
                    residual,
                    sweeps,
                });
                inverse.push(inv_diag);
            }
            // The coarsest level's factor.
            let last = levels.last().expect("two levels at least");
            let m = mg.level_matrix(depth - 1);
            let coarsest_params = uniform(
                LevelParams {
                    unknowns: factor.nodes.len() as u32,
                    ..LevelParams::level(last.nodes(), m.nx, m.ny)
                },
                wgpu::BufferUsages::empty(),
            );
            let nodes: Vec<u32> = factor.nodes.iter().map(|&i| i as u32).collect();
            let none = wgpu::BufferUsages::empty();
            let factor_l = storage(device, "gpu_sim factor", &f32s(factor.l), none);
            let factor_inv = storage(
                device,
                "gpu_sim factor pivots",
                &f32s(factor.inv_diag),
                none,
            );
            let factor_node = storage(device, "gpu_sim factor nodes", &nodes, none);
            let coarsest_group = program.bind_group(
                "gpu_sim coarsest",
                &coarsest_layout,
                &[
                    (0, &coarsest_params),
                    (6, &last.x),
                    (7, &last.b),
                    (8, &last.r),
                    (9, &factor_l),
                    (10, &factor_inv),
                    (11, &factor_node),
                ],
            );
            // Level 0's diagonal as built, and the air's addition to it.
            let m0 = mg.level_matrix(0);
            let air_params = uniform(
                LevelParams::level(levels[0].nodes(), m0.nx, m0.ny),
                wgpu::BufferUsages::COPY_DST,
            );
            let base_diag = storage(device, "gpu_sim base diag", &f32s(mg.base_diagonal()), none);
            let air_group = program.bind_group(
                "gpu_sim air diagonal",
                &air_layout,
                &[
                    (0, &air_params),
                    (1, &matrices[0].diag),
                    (2, &inverse[0]),
                    (12, &base_diag),
                    (13, coefficients),
                ],
            );
            Self {
                residual: program.kernel("residual", &residual_layout),
                sweep: program.kernel("sweep", &sweep_layout),
                coarsest: program.kernel("coarsest", &coarsest_layout),
                air_diagonal: program.kernel("air_diagonal", &air_layout),
                levels,
                matrices,
                transfers,
                air_params,
                air_group,
                coarsest_group,
            }
        })
    }

    /// Level `l`'s vectors: level 0's `b` is the system's right-hand side and its `x` the
    /// solution (kept between steps: the next solve starts from it).
    pub(crate) fn level(&self, l: usize) -> &GpuLevel {
        &self.levels[l]
    }

    /// Sets the step `h` (s) and whether the air acts, for [`Self::record_air_diagonal`].
    pub(crate) fn set_air(&self, queue: &wgpu::Queue, h: f64, has_air: bool) {
        let level = &self.levels[0];
        let params = LevelParams {
            h: h as f32,
            has_air: u32::from(has_air),
            ..LevelParams::level(level.nodes(), 0, 0)
        };
        queue.write_buffer(&self.air_params, 0, bytemuck::bytes_of(&params));
    }

    /// Records level 0's diagonal: as built, plus `h (c_air + c_drag)` where the air acts.
    pub(crate) fn record_air_diagonal(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim air diagonal",
            &[(&self.air_group, &self.air_diagonal, self.levels[0].nodes())],
        );
    }

    /// Records `r = b − A x` on level `l`.
    pub(crate) fn record_residual(&self, encoder: &mut wgpu::CommandEncoder, l: usize) {
        dispatch(
            encoder,
            "gpu_sim residual",
            &[(
                &self.matrices[l].residual,
                &self.residual,
                self.levels[l].nodes(),
            )],
        );
    }

    /// Records one Gauss–Seidel sweep of level `l`, colour by colour.
    pub(crate) fn record_sweep(&self, encoder: &mut wgpu::CommandEncoder, l: usize) {
        let sweeps = &self.matrices[l].sweeps;
        dispatch_all(
            encoder,
            "gpu_sim sweep",
            sweeps
                .iter()
                .map(|(group, count)| (group, &self.sweep, *count)),
        );
    }

    /// Records the coarsest level's exact solve of its `b` into its `x`.
    pub(crate) fn record_coarsest(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu_sim coarsest"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.coarsest_group, &[]);
        pass.set_pipeline(&self.coarsest);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Records one V-cycle from level 0, as the CPU's `v_cycle`: on each level but the
    /// coarsest the residual, its restriction, the coarser level from zero, the correction
    /// prolonged, then [`POST_SMOOTH`] sweeps; the coarsest solved exactly.
    pub(crate) fn record_cycle(&self, encoder: &mut wgpu::CommandEncoder) {
        self.record_cycle_from(encoder, 0);
    }

    /// Records the two-grid correction of level 0's `r` into level 0's `x`, as the CPU's
    /// [`crate::sim::solvers::multigrid::Multigrid::coarse_correction`]: `r` restricted to
    /// level 1, a V-cycle there from zero, the answer prolonged (`implicit-mg`'s
    /// preconditioner, between its sweeps).
    pub(crate) fn record_coarse_correction(&self, encoder: &mut wgpu::CommandEncoder) {
        self.transfers[0].record_restrict(encoder);
        encoder.clear_buffer(&self.levels[1].x, 0, None);
        self.record_cycle_from(encoder, 1);
        encoder.clear_buffer(&self.levels[0].x, 0, None);
        self.transfers[0].record_prolong(encoder);
    }

    fn record_cycle_from(&self, encoder: &mut wgpu::CommandEncoder, l: usize) {
        if l + 1 == self.levels.len() {
            self.record_coarsest(encoder);
            return;
        }
        self.record_residual(encoder, l);
        self.transfers[l].record_restrict(encoder);
        encoder.clear_buffer(&self.levels[l + 1].x, 0, None);
        self.record_cycle_from(encoder, l + 1);
        self.transfers[l].record_prolong(encoder);
        for _ in 0..POST_SMOOTH {
            self.record_sweep(encoder, l);
        }
    }
}
