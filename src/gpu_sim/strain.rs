//! Strain limiting on the GPU (`shaders/sim_strain.wgsl`): the twin of
//! [`crate::sim::constraints::limit_strain`] with Provot's sweeps in colours
//! ([`crate::sim::constraints::provot_sweeps_coloured`]): long-range tethers
//! ([`crate::sim::tethers::Tethers::project`]), then `iterations` sweeps, every colour of springs
//! a dispatch (forward on odd sweeps, backward on even), then each moved node's velocity
//! `(x − x_start) / h` (its whole move over the step). In place on the cloth's `x` and `v`.

use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch_all};
use super::{ClothBuffers, GpuSimError, validated};
use crate::sim::Cloth;
use crate::sim::constraints::coloured_limited_springs;
use crate::sim::params::Provot;
use crate::sim::tethers::Tethers;

/// The kernels' WGSL.
pub const SIM_STRAIN_WGSL: &str = include_str!("../../shaders/sim_strain.wgsl");

/// WGSL `struct StrainParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct StrainParams {
    nodes: u32,
    first: u32,
    count: u32,
    pad: u32,
    limit: f32,
    tether_limit: f32,
    inv_h: f32,
    pad1: f32,
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
pub struct StrainPass {
    nodes: u32,
    iterations: u32,
    tethers_on: bool,
    x_before: wgpu::Buffer,
    /// One a colour: its bind group and its spring count.
    colours: Vec<(wgpu::BindGroup, u32)>,
    tether_group: wgpu::BindGroup,
    velocity_group: wgpu::BindGroup,
    tethers: wgpu::ComputePipeline,
    provot: wgpu::ComputePipeline,
    velocity: wgpu::ComputePipeline,
    x: wgpu::Buffer,
}

impl StrainPass {
    /// Compiles the kernels for `cloth` held at `kinematic` with `provot`'s settings and step
    /// `h` (s), over `buffers`' node state.
    pub fn new(
        device: &wgpu::Device,
        buffers: &ClothBuffers,
        cloth: &Cloth,
        kinematic: &[bool],
        provot: &Provot,
        h: f64,
    ) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        let n = cloth.node_count();
        let colours = coloured_limited_springs(cloth);
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
        let held: Vec<u32> = kinematic.iter().map(|&k| u32::from(k)).collect();
        let base = StrainParams {
            nodes: buffers.nodes(),
            first: 0,
            count: 0,
            pad: 0,
            limit: (1.0 + provot.max_stretch) as f32,
            tether_limit: (1.0 + provot.tether_stretch) as f32,
            inv_h: (1.0 / h) as f32,
            pad1: 0.0,
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
            let flat: Vec<GpuLimited> = colours
                .iter()
                .flatten()
                .map(|s| GpuLimited {
                    a: s.a,
                    b: s.b,
                    rest: s.rest as f32,
                    pad: 0.0,
                })
                .collect();
            let springs = storage("gpu_sim limited springs", bytemuck::cast_slice(&flat));
            let kinematic = storage("gpu_sim held flags", bytemuck::cast_slice(&held));
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
            let mut groups = Vec::with_capacity(colours.len());
            for colour in &colours {
                let count = colour.len() as u32;
                let params = uniform(StrainParams {
                    first,
                    count,
                    ..base
                });
                let group = program.bind_group(
                    "gpu_sim provot",
                    &provot_layout,
                    &[
                        (0, &params),
                        (1, &buffers.x),
                        (2, &moved),
                        (3, &kinematic),
                        (4, &springs),
                    ],
                );
                groups.push((group, count));
                first += count;
            }
            let params = uniform(base);
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
                tether_group,
                velocity_group,
                tethers: program.kernel("tethers", &tether_layout),
                provot: program.kernel("provot", &provot_layout),
                velocity: program.kernel("strain_velocity", &velocity_layout),
                x: buffers.x.clone(),
            }
        })
    }

    /// Colours of Provot's springs.
    pub fn colours(&self) -> usize {
        self.colours.len()
    }

    /// Records a copy of the positions at the start of the step (before its `x += h v`): a
    /// node the stage moves gets the velocity of its whole move over the step, as on the CPU.
    pub fn record_keep_start(&self, encoder: &mut wgpu::CommandEncoder) {
        let size = u64::from(self.nodes) * 16;
        encoder.copy_buffer_to_buffer(&self.x, 0, &self.x_before, 0, size);
    }

    /// Records the stage: the tethers, the sweeps, the moved nodes' velocities
    /// `(x − x_start) / h` from the positions [`Self::record_keep_start`] kept.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let tethers = self
            .tethers_on
            .then_some((&self.tether_group, &self.tethers, self.nodes));
        let colours = self.colours.len();
        // The colours in order on the first, third, … sweep, in reverse on the second, fourth, ….
        let sweeps = (0..self.iterations).flat_map(move |sweep| {
            (0..colours).map(move |c| if sweep % 2 == 1 { colours - 1 - c } else { c })
        });
        let provot = sweeps.map(|c| {
            let (group, count) = &self.colours[c];
            (group, &self.provot, *count)
        });
        let velocity = (&self.velocity_group, &self.velocity, self.nodes);
        dispatch_all(
            encoder,
            "gpu_sim strain limiting",
            tethers.into_iter().chain(provot).chain([velocity]),
        );
    }
}
