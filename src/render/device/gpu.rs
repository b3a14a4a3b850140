//! The wgpu device the render side runs on, and its errors.
//!
//! [`GpuContext::new_headless`] takes whatever adapter the machine has, software ones included
//! (Mesa lavapipe reports itself as "llvmpipe", device type `Cpu`), so tests, the headless lab
//! and CI all run the same GPU code without a display. It asks for wgpu's default limits, which
//! every desktop adapter and lavapipe provide (with buffers as large as the adapter allows),
//! and says clearly when there is no adapter at all.

use std::sync::{Arc, Mutex};

use thiserror::Error;

use crate::upsample::UpsampleError;

/// The features the GPU timer (`gpu_timer.rs`) needs: the device asks for them where the
/// adapter has them.
pub(crate) const TIMESTAMP_FEATURES: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Everything that can go wrong on the GPU side of the upsampler. Each error is turned into this
/// once, where it happens; callers only decide whether to skip, report or abort.
#[derive(Debug, Error)]
pub enum GpuError {
    #[error("this build of wgpu has no graphics backend for this platform")]
    NoBackend,
    #[error(
        "no GPU adapter found ({0}); install a Vulkan driver, e.g. Mesa's software rasteriser \
         lavapipe (`apt-get install mesa-vulkan-drivers libvulkan1`)"
    )]
    NoAdapter(String),
    #[error("adapter \"{adapter}\" lacks wgpu's default limits: {detail}")]
    UnsupportedLimits { adapter: String, detail: String },
    #[error("could not open the GPU device: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    #[error("GPU validation failed while {context}: {message}")]
    Validation {
        context: &'static str,
        message: String,
    },
    #[error("reading a GPU buffer back failed: {0}")]
    ReadBack(String),
    #[error("nothing to read back: no key grid has been uploaded yet")]
    NotUploaded,
    #[error(transparent)]
    Upsample(#[from] UpsampleError),
    /// An error wgpu reported on its own (a validation error past our checks, out of memory,
    /// the device lost): what [`GpuContext::check`] found.
    #[error("the GPU failed: {0}")]
    Device(String),
}

/// The instance, adapter, device and queue, created once and shared by every pass (a clone
/// shares them too).
#[derive(Debug, Clone)]
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The first error wgpu reported on its own since the last [`GpuContext::check`].
    reported: Arc<Mutex<Option<String>>>,
}

impl GpuContext {
    /// Opens a device without a window: a low-power adapter if there is a choice, any adapter
    /// otherwise, and finally the fallback (software) adapter. Honours wgpu's usual environment
    /// variables (`WGPU_BACKEND`, …).
    pub fn new_headless() -> Result<Self, GpuError> {
        let (instance, adapter) = headless_adapter()?;
        let required_limits = wgpu::Limits::default();
        let mut missing = Vec::new();
        required_limits.check_limits_with_fail_fn(&adapter.limits(), false, |name, want, have| {
            missing.push(format!("{name}: need {want}, adapter has {have}"));
        });
        if !missing.is_empty() {
            return Err(GpuError::UnsupportedLimits {
                adapter: adapter.get_info().name,
                detail: missing.join("; "),
            });
        }
        // The buffers as large as the adapter allows: the GPU simulation's spring list of a
        // 1024² cloth is 100 MB, past the default's 128 MiB binding with its links.
        let have = adapter.limits();
        let required_limits = wgpu::Limits {
            max_buffer_size: required_limits.max_buffer_size.max(have.max_buffer_size),
            max_storage_buffer_binding_size: required_limits
                .max_storage_buffer_binding_size
                .max(have.max_storage_buffer_binding_size),
            ..required_limits
        };
        Self::open(instance, adapter, required_limits)
    }

    /// Opens a device without a window, as [`Self::new_headless`] does, with no more than
    /// `limits` (which the adapter must offer): a smaller device's, WebGL2's
    /// (`wgpu::Limits::downlevel_webgl2_defaults`) say, which wgpu then holds every pass to.
    pub fn new_headless_with_limits(limits: wgpu::Limits) -> Result<Self, GpuError> {
        let (instance, adapter) = headless_adapter()?;
        Self::open(instance, adapter, limits)
    }

    /// Opens the device of `adapter` with `required_limits`.
    fn open(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        required_limits: wgpu::Limits,
    ) -> Result<Self, GpuError> {
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("flagsim device"),
                // Timestamps where the adapter has them: `flagsim bench` times the GPU's own
                // share of a frame with them (`GpuTimer`); nothing else depends on them.
                required_features: adapter.features() & TIMESTAMP_FEATURES,
                required_limits,
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            }))?;
        let reported = report_errors(&device);
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            reported,
        })
    }

    /// The first error wgpu reported on its own (uncaptured or device lost) since the last
    /// call, as an error; `Ok` when there was none. Headless work calls it after each readback,
    /// so a GPU failure ends the command with one message instead of a panic or a wrong image.
    pub fn check(&self) -> Result<(), GpuError> {
        let taken = self.reported.lock().ok().and_then(|mut slot| slot.take());
        taken.map_or(Ok(()), |message| Err(GpuError::Device(message)))
    }

    /// One line describing the adapter, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Cpu, Vulkan,
    /// driver "llvmpipe", Mesa 22.3.6)`, for logs and test output.
    pub fn adapter_report(&self) -> String {
        adapter_report(&self.adapter.get_info())
    }
}

/// Sends `device`'s uncaptured errors and its loss to the log and keeps the first of them for
/// [`GpuContext::check`] (wgpu's default handler panics).
fn report_errors(device: &wgpu::Device) -> Arc<Mutex<Option<String>>> {
    let reported = Arc::new(Mutex::new(None::<String>));
    let keep = |slot: &Mutex<Option<String>>, message: String| {
        if let Ok(mut slot) = slot.lock() {
            slot.get_or_insert(message);
        }
    };
    let slot = reported.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        log::error!("GPU error: {e}");
        keep(&slot, e.to_string());
    }));
    let slot = reported.clone();
    device.set_device_lost_callback(move |reason, message| {
        // Dropping the device at the end of a run reports itself as lost too.
        if reason != wgpu::DeviceLostReason::Destroyed {
            log::error!("the GPU device was lost ({reason:?}): {message}");
            keep(
                &slot,
                format!("the GPU device was lost ({reason:?}): {message}"),
            );
        }
    });
    reported
}

/// Maps all of `buffer` (a `MAP_READ` buffer whose copy has been submitted) for reading and
/// waits until it is; the error says what failed. Read it with `get_mapped_range`, then unmap.
pub(crate) fn map_for_reading(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Result<(), String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |result| {
        // The receiver outlives this callback: it waits right below.
        let _ = sender.send(result);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| e.to_string())?;
    receiver
        .recv()
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// Formats an [`wgpu::AdapterInfo`] as one line.
pub(crate) fn adapter_report(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} ({:?}, {:?}, driver \"{}\", {})",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    )
}

/// The instance and the adapter of a device without a window (see [`GpuContext::new_headless`]).
fn headless_adapter() -> Result<(wgpu::Instance, wgpu::Adapter), GpuError> {
    if wgpu::Instance::enabled_backend_features().is_empty() {
        return Err(GpuError::NoBackend);
    }
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = request_adapter(&instance, false)
        .or_else(|_| request_adapter(&instance, true))
        .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
    Ok((instance, adapter))
}

fn request_adapter(
    instance: &wgpu::Instance,
    force_fallback_adapter: bool,
) -> Result<wgpu::Adapter, wgpu::RequestAdapterError> {
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::LowPower,
        force_fallback_adapter,
        compatible_surface: None,
        apply_limit_buckets: false,
    }))
}

/// The validation errors of what was made since `scope` was pushed, as `context`'s
/// [`GpuError::Validation`]. A page's browser answers with a promise that a frame cannot wait
/// for: there the answer goes to the log (which the page shows) when it comes.
#[cfg_attr(
    target_arch = "wasm32",
    allow(
        clippy::unnecessary_wraps,
        reason = "the desktop's answer can be an error"
    )
)]
pub(crate) fn validated(
    scope: wgpu::ErrorScopeGuard,
    context: &'static str,
) -> Result<(), GpuError> {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Err(GpuError::Validation {
            context,
            message: error.to_string(),
        });
    }
    // The pop itself is now: the browser takes error scopes back in the order they came.
    #[cfg(target_arch = "wasm32")]
    let popped = scope.pop();
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_futures::spawn_local(async move {
        if let Some(error) = popped.await {
            let message = error.to_string();
            log::error!("{}", GpuError::Validation { context, message });
        }
    });
    Ok(())
}
