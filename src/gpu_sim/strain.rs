//! Strain limiting on the GPU (`shaders/sim_strain.wgsl`): the twin of
//! [`crate::sim::constraints::limit::limit_strain`] with Provot's sweeps in colours
//! ([`crate::sim::constraints::limit::provot_sweeps_coloured`]): the coarse levels, coarsest first
//! ([`crate::sim::constraints::strain_levels::StrainLevels::limit`]: each level's sweeps, then its moves
//! interpolated to the next finer level), then long-range tethers
//! ([`crate::sim::constraints::tethers::Tethers::project`]), then `iterations` sweeps of the cloth's own
//! springs, every colour of springs a dispatch (forward on odd sweeps, backward on even), then
//! each moved node's velocity `(x − x_start) / h` (its whole move over the step). In place on
//! the cloth's `x` and `v`.

use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch_all};
use super::{ClothBuffers, GpuSimError, validated};
use crate::sim::Cloth;
use crate::sim::constraints::limit::coloured_limited_springs;
use crate::sim::constraints::strain_levels::{self, StrainLevels};
use crate::sim::constraints::tethers::Tethers;
use crate::sim::format::params::Provot;
use crate::sim::model::cloth::LimitedSpring;

/// The kernels' WGSL.
pub(crate) const SIM_STRAIN_WGSL: &str = include_str!("../../shaders/sim_strain.wgsl");

/// WGSL `struct StrainParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct StrainParams {
    nodes: u32,
    first: u32,
    count: u32,
    level: u32,
    limit: f32,
    tether_limit: f32,
    inv_h: f32,
    shortest: f32,
    fine_nx: u32,
    fine_ny: u32,
    fine_cols: u32,
    fine_rows: u32,
    coarse_cols: u32,
    coarse_rows: u32,
    nx: u32,
    pad: u32,
}

/// WGSL `struct LimitedSpring`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuLimited {
    a: u32,
    b: u32,
    rest: f32,
    pad: f32,
}

/// The strain-limiting stage of one cloth with one held set.
#[derive(Debug)]
pub(crate) struct StrainPass {
    nodes: u32,
    iterations: u32,
    tethers_on: bool,
    x_before: wgpu::Buffer,
    /// One a colour of the cloth's own springs: its bind group and its spring count.
    colours: Vec<(wgpu::BindGroup, u32)>,
    /// The coarse levels, finest first: each colour's bind group and spring count, and the
    /// interpolation to the next finer level's bind group and its node count.
    levels: Vec<CoarseGroups>,
    keep_x0_group: wgpu::BindGroup,
    tether_group: wgpu::BindGroup,
    velocity_group: wgpu::BindGroup,
    tethers: wgpu::ComputePipeline,
    provot: wgpu::ComputePipeline,
    velocity: wgpu::ComputePipeline,
    keep_x0: wgpu::ComputePipeline,
    interpolate: wgpu::ComputePipeline,
    x: wgpu::Buffer,
}

/// One coarse level's dispatches.
#[derive(Debug)]
struct CoarseGroups {
    colours: Vec<(wgpu::BindGroup, u32)>,
    interpolate: (wgpu::BindGroup, u32),
}

impl StrainPass {
    /// Compiles the kernels for `cloth` held at `kinematic` with `provot`'s settings and step
    /// `h` (s), over `buffers`' node state.
    pub(crate) fn new(
        device: &wgpu::Device,
        buffers: &ClothBuffers,
        cloth: &Cloth,
        kinematic: &[bool],
        provot: &Provot,
        h: f64,
    ) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        let n = cloth.node_count();
        let colours = coloured_limited_springs(cloth, provot.shear);
        let mut tether_start = Vec::with_capacity(n + 1);
        let (mut tether_anchor, mut tether_rest) = (Vec::new(), Vec::new());
        tether_start.push(0_u32);
        if provot.tethers {
            let mut tethers = Tethers::default();
            tethers.update(cloth, kinematic);
            for i in 0..n {
                for (a, rest) in tethers.of_node(i) {
                    tether_anchor.push(a as u32);
                    tether_rest.push(rest as f32);
                }
                tether_start.push(tether_anchor.len() as u32);
            }
        } else {
            tether_start.resize(n + 1, 0);
        }
        // The coarse levels and the first level each node is held on (0: kinematic).
        let mut levels = StrainLevels::default();
        let grid = cloth.grid().filter(|_| strain_levels::applies(cloth));
        let held: Vec<u32> = match grid {
            Some(g) if provot.levels > 0 => {
                levels.build(g.nx, g.ny, g.l0_u, g.l0_v, provot.levels, provot.shear);
                levels.hold(g.nx, g.ny, kinematic);
                levels
                    .held_from()
                    .iter()
                    .map(|&l| if l == u8::MAX { u32::MAX } else { u32::from(l) })
                    .collect()
            }
            _ => kinematic
                .iter()
                .map(|&k| if k { 0 } else { u32::MAX })
                .collect(),
        };
        let nx = grid.map_or(0, |g| g.nx);
        // Each level's columns then rows, level 0's (the cloth's own) first.
        let mut axes: Vec<u32> = Vec::new();
        let mut axis_at = Vec::new();
        if let Some(g) = grid {
            axis_at.push((0, g.nx as u32));
            axes.extend(0..g.nx as u32);
            axes.extend(0..g.ny as u32);
            for level in &levels.levels {
                axis_at.push((axes.len() as u32, level.cols.len() as u32));
                axes.extend(level.cols.iter().map(|&c| c as u32));
                axes.extend(level.rows.iter().map(|&r| r as u32));
            }
        }
        let base = StrainParams {
            nodes: buffers.nodes(),
            first: 0,
            count: 0,
            level: 0,
            limit: (1.0 + provot.max_stretch) as f32,
            tether_limit: (1.0 + provot.tether_stretch) as f32,
            inv_h: (1.0 / h) as f32,
            shortest: (1.0 - provot.max_compression) as f32,
            fine_nx: 0,
            fine_ny: 0,
            fine_cols: 0,
            fine_rows: 0,
            coarse_cols: 0,
            coarse_rows: 0,
            nx: nx as u32,
            pad: 0,
        };
        validated(device, "the strain-limiting kernels", || {
            let program = Program::new(device, "sim_strain.wgsl", SIM_STRAIN_WGSL);
            let storage = |label, contents: &[u8]| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: if contents.is_empty() {
                        &[0; 16]
                    } else {
                        contents
                    },
                    usage: wgpu::BufferUsages::STORAGE,
                })
            };
            let uniform = |params: StrainParams| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("gpu_sim strain params"),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                })
            };
            let gpu_spring = |s: &LimitedSpring| GpuLimited {
                a: s.a,
                b: s.b,
                rest: s.rest as f32,
                pad: 0.0,
            };
            let flat: Vec<GpuLimited> = colours
                .iter()
                .chain(levels.levels.iter().flat_map(|l| &l.colours))
                .flatten()
                .map(gpu_spring)
                .collect();
            let springs = storage("gpu_sim limited springs", bytemuck::cast_slice(&flat));
            let held = storage("gpu_sim held from", bytemuck::cast_slice(&held));
            let axes = storage("gpu_sim strain levels' axes", bytemuck::cast_slice(&axes));
            let moved = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim moved"),
                contents: bytemuck::cast_slice(&vec![0_u32; n.max(1)]),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let start = storage("gpu_sim tether starts", bytemuck::cast_slice(&tether_start));
            let anchor = storage(
                "gpu_sim tether anchors",
                bytemuck::cast_slice(&tether_anchor),
            );
            let rest = storage("gpu_sim tether rests", bytemuck::cast_slice(&tether_rest));
            let x_before = program.buffer(
                "gpu_sim x before strain limiting",
                u64::from(buffers.nodes().max(1)) * 16,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let x0 = program.buffer(
                "gpu_sim x before the coarse levels",
                if levels.levels.is_empty() {
                    16
                } else {
                    u64::from(buffers.nodes().max(1)) * 16
                },
                wgpu::BufferUsages::STORAGE,
            );
            let keep_x0_layout =
                program.layout("gpu_sim keep x0", &[(0, Uniform), (1, Write), (10, Write)]);
            let interpolate_layout = program.layout(
                "gpu_sim strain interpolation",
                &[
                    (0, Uniform),
                    (1, Write),
                    (2, Write),
                    (3, Read),
                    (10, Write),
                    (11, Read),
                ],
            );
            let provot_layout = program.layout(
                "gpu_sim provot",
                &[(0, Uniform), (1, Write), (2, Write), (3, Read), (4, Read)],
            );
            let tether_layout = program.layout(
                "gpu_sim tethers",
                &[
                    (0, Uniform),
                    (1, Write),
                    (2, Write),
                    (5, Read),
                    (6, Read),
                    (7, Read),
                ],
            );
            let velocity_layout = program.layout(
                "gpu_sim strain velocity",
                &[(0, Uniform), (1, Write), (2, Write), (8, Read), (9, Write)],
            );
            let mut first = 0;
            let mut colour_groups = |colours: &[Vec<LimitedSpring>], level: u32| {
                let mut groups = Vec::with_capacity(colours.len());
                for colour in colours {
                    let count = colour.len() as u32;
                    let params = uniform(StrainParams {
                        first,
                        count,
                        level,
                        // Coarse springs are straight lines across folds: no shortest length.
                        shortest: if level == 0 { base.shortest } else { 0.0 },
                        ..base
                    });
                    let group = program.bind_group(
                        "gpu_sim provot",
                        &provot_layout,
                        &[
                            (0, &params),
                            (1, &buffers.x),
                            (2, &moved),
                            (3, &held),
                            (4, &springs),
                        ],
                    );
                    groups.push((group, count));
                    first += count;
                }
                groups
            };
            let groups = colour_groups(&colours, 0);
            let mut coarse_colours = Vec::with_capacity(levels.levels.len());
            for (l, level) in levels.levels.iter().enumerate() {
                coarse_colours.push(colour_groups(&level.colours, (l + 1) as u32));
            }
            let mut coarse = Vec::with_capacity(levels.levels.len());
            for (l, colours) in coarse_colours.into_iter().enumerate() {
                // The finer level is `l` (0: the cloth), the coarse one `l + 1`.
                let (fine_cols, fine_nx) = axis_at[l];
                let fine_ny = if l == 0 {
                    cloth.grid().map_or(0, |g| g.ny as u32)
                } else {
                    levels.levels[l - 1].rows.len() as u32
                };
                let (coarse_cols, coarse_nx) = axis_at[l + 1];
                let params = uniform(StrainParams {
                    level: (l + 1) as u32,
                    fine_nx,
                    fine_ny,
                    fine_cols,
                    fine_rows: fine_cols + fine_nx,
                    coarse_cols,
                    coarse_rows: coarse_cols + coarse_nx,
                    ..base
                });
                let group = program.bind_group(
                    "gpu_sim strain interpolation",
                    &interpolate_layout,
                    &[
                        (0, &params),
                        (1, &buffers.x),
                        (2, &moved),
                        (3, &held),
                        (10, &x0),
                        (11, &axes),
                    ],
                );
                coarse.push(CoarseGroups {
                    colours,
                    interpolate: (group, fine_nx * fine_ny),
                });
            }
            let params = uniform(base);
            let keep_x0_group = program.bind_group(
                "gpu_sim keep x0",
                &keep_x0_layout,
                &[(0, &params), (1, &buffers.x), (10, &x0)],
            );
            let tether_group = program.bind_group(
                "gpu_sim tethers",
                &tether_layout,
                &[
                    (0, &params),
                    (1, &buffers.x),
                    (2, &moved),
                    (5, &start),
                    (6, &anchor),
                    (7, &rest),
                ],
            );
            let velocity_group = program.bind_group(
                "gpu_sim strain velocity",
                &velocity_layout,
                &[
                    (0, &params),
                    (1, &buffers.x),
                    (2, &moved),
                    (8, &x_before),
                    (9, &buffers.v),
                ],
            );
            Self {
                nodes: buffers.nodes(),
                iterations: provot.iterations,
                tethers_on: provot.tethers && !tether_anchor.is_empty(),
                x_before,
                colours: groups,
                levels: coarse,
                keep_x0_group,
                tether_group,
                velocity_group,
                tethers: program.kernel("tethers", &tether_layout),
                provot: program.kernel("provot", &provot_layout),
                velocity: program.kernel("strain_velocity", &velocity_layout),
                keep_x0: program.kernel("keep_x0", &keep_x0_layout),
                interpolate: program.kernel("interpolate", &interpolate_layout),
                x: buffers.x.clone(),
            }
        })
    }

    /// Coarse levels limited before the cloth's own springs.
    #[cfg(test)]
    pub(crate) fn levels(&self) -> usize {
        self.levels.len()
    }

    /// Records a copy of the positions at the start of the step (before its `x += h v`): a
    /// node the stage moves gets the velocity of its whole move over the step, as on the CPU.
    pub(crate) fn record_keep_start(&self, encoder: &mut wgpu::CommandEncoder) {
        let size = u64::from(self.nodes) * 16;
        encoder.copy_buffer_to_buffer(&self.x, 0, &self.x_before, 0, size);
    }

    /// Records the stage: the coarse levels (coarsest first, each level's sweeps and its
    /// interpolation to the next finer one), the tethers, the cloth's own sweeps, the moved nodes'
    /// velocities `(x − x_start) / h` from the positions [`Self::record_keep_start`] kept.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let tethers = self
            .tethers_on
            .then_some((&self.tether_group, &self.tethers, self.nodes));
        let keep_x0 =
            (!self.levels.is_empty()).then_some((&self.keep_x0_group, &self.keep_x0, self.nodes));
        let coarse = self.levels.iter().rev().flat_map(|level| {
            let (group, count) = &level.interpolate;
            self.sweeps(&level.colours)
                .chain([(group, &self.interpolate, *count)])
        });
        let velocity = (&self.velocity_group, &self.velocity, self.nodes);
        dispatch_all(
            encoder,
            "gpu_sim strain limiting",
            keep_x0
                .into_iter()
                .chain(coarse)
                .chain(tethers)
                .chain(self.sweeps(&self.colours))
                .chain([velocity]),
        );
    }

    /// `iterations` sweeps of `colours`: in order on the first, third, … sweep, in reverse on
    /// the second, fourth, ….
    fn sweeps<'a>(
        &'a self,
        colours: &'a [(wgpu::BindGroup, u32)],
    ) -> impl Iterator<Item = (&'a wgpu::BindGroup, &'a wgpu::ComputePipeline, u32)> + 'a {
        let n = colours.len();
        (0..self.iterations).flat_map(move |sweep| {
            (0..n).map(move |c| {
                let (group, count) = &colours[if sweep % 2 == 1 { n - 1 - c } else { c }];
                (group, &self.provot, *count)
            })
        })
    }
}
