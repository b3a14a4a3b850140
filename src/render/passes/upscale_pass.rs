//! What the viewer does to its 3-D view after drawing it into an image of its own: anti-aliasing
//! it (`shaders/fxaa.wgsl`, where multisampling costs too much) and, at a render scale below 1,
//! stretching it over the target with bilinear filtering (`shaders/upscale.wgsl`). Their CPU
//! twins are [`fxaa_cpu`] and [`upscale_bilinear`]; `tests/upscale.rs` compares each pair.

use crate::render::device::shaders::{FXAA_WGSL, UPSCALE_WGSL};
use crate::render::device::targets::PixelRect;
use crate::render::passes::fullscreen;

/// The pipelines for one target format, their bind-group layout and their sampler.
pub struct UpscalePass {
    pipeline: wgpu::RenderPipeline,
    fxaa: wgpu::RenderPipeline,
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
        let fxaa = fullscreen::pipeline(device, "fxaa.wgsl", FXAA_WGSL, &layout, format, None);
        Self {
            pipeline,
            fxaa,
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
        let within = visible.as_ref().map(std::slice::from_ref);
        Self::record_with(&self.pipeline, encoder, image, target, true, within);
    }

    /// Records one pass that clears `target` (the bound image's size) to opaque black and writes
    /// the image anti-aliased by FXAA into it, within `visible` only (`None`: all of it).
    pub fn record_fxaa(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        image: &wgpu::BindGroup,
        target: &wgpu::TextureView,
        visible: Option<PixelRect>,
    ) {
        let within = visible.as_ref().map(std::slice::from_ref);
        Self::record_with(&self.fxaa, encoder, image, target, true, within);
    }

    /// Records one pass that stretches the bound image over `target` within `rects` only, and
    /// keeps what `target` holds elsewhere.
    pub(crate) fn record_within(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        image: &wgpu::BindGroup,
        target: &wgpu::TextureView,
        rects: &[PixelRect],
    ) {
        Self::record_with(&self.pipeline, encoder, image, target, false, Some(rects));
    }

    /// Records one pass that writes the image anti-aliased by FXAA into `target` (the bound
    /// image's size) within `rects` only, and keeps what `target` holds elsewhere: with the image
    /// copied there first, FXAA runs only where there can be edges ([`crate::render::drawing::edges`]).
    pub fn record_fxaa_within(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        image: &wgpu::BindGroup,
        target: &wgpu::TextureView,
        rects: &[PixelRect],
    ) {
        Self::record_with(&self.fxaa, encoder, image, target, false, Some(rects));
    }

    /// One pass of `pipeline` over `target`: cleared first when `clear`, drawn within each of
    /// `scissors` (`None`: the whole target).
    fn record_with(
        pipeline: &wgpu::RenderPipeline,
        encoder: &mut wgpu::CommandEncoder,
        image: &wgpu::BindGroup,
        target: &wgpu::TextureView,
        clear: bool,
        scissors: Option<&[PixelRect]>,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("upscale"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: if clear {
                        wgpu::LoadOp::Clear(wgpu::Color::BLACK)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, image, &[]);
        match scissors {
            None => pass.draw(0..3, 0..1),
            Some(rects) => {
                for r in rects {
                    pass.set_scissor_rect(r.x, r.y, r.width, r.height);
                    pass.draw(0..3, 0..1);
                }
            }
        }
    }
}

/// FXAA's thresholds and reach, as `shaders/fxaa.wgsl` has them.
pub struct Fxaa;

impl Fxaa {
    /// Local luma contrast, as a share of the brightest of the five lumas, from which a pixel is
    /// on an edge.
    pub(crate) const EDGE_RELATIVE: f64 = 0.125;
    /// The least contrast that is an edge (dark areas are left alone).
    pub const EDGE_MIN: f64 = 1.0 / 32.0;
    pub(crate) const REDUCE_MUL: f64 = 0.125;
    pub(crate) const REDUCE_MIN: f64 = 1.0 / 128.0;
    /// The longest step along an edge, texels.
    pub(crate) const SPAN_MAX: f64 = 8.0;
    /// How far from a pixel FXAA reads, texels: half the longest step, plus the bilinear
    /// sample's own reach.
    pub(crate) const REACH: f32 = (Self::SPAN_MAX as f32) / 2.0 + 1.0;
}

/// Luma of an sRGB-encoded colour (ITU-R BT.601 weights), 0..=1.
fn luma(c: [f64; 3]) -> f64 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

/// CPU twin of the FXAA pass: `image` (`w × h` pixels of 4 channels, rows top to bottom)
/// anti-aliased as `shaders/fxaa.wgsl` does it (its header gives the steps), channels read as
/// `level / 255`, bilinear samples as [`upscale_bilinear`] takes them, edges clamped. Alpha is
/// written opaque; results are rounded to the nearest level.
pub fn fxaa_cpu(image: &[[u8; 4]], [w, h]: [u32; 2]) -> Vec<[u8; 4]> {
    let texel = |x: i64, y: i64| {
        let x = x.clamp(0, i64::from(w) - 1) as usize;
        let y = y.clamp(0, i64::from(h) - 1) as usize;
        let p = image[y * w as usize + x];
        [p[0], p[1], p[2]].map(|c| f64::from(c) / 255.0)
    };
    // The image at texel coordinates (sx, sy) (texel centres at whole numbers), bilinear.
    let at = |sx: f64, sy: f64| -> [f64; 3] {
        let (x0, y0) = (sx.floor(), sy.floor());
        let (fx, fy) = (sx - x0, sy - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let (a, b) = (texel(x0, y0), texel(x0 + 1, y0));
        let (c, d) = (texel(x0, y0 + 1), texel(x0 + 1, y0 + 1));
        std::array::from_fn(|k| {
            let top = a[k] + (b[k] - a[k]) * fx;
            let bottom = c[k] + (d[k] - c[k]) * fx;
            top + (bottom - top) * fy
        })
    };
    let mean =
        |p: [f64; 3], q: [f64; 3]| -> [f64; 3] { std::array::from_fn(|k| 0.5 * (p[k] + q[k])) };
    let mut out = Vec::with_capacity(image.len());
    for y in 0..h {
        for x in 0..w {
            let (px, py) = (f64::from(x), f64::from(y));
            let rgb_m = at(px, py);
            let nw = luma(at(px - 0.5, py - 0.5));
            let ne = luma(at(px + 0.5, py - 0.5));
            let sw = luma(at(px - 0.5, py + 0.5));
            let se = luma(at(px + 0.5, py + 0.5));
            let m = luma(rgb_m);
            let lo = m.min(nw.min(ne).min(sw.min(se)));
            let hi = m.max(nw.max(ne).max(sw.max(se)));
            let rgb = if hi - lo < Fxaa::EDGE_MIN.max(hi * Fxaa::EDGE_RELATIVE) {
                rgb_m
            } else {
                let dir = [-((nw + ne) - (sw + se)), (nw + sw) - (ne + se)];
                let reduce = ((nw + ne + sw + se) * 0.25 * Fxaa::REDUCE_MUL).max(Fxaa::REDUCE_MIN);
                let stretch = 1.0 / (dir[0].abs().min(dir[1].abs()) + reduce);
                let d = dir.map(|v| (v * stretch).clamp(-Fxaa::SPAN_MAX, Fxaa::SPAN_MAX));
                let step = |f: f64| at(px + d[0] * f, py + d[1] * f);
                let a = mean(step(-1.0 / 6.0), step(1.0 / 6.0));
                let far = mean(step(-0.5), step(0.5));
                let b = mean(a, far);
                let lb = luma(b);
                if lb < lo || lb > hi { a } else { b }
            };
            let level = |v: f64| (v * 255.0).round().clamp(0.0, 255.0) as u8;
            out.push([level(rgb[0]), level(rgb[1]), level(rgb[2]), 255]);
        }
    }
    out
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
