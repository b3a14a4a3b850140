//! The presentable surface of the viewer window. (The 3-D passes draw into the renderer's own
//! multisampled colour and depth targets and resolve into the surface's texture.)
//!
//! A [`WindowSurface`] is made from an instance, adapter and device that the caller owns (the
//! renderer shares them with its compute and draw passes). It picks a gamma-space (non-sRGB)
//! 8-bit format, because egui blends in gamma space and expects one; the 3-D passes therefore
//! write sRGB-encoded colours. The surface texture also gets `COPY_SRC` when the platform allows
//! it, so a frame can be read back for a screenshot before it is presented.
//!
//! Frames are acquired with [`WindowSurface::acquire`], which turns every outcome of
//! `wgpu::Surface::get_current_texture` into either a frame or a skipped frame: an outdated
//! configuration is reconfigured, a lost surface is recreated from the instance, a timeout or an
//! occluded or minimised window just skips. Nothing here panics on a surface problem; the reason
//! for the last skip is kept for diagnostics ([`WindowSurface::last_skip`]).
//!
//! The instance must be created with the event loop's display handle ([`create_instance`]) so
//! that the GL backend (EGL, Wayland in particular) can present too; Vulkan ignores it.

use std::sync::Arc;

use winit::window::Window;

/// Errors of surface and adapter set-up. Per-frame problems are not errors: they skip a frame.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SurfaceError {
    /// The platform refused to make a surface for the window.
    #[error("could not create a wgpu surface for the window")]
    Create(#[from] wgpu::CreateSurfaceError),
    /// The chosen adapter cannot present to this window.
    #[error("adapter \"{0}\" cannot present to this window")]
    Unsupported(String),
    /// No adapter of any enabled backend can present to this window.
    #[error("no GPU adapter can present to this window (adapters found: {0})")]
    NoAdapter(String),
}

/// Why [`WindowSurface::acquire`] returned no frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SkipReason {
    /// The window has zero size (minimised); nothing can be drawn.
    Minimised,
    /// Acquiring the next texture timed out; try again next frame.
    Timeout,
    /// The window is occluded; the platform gives no texture.
    Occluded,
    /// The configuration did not match the window; it has been reconfigured.
    Outdated,
    /// The surface was lost; it has been (or will be, next frame) recreated.
    Lost,
    /// A validation error was raised while acquiring; it went to the device's error handler.
    Validation,
}

/// One acquired surface texture, ready to be rendered into and then given to
/// [`WindowSurface::present`].
#[derive(Debug)]
pub(crate) struct SurfaceFrame {
    /// The swap-chain texture. Its `texture` has `COPY_SRC` when
    /// [`WindowSurface::supports_copy_src`] is true.
    pub texture: wgpu::SurfaceTexture,
    /// A default view of [`Self::texture`], in the surface format.
    pub view: wgpu::TextureView,
    suboptimal: bool,
}

/// Creates a wgpu instance connected to the windowing system's display.
///
/// Pass `Box::new(event_loop.owned_display_handle())`. The backends honour `WGPU_BACKEND` and
/// the debug flags honour `WGPU_DEBUG` / `WGPU_VALIDATION`; by default every native backend is
/// enabled and [`pick_adapter`] prefers Vulkan.
pub(crate) fn create_instance(display: Box<dyn wgpu::wgt::WgpuHasDisplayHandle>) -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
        display,
    ))
}

/// Picks the best adapter that can present to `window`.
///
/// Ranking: real GPUs before software rasterisers, then Vulkan (or Metal / DX12) before GL. A
/// probe surface is made for the window and dropped again before returning, so
/// [`WindowSurface::new`] can create the real one.
pub(crate) async fn pick_adapter(
    instance: &wgpu::Instance,
    window: &Arc<Window>,
) -> Result<wgpu::Adapter, SurfaceError> {
    let probe = instance.create_surface(Arc::clone(window))?;
    let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
    let names = adapters
        .iter()
        .map(|a| {
            let info = a.get_info();
            format!("{} ({:?})", info.name, info.backend)
        })
        .collect::<Vec<_>>()
        .join(", ");
    adapters
        .into_iter()
        .filter(|a| a.is_surface_supported(&probe))
        .min_by_key(|a| {
            let info = a.get_info();
            (
                device_type_rank(info.device_type),
                backend_rank(info.backend),
            )
        })
        .ok_or(SurfaceError::NoAdapter(if names.is_empty() {
            "none".to_owned()
        } else {
            names
        }))
}

/// The browser's adapter for `window`'s canvas, and the canvas's surface, made first: WebGL2
/// draws only to the surface its adapter was made for.
#[cfg(target_arch = "wasm32")]
pub(crate) async fn page_adapter(
    instance: &wgpu::Instance,
    window: &Arc<Window>,
) -> Result<(wgpu::Adapter, wgpu::Surface<'static>), SurfaceError> {
    let surface = instance.create_surface(Arc::clone(window))?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        })
        .await
        .map_err(|e| SurfaceError::NoAdapter(e.to_string()))?;
    Ok((adapter, surface))
}

fn device_type_rank(device_type: wgpu::DeviceType) -> u8 {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

fn backend_rank(backend: wgpu::Backend) -> u8 {
    match backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::Gl => 1,
        _ => 2,
    }
}

/// Chooses the surface format: a gamma-space 8-bit format if the surface offers one (egui's
/// renderer is written for those), otherwise the surface's own preference. The surface's first
/// format is its preference: where that is a gamma-space 8-bit one it is taken (a browser's
/// canvas in any other format costs a copy every frame).
pub(crate) fn choose_format(formats: &[wgpu::TextureFormat]) -> Option<wgpu::TextureFormat> {
    use wgpu::TextureFormat as F;
    let gamma_8bit = [F::Bgra8Unorm, F::Rgba8Unorm];
    formats
        .first()
        .copied()
        .filter(|f| gamma_8bit.contains(f))
        .or_else(|| gamma_8bit.into_iter().find(|f| formats.contains(f)))
        .or_else(|| formats.iter().copied().find(|f| !f.is_srgb()))
        .or_else(|| formats.first().copied())
}

/// The window's surface and its configuration.
pub(crate) struct WindowSurface {
    // `surface` is declared before `window` so it is dropped first.
    surface: wgpu::Surface<'static>,
    window: Arc<Window>,
    instance: wgpu::Instance,
    device: wgpu::Device,
    config: wgpu::SurfaceConfiguration,
    minimised: bool,
    needs_reconfigure: bool,
    needs_recreate: bool,
    last_skip: Option<SkipReason>,
}

impl WindowSurface {
    /// Creates and configures the surface of `window` at the window's current inner size.
    ///
    /// Uses `AutoVsync` presentation; see [`Self::set_present_mode`].
    pub(crate) fn new(
        instance: &wgpu::Instance,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        window: Arc<Window>,
    ) -> Result<Self, SurfaceError> {
        let surface = instance.create_surface(Arc::clone(&window))?;
        Self::with_surface(surface, instance, adapter, device, window)
    }

    /// [`Self::new`] with the window's surface made already (a page makes it before it asks
    /// for an adapter, which WebGL needs to draw to it).
    pub(crate) fn with_surface(
        surface: wgpu::Surface<'static>,
        instance: &wgpu::Instance,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        window: Arc<Window>,
    ) -> Result<Self, SurfaceError> {
        let caps = surface.get_capabilities(adapter);
        let format = choose_format(&caps.formats)
            .ok_or_else(|| SurfaceError::Unsupported(adapter.get_info().name))?;
        let copy_src = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
        let alpha_mode = if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
            wgpu::CompositeAlphaMode::Opaque
        } else {
            caps.alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto)
        };
        let size = window.inner_size();
        // COPY_DST where offered: the frame code copies the stretched sky and ground in
        // (`app::frame`), instead of stretching them again every frame.
        let copy_dst = caps.usages.contains(wgpu::TextureUsages::COPY_DST);
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | if copy_src {
                    wgpu::TextureUsages::COPY_SRC
                } else {
                    wgpu::TextureUsages::empty()
                }
                | if copy_dst {
                    wgpu::TextureUsages::COPY_DST
                } else {
                    wgpu::TextureUsages::empty()
                },
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode,
            view_formats: Vec::new(),
        };
        let mut this = Self {
            surface,
            window,
            instance: instance.clone(),
            device: device.clone(),
            config,
            minimised: size.width == 0 || size.height == 0,
            needs_reconfigure: false,
            needs_recreate: false,
            last_skip: None,
        };
        this.configure();
        Ok(this)
    }

    /// Follows a window resize. A zero width or height (a minimised window) is remembered and
    /// otherwise ignored: frames are skipped until the window has an area again.
    pub(crate) fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            self.minimised = true;
            return;
        }
        let max = self.device.limits().max_texture_dimension_2d;
        let (width, height) = (width.min(max), height.min(max));
        let was_minimised = std::mem::replace(&mut self.minimised, false);
        if was_minimised || width != self.config.width || height != self.config.height {
            self.config.width = width;
            self.config.height = height;
            self.configure();
        }
    }

    /// Acquires the next texture to draw into, or `None` if this frame must be skipped (the
    /// reason is in [`Self::last_skip`]). Recovery (reconfigure, recreate) happens here.
    pub(crate) fn acquire(&mut self) -> Option<SurfaceFrame> {
        self.last_skip = None;
        if self.minimised {
            return self.skip(SkipReason::Minimised);
        }
        if self.needs_recreate && !self.recreate() {
            return self.skip(SkipReason::Lost);
        }
        if self.needs_reconfigure {
            self.configure();
        }
        let (texture, suboptimal) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(texture) => (texture, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(texture) => (texture, true),
            wgpu::CurrentSurfaceTexture::Timeout => return self.skip(SkipReason::Timeout),
            wgpu::CurrentSurfaceTexture::Occluded => return self.skip(SkipReason::Occluded),
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.configure();
                return self.skip(SkipReason::Outdated);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.needs_recreate = true;
                self.recreate();
                return self.skip(SkipReason::Lost);
            }
            wgpu::CurrentSurfaceTexture::Validation => return self.skip(SkipReason::Validation),
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("surface view"),
            ..Default::default()
        });
        Some(SurfaceFrame {
            texture,
            view,
            suboptimal,
        })
    }

    /// Presents a frame whose commands have been submitted. A suboptimal frame is shown, then the
    /// surface is reconfigured for the next one.
    pub(crate) fn present(&mut self, queue: &wgpu::Queue, frame: SurfaceFrame) {
        let SurfaceFrame {
            texture,
            view,
            suboptimal,
        } = frame;
        drop(view);
        self.window.pre_present_notify();
        queue.present(texture);
        if suboptimal {
            self.needs_reconfigure = true;
        }
    }

    /// The colour format of the surface textures (gamma-space when the platform allows).
    pub(crate) fn format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// Size of the surface textures in physical pixels, `[width, height]`. Keeps the last
    /// non-zero size while the window is minimised.
    pub(crate) fn size_px(&self) -> [u32; 2] {
        [self.config.width, self.config.height]
    }

    /// Whether the window is currently minimised (zero-sized).
    pub(crate) fn is_minimised(&self) -> bool {
        self.minimised
    }

    /// Whether surface textures can be copied from (needed for screenshots of the surface).
    pub(crate) fn supports_copy_src(&self) -> bool {
        self.config.usage.contains(wgpu::TextureUsages::COPY_SRC)
    }

    fn skip(&mut self, reason: SkipReason) -> Option<SurfaceFrame> {
        self.last_skip = Some(reason);
        None
    }

    /// Applies `self.config`. Never called with a zero size (which `Surface::configure` rejects
    /// with a panic).
    fn configure(&mut self) {
        self.needs_reconfigure = false;
        if self.config.width == 0 || self.config.height == 0 {
            return;
        }
        self.surface.configure(&self.device, &self.config);
    }

    /// Replaces a lost surface by a new one for the same window. Returns whether it worked;
    /// if not, the next [`Self::acquire`] tries again.
    fn recreate(&mut self) -> bool {
        match self.instance.create_surface(Arc::clone(&self.window)) {
            Ok(surface) => {
                self.surface = surface;
                self.needs_recreate = false;
                self.configure();
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::TextureFormat as F;

    #[test]
    fn choose_format_prefers_gamma_space_bgra_over_srgb() {
        let formats = [
            F::Bgra8UnormSrgb,
            F::Rgba8UnormSrgb,
            F::Rgba8Unorm,
            F::Bgra8Unorm,
        ];
        assert_eq!(choose_format(&formats), Some(F::Bgra8Unorm));
    }

    #[test]
    fn choose_format_takes_the_surfaces_preference_when_it_is_gamma_space_8_bit() {
        // A browser's canvas lists its preferred format first.
        assert_eq!(
            choose_format(&[F::Rgba8Unorm, F::Bgra8Unorm]),
            Some(F::Rgba8Unorm)
        );
        assert_eq!(
            choose_format(&[F::Bgra8Unorm, F::Rgba8Unorm]),
            Some(F::Bgra8Unorm)
        );
        assert_eq!(
            choose_format(&[F::Rgba16Float, F::Rgba8Unorm, F::Bgra8Unorm]),
            Some(F::Bgra8Unorm)
        );
    }

    #[test]
    fn choose_format_falls_back_to_any_non_srgb_then_first() {
        assert_eq!(
            choose_format(&[F::Bgra8UnormSrgb, F::Rgb10a2Unorm]),
            Some(F::Rgb10a2Unorm)
        );
        assert_eq!(choose_format(&[F::Bgra8UnormSrgb]), Some(F::Bgra8UnormSrgb));
        assert_eq!(choose_format(&[]), None);
    }

    #[test]
    fn adapter_ranking_puts_real_gpus_first_then_vulkan_before_gl() {
        let rank = |t, b| (device_type_rank(t), backend_rank(b));
        use wgpu::{Backend as B, DeviceType as D};
        assert!(rank(D::DiscreteGpu, B::Gl) < rank(D::Cpu, B::Vulkan));
        assert!(rank(D::Cpu, B::Vulkan) < rank(D::Cpu, B::Gl));
        assert!(rank(D::IntegratedGpu, B::Vulkan) < rank(D::IntegratedGpu, B::Gl));
    }
}
