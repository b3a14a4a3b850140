//! A cloth on the device: its node state and its topology, in the layouts the kernels read.
//!
//! Node vectors are `vec4<f32>` (xyz and an unused w: WGSL pads a `vec3` in an array to 16
//! bytes anyway). Springs are [`GpuSpring`]s in spring order; each node's links are
//! `link_start[i]..link_start[i + 1]` into `links` (the neighbour and the spring), in spring
//! order as [`crate::sim::model::cloth::Topology::links`] has them, so a gather sums in the CPU's
//! order.

use glam::DVec3;
use wgpu::util::DeviceExt;

use super::{GpuSimError, validated};
use crate::sim::model::cloth::Cloth;

/// One spring as the kernels read it (WGSL `struct Spring`, 16 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuSpring {
    pub a: u32,
    pub b: u32,
    /// Rest length `L`, m.
    pub rest: f32,
    /// Stiffness `k`, N/m.
    pub k: f32,
}

/// The cloth's buffers on the device.
#[derive(Debug)]
pub struct ClothBuffers {
    nodes: u32,
    springs: u32,
    /// Positions, m (`vec4<f32>`, w unused).
    pub x: wgpu::Buffer,
    /// Velocities, m/s.
    pub v: wgpu::Buffer,
    /// [`GpuSpring`] per spring.
    pub spring_list: wgpu::Buffer,
    /// `u32` per node and one more: where each node's links start in `links`.
    pub link_start: wgpu::Buffer,
    /// `vec2<u32>` per link: the neighbour and the spring.
    pub links: wgpu::Buffer,
    triangles: u32,
    /// Three `u32` node indices per triangle of the key mesh.
    pub triangle_list: wgpu::Buffer,
    /// `u32` per node and one more: where each node's triangles start in `tri_of_node`.
    pub tri_start: wgpu::Buffer,
    /// `u32` per entry: the triangles around each node.
    pub tri_of_node: wgpu::Buffer,
}

fn vec4s(values: &[DVec3]) -> Vec<[f32; 4]> {
    values
        .iter()
        .map(|p| [p.x as f32, p.y as f32, p.z as f32, 0.0])
        .collect()
}

fn springs_of(cloth: &Cloth) -> Vec<GpuSpring> {
    let topology = &*cloth.topology;
    topology
        .ends
        .iter()
        .zip(&topology.rest)
        .zip(cloth.k())
        .map(|((&[a, b], &rest), &k)| GpuSpring {
            a,
            b,
            rest: rest as f32,
            k: k as f32,
        })
        .collect()
}

impl ClothBuffers {
    /// Uploads `cloth`'s state and topology.
    pub(crate) fn new(device: &wgpu::Device, cloth: &Cloth) -> Result<Self, GpuSimError> {
        let topology = &*cloth.topology;
        let (nodes, springs) = (cloth.node_count(), topology.ends.len());
        let too_large = || GpuSimError::TooLarge { nodes, springs };
        let nodes_u32 = u32::try_from(nodes).map_err(|_| too_large())?;
        let springs_u32 = u32::try_from(springs).map_err(|_| too_large())?;
        let link_start = topology
            .link_start
            .iter()
            .map(|&s| u32::try_from(s).map_err(|_| too_large()))
            .collect::<Result<Vec<u32>, _>>()?;
        let links: Vec<[u32; 2]> = topology.links.iter().map(|l| [l.node, l.spring]).collect();
        let triangles = &topology.mesh.triangles;
        let triangles_u32 = u32::try_from(triangles.len()).map_err(|_| too_large())?;
        let triangle_list = triangles
            .iter()
            .flatten()
            .map(|&i| u32::try_from(i).map_err(|_| too_large()))
            .collect::<Result<Vec<u32>, _>>()?;
        let tri_start = topology
            .tri_start
            .iter()
            .map(|&s| u32::try_from(s).map_err(|_| too_large()))
            .collect::<Result<Vec<u32>, _>>()?;
        let limits = device.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let largest = (16 * nodes as u64)
            .max(16 * springs as u64)
            .max(8 * links.len() as u64);
        if largest > limit {
            return Err(too_large());
        }
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let node_usage = storage | wgpu::BufferUsages::COPY_SRC;
        // A buffer of at least one element: wgpu refuses empty storage bindings.
        let buffer = |label: &'static str, contents: &[u8], usage| {
            let one = [0u8; 16];
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: if contents.is_empty() { &one } else { contents },
                usage,
            })
        };
        validated(device, "the cloth's buffers", || Self {
            nodes: nodes_u32,
            springs: springs_u32,
            x: buffer(
                "gpu_sim x",
                bytemuck::cast_slice(&vec4s(&cloth.x)),
                node_usage,
            ),
            v: buffer(
                "gpu_sim v",
                bytemuck::cast_slice(&vec4s(&cloth.v)),
                node_usage,
            ),
            spring_list: buffer(
                "gpu_sim springs",
                bytemuck::cast_slice(&springs_of(cloth)),
                storage,
            ),
            link_start: buffer(
                "gpu_sim link_start",
                bytemuck::cast_slice(&link_start),
                storage,
            ),
            links: buffer("gpu_sim links", bytemuck::cast_slice(&links), storage),
            triangles: triangles_u32,
            triangle_list: buffer(
                "gpu_sim triangles",
                bytemuck::cast_slice(&triangle_list),
                storage,
            ),
            tri_start: buffer(
                "gpu_sim tri_start",
                bytemuck::cast_slice(&tri_start),
                storage,
            ),
            tri_of_node: buffer(
                "gpu_sim tri_of_node",
                bytemuck::cast_slice(&topology.tri_of_node),
                storage,
            ),
        })
    }

    /// Nodes of the cloth.
    pub(crate) fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Springs of the cloth.
    pub(crate) fn springs(&self) -> u32 {
        self.springs
    }

    /// Triangles of the cloth's key mesh.
    pub(crate) fn triangles(&self) -> u32 {
        self.triangles
    }

    /// Writes `cloth`'s positions and velocities (a cloth of the same topology).
    pub(crate) fn write_state(&self, queue: &wgpu::Queue, cloth: &Cloth) {
        queue.write_buffer(&self.x, 0, bytemuck::cast_slice(&vec4s(&cloth.x)));
        queue.write_buffer(&self.v, 0, bytemuck::cast_slice(&vec4s(&cloth.v)));
    }

    /// Writes `cloth`'s spring stiffnesses (after the user changed them).
    #[cfg(test)]
    pub(crate) fn write_stiffness(&self, queue: &wgpu::Queue, cloth: &Cloth) {
        queue.write_buffer(
            &self.spring_list,
            0,
            bytemuck::cast_slice(&springs_of(cloth)),
        );
    }
}

/// Writes `values` to the start of `buffer` (a `COPY_DST` buffer of `vec4<f32>`), rounded to
/// f32, w = 0.
pub fn write_vec3s(queue: &wgpu::Queue, buffer: &wgpu::Buffer, values: &[DVec3]) {
    if !values.is_empty() {
        queue.write_buffer(buffer, 0, bytemuck::cast_slice(&vec4s(values)));
    }
}

/// Copies the first `count` `vec4<f32>` of `buffer` (a `COPY_SRC` buffer) to the CPU and
/// returns their xyz, waiting for the work submitted before it.
pub fn read_vec3s(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    count: u32,
) -> Result<Vec<DVec3>, GpuSimError> {
    let values = read_f32s(device, queue, buffer, u64::from(count) * 4)?;
    Ok(values
        .chunks_exact(4)
        .map(|v| DVec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])))
        .collect())
}

/// Copies the first `count` `vec2<f32>` of `buffer` (a `COPY_SRC` buffer) to the CPU.
pub fn read_pairs(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    count: u32,
) -> Result<Vec<[f64; 2]>, GpuSimError> {
    let values = read_f32s(device, queue, buffer, u64::from(count) * 2)?;
    Ok(values
        .chunks_exact(2)
        .map(|v| [f64::from(v[0]), f64::from(v[1])])
        .collect())
}

/// The first `words` `u32` of `buffer`, waiting for the work submitted before the copy.
pub(super) fn read_u32s(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    words: u64,
) -> Result<Vec<u32>, GpuSimError> {
    read_words(device, queue, buffer, words)
}

fn read_f32s(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    floats: u64,
) -> Result<Vec<f32>, GpuSimError> {
    read_words(device, queue, buffer, floats)
}

/// The first `words` 4-byte values of `buffer`, waiting for the work submitted before the copy.
fn read_words<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    words: u64,
) -> Result<Vec<T>, GpuSimError> {
    if cfg!(target_arch = "wasm32") {
        // The browser maps the buffer only after the frame returns: a wait here never ends.
        return Err(GpuSimError::ReadBack(
            "a page cannot wait for the GPU inside its frame".into(),
        ));
    }
    let floats = words;
    let size = floats.max(4) * 4;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu_sim read-back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    validated(device, "a read-back copy", || {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpu_sim read-back"),
        });
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
        queue.submit([encoder.finish()]);
    })?;
    let (sender, receiver) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |result| {
        // The receiver waits right below.
        let _ = sender.send(result);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| GpuSimError::ReadBack(e.to_string()))?;
    receiver
        .recv()
        .map_err(|e| GpuSimError::ReadBack(e.to_string()))?
        .map_err(|e| GpuSimError::ReadBack(e.to_string()))?;
    let values = {
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| GpuSimError::ReadBack(e.to_string()))?;
        let mut all = bytemuck::pod_collect_to_vec::<u8, T>(&view);
        all.truncate(floats as usize);
        all
    };
    staging.unmap();
    Ok(values)
}
