//! What the drawing passes are built for and draw into: attachment formats, sample count and
//! quality, and the multisampled attachments. Below the renderer and the passes, which all
//! read it; it imports nothing from `render/`.

/// Formats and sample count every pipeline of a [`Renderer`](crate::render::Renderer) is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetFormats {
    /// The colour attachment's format (MSAA texture and resolve target share it).
    pub color: wgpu::TextureFormat,
    /// Depth attachment format.
    pub depth: wgpu::TextureFormat,
    /// MSAA samples of the colour and depth attachments.
    pub sample_count: u32,
}

/// The fill-rate knobs: what a software rasteriser pays for per pixel. Geometry, lighting and the
/// upsampling are the same at every quality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RenderQuality {
    /// Multisample anti-aliasing: 1 (off) or 4 samples per pixel.
    pub msaa_samples: u32,
    /// Anisotropic texture filtering, 1 (off) ..= 16.
    pub anisotropy: u16,
    /// Post-process anti-aliasing (FXAA, `shaders/fxaa.wgsl`) where multisampling is off; with
    /// 4× MSAA it is not applied. Settings saved before it existed read as on.
    #[serde(default = "fxaa_by_default")]
    pub fxaa: bool,
}

fn fxaa_by_default() -> bool {
    true
}

impl RenderQuality {
    /// 4× MSAA and 8× anisotropic filtering: pictures, and real GPUs.
    pub const HIGH: Self = Self {
        msaa_samples: 4,
        anisotropy: 8,
        fxaa: false,
    };
    /// FXAA instead of MSAA, plain trilinear filtering: interactive use on a software
    /// rasteriser, which shades every sample of a multisampled pixel (4× MSAA costs it four
    /// times the shading, where FXAA is one pass over the image the view is drawn into), and for
    /// which anisotropic filtering is costly too (docs/performance.md).
    pub const FAST: Self = Self {
        msaa_samples: 1,
        anisotropy: 1,
        fxaa: true,
    };

    /// [`Self::FAST`] on a CPU (software) adapter, [`Self::HIGH`] otherwise.
    pub(crate) fn for_device_type(device_type: wgpu::DeviceType) -> Self {
        if device_type == wgpu::DeviceType::Cpu {
            Self::FAST
        } else {
            Self::HIGH
        }
    }

    /// Whether the view is anti-aliased after drawing: FXAA chosen and multisampling off.
    pub fn post_aa(&self) -> bool {
        self.fxaa && self.msaa_samples <= 1
    }
}

impl Default for RenderQuality {
    fn default() -> Self {
        Self::HIGH
    }
}

impl TargetFormats {
    /// Depth format of every target the renderer draws into.
    pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
    /// 4× MSAA, supported for these formats by every WebGPU-conformant adapter.
    pub(crate) const SAMPLE_COUNT: u32 = 4;

    /// The default setup (4× MSAA, `Depth32Float`) for a colour target of `color` format.
    pub(crate) fn new(color: wgpu::TextureFormat) -> Self {
        Self {
            color,
            depth: Self::DEPTH_FORMAT,
            sample_count: Self::SAMPLE_COUNT,
        }
    }

    /// Depth-tested state (`Less`), writing depth if `write`.
    pub(crate) fn depth_state(&self, write: bool) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format: self.depth,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }
    }

    pub(crate) fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.sample_count,
            ..Default::default()
        }
    }
}

/// The multisampled colour and depth attachments a [`Renderer`](crate::render::Renderer) draws into
/// before resolving.
/// The viewer makes one per swapchain size (and again on resize) and passes the swapchain image
/// as the resolve target.
#[derive(Debug)]
pub struct MsaaAttachments {
    /// Size in pixels (each at least 1).
    pub width: u32,
    pub height: u32,
    /// `formats.color`, `formats.sample_count` samples.
    pub color_view: wgpu::TextureView,
    /// `formats.depth`, `formats.sample_count` samples.
    pub depth_view: wgpu::TextureView,
}

impl MsaaAttachments {
    /// Allocates both attachments; `label` prefixes their debug labels. A zero size (a minimised
    /// window) is raised to 1.
    pub fn new(
        device: &wgpu::Device,
        formats: &TargetFormats,
        width: u32,
        height: u32,
        label: &str,
    ) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        // Single-sampled, the renderer may copy its backdrop into them.
        let usage = if formats.sample_count == 1 {
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST
        } else {
            wgpu::TextureUsages::RENDER_ATTACHMENT
        };
        let view = |what: &str, format| {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some(&format!("{label} MSAA {what}")),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: formats.sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            });
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some(&format!("{label} MSAA {what} view")),
                ..Default::default()
            })
        };
        Self {
            width,
            height,
            color_view: view("colour", formats.color),
            depth_view: view("depth", formats.depth),
        }
    }
}

/// A rectangle of whole pixels in a target: `x, y` its top-left corner, `width × height` its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelRect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl PixelRect {
    /// The pixels a rectangle of `min..max` logical points covers at `pixels_per_point`, rounded
    /// outwards (a pixel partly inside is in) and clipped to a `size` pixel target. `None` when
    /// nothing is left (the rectangle is empty or outside the target).
    pub(crate) fn covering(
        min: [f32; 2],
        max: [f32; 2],
        pixels_per_point: f32,
        [w, h]: [u32; 2],
    ) -> Option<Self> {
        // Clamped to the target's edges: `as` turns NaN and negative values into 0.
        let px = |v: f32, round: fn(f32) -> f32, limit: u32| -> u32 {
            let v = round(v * pixels_per_point);
            if v >= limit as f32 { limit } else { v as u32 }
        };
        let (x0, y0) = (px(min[0], f32::floor, w), px(min[1], f32::floor, h));
        let (x1, y1) = (px(max[0], f32::ceil, w), px(max[1], f32::ceil, h));
        // `then`, not `then_some`: the differences exist only where they are positive.
        (x1 > x0 && y1 > y0).then(|| Self {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }

    /// The same rectangle in an image `factor` times the size, grown by `margin` pixels on every
    /// side there, rounded outwards and clipped to `size` (see [`Self::covering`]).
    pub(crate) fn scaled(&self, factor: f32, margin: f32, size: [u32; 2]) -> Option<Self> {
        let (x0, y0) = (self.x as f32 * factor, self.y as f32 * factor);
        let x1 = (self.x + self.width) as f32 * factor;
        let y1 = (self.y + self.height) as f32 * factor;
        Self::covering(
            [x0 - margin, y0 - margin],
            [x1 + margin, y1 + margin],
            1.0,
            size,
        )
    }

    /// The pixels in both rectangles, if any.
    pub(crate) fn intersection(&self, other: &Self) -> Option<Self> {
        let (x0, y0) = (self.x.max(other.x), self.y.max(other.y));
        let x1 = (self.x + self.width).min(other.x + other.width);
        let y1 = (self.y + self.height).min(other.y + other.height);
        // `then`, not `then_some`: the differences exist only where they are positive.
        (x1 > x0 && y1 > y0).then(|| Self {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }

    /// Whether it covers the whole of a `size` pixel target.
    pub fn is_whole(&self, [w, h]: [u32; 2]) -> bool {
        self.x == 0 && self.y == 0 && self.width >= w && self.height >= h
    }
}

/// The lab's cells in the area from `min` to `max`: `n` side by side for up to 3 copies, a
/// 2 × 2 grid for 4 (row by row). Any unit; the renderer's pixels and egui's points both come
/// from here.
pub(crate) fn lab_cells(min: [f32; 2], max: [f32; 2], n: usize) -> Vec<([f32; 2], [f32; 2])> {
    let n = n.max(1);
    let columns = if n <= 3 { n } else { 2 };
    let rows = n.div_ceil(columns);
    let (w, h) = (
        (max[0] - min[0]) / columns as f32,
        (max[1] - min[1]) / rows as f32,
    );
    (0..n)
        .map(|i| {
            let (c, r) = ((i % columns) as f32, (i / columns) as f32);
            let lo = [min[0] + c * w, min[1] + r * h];
            (lo, [lo[0] + w, lo[1] + h])
        })
        .collect()
}

/// How much farther the camera stands for a lab cell of `cell` size in an image of `full` size
/// (any unit): the cell then spans as much of the scene across as the whole image does, so a
/// narrow cell still shows the whole flag. 1 for a cell at least as wide, for its height, as
/// the image.
pub(crate) fn lab_zoom(full: [f32; 2], cell: [f32; 2]) -> f32 {
    let aspect = |s: [f32; 2]| s[0] / s[1].max(1e-6);
    (aspect(full) / aspect(cell).max(1e-6)).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::{PixelRect, RenderQuality};

    /// FXAA applies only with multisampling off; a software adapter starts with it, a GPU with
    /// 4× MSAA; settings saved before the field existed read it as on (and then apply it only
    /// where they had MSAA off).
    #[test]
    fn fxaa_applies_only_without_msaa_and_old_settings_read_it_as_on() {
        let q = |msaa_samples, fxaa| RenderQuality {
            msaa_samples,
            anisotropy: 1,
            fxaa,
        };
        assert!(q(1, true).post_aa());
        assert!(!q(1, false).post_aa());
        assert!(!q(4, true).post_aa());
        assert!(!q(4, false).post_aa());
        assert_eq!(
            RenderQuality::for_device_type(wgpu::DeviceType::Cpu),
            RenderQuality::FAST
        );
        assert!(RenderQuality::FAST.post_aa());
        for gpu in [
            wgpu::DeviceType::DiscreteGpu,
            wgpu::DeviceType::IntegratedGpu,
            wgpu::DeviceType::VirtualGpu,
            wgpu::DeviceType::Other,
        ] {
            assert_eq!(RenderQuality::for_device_type(gpu), RenderQuality::HIGH);
        }
        assert_eq!(RenderQuality::HIGH.msaa_samples, 4);
        let old: RenderQuality =
            serde_json::from_str(r#"{"msaa_samples": 1, "anisotropy": 1}"#).unwrap();
        assert_eq!(old, q(1, true));
        let off: RenderQuality =
            serde_json::from_str(r#"{"msaa_samples": 1, "anisotropy": 1, "fxaa": false}"#).unwrap();
        assert_eq!(off, q(1, false));
    }

    fn rect(x: u32, y: u32, width: u32, height: u32) -> PixelRect {
        PixelRect {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn whole_points_at_one_pixel_per_point_are_the_same_pixels() {
        // The free area right of a 425-point panel in a 1280 × 800 window.
        assert_eq!(
            PixelRect::covering([425.0, 0.0], [1280.0, 800.0], 1.0, [1280, 800]),
            Some(rect(425, 0, 855, 800))
        );
    }

    #[test]
    fn points_scale_to_pixels_and_partial_pixels_are_kept() {
        // At 1.5 px/pt: 100.4 pt → 150.6 px → from pixel 150; 200.2 pt → 300.3 px → to 301.
        assert_eq!(
            PixelRect::covering([100.4, 10.0], [200.2, 20.0], 1.5, [1000, 1000]),
            Some(rect(150, 15, 151, 15))
        );
    }

    #[test]
    fn clipped_to_the_target_and_empty_when_nothing_is_left() {
        assert_eq!(
            PixelRect::covering([-5.0, -5.0], [2000.0, f32::INFINITY], 1.0, [640, 400]),
            Some(rect(0, 0, 640, 400))
        );
        assert_eq!(
            PixelRect::covering([700.0, 0.0], [800.0, 100.0], 1.0, [640, 400]),
            None
        );
        assert_eq!(
            PixelRect::covering([10.0, 10.0], [10.0, 50.0], 1.0, [640, 400]),
            None
        );
        // Inverted (a panel's rectangle as a window shrinks): empty, not a wrapped size.
        assert_eq!(
            PixelRect::covering([50.0, 60.0], [10.0, 20.0], 1.0, [640, 400]),
            None
        );
        assert_eq!(
            PixelRect::covering([10.0, 20.0], [50.0, 20.0], 1.0, [640, 400]),
            None
        );
        assert_eq!(
            PixelRect::covering([f32::NAN, 0.0], [f32::NAN, 10.0], 1.0, [640, 400]),
            None
        );
    }

    #[test]
    fn scaling_maps_the_rectangle_and_grows_it_by_the_margin() {
        // Pixels 425..1280 × 0..800 at 0.8 are 340..1024 × 0..640; a texel more on each side,
        // clipped to the 1024 × 640 image: 339..1024 × 0..640.
        let r = rect(425, 0, 855, 800);
        assert_eq!(
            r.scaled(0.8, 1.0, [1024, 640]),
            Some(rect(339, 0, 685, 640))
        );
        // Half of an odd corner rounds outwards: 3.5 → 3, 7.5 → 8.
        assert_eq!(
            rect(7, 7, 8, 8).scaled(0.5, 0.0, [100, 100]),
            Some(rect(3, 3, 5, 5))
        );
        assert_eq!(r.scaled(1.0, 0.0, [1280, 800]), Some(r));
    }

    #[test]
    fn whole_means_every_pixel() {
        assert!(rect(0, 0, 640, 400).is_whole([640, 400]));
        assert!(!rect(1, 0, 639, 400).is_whole([640, 400]));
        assert!(!rect(0, 0, 640, 399).is_whole([640, 400]));
        assert!(!rect(0, 1, 640, 400).is_whole([640, 400]));
    }
}
