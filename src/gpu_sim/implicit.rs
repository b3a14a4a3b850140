//! `implicit-mg`'s assembly and solve on the GPU (`shaders/sim_implicit.wgsl`): every spring's
//! true block, each node's inverted diagonal block, the right-hand side's spring terms, then
//! flexible CG preconditioned by coloured block Gauss–Seidel sweeps around the multigrid's
//! two-grid correction ([`GpuMultigrid::record_coarse_correction`]). The CPU twins:
//! [`crate::sim::solvers::jacobian`]'s blocks and right-hand side, `implicit-mg`'s diagonal
//! blocks, and [`crate::sim::solvers::coloured::ColouredSystem`] for the solve.
//!
//! The solve's scalars stay on the device: each dot product is a pass of workgroup sums and a
//! one-workgroup kernel that adds them and sets `α`, `β` or the stop, so a step reads nothing
//! back. Every recorded iteration is dispatched; once the residual is below the tolerance the
//! iterations' kernels leave the vectors as they are (the CPU's rule: at least one iteration,
//! at most the recorded count).

use super::kernel::{Access, Program, WORKGROUP, dispatch, dispatch_all, workgroups};
use super::{AirPass, ClothBuffers, GpuMultigrid, GpuSimError, RhsPass, validated};
use crate::sim::solvers::multigrid::NODE_COLOURS;

/// The kernels' WGSL.
pub(crate) const SIM_IMPLICIT_WGSL: &str = include_str!("../../shaders/sim_implicit.wgsl");

/// WGSL `struct ImplicitParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct ImplicitParams {
    nodes: u32,
    springs: u32,
    nx: u32,
    ny: u32,
    ox: u32,
    oy: u32,
    has_air: u32,
    partials: u32,
    h: f32,
    damping: f32,
    weight2: f32,
    tolerance2: f32,
}

/// Bytes of WGSL `struct Solve`: five `f32` and three `u32`.
const SOLVE_BYTES: u64 = 32;

/// WGSL `struct Solve`, as the tests read it back.
#[cfg(test)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct SolveWords {
    alpha: f32,
    beta: f32,
    pq: f32,
    rr: f32,
    limit: f32,
    going: u32,
    iterations: u32,
    pad: u32,
}

/// How the last solve ended.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SolveEnd {
    /// Iterations taken.
    pub iterations: u32,
    /// `|r|²` at the end and the limit it was held to, (N·s)².
    pub rr: f64,
    pub limit: f64,
}

/// What the stopping rule and the diagonal need besides the cloth: [`ImplicitPass::set_params`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ImplicitSettings {
    /// The step, s.
    pub h: f64,
    /// Spring damping `c`, N·s/m.
    pub damping: f64,
    /// Whether the air pass's coefficients act.
    pub has_air: bool,
    /// `h |g| |m|` over the free nodes, N·s: the residual's smallest scale.
    pub weight: f64,
    /// The relative residual the iterations stop at.
    pub tolerance: f64,
}

/// One cloth's implicit step on the device: its buffers, bind groups and kernels.
#[derive(Debug)]
pub(crate) struct ImplicitPass {
    nodes: u32,
    springs: u32,
    base: ImplicitParams,
    /// The shared uniforms, then one a colour (`3 oy + ox`).
    uniforms: Vec<wgpu::Buffer>,
    /// Per spring two `vec4<f32>`: `(x̂, iso)`, `(along, along + h c, 0, 0)` (the bind groups
    /// hold it; kept here for the tests to read).
    #[cfg(test)]
    blocks: wgpu::Buffer,
    /// Per node two `vec4<f32>`: the inverse diagonal block's `(xx, yy, zz, xy)`,
    /// `(xz, yz, m + h c_air + h c_drag, 1 where free)`.
    #[cfg(test)]
    diag: wgpu::Buffer,
    y: wgpu::Buffer,
    /// The preconditioner's answer, which the sweeps build from zero.
    z: wgpu::Buffer,
    /// The solve's scalars (WGSL `Solve`).
    #[cfg(test)]
    solve: wgpu::Buffer,
    groups: Groups,
    kernels: KernelSet,
}

#[derive(Debug)]
struct Groups {
    blocks: wgpu::BindGroup,
    diagonal: wgpu::BindGroup,
    rhs: wgpu::BindGroup,
    start: wgpu::BindGroup,
    start_dots: wgpu::BindGroup,
    /// One a colour, with its node count.
    sweeps: Vec<(wgpu::BindGroup, u32)>,
    after_forward: wgpu::BindGroup,
    add_correction: wgpu::BindGroup,
    beta_dots: wgpu::BindGroup,
    direction: wgpu::BindGroup,
    product: wgpu::BindGroup,
    alpha_dots: wgpu::BindGroup,
    update: wgpu::BindGroup,
    check_dots: wgpu::BindGroup,
    finish: wgpu::BindGroup,
}

#[derive(Debug)]
struct KernelSet {
    spring_blocks: wgpu::ComputePipeline,
    diagonal: wgpu::ComputePipeline,
    rhs_springs: wgpu::ComputePipeline,
    product: wgpu::ComputePipeline,
    residual: wgpu::ComputePipeline,
    sweep: wgpu::ComputePipeline,
    add_correction: wgpu::ComputePipeline,
    direction: wgpu::ComputePipeline,
    update: wgpu::ComputePipeline,
    partial_dots: wgpu::ComputePipeline,
    finish_start: wgpu::ComputePipeline,
    finish_beta: wgpu::ComputePipeline,
    finish_alpha: wgpu::ComputePipeline,
    finish_check: wgpu::ComputePipeline,
}

impl ImplicitPass {
    /// Compiles the kernels over `cloth`'s topology on its `nx × ny` grid, the right-hand side
    /// `rhs` (whose node terms it adds to), the air pass's coefficients and `solve`'s level 0
    /// (the two-grid correction's vectors). A spring that reaches three nodes or more along a
    /// direction would put two nodes of a colour on one spring: refused.
    pub(crate) fn new(
        device: &wgpu::Device,
        cloth: &ClothBuffers,
        grid: (usize, usize),
        reach: usize,
        rhs: &RhsPass,
        air: &AirPass,
        solve: &GpuMultigrid,
    ) -> Result<Self, GpuSimError> {
        if reach >= NODE_COLOURS {
            return Err(GpuSimError::Unsupported(format!(
                "a spring reaches {reach} nodes along the grid: implicit-mg's GPU sweeps take at most {}",
                NODE_COLOURS - 1
            )));
        }
        let (nodes, springs) = (cloth.nodes(), cloth.springs());
        let base = ImplicitParams {
            nodes,
            springs,
            nx: grid.0 as u32,
            ny: grid.1 as u32,
            ox: 0,
            oy: 0,
            has_air: 0,
            partials: workgroups(nodes),
            h: 0.0,
            damping: 0.0,
            weight2: 0.0,
            tolerance2: 0.0,
        };
        validated(device, "implicit-mg's kernels", || {
            use Access::{Read, Uniform, Write};
            let program = Program::new(device, "sim_implicit.wgsl", SIM_IMPLICIT_WGSL);
            let blocks_layout = program.layout(
                "gpu_sim blocks",
                &[(0, Uniform), (1, Read), (2, Read), (3, Write)],
            );
            let diagonal_layout = program.layout(
                "gpu_sim diagonal",
                &[
                    (0, Uniform),
                    (3, Write),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (7, Read),
                    (8, Read),
                ],
            );
            let rhs_layout = program.layout(
                "gpu_sim rhs springs",
                &[
                    (0, Uniform),
                    (3, Write),
                    (4, Read),
                    (5, Read),
                    (7, Read),
                    (9, Read),
                    (10, Write),
                ],
            );
            let operator_layout = program.layout(
                "gpu_sim operator",
                &[
                    (0, Uniform),
                    (3, Write),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (11, Read),
                    (12, Read),
                    (13, Write),
                    (15, Write),
                ],
            );
            let update_layout = program.layout(
                "gpu_sim update",
                &[
                    (0, Uniform),
                    (11, Read),
                    (12, Read),
                    (13, Write),
                    (14, Write),
                    (15, Write),
                ],
            );
            let dots_layout = program.layout(
                "gpu_sim dots",
                &[
                    (0, Uniform),
                    (11, Read),
                    (12, Read),
                    (15, Write),
                    (16, Write),
                    (17, Read),
                    (18, Read),
                ],
            );
            let finish_layout =
                program.layout("gpu_sim finish", &[(0, Uniform), (15, Write), (16, Write)]);

            let per_node = u64::from(nodes.max(1)) * 16;
            let vector = |label| {
                program.buffer(
                    label,
                    per_node,
                    wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                )
            };
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let blocks = program.buffer(
                "gpu_sim spring blocks",
                u64::from(springs.max(1)) * 32,
                storage,
            );
            let diag = program.buffer("gpu_sim diagonal blocks", per_node * 2, storage);
            let (y, r, z, p, q) = (
                vector("gpu_sim implicit y"),
                vector("gpu_sim implicit r"),
                vector("gpu_sim implicit z"),
                vector("gpu_sim implicit p"),
                vector("gpu_sim implicit q"),
            );
            let solve_words = program.buffer("gpu_sim implicit scalars", SOLVE_BYTES, storage);
            let partials = program.buffer(
                "gpu_sim implicit partial sums",
                u64::from(base.partials.max(1)) * 8,
                wgpu::BufferUsages::STORAGE,
            );
            let uniform = |label| program.uniform::<ImplicitParams>(label);
            let mut uniforms = vec![uniform("gpu_sim implicit params")];
            for _ in 0..NODE_COLOURS * NODE_COLOURS {
                uniforms.push(uniform("gpu_sim implicit colour"));
            }
            let level = solve.level(0);
            let b = rhs.rhs();
            let operator = |label, params: &wgpu::Buffer, src, aux, dst| {
                program.bind_group(
                    label,
                    &operator_layout,
                    &[
                        (0, params),
                        (3, &blocks),
                        (4, &cloth.link_start),
                        (5, &cloth.links),
                        (6, &diag),
                        (11, src),
                        (12, aux),
                        (13, dst),
                        (15, &solve_words),
                    ],
                )
            };
            let dots = |label, a0, b0, a1, b1| {
                program.bind_group(
                    label,
                    &dots_layout,
                    &[
                        (0, &uniforms[0]),
                        (11, a0),
                        (12, b0),
                        (15, &solve_words),
                        (16, &partials),
                        (17, a1),
                        (18, b1),
                    ],
                )
            };
            let shared = &uniforms[0];
            let mut sweeps = Vec::with_capacity(NODE_COLOURS * NODE_COLOURS);
            for c in 0..NODE_COLOURS * NODE_COLOURS {
                let (ox, oy) = ((c % NODE_COLOURS) as u32, (c / NODE_COLOURS) as u32);
                let across = base.nx.saturating_sub(ox).div_ceil(3);
                let rows = base.ny.saturating_sub(oy).div_ceil(3);
                let group = operator("gpu_sim implicit sweep", &uniforms[1 + c], &r, b, &z);
                sweeps.push((group, across * rows));
            }
            let groups = Groups {
                blocks: program.bind_group(
                    "gpu_sim blocks",
                    &blocks_layout,
                    &[
                        (0, shared),
                        (1, &cloth.x),
                        (2, &cloth.spring_list),
                        (3, &blocks),
                    ],
                ),
                diagonal: program.bind_group(
                    "gpu_sim diagonal",
                    &diagonal_layout,
                    &[
                        (0, shared),
                        (3, &blocks),
                        (4, &cloth.link_start),
                        (5, &cloth.links),
                        (6, &diag),
                        (7, rhs.node()),
                        (8, air.coefficients()),
                    ],
                ),
                rhs: program.bind_group(
                    "gpu_sim rhs springs",
                    &rhs_layout,
                    &[
                        (0, shared),
                        (3, &blocks),
                        (4, &cloth.link_start),
                        (5, &cloth.links),
                        (7, rhs.node()),
                        (9, &cloth.v),
                        (10, b),
                    ],
                ),
                start: operator("gpu_sim implicit start", shared, &y, b, &r),
                start_dots: dots("gpu_sim implicit start dots", b, b, &r, &r),
                sweeps,
                after_forward: operator("gpu_sim implicit after sweeps", shared, &z, &r, &level.r),
                add_correction: operator("gpu_sim implicit correction", shared, &level.x, b, &z),
                beta_dots: dots("gpu_sim implicit beta dots", &z, &q, &z, &q),
                direction: operator("gpu_sim implicit direction", shared, &z, b, &p),
                product: operator("gpu_sim implicit product", shared, &p, b, &q),
                alpha_dots: dots("gpu_sim implicit alpha dots", &p, &q, &p, &r),
                update: program.bind_group(
                    "gpu_sim implicit update",
                    &update_layout,
                    &[
                        (0, shared),
                        (11, &p),
                        (12, &q),
                        (13, &y),
                        (14, &r),
                        (15, &solve_words),
                    ],
                ),
                check_dots: dots("gpu_sim implicit check dots", &r, &r, &r, &r),
                finish: program.bind_group(
                    "gpu_sim implicit finish",
                    &finish_layout,
                    &[(0, shared), (15, &solve_words), (16, &partials)],
                ),
            };
            let kernels = KernelSet {
                spring_blocks: program.kernel("spring_blocks", &blocks_layout),
                diagonal: program.kernel("diagonal", &diagonal_layout),
                rhs_springs: program.kernel("rhs_springs", &rhs_layout),
                product: program.kernel("product", &operator_layout),
                residual: program.kernel("residual", &operator_layout),
                sweep: program.kernel("sweep", &operator_layout),
                add_correction: program.kernel("add_correction", &operator_layout),
                direction: program.kernel("direction", &operator_layout),
                update: program.kernel("update", &update_layout),
                partial_dots: program.kernel("partial_dots", &dots_layout),
                finish_start: program.kernel("finish_start", &finish_layout),
                finish_beta: program.kernel("finish_beta", &finish_layout),
                finish_alpha: program.kernel("finish_alpha", &finish_layout),
                finish_check: program.kernel("finish_check", &finish_layout),
            };
            Self {
                nodes,
                springs,
                base,
                uniforms,
                #[cfg(test)]
                blocks,
                #[cfg(test)]
                diag,
                y,
                z,
                #[cfg(test)]
                solve: solve_words,
                groups,
                kernels,
            }
        })
    }

    /// Sets the step, the damping, the air and the stopping rule.
    pub(crate) fn set_params(&self, queue: &wgpu::Queue, s: &ImplicitSettings) {
        let (weight, tolerance) = (s.weight as f32, s.tolerance as f32);
        let shared = ImplicitParams {
            h: s.h as f32,
            damping: s.damping as f32,
            has_air: u32::from(s.has_air),
            weight2: weight * weight,
            tolerance2: tolerance * tolerance,
            ..self.base
        };
        queue.write_buffer(&self.uniforms[0], 0, bytemuck::bytes_of(&shared));
        for (c, buffer) in self.uniforms[1..].iter().enumerate() {
            let colour = ImplicitParams {
                ox: (c % NODE_COLOURS) as u32,
                oy: (c / NODE_COLOURS) as u32,
                ..shared
            };
            queue.write_buffer(buffer, 0, bytemuck::bytes_of(&colour));
        }
    }

    /// Records the system's assembly at the cloth's positions and velocities: the springs'
    /// blocks, the diagonal blocks, the spring terms of the right-hand side (after `rhs`'s node
    /// terms).
    pub(crate) fn record_assembly(&self, encoder: &mut wgpu::CommandEncoder) {
        let k = &self.kernels;
        let g = &self.groups;
        dispatch(
            encoder,
            "gpu_sim implicit assembly",
            &[
                (&g.blocks, &k.spring_blocks, self.springs),
                (&g.diagonal, &k.diagonal, self.nodes),
                (&g.rhs, &k.rhs_springs, self.nodes),
            ],
        );
    }

    /// Records the solve from the last step's `Δv`, `iterations` iterations at most (each
    /// past the tolerance leaves the vectors as they are); the answer is [`Self::dv`].
    pub(crate) fn record_solve(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        solve: &GpuMultigrid,
        iterations: u32,
    ) {
        let k = &self.kernels;
        let g = &self.groups;
        let n = self.nodes;
        let one = WORKGROUP;
        dispatch(
            encoder,
            "gpu_sim implicit start",
            &[
                (&g.start, &k.residual, n),
                (&g.start_dots, &k.partial_dots, n),
                (&g.finish, &k.finish_start, one),
            ],
        );
        let colours = NODE_COLOURS * NODE_COLOURS;
        for _ in 0..iterations.max(1) {
            encoder.clear_buffer(&self.z, 0, None);
            let forward = g.sweeps.iter();
            dispatch_all(
                encoder,
                "gpu_sim implicit forward sweeps",
                forward
                    .map(|(group, count)| (group, &k.sweep, *count))
                    .chain([(&g.after_forward, &k.residual, n)]),
            );
            solve.record_coarse_correction(encoder);
            let backward = (0..colours).rev().map(|c| &g.sweeps[c]);
            dispatch_all(
                encoder,
                "gpu_sim implicit backward sweeps",
                [(&g.add_correction, &k.add_correction, n)]
                    .into_iter()
                    .chain(backward.map(|(group, count)| (group, &k.sweep, *count))),
            );
            dispatch(
                encoder,
                "gpu_sim implicit iteration",
                &[
                    (&g.beta_dots, &k.partial_dots, n),
                    (&g.finish, &k.finish_beta, one),
                    (&g.direction, &k.direction, n),
                    (&g.product, &k.product, n),
                    (&g.alpha_dots, &k.partial_dots, n),
                    (&g.finish, &k.finish_alpha, one),
                    (&g.update, &k.update, n),
                    (&g.check_dots, &k.partial_dots, n),
                    (&g.finish, &k.finish_check, one),
                ],
            );
        }
    }

    /// The step's `Δv` (zero on the held nodes), m/s, `vec4<f32>` a node; kept as the next
    /// solve's start.
    pub(crate) fn dv(&self) -> &wgpu::Buffer {
        &self.y
    }

    /// The springs' blocks (the field's layout).
    #[cfg(test)]
    pub(crate) fn blocks(&self) -> &wgpu::Buffer {
        &self.blocks
    }

    /// The inverse diagonal blocks.
    #[cfg(test)]
    pub(crate) fn diagonal(&self) -> &wgpu::Buffer {
        &self.diag
    }

    /// How the last recorded solve ended (waits for the device).
    #[cfg(test)]
    pub(crate) fn read_end(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<SolveEnd, GpuSimError> {
        let words = super::buffers::read_u32s(device, queue, &self.solve, SOLVE_BYTES / 4)?;
        let w: SolveWords = bytemuck::pod_read_unaligned(bytemuck::cast_slice(&words));
        Ok(SolveEnd {
            iterations: w.iterations,
            rr: f64::from(w.rr),
            limit: f64::from(w.limit),
        })
    }
}

#[cfg(test)]
const _: () = assert!(std::mem::size_of::<SolveWords>() as u64 == SOLVE_BYTES);
