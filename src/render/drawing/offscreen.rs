//! Rendering without a window: an [`OffscreenTarget`] holds the attachments the [`Renderer`]
//! draws into (4× MSAA colour and depth, resolved into an `Rgba8UnormSrgb` texture by default)
//! and a readback buffer whose rows are padded to wgpu's 256-byte copy alignment; `read_rgba`
//! copies the resolved image back into an [`image::RgbaImage`] (sRGB-encoded, ready for PNG).
//!
//! Other 8-bit RGBA/BGRA formats are accepted too ([`OffscreenTarget::with_format`]), so the
//! shader-side sRGB encoding a `Bgra8Unorm` swapchain needs can be tested without a window.

use image::RgbaImage;

use crate::render::device::error::RenderError;
use crate::render::device::targets::{MsaaAttachments, TargetFormats};
use crate::render::drawing::renderer::{FrameData, Renderer};

/// Attachments and readback buffer for `width × height` offscreen renders.
#[derive(Debug)]
pub struct OffscreenTarget {
    width: u32,
    height: u32,
    formats: TargetFormats,
    resolved: wgpu::Texture,
    resolved_view: wgpu::TextureView,
    attachments: MsaaAttachments,
    readback: wgpu::Buffer,
    /// Bytes per row in `readback`: `4 · width` rounded up to 256.
    padded_bytes_per_row: u32,
}

impl OffscreenTarget {
    /// Format of the resolved image. sRGB, so the hardware encodes and reads back display-ready
    /// bytes.
    pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

    /// Allocates the attachments for a `width × height` image (pixels, 1..=device limit) in
    /// [`OffscreenTarget::FORMAT`].
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Result<Self, RenderError> {
        Self::with_format(device, width, height, Self::FORMAT)
    }

    /// Like [`OffscreenTarget::new`] with a colour format of `Rgba8Unorm`, `Bgra8Unorm` or their
    /// `Srgb` twins; `read_rgba` returns RGBA bytes for each.
    pub fn with_format(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::ImageSize { width, height, max });
        }
        if !matches!(
            format.remove_srgb_suffix(),
            wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Bgra8Unorm
        ) {
            return Err(RenderError::UnsupportedFormat(format));
        }
        let formats = TargetFormats::new(format);
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, format, sample_count, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let resolved = texture(
            "offscreen resolved colour",
            formats.color,
            1,
            // COPY_DST as a window's image has it: `bench --frame` draws the viewer's frame here.
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let view = |t: &wgpu::Texture, label| {
            t.create_view(&wgpu::TextureViewDescriptor {
                label: Some(label),
                ..Default::default()
            })
        };
        let padded_bytes_per_row = (4 * width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen readback buffer"),
            size: u64::from(padded_bytes_per_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Ok(Self {
            width,
            height,
            formats,
            resolved_view: view(&resolved, "offscreen resolved colour view"),
            attachments: MsaaAttachments::new(device, &formats, width, height, "offscreen"),
            resolved,
            readback,
            padded_bytes_per_row,
        })
    }

    /// `width / height`, for the camera's projection.
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    pub(crate) fn formats(&self) -> TargetFormats {
        self.formats
    }

    /// The multisampled colour attachment.
    pub(crate) fn msaa_view(&self) -> &wgpu::TextureView {
        &self.attachments.color_view
    }

    /// The single-sample texture the MSAA image resolves into.
    pub fn resolved_view(&self) -> &wgpu::TextureView {
        &self.resolved_view
    }

    /// The multisampled depth attachment.
    pub(crate) fn depth_view(&self) -> &wgpu::TextureView {
        &self.attachments.depth_view
    }

    /// Copies the resolved image to the CPU, waiting for the GPU. Rows come top first.
    pub(crate) fn read_rgba(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<RgbaImage, RenderError> {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("offscreen readback encoder"),
        });
        encoder.copy_texture_to_buffer(
            self.resolved.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_bytes_per_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([encoder.finish()]);

        crate::render::device::gpu::map_for_reading(device, &self.readback)
            .map_err(RenderError::Readback)?;

        let row_bytes = 4 * self.width as usize;
        let mut pixels = Vec::with_capacity(row_bytes * self.height as usize);
        {
            let mapped = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| RenderError::Readback(e.to_string()))?;
            for row in mapped.chunks_exact(self.padded_bytes_per_row as usize) {
                pixels.extend_from_slice(&row[..row_bytes]);
            }
        }
        self.readback.unmap();
        if self.formats.color.remove_srgb_suffix() == wgpu::TextureFormat::Bgra8Unorm {
            for px in pixels.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        RgbaImage::from_raw(self.width, self.height, pixels).ok_or_else(|| {
            RenderError::Readback("pixel count does not match the image size".into())
        })
    }
}

impl Renderer {
    /// Draws `frame` into `target`, submits, and reads the image back. The renderer must have
    /// been built for the target's format.
    pub fn render_offscreen(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        target: &OffscreenTarget,
        frame: &FrameData<'_>,
    ) -> Result<RgbaImage, RenderError> {
        if self.targets() != target.formats() {
            return Err(RenderError::TargetMismatch {
                renderer: self.targets(),
                target: target.formats(),
            });
        }
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("offscreen render encoder"),
        });
        self.render(
            device,
            queue,
            &mut encoder,
            target.msaa_view(),
            Some(target.resolved_view()),
            target.depth_view(),
            frame,
        )?;
        queue.submit([encoder.finish()]);
        target.read_rgba(device, queue)
    }
}
