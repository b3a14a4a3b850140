//! The render scale's second half: a view drawn into a smaller image is stretched over the
//! target with bilinear filtering (`shaders/upscale.wgsl`). Its CPU twin is
//! [`upscale_bilinear`]; `tests/upscale.rs` compares the two.

use super::fullscreen;
use super::shaders::UPSCALE_WGSL;
use super::targets::PixelRect;

/// The pipeline for one target format, its bind-group layout and its sampler.
pub struct UpscalePass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

impl UpscalePass {
    /// A pass that writes targets of `format`; the images it reads have the same format.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("upscale"),
            entries: &fullscreen::sampled_texture_entries(0, 1),
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("upscale"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let pipeline =
            fullscreen::pipeline(device, "upscale.wgsl", UPSCALE_WGSL, &layout, format, None);
        Self {
            pipeline,
            layout,
            sampler,
        }
    }

    /// The bind group that reads `image` (a view of a texture with `TEXTURE_BINDING` usage in
    /// the pass's format). Make it once per image, not per frame.
    pub fn bind(&self, device: &wgpu::Device, image: &wgpu::TextureView) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("upscale image"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(image),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        })
    }

    /// Records one pass that clears `target` to opaque black and stretches the bound image over
    /// it, within `visible` only (`None`: all of it).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        image: &wgpu::BindGroup,
        target: &wgpu::TextureView,
        visible: Option<PixelRect>,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("upscale"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some(r) = visible {
            pass.set_scissor_rect(r.x, r.y, r.width, r.height);
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, image, &[]);
        pass.draw(0..3, 0..1);
    }
}

/// CPU twin of the pass: `image` (`w × h` pixels of 4 channels, rows top to bottom) stretched to
/// `size` with bilinear filtering, as the shader reads it. Target pixel `(x, y)` has its centre at
/// `uv = ((x + ½) / W, (y + ½) / H)`; the sampler reads the image at texel coordinates
/// `uv · (w, h) − ½`, blending the four nearest texels by the fractional parts, edges clamped.
/// Channels are 8-bit and blended as stored; the result is rounded to the nearest level.
pub fn upscale_bilinear(image: &[[u8; 4]], [w, h]: [u32; 2], [tw, th]: [u32; 2]) -> Vec<[u8; 4]> {
    let texel = |x: i64, y: i64| {
        let x = x.clamp(0, i64::from(w) - 1) as usize;
        let y = y.clamp(0, i64::from(h) - 1) as usize;
        image[y * w as usize + x].map(f64::from)
    };
    let mut out = Vec::with_capacity(tw as usize * th as usize);
    for y in 0..th {
        for x in 0..tw {
            let sx = (f64::from(x) + 0.5) / f64::from(tw) * f64::from(w) - 0.5;
            let sy = (f64::from(y) + 0.5) / f64::from(th) * f64::from(h) - 0.5;
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let (a, b) = (texel(x0, y0), texel(x0 + 1, y0));
            let (c, d) = (texel(x0, y0 + 1), texel(x0 + 1, y0 + 1));
            out.push(std::array::from_fn(|k| {
                let top = a[k] + (b[k] - a[k]) * fx;
                let bottom = c[k] + (d[k] - c[k]) * fx;
                (top + (bottom - top) * fy).round().clamp(0.0, 255.0) as u8
            }));
        }
    }
    out
}
