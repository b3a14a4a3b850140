//! The lines pass: coloured, depth-tested line segments (`shaders/lines.wgsl`, `LineList`).
//!
//! Used for the key-mesh wireframe, one segment per key node for the velocity change `Δv`
//! (from `x` to `x + scale·Δv`), and the paper's Fig. 8 comparison (two sets of segments in two
//! colours). Vertices come from the CPU; the buffer grows to the next power of two when needed and
//! is otherwise rewritten in place. Segments are drawn slightly towards the eye so lines lying on
//! the cloth are not hidden by it.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::render::camera::globals::with_globals;
use crate::render::device::targets::TargetFormats;

pub(crate) use crate::render::device::shaders::LINES_WGSL;

/// The complete WGSL of this pass (globals + lines), as compiled.
pub fn shader_source() -> String {
    with_globals(LINES_WGSL)
}

/// One end of a segment. Keep in sync with `LineIn` in shaders/lines.wgsl (stride 28 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    /// World position (m).
    pub position: [f32; 3],
    /// sRGB colour 0..1 with straight alpha.
    pub color: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<LineVertex>() == 28);

impl LineVertex {
    pub(crate) fn new(position: Vec3, color: [f32; 4]) -> Self {
        Self {
            position: position.to_array(),
            color,
        }
    }
}

/// Appends the segment `a → b`.
pub(crate) fn push_segment(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, color: [f32; 4]) {
    out.push(LineVertex::new(a, color));
    out.push(LineVertex::new(b, color));
}

/// Segments along the rows and columns of an `nx × ny` node grid stored row-major
/// (`points[j * nx + i]`), e.g. the key mesh. Returns nothing if `points` is too short.
pub fn grid_wireframe(points: &[Vec3], nx: usize, ny: usize, color: [f32; 4]) -> Vec<LineVertex> {
    let mut out = Vec::new();
    if points.len() < nx * ny {
        return out;
    }
    for j in 0..ny {
        for i in 0..nx {
            let p = points[j * nx + i];
            if i + 1 < nx {
                push_segment(&mut out, p, points[j * nx + i + 1], color);
            }
            if j + 1 < ny {
                push_segment(&mut out, p, points[(j + 1) * nx + i], color);
            }
        }
    }
    out
}

/// One segment per node from `origins[k]` to `origins[k] + scale · vectors[k]`, e.g. `Δv` with
/// `scale` in seconds (m/s → m). Extra entries of the longer slice are ignored.
pub fn vector_segments(
    origins: &[Vec3],
    vectors: &[Vec3],
    scale: f32,
    color: [f32; 4],
) -> Vec<LineVertex> {
    let mut out = Vec::with_capacity(2 * origins.len().min(vectors.len()));
    for (&x, &v) in origins.iter().zip(vectors) {
        push_segment(&mut out, x, x + scale * v, color);
    }
    out
}

/// The long-lived lines pass.
#[derive(Debug)]
pub(crate) struct LinesPass {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    /// Vertices the buffer can hold.
    capacity: usize,
    /// Vertices to draw (even).
    count: u32,
}

impl LinesPass {
    const INITIAL_CAPACITY: usize = 1024;

    pub(crate) fn new(
        device: &wgpu::Device,
        globals_layout: &wgpu::BindGroupLayout,
        targets: &TargetFormats,
    ) -> Self {
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lines pipeline layout"),
            bind_group_layouts: &[Some(globals_layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("lines.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("lines pipeline"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_line"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<LineVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &attributes,
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::LineList,
                ..Default::default()
            },
            depth_stencil: Some(targets.depth_state(false)),
            multisample: targets.multisample(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_line"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: targets.color,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self {
            pipeline,
            vertices: Self::vertex_buffer(device, Self::INITIAL_CAPACITY),
            capacity: Self::INITIAL_CAPACITY,
            count: 0,
        }
    }

    fn vertex_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("lines vertex buffer"),
            size: (capacity * std::mem::size_of::<LineVertex>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Replaces the segments: vertices `2k` and `2k + 1` form segment `k`; an odd last vertex is
    /// ignored. Reallocates only when the buffer is too small.
    pub(crate) fn set_segments(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vertices: &[LineVertex],
    ) {
        let used = &vertices[..vertices.len() & !1];
        if used.len() > self.capacity {
            self.capacity = used.len().next_power_of_two();
            self.vertices = Self::vertex_buffer(device, self.capacity);
        }
        if !used.is_empty() {
            queue.write_buffer(&self.vertices, 0, bytemuck::cast_slice(used));
        }
        self.count = used.len() as u32;
    }

    /// Records the segments set last.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, globals: &wgpu::BindGroup) {
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, globals, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..self.count, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_wireframe_has_one_segment_per_edge() {
        let points: Vec<Vec3> = (0..12)
            .map(|k| Vec3::new((k % 4) as f32, (k / 4) as f32, 0.0))
            .collect();
        let lines = grid_wireframe(&points, 4, 3, [1.0; 4]);
        assert_eq!(lines.len(), 2 * (3 * 3 + 4 * 2));
    }

    #[test]
    fn vector_segment_ends_at_x_plus_scaled_delta_v() {
        let lines = vector_segments(
            &[Vec3::new(1.0, 2.0, 3.0)],
            &[Vec3::new(0.0, -2.0, 4.0)],
            0.5,
            [1.0; 4],
        );
        assert_eq!(lines[0].position, [1.0, 2.0, 3.0]);
        assert_eq!(lines[1].position, [1.0, 1.0, 5.0]);
    }
}
