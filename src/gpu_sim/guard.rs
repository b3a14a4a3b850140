//! The guard's checks on the GPU as one small report (`shaders/sim_guard.wgsl`): twins of
//! [`crate::sim::model::cloth::Cloth::strain_maxima`] and [`crate::sim::runtime::guard::check`]'s tests; and,
//! inside the GPU step, the twin of [`crate::sim::Simulation::step`]'s restore: the first
//! published step that fails trips the guard, and the last good state is put back
//! ([`GuardPass::record_commit`]), so a blow-up never reaches the node buffer the renderer reads.

use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch};
use super::{ClothBuffers, GpuSimError, validated};
use crate::sim::format::params::Params;
use crate::sim::model::cloth::Cloth;
use crate::sim::runtime::guard::{BLOWUP_STRETCH, node_reason, speed_limit, spring_reason};

/// The kernels' WGSL.
pub(crate) const SIM_GUARD_WGSL: &str = include_str!("../../shaders/sim_guard.wgsl");

/// WGSL `struct GuardParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct GuardParams {
    nodes: u32,
    springs: u32,
    check_speed: u32,
    pad: u32,
    limit2: f32,
    stretch2: f32,
    pad1: [f32; 2],
}

/// Words of WGSL `struct Report`.
const REPORT_WORDS: usize = 12;

/// Bytes of WGSL `struct Report`.
pub(crate) const REPORT_SIZE: u64 = REPORT_WORDS as u64 * 4;

/// WGSL's `NONE`: no node, no spring, not tripped.
const NONE: u32 = u32::MAX;

/// The report as the step starts: nothing found, no step judged, not tripped.
const REPORT_START: [u32; REPORT_WORDS] = [0, 0, NONE, NONE, 0, NONE, NONE, NONE, 0, 0, 0, 0];

/// What the guard's kernels found after a step.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GuardReport {
    /// The largest `|x_ab| / L` over every spring with `L > 0` (non-finite ones left out).
    pub strain_all: f64,
    /// The same over the springs Provot limits.
    pub strain_limited: f64,
    /// The first node with a non-finite position or velocity, or (with strain limiting on) a
    /// free node faster than [`speed_limit`].
    pub first_bad_node: Option<u32>,
    /// The first spring longer than [`BLOWUP_STRETCH`] times its rest length.
    pub first_stretched_spring: Option<u32>,
}

#[cfg(test)]
impl GuardReport {
    /// Whether the step blew up, as [`crate::sim::runtime::guard::check`] decides it.
    #[cfg(test)]
    pub(crate) fn blew_up(&self) -> bool {
        self.first_bad_node.is_some() || self.first_stretched_spring.is_some()
    }
}

/// The first published step that failed the guard inside the GPU step (the state was put
/// back to the one before it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GuardTrip {
    /// Published steps that passed before it, since the step was built.
    pub after: u32,
    /// Its first bad node, and the node's speed, m/s (`None`: a non-finite position or
    /// velocity).
    pub node: Option<(u32, Option<f64>)>,
    /// Else its first spring beyond [`BLOWUP_STRETCH`], and its `|x_ab| / L`.
    pub spring: Option<(u32, f64)>,
}

impl GuardTrip {
    /// Reads a trip from the report's words (`None`: the guard has not tripped).
    pub(crate) fn from_words(words: &[u32]) -> Option<Self> {
        let &[.., tripped_at, node, spring, value, _, _, _] = words.get(..REPORT_WORDS)? else {
            return None;
        };
        if tripped_at == NONE {
            return None;
        }
        let value = f64::from(f32::from_bits(value));
        Some(Self {
            after: tripped_at,
            node: (node != NONE).then_some((node, value.is_finite().then_some(value))),
            spring: (node == NONE && spring != NONE).then_some((spring, value)),
        })
    }

    /// Why it failed, in the CPU guard's words ([`crate::sim::runtime::guard::check`]) for `cloth`'s
    /// springs and `params`' speed limit.
    pub(crate) fn reason(&self, cloth: &Cloth, params: &Params) -> String {
        match (self.node, self.spring) {
            (Some((i, speed)), _) => node_reason(i as usize, speed, speed_limit(params)),
            (None, Some((s, ratio))) => match cloth.topology.springs.get(s as usize) {
                Some(sp) => spring_reason(s as usize, sp.a, sp.b, ratio),
                None => format!("spring {s} stretched to {ratio:.1}× its rest length"),
            },
            (None, None) => "the GPU's guard tripped".into(),
        }
    }
}

/// The guard's pass of one cloth.
#[derive(Debug)]
pub(crate) struct GuardPass {
    nodes: u32,
    springs: u32,
    params: wgpu::Buffer,
    kinematic: wgpu::Buffer,
    report: wgpu::Buffer,
    /// The last state that passed ([`Self::record_commit`]).
    good_x: wgpu::Buffer,
    good_v: wgpu::Buffer,
    x: wgpu::Buffer,
    v: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    clear: wgpu::ComputePipeline,
    spring_strains: wgpu::ComputePipeline,
    node_checks: wgpu::ComputePipeline,
    judge: wgpu::ComputePipeline,
    commit: wgpu::ComputePipeline,
}

impl GuardPass {
    /// Compiles the kernels and uploads what the strain test reads of `cloth`'s springs.
    pub(crate) fn new(
        device: &wgpu::Device,
        buffers: &ClothBuffers,
        cloth: &Cloth,
    ) -> Result<Self, GpuSimError> {
        let topology = &*cloth.topology;
        let strain_data: Vec<[f32; 2]> = topology
            .inv_rest2
            .iter()
            .zip(&topology.limited)
            .map(|(&inv, &limited)| [inv as f32, limited as f32])
            .chain(std::iter::once([0.0; 2]))
            .collect();
        validated(device, "the guard's kernels", || {
            use Access::{Read, Uniform, Write};
            let program = Program::new(device, "sim_guard.wgsl", SIM_GUARD_WGSL);
            let layout = program.layout(
                "gpu_sim guard",
                &[
                    (0, Uniform),
                    (1, Write),
                    (2, Write),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (7, Write),
                    (8, Write),
                ],
            );
            let params = program.uniform::<GuardParams>("gpu_sim guard params");
            let strain = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim strain data"),
                contents: bytemuck::cast_slice(&strain_data),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let kinematic = program.buffer(
                "gpu_sim kinematic",
                u64::from(buffers.nodes().max(1)) * 4,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let report = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim guard report"),
                contents: bytemuck::cast_slice(&REPORT_START),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            });
            let state_bytes = u64::from(buffers.nodes().max(1)) * 16;
            let good = |label| {
                program.buffer(
                    label,
                    state_bytes,
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                )
            };
            let good_x = good("gpu_sim last good x");
            let good_v = good("gpu_sim last good v");
            let bind_group = program.bind_group(
                "gpu_sim guard",
                &layout,
                &[
                    (0, &params),
                    (1, &buffers.x),
                    (2, &buffers.v),
                    (3, &buffers.spring_list),
                    (4, &strain),
                    (5, &kinematic),
                    (6, &report),
                    (7, &good_x),
                    (8, &good_v),
                ],
            );
            Self {
                nodes: buffers.nodes(),
                springs: buffers.springs(),
                params,
                kinematic,
                report,
                good_x,
                good_v,
                x: buffers.x.clone(),
                v: buffers.v.clone(),
                bind_group,
                clear: program.kernel("clear_report", &layout),
                spring_strains: program.kernel("spring_strains", &layout),
                node_checks: program.kernel("node_checks", &layout),
                judge: program.kernel("judge", &layout),
                commit: program.kernel("commit", &layout),
            }
        })
    }

    /// Sets the speed limit and whether it is tested (strain limiting on), as `params` give
    /// them, and which nodes are held (`kinematic`, one per node).
    pub(crate) fn set_params(&self, queue: &wgpu::Queue, params: &Params, kinematic: &[bool]) {
        let limit = speed_limit(params);
        let uniforms = GuardParams {
            nodes: self.nodes,
            springs: self.springs,
            check_speed: u32::from(params.provot.enabled),
            pad: 0,
            limit2: (limit * limit) as f32,
            stretch2: (BLOWUP_STRETCH * BLOWUP_STRETCH) as f32,
            pad1: [0.0; 2],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&uniforms));
        let held: Vec<u32> = kinematic.iter().map(|&k| u32::from(k)).collect();
        if !held.is_empty() {
            queue.write_buffer(&self.kinematic, 0, bytemuck::cast_slice(&held));
        }
    }

    /// Records the three kernels: clear the report, the springs' strains, the nodes' checks.
    #[cfg(test)]
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim guard",
            &[
                // One invocation clears the report.
                (&self.bind_group, &self.clear, 1),
                (&self.bind_group, &self.spring_strains, self.springs),
                (&self.bind_group, &self.node_checks, self.nodes),
            ],
        );
    }

    /// Records a copy of the cloth's state as the last good one (before the first step).
    pub(crate) fn record_keep(&self, encoder: &mut wgpu::CommandEncoder) {
        let bytes = u64::from(self.nodes) * 16;
        encoder.copy_buffer_to_buffer(&self.x, 0, &self.good_x, 0, bytes);
        encoder.copy_buffer_to_buffer(&self.v, 0, &self.good_v, 0, bytes);
    }

    /// Records the guard inside the step, after a published step: the checks ([`Self::record`]),
    /// then `judge` (the first failing step trips the guard for good) and `commit` (the state
    /// kept as the last good one, or, once tripped, the last good one put back).
    pub(crate) fn record_commit(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim guard in the step",
            &[
                (&self.bind_group, &self.clear, 1),
                (&self.bind_group, &self.spring_strains, self.springs),
                (&self.bind_group, &self.node_checks, self.nodes),
                (&self.bind_group, &self.judge, 1),
                (&self.bind_group, &self.commit, self.nodes),
            ],
        );
    }

    /// The report buffer ([`REPORT_SIZE`] bytes), for a snapshot to copy.
    pub(crate) fn report(&self) -> &wgpu::Buffer {
        &self.report
    }

    /// Reads the report of the last recorded work back ([`REPORT_SIZE`] bytes), waiting for it.
    #[cfg(test)]
    pub(crate) fn read_report(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<GuardReport, GpuSimError> {
        let words = self.read_words(device, queue)?;
        let some = |w: u32| (w != NONE).then_some(w);
        Ok(GuardReport {
            strain_all: f64::from(f32::from_bits(words[0])).sqrt(),
            strain_limited: f64::from(f32::from_bits(words[1])).sqrt(),
            first_bad_node: some(words[2]),
            first_stretched_spring: some(words[3]),
        })
    }

    /// Whether (and where) the guard inside the step has tripped, waiting for the submitted work.
    pub(crate) fn read_trip(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<GuardTrip>, GpuSimError> {
        Ok(GuardTrip::from_words(&self.read_words(device, queue)?))
    }

    fn read_words(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, GpuSimError> {
        super::buffers::read_u32s(device, queue, &self.report, REPORT_WORDS as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Scene;

    /// The report's words with a trip after `after` steps.
    fn words(after: u32, node: u32, spring: u32, value: u32) -> Vec<u32> {
        let mut w = REPORT_START.to_vec();
        w[4] = after + 1;
        w[5] = after;
        w[6] = node;
        w[7] = spring;
        w[8] = value;
        w
    }

    #[test]
    fn a_report_that_has_not_tripped_reads_as_none() {
        assert_eq!(GuardTrip::from_words(&REPORT_START), None);
        let mut w = REPORT_START.to_vec();
        // A step's own findings (words 2 and 3) are not a trip: `judge` makes one of them.
        w[2] = 5;
        w[3] = 9;
        assert_eq!(GuardTrip::from_words(&w), None);
        assert_eq!(GuardTrip::from_words(&w[..REPORT_WORDS - 1]), None);
    }

    #[test]
    fn a_trip_reads_its_node_or_its_spring_and_says_why_as_the_cpu_does() {
        let scene = Scene::from_json(r#"{ "cloth": { "grid": { "nx": 6, "ny": 6 } } }"#, "t")
            .expect("scene");
        let sim = scene.simulation().expect("sim");
        let (cloth, params) = (&sim.cloth, sim.params());
        let limit = speed_limit(params);
        // A fast node: its speed.
        let trip = GuardTrip::from_words(&words(7, 12, NONE, 80.5f32.to_bits())).expect("trip");
        assert_eq!(trip.after, 7);
        assert_eq!(trip.node, Some((12, Some(80.5))));
        assert_eq!(trip.spring, None);
        assert_eq!(
            trip.reason(cloth, params),
            node_reason(12, Some(80.5), limit)
        );
        // A non-finite node: no speed.
        let trip = GuardTrip::from_words(&words(0, 3, 20, NONE)).expect("trip");
        assert_eq!(
            (trip.after, trip.node, trip.spring),
            (0, Some((3, None)), None)
        );
        assert_eq!(
            trip.reason(cloth, params),
            "node 3 has a non-finite position or velocity"
        );
        // A long spring, with its nodes.
        let trip = GuardTrip::from_words(&words(2, NONE, 4, 12.3f32.to_bits())).expect("trip");
        assert_eq!(
            (trip.node, trip.spring),
            (None, Some((4, f64::from(12.3f32))))
        );
        let s = &cloth.topology.springs[4];
        assert_eq!(
            trip.reason(cloth, params),
            format!(
                "spring 4 ({}–{}) stretched to 12.3× its rest length",
                s.a, s.b
            )
        );
    }
}
