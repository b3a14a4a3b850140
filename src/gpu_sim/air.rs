//! The key mesh's normals and the air forces on the GPU (`shaders/sim_air.wgsl`): twins of
//! [`crate::sim::model::cloth::Cloth::node_normals`] and [`crate::sim::model::forces::external_forces`].

use glam::DVec3;

use super::kernel::{Access, Program, dispatch};
use super::{ClothBuffers, GpuSimError, validated};
use crate::sim::format::params::{DragModel, LiftModel, Params};
use crate::sim::model::forces::{AIR_REFERENCE_NODES, OCTAVE_OFFSET, OCTAVE_SCALE, WindField};

/// The kernels' WGSL.
pub(crate) const SIM_AIR_WGSL: &str = include_str!("../../shaders/sim_air.wgsl");

/// WGSL `struct AirParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct AirParams {
    nodes: u32,
    triangles: u32,
    semi_implicit: u32,
    lift_model: u32,
    gusty: u32,
    pad: [u32; 3],
    base: [f32; 4],
    dir: [f32; 4],
    side: [f32; 4],
    up: [f32; 4],
    /// speed, strength, 1 / period, 1 / max(speed, 1)
    wind: [f32; 4],
    /// drag, lift, linear (per node), unused
    air: [f32; 4],
    octave_frac: [f32; 4],
    octave_k_lo: [u32; 4],
    octave_k_hi: [u32; 4],
    octave_scale: [f32; 4],
    seed_lo: [u32; 4],
    seed_hi: [u32; 4],
}

fn vec4(v: DVec3) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, 0.0]
}

/// The normals and air pass of one cloth: its pipelines, its outputs, its bind group.
#[derive(Debug)]
pub(crate) struct AirPass {
    nodes: u32,
    triangles: u32,
    params: wgpu::Buffer,
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "read back by the kernel tests only")
    )]
    normals: wgpu::Buffer,
    v_rel: wgpu::Buffer,
    air: wgpu::Buffer,
    coeff: wgpu::Buffer,
    normals_group: wgpu::BindGroup,
    air_group: wgpu::BindGroup,
    triangle_normals: wgpu::ComputePipeline,
    node_normals: wgpu::ComputePipeline,
    air_forces: wgpu::ComputePipeline,
}

impl AirPass {
    /// Compiles the kernels and makes the output buffers for `cloth`.
    pub(crate) fn new(device: &wgpu::Device, cloth: &ClothBuffers) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        validated(device, "the air kernels", || {
            let program = Program::new(device, "sim_air.wgsl", SIM_AIR_WGSL);
            // Two layouts over the shader's bindings: the three kernels together read and
            // write 10 storage buffers.
            let normals_layout = program.layout(
                "gpu_sim normals",
                &[
                    (0, Uniform),
                    (1, Read),
                    (3, Read),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                    (7, Write),
                ],
            );
            let air_layout = program.layout(
                "gpu_sim air",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Read),
                    (7, Write),
                    (8, Write),
                    (9, Write),
                    (10, Write),
                ],
            );
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let per_node = u64::from(cloth.nodes().max(1)) * 16;
            let params = program.uniform::<AirParams>("gpu_sim air params");
            let tri_normals = program.buffer(
                "gpu_sim triangle normals",
                u64::from(cloth.triangles().max(1)) * 16,
                storage,
            );
            let normals = program.buffer("gpu_sim normals", per_node, storage);
            let v_rel = program.buffer("gpu_sim v_rel", per_node, storage);
            let air = program.buffer("gpu_sim air", per_node, storage);
            let coeff = program.buffer(
                "gpu_sim air coefficients",
                u64::from(cloth.nodes().max(1)) * 8,
                storage,
            );
            let normals_group = program.bind_group(
                "gpu_sim normals",
                &normals_layout,
                &[
                    (0, &params),
                    (1, &cloth.x),
                    (3, &cloth.triangle_list),
                    (4, &cloth.tri_start),
                    (5, &cloth.tri_of_node),
                    (6, &tri_normals),
                    (7, &normals),
                ],
            );
            let air_group = program.bind_group(
                "gpu_sim air",
                &air_layout,
                &[
                    (0, &params),
                    (1, &cloth.x),
                    (2, &cloth.v),
                    (7, &normals),
                    (8, &v_rel),
                    (9, &air),
                    (10, &coeff),
                ],
            );
            Self {
                nodes: cloth.nodes(),
                triangles: cloth.triangles(),
                params,
                normals,
                v_rel,
                air,
                coeff,
                normals_group,
                air_group,
                triangle_normals: program.kernel("triangle_normals", &normals_layout),
                node_normals: program.kernel("node_normals", &normals_layout),
                air_forces: program.kernel("air_forces", &air_layout),
            }
        })
    }

    /// Sets the air of `params.wind` at time `t` (s) around the base wind `base_wind` (m/s;
    /// it lags `params.wind.velocity` by `params.wind.response`), as `external_forces` takes
    /// them. Each octave's argument `a τ + b` is split here, in f64, into the lattice index
    /// and fraction of its time part `a t / period + b`; the kernel adds the part that varies
    /// over the cloth.
    pub(crate) fn set_params(
        &self,
        queue: &wgpu::Queue,
        params: &Params,
        t: f64,
        base_wind: DVec3,
    ) {
        let w = &params.wind;
        let frame = WindField::with_base(w, base_wind).frame();
        let scale = AIR_REFERENCE_NODES / f64::from(self.nodes.max(1));
        let mut uniforms = AirParams {
            nodes: self.nodes,
            triangles: self.triangles,
            semi_implicit: u32::from(w.drag_model == DragModel::SemiImplicit),
            lift_model: match w.lift_model {
                LiftModel::Paper => 0,
                LiftModel::Smooth => 1,
            },
            gusty: u32::from(frame.strength != 0.0 && frame.speed != 0.0),
            pad: [0; 3],
            base: vec4(frame.base),
            dir: vec4(frame.dir),
            side: vec4(frame.side),
            up: vec4(frame.up),
            wind: [
                frame.speed as f32,
                frame.strength as f32,
                (1.0 / frame.period) as f32,
                (1.0 / frame.speed.max(1.0)) as f32,
            ],
            air: [
                (w.drag * scale) as f32,
                (w.lift * scale) as f32,
                (w.linear * scale) as f32,
                0.0,
            ],
            octave_frac: [0.0; 4],
            octave_k_lo: [0; 4],
            octave_k_hi: [0; 4],
            octave_scale: OCTAVE_SCALE.map(|a| a as f32),
            seed_lo: frame.seeds.map(|s| s as u32),
            seed_hi: frame.seeds.map(|s| (s >> 32) as u32),
        };
        let time = t / frame.period;
        for o in 0..4 {
            let arg = OCTAVE_SCALE[o] * time + OCTAVE_OFFSET[o];
            let whole = arg.floor();
            let k = whole as i64 as u64;
            uniforms.octave_frac[o] = (arg - whole) as f32;
            uniforms.octave_k_lo[o] = k as u32;
            uniforms.octave_k_hi[o] = (k >> 32) as u32;
        }
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&uniforms));
    }

    /// Records the three kernels: the triangles' normals, the nodes' normals, the air forces.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim air",
            &[
                (&self.normals_group, &self.triangle_normals, self.triangles),
                (&self.normals_group, &self.node_normals, self.nodes),
                (&self.air_group, &self.air_forces, self.nodes),
            ],
        );
    }

    /// Unit normals per node (`vec4<f32>`).
    #[cfg(test)]
    pub(crate) fn normals(&self) -> &wgpu::Buffer {
        &self.normals
    }

    /// Velocity relative to the air per node, m/s (`vec4<f32>`).
    pub(crate) fn v_rel(&self) -> &wgpu::Buffer {
        &self.v_rel
    }

    /// The air force other than the semi-implicit drag per node, N (`vec4<f32>`).
    pub(crate) fn air(&self) -> &wgpu::Buffer {
        &self.air
    }

    /// `(air_c, drag_c)` per node, kg/s (`vec2<f32>`).
    pub(crate) fn coefficients(&self) -> &wgpu::Buffer {
        &self.coeff
    }
}
