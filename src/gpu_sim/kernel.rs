//! What every pass of this module builds alike: a WGSL module, bind-group layouts of
//! compute-visible buffers, a pipeline a kernel, buffers and bind groups, and one compute pass
//! that dispatches its kernels in order.

use std::borrow::Cow;

use super::GpuSimError;

/// How a kernel binds a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    Write,
}

/// A compute-visible buffer binding of any size.
fn entry(binding: u32, access: Access) -> wgpu::BindGroupLayoutEntry {
    let ty = match access {
        Access::Uniform => wgpu::BufferBindingType::Uniform,
        Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
        Access::Write => wgpu::BufferBindingType::Storage { read_only: false },
    };
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            // Checked at dispatch time against each binding's WGSL type.
            min_binding_size: None,
        },
        count: None,
    }
}

/// One WGSL module on a device: a pass makes its layouts, kernels, buffers and bind groups from
/// it (inside the pass's [`super::validated`] scope).
pub(super) struct Program<'a> {
    device: &'a wgpu::Device,
    module: wgpu::ShaderModule,
}

impl<'a> Program<'a> {
    /// Compiles `source` (the WGSL of the file named `file`).
    pub(super) fn new(device: &'a wgpu::Device, file: &'static str, source: &'static str) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(file),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(source)),
        });
        Self { device, module }
    }

    /// A bind-group layout of the buffers at `bindings`. A stage binds at most eight storage
    /// buffers by default, so a pass whose kernels read more takes two layouts over the same
    /// WGSL bindings.
    pub(super) fn layout(
        &self,
        label: &'static str,
        bindings: &[(u32, Access)],
    ) -> wgpu::BindGroupLayout {
        let entries: Vec<_> = bindings
            .iter()
            .map(|&(binding, access)| entry(binding, access))
            .collect();
        self.device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &entries,
            })
    }

    /// The kernel `entry_point`, reading one bind group of `layout`.
    pub(super) fn kernel(
        &self,
        entry_point: &'static str,
        layout: &wgpu::BindGroupLayout,
    ) -> wgpu::ComputePipeline {
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(entry_point),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            });
        self.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&pipeline_layout),
                module: &self.module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
    }

    /// An uninitialised buffer of `size` bytes.
    pub(super) fn buffer(
        &self,
        label: &'static str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// A uniform buffer the size of `T`, written from the CPU.
    pub(super) fn uniform<T>(&self, label: &'static str) -> wgpu::Buffer {
        self.buffer(
            label,
            std::mem::size_of::<T>() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )
    }

    /// A bind group of `layout` with each whole buffer at its binding.
    pub(super) fn bind_group(
        &self,
        label: &'static str,
        layout: &wgpu::BindGroupLayout,
        buffers: &[(u32, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        let entries: Vec<_> = buffers
            .iter()
            .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout,
            entries: &entries,
        })
    }
}

/// Records one compute pass: each kernel in turn with its bind group, over `invocations`
/// invocations (in workgroups of [`super::WORKGROUP`]).
pub(super) fn dispatch(
    encoder: &mut wgpu::CommandEncoder,
    label: &'static str,
    kernels: &[(&wgpu::BindGroup, &wgpu::ComputePipeline, u32)],
) {
    dispatch_all(encoder, label, kernels.iter().copied());
}

/// [`dispatch`] over kernels made on the way (a sweep's colours), with nothing collected.
pub(super) fn dispatch_all<'a>(
    encoder: &mut wgpu::CommandEncoder,
    label: &'static str,
    kernels: impl IntoIterator<Item = (&'a wgpu::BindGroup, &'a wgpu::ComputePipeline, u32)>,
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    });
    for (bind_group, pipeline, invocations) in kernels {
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_pipeline(pipeline);
        let (x, y) = grid(workgroups(invocations));
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// Most workgroups a dispatch may have along a dimension (wgpu's default limit, which every
/// adapter has).
pub(super) const MAX_GROUPS: u32 = 65_535;

/// `groups` workgroups as a dispatch: one row when they fit, else rows of [`MAX_GROUPS`]
/// (each kernel flattens them back, `flat_index` in its WGSL, and skips what lies past its
/// count).
pub(super) fn grid(groups: u32) -> (u32, u32) {
    if groups <= MAX_GROUPS {
        (groups, 1)
    } else {
        (MAX_GROUPS, groups.div_ceil(MAX_GROUPS))
    }
}

/// Invocations per workgroup of every kernel of this module (`@workgroup_size(64)`).
pub(crate) const WORKGROUP: u32 = 64;

/// Workgroups for `count` invocations, one each.
pub(crate) fn workgroups(count: u32) -> u32 {
    count.div_ceil(WORKGROUP)
}

/// Runs `make` inside a validation error scope: the device's complaint, if any, as an error.
/// A page cannot wait for the browser's answer inside its frame: there the complaint comes
/// between frames, and [`late_error`] hands it to the next step.
#[cfg_attr(
    target_arch = "wasm32",
    expect(
        clippy::unnecessary_wraps,
        reason = "the desktop's error comes here, the page's later"
    )
)]
pub(super) fn validated<T>(
    device: &wgpu::Device,
    context: &'static str,
    make: impl FnOnce() -> T,
) -> Result<T, GpuSimError> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let made = make();
    #[cfg(target_arch = "wasm32")]
    {
        // Popped now (the scopes nest), answered later.
        let popped = scope.pop();
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(error) = popped.await {
                LATE.with(|late| {
                    late.borrow_mut().push(GpuSimError::Validation {
                        context,
                        message: error.to_string(),
                    });
                });
            }
        });
        Ok(made)
    }
    #[cfg(not(target_arch = "wasm32"))]
    match pollster::block_on(scope.pop()) {
        Some(error) => Err(GpuSimError::Validation {
            context,
            message: error.to_string(),
        }),
        None => Ok(made),
    }
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The complaints that came after [`validated`] returned, oldest first.
    static LATE: std::cell::RefCell<Vec<GpuSimError>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The oldest complaint of the device that came after its kernels were made (in a page;
/// never on the desktop, where [`validated`] waits for it).
pub(super) fn late_error() -> Option<GpuSimError> {
    #[cfg(target_arch = "wasm32")]
    {
        LATE.with(|late| {
            let mut late = late.borrow_mut();
            (!late.is_empty()).then(|| late.remove(0))
        })
    }
    #[cfg(not(target_arch = "wasm32"))]
    None
}
