//! Which way the cloth's render nodes reach the screen, chosen from what the device can do.
//!
//! The compute path upsamples the key nodes in compute kernels (`shaders/upsample.wgsl`) into
//! storage buffers the cloth's vertex shader pulls from. WebGL2 (wgpu's GL backend on a page
//! without WebGPU) has neither compute shaders nor storage buffers: there the same upsampling
//! runs on the CPU (its twin, `crate::upsample`) and each frame's nodes are uploaded into a
//! vertex buffer. Both draw with the same fragment shader.

/// Storage buffers the compute path binds in one stage: the upsampler's six.
const STORAGE_BUFFERS_NEEDED: u32 = 6;

/// How the cloth's render nodes are made and read (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderPath {
    /// Upsampled by compute kernels into storage buffers, pulled by the vertex shader.
    Compute,
    /// Upsampled on the CPU, uploaded each frame into a vertex buffer: no compute shader and
    /// no storage binding anywhere (WebGL2).
    CpuUpsampling,
}

impl RenderPath {
    /// Where the render nodes are upsampled, for the Stats panel.
    pub fn in_words(self) -> &'static str {
        match self {
            Self::Compute => "upsampling on the GPU",
            Self::CpuUpsampling => "upsampling on the CPU",
        }
    }

    /// The path for a device opened on `adapter`: the compute path where the adapter runs
    /// compute shaders and reads storage buffers in vertex shaders and the device allows the
    /// storage buffers it binds, the CPU upsampling otherwise.
    pub fn of(adapter: &wgpu::Adapter, device: &wgpu::Device) -> Self {
        let flags = adapter.get_downlevel_capabilities().flags;
        let needed = wgpu::DownlevelFlags::COMPUTE_SHADERS | wgpu::DownlevelFlags::VERTEX_STORAGE;
        if flags.contains(needed) {
            Self::of_limits(&device.limits())
        } else {
            Self::CpuUpsampling
        }
    }

    /// The path a device's limits allow (what a caller without its adapter can see): the
    /// compute path where compute workgroups may be dispatched and a stage may bind the
    /// storage buffers it needs. WebGL2's limits allow neither. [`Self::of`] also reads the
    /// adapter's downlevel flags, which a GL device without vertex storage needs.
    pub fn of_device(device: &wgpu::Device) -> Self {
        Self::of_limits(&device.limits())
    }

    fn of_limits(limits: &wgpu::Limits) -> Self {
        let compute = limits.max_compute_workgroups_per_dimension > 0
            && limits.max_compute_invocations_per_workgroup > 0
            && limits.max_storage_buffers_per_shader_stage >= STORAGE_BUFFERS_NEEDED;
        if compute {
            Self::Compute
        } else {
            Self::CpuUpsampling
        }
    }

    /// Whether the render nodes are upsampled on the GPU.
    pub fn upsamples_on_gpu(self) -> bool {
        self == Self::Compute
    }
}

#[cfg(test)]
mod tests {
    use super::RenderPath;

    #[test]
    fn webgl2_limits_choose_the_cpu_upsampling_and_default_limits_the_compute_path() {
        let webgl2 = wgpu::Limits::downlevel_webgl2_defaults();
        assert_eq!(RenderPath::of_limits(&webgl2), RenderPath::CpuUpsampling);
        assert_eq!(
            RenderPath::of_limits(&wgpu::Limits::default()),
            RenderPath::Compute
        );
        // Compute without enough storage buffers for the upsampler is no compute path.
        let few = wgpu::Limits {
            max_storage_buffers_per_shader_stage: 4,
            ..wgpu::Limits::default()
        };
        assert_eq!(RenderPath::of_limits(&few), RenderPath::CpuUpsampling);
    }
}
