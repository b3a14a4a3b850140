//! The key mesh's normals and the air forces on the GPU (`shaders/sim_air.wgsl`): twins of
//! [`crate::sim::cloth::Cloth::node_normals`] and [`crate::sim::forces::external_forces`].

use std::borrow::Cow;

use glam::DVec3;

use super::{ClothBuffers, GpuSimError, validated, workgroups};
use crate::sim::forces::{AIR_REFERENCE_NODES, OCTAVE_OFFSET, OCTAVE_SCALE, WindField};
use crate::sim::params::{DragModel, LiftModel, Params};

/// The kernels' WGSL.
pub const SIM_AIR_WGSL: &str = include_str!("../../shaders/sim_air.wgsl");

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
pub struct AirPass {
    nodes: u32,
    triangles: u32,
    params: wgpu::Buffer,
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
    pub fn new(device: &wgpu::Device, cloth: &ClothBuffers) -> Result<Self, GpuSimError> {
        use wgpu::BufferBindingType::{Storage, Uniform};
        validated(device, "the air kernels", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sim_air.wgsl"),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(SIM_AIR_WGSL)),
            });
            let read = Storage { read_only: true };
            let write = Storage { read_only: false };
            // Two layouts over the shader's bindings: the default limit is 8 storage buffers
            // a stage, and the three kernels together read and write 10.
            let layout_of = |label: &'static str, kinds: &[(u32, wgpu::BufferBindingType)]| {
                let entries: Vec<_> = kinds
                    .iter()
                    .map(|&(binding, ty)| super::forces::entry(binding, ty))
                    .collect();
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(label),
                    entries: &entries,
                })
            };
            let normals_layout = layout_of(
                "gpu_sim normals",
                &[
                    (0, Uniform),
                    (1, read),
                    (3, read),
                    (4, read),
                    (5, read),
                    (6, write),
                    (7, write),
                ],
            );
            let air_layout = layout_of(
                "gpu_sim air",
                &[
                    (0, Uniform),
                    (1, read),
                    (2, read),
                    (7, write),
                    (8, write),
                    (9, write),
                    (10, write),
                ],
            );
            let pipeline = |entry_point: &str, layout: &wgpu::BindGroupLayout| {
                let pipeline_layout =
                    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some(entry_point),
                        bind_group_layouts: &[Some(layout)],
                        immediate_size: 0,
                    });
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry_point),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry_point),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    cache: None,
                })
            };
            let buffer = |label: &'static str, size: u64, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            };
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let per_node = u64::from(cloth.nodes().max(1)) * 16;
            let params = buffer(
                "gpu_sim air params",
                std::mem::size_of::<AirParams>() as u64,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let tri_normals = buffer(
                "gpu_sim triangle normals",
                u64::from(cloth.triangles().max(1)) * 16,
                storage,
            );
            let normals = buffer("gpu_sim normals", per_node, storage);
            let v_rel = buffer("gpu_sim v_rel", per_node, storage);
            let air = buffer("gpu_sim air", per_node, storage);
            let coeff = buffer(
                "gpu_sim air coefficients",
                u64::from(cloth.nodes().max(1)) * 8,
                storage,
            );
            let bind_group = |layout: &wgpu::BindGroupLayout, entries: &[(u32, &wgpu::Buffer)]| {
                let entries: Vec<_> = entries
                    .iter()
                    .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("gpu_sim air"),
                    layout,
                    entries: &entries,
                })
            };
            let normals_group = bind_group(
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
            let air_group = bind_group(
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
                triangle_normals: pipeline("triangle_normals", &normals_layout),
                node_normals: pipeline("node_normals", &normals_layout),
                air_forces: pipeline("air_forces", &air_layout),
            }
        })
    }

    /// Sets the air of `params.wind` at time `t` (s) around the base wind `base_wind` (m/s;
    /// it lags `params.wind.velocity` by `params.wind.response`), as `external_forces` takes
    /// them. Each octave's argument `a τ + b` is split here, in f64, into the lattice index
    /// and fraction of its time part `a t / period + b`; the kernel adds the part that varies
    /// over the cloth.
    pub fn set_params(&self, queue: &wgpu::Queue, params: &Params, t: f64, base_wind: DVec3) {
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
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu_sim air"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.normals_group, &[]);
        pass.set_pipeline(&self.triangle_normals);
        pass.dispatch_workgroups(workgroups(self.triangles), 1, 1);
        pass.set_pipeline(&self.node_normals);
        pass.dispatch_workgroups(workgroups(self.nodes), 1, 1);
        pass.set_bind_group(0, &self.air_group, &[]);
        pass.set_pipeline(&self.air_forces);
        pass.dispatch_workgroups(workgroups(self.nodes), 1, 1);
    }

    /// Unit normals per node (`vec4<f32>`).
    pub fn normals(&self) -> &wgpu::Buffer {
        &self.normals
    }

    /// Velocity relative to the air per node, m/s (`vec4<f32>`).
    pub fn v_rel(&self) -> &wgpu::Buffer {
        &self.v_rel
    }

    /// The air force other than the semi-implicit drag per node, N (`vec4<f32>`).
    pub fn air(&self) -> &wgpu::Buffer {
        &self.air
    }

    /// `(air_c, drag_c)` per node, kg/s (`vec2<f32>`).
    pub fn coefficients(&self) -> &wgpu::Buffer {
        &self.coeff
    }
}
