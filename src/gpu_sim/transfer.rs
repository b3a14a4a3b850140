//! The multigrid's grid transfers on the GPU (`shaders/sim_transfer.wgsl`): twins of
//! [`crate::sim::solvers::multigrid::GridTransfer::restrict`] (`b_coarse = Pᵀ r_fine`) and
//! [`crate::sim::solvers::multigrid::GridTransfer::prolong`] (`x_fine += P x_coarse`), over the
//! vectors of two [`GpuLevel`]s.

use wgpu::util::DeviceExt;

use super::kernel::{Access, Program, dispatch};
use super::{GpuSimError, validated};
use crate::sim::solvers::multigrid::coarse_len;

/// The kernels' WGSL.
pub(crate) const SIM_TRANSFER_WGSL: &str = include_str!("../../shaders/sim_transfer.wgsl");

/// WGSL `struct TransferParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct TransferParams {
    nx: u32,
    ny: u32,
    cx: u32,
    cy: u32,
}

/// A multigrid level of an `nx × ny` grid on the device: its solution `x`, right-hand side `b`
/// and residual `r` (`vec4<f32>` a node; written and read with
/// [`super::write_vec3s`] / [`super::read_vec3s`]) and which nodes are its unknowns.
#[derive(Debug)]
pub(crate) struct GpuLevel {
    nx: u32,
    ny: u32,
    pub x: wgpu::Buffer,
    pub b: wgpu::Buffer,
    pub r: wgpu::Buffer,
    /// `u32` a node: 1 where its diagonal is positive (an unknown), 0 where not.
    pub active: wgpu::Buffer,
}

impl GpuLevel {
    /// The level of an `nx × ny` grid whose matrix has diagonal `diag` (one entry a node).
    pub(crate) fn new(
        device: &wgpu::Device,
        nx: usize,
        ny: usize,
        diag: &[f64],
    ) -> Result<Self, GpuSimError> {
        assert_eq!(diag.len(), nx * ny, "a diagonal entry a node");
        let too_large = || GpuSimError::TooLarge {
            nodes: nx * ny,
            springs: 0,
        };
        let (Ok(gx), Ok(gy)) = (u32::try_from(nx), u32::try_from(ny)) else {
            return Err(too_large());
        };
        let nodes = u64::from(gx) * u64::from(gy);
        if nodes * 16 > u64::from(u32::MAX) {
            return Err(too_large());
        }
        let active: Vec<u32> = diag.iter().map(|&d| u32::from(d > 0.0)).collect();
        validated(device, "a multigrid level's buffers", || {
            let usage = wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC;
            let vector = |label: &'static str| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: nodes.max(1) * 16,
                    usage,
                    mapped_at_creation: false,
                })
            };
            Self {
                nx: gx,
                ny: gy,
                x: vector("gpu_sim level x"),
                b: vector("gpu_sim level b"),
                r: vector("gpu_sim level r"),
                active: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("gpu_sim level unknowns"),
                    contents: bytemuck::cast_slice(if active.is_empty() { &[0] } else { &active }),
                    usage: wgpu::BufferUsages::STORAGE,
                }),
            }
        })
    }

    /// Nodes of the level.
    pub(crate) fn nodes(&self) -> u32 {
        self.nx * self.ny
    }
}

/// The transfers between a fine level and the next coarser one.
#[derive(Debug)]
pub(crate) struct TransferPass {
    fine_nodes: u32,
    coarse_nodes: u32,
    bind_group: wgpu::BindGroup,
    restrict: wgpu::ComputePipeline,
    prolong: wgpu::ComputePipeline,
}

impl TransferPass {
    /// Compiles the kernels over `fine`'s and `coarse`'s vectors. `coarse` must be the grid
    /// [`coarse_len`] gives along both directions.
    pub(crate) fn new(
        device: &wgpu::Device,
        fine: &GpuLevel,
        coarse: &GpuLevel,
    ) -> Result<Self, GpuSimError> {
        use Access::{Read, Uniform, Write};
        let params = TransferParams {
            nx: fine.nx,
            ny: fine.ny,
            cx: coarse.nx,
            cy: coarse.ny,
        };
        assert_eq!(
            (coarse.nx, coarse.ny),
            (
                coarse_len(fine.nx as usize) as u32,
                coarse_len(fine.ny as usize) as u32
            ),
            "the next coarser grid"
        );
        validated(device, "the grid-transfer kernels", || {
            let program = Program::new(device, "sim_transfer.wgsl", SIM_TRANSFER_WGSL);
            let layout = program.layout(
                "gpu_sim transfer",
                &[
                    (0, Uniform),
                    (1, Read),
                    (2, Read),
                    (3, Write),
                    (4, Read),
                    (5, Read),
                    (6, Write),
                ],
            );
            let uniforms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu_sim transfer params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let bind_group = program.bind_group(
                "gpu_sim transfer",
                &layout,
                &[
                    (0, &uniforms),
                    (1, &fine.r),
                    (2, &fine.active),
                    (3, &coarse.b),
                    (4, &coarse.active),
                    (5, &coarse.x),
                    (6, &fine.x),
                ],
            );
            Self {
                fine_nodes: fine.nodes(),
                coarse_nodes: coarse.nodes(),
                bind_group,
                restrict: program.kernel("restrict_residual", &layout),
                prolong: program.kernel("prolong_correction", &layout),
            }
        })
    }

    /// Records `coarse.b = Pᵀ fine.r` (zero on the coarse nodes that are not unknowns).
    pub(crate) fn record_restrict(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim restrict",
            &[(&self.bind_group, &self.restrict, self.coarse_nodes)],
        );
    }

    /// Records `fine.x += P coarse.x` on the fine unknowns.
    pub(crate) fn record_prolong(&self, encoder: &mut wgpu::CommandEncoder) {
        dispatch(
            encoder,
            "gpu_sim prolong",
            &[(&self.bind_group, &self.prolong, self.fine_nodes)],
        );
    }
}
