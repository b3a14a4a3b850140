//! The flag texture: the project's own design (`assets/flag.png`, drawn by `assets/make_flag.py`)
//! compiled into the binary, and the upload of any RGBA image as a mipmapped sRGB texture.
//!
//! Mip levels are made on the CPU with a triangle filter (in sRGB space, which is close enough
//! for a flag's flat colours) so a far-away flag does not shimmer.

use std::path::Path;

use image::RgbaImage;
use image::imageops::FilterType;

use crate::render::device::error::RenderError;
use crate::sim::format::scene::Scene;

/// `assets/flag.png`, 512 × 341 pixels, 3:2.
pub(crate) const FLAG_PNG: &[u8] = include_bytes!("../../../assets/flag.png");

/// The flag's four colours in sRGB 0..255 (navy field, teal sea, cream crests, golden leaf), as
/// written by `assets/make_flag.py`; tests look for them in renders.
pub const FLAG_PALETTE: [[u8; 3]; 4] = [
    [29, 53, 87],
    [42, 157, 143],
    [241, 236, 214],
    [233, 176, 66],
];

/// Decodes the built-in flag.
pub(crate) fn default_flag_image() -> Result<RgbaImage, RenderError> {
    image::load_from_memory_with_format(FLAG_PNG, image::ImageFormat::Png)
        .map(|img| img.to_rgba8())
        .map_err(|source| RenderError::Image {
            what: "built-in flag",
            source,
        })
}

/// The longest side a flag image keeps: larger images are downscaled to it (keeping their
/// aspect ratio) before upload. 2048 px is more than a flag covers on any screen, and every
/// wgpu device takes textures of at least this size.
pub const MAX_FLAG_SIDE: u32 = 2048;

/// The largest image side flagsim decodes at all (a 20 000 px panorama is 1.6 GB as RGBA):
/// beyond it an image is refused before decoding.
pub const MAX_DECODE_SIDE: u32 = 20_000;

/// Reads a PNG, JPEG or WebP file (the format from its content, not its name) as an sRGB RGBA
/// image no larger than [`MAX_FLAG_SIDE`] a side. Every failure is one
/// [`RenderError::ImageFile`] naming the file: missing or unreadable, not an image, another
/// format, 0 × 0, or beyond [`MAX_DECODE_SIDE`].
pub fn load_flag_image(path: &std::path::Path) -> Result<RgbaImage, RenderError> {
    load_image(path, "flag image")
}

/// [`load_flag_image`] for the background (`render.setting.background`): the same formats and
/// limits, the message naming it a background image.
pub(crate) fn load_background_image(path: &std::path::Path) -> Result<RgbaImage, RenderError> {
    load_image(path, "background image")
}

/// Each flag's image for `scene` (flag 0 first): `path` (which replaces the scene's
/// `render.texture`, the image of every flag that does not give its own) or the scene's own,
/// decoded and checked, with each flag fitted to its image's
/// proportions ([`Scene::fit_flag_to_image`]) and cut to its transparency for the image shape.
/// `None`: the built-in flag.
pub(crate) fn flag_images(
    scene: &mut Scene,
    path: Option<&Path>,
) -> Result<Vec<Option<RgbaImage>>, RenderError> {
    if let Some(path) = path {
        scene.render.texture = Some(path.to_path_buf());
    }
    (0..scene.flag_count())
        .map(|k| {
            let Some(texture) = scene.flag_scene(k).render.texture else {
                return Ok(None);
            };
            let image = load_flag_image(&texture)?;
            scene.fit_flag_to_image(k, image.width(), image.height());
            let alpha: Vec<u8> = image.pixels().map(|p| p[3]).collect();
            scene.set_alpha_of_flag(k, image.width() as usize, image.height() as usize, &alpha);
            Ok(Some(image))
        })
        .collect()
}

/// [`load_flag_image`] of a file's bytes, `name` naming it in the message (a page's file
/// chosen or dropped, an image fetched from a link).
pub(crate) fn decode_flag_image(name: &str, bytes: Vec<u8>) -> Result<RgbaImage, RenderError> {
    decode_image(name, bytes, "flag image")
}

/// [`load_background_image`] of a file's bytes, `name` naming it in the message (a page's file
/// chosen).
pub(crate) fn decode_background_image(
    name: &str,
    bytes: Vec<u8>,
) -> Result<RgbaImage, RenderError> {
    decode_image(name, bytes, "background image")
}

fn load_image(path: &std::path::Path, what: &'static str) -> Result<RgbaImage, RenderError> {
    let bytes = std::fs::read(path).map_err(|e| RenderError::ImageFile {
        what,
        path: path.display().to_string(),
        reason: format!("cannot read the file: {e}"),
    })?;
    decode_image(&path.display().to_string(), bytes, what)
}

fn decode_image(name: &str, bytes: Vec<u8>, what: &'static str) -> Result<RgbaImage, RenderError> {
    let fail = |reason: String| RenderError::ImageFile {
        what,
        path: name.to_owned(),
        reason,
    };
    match image::guess_format(&bytes) {
        Ok(image::ImageFormat::Png | image::ImageFormat::Jpeg | image::ImageFormat::WebP) => {}
        Ok(other) => {
            return Err(fail(format!(
                "{other:?} images are not supported (use PNG, JPEG or WebP)"
            )));
        }
        Err(_) => return Err(fail("not a PNG, JPEG or WebP image".into())),
    }
    if let Some(at) = cut_short(&bytes) {
        return Err(fail(format!(
            "the file ends at byte {at}, before its image does (cut short: is the download \
             complete?)"
        )));
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| fail(format!("cannot read the file: {e}")))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODE_SIDE);
    limits.max_image_height = Some(MAX_DECODE_SIDE);
    limits.max_alloc = Some(u64::from(MAX_DECODE_SIDE) * u64::from(MAX_DECODE_SIDE) * 4);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => fail(format!(
            "too large to load (at most {MAX_DECODE_SIDE} pixels a side)"
        )),
        e => fail(format!("cannot decode it: {e}")),
    })?;
    if decoded.width() == 0 || decoded.height() == 0 {
        return Err(fail(format!(
            "the image is empty ({} × {} pixels)",
            decoded.width(),
            decoded.height()
        )));
    }
    Ok(fit_for_gpu(&decoded.to_rgba8(), MAX_FLAG_SIDE))
}

/// Where a PNG, JPEG or WebP file ends before its own structure does (its length, `None` when
/// the structure is whole or the format is none of these): the decoders fill a cut-short
/// JPEG's missing rows with grey without a word, so every file is walked to its end first.
/// A PNG must reach its `IEND` chunk, a JPEG its end-of-image marker (through its segments and
/// entropy-coded scans), a WebP the length its RIFF header gives. Data after the end is allowed.
pub(crate) fn cut_short(bytes: &[u8]) -> Option<usize> {
    let whole = match image::guess_format(bytes).ok()? {
        image::ImageFormat::Png => png_is_whole(bytes),
        image::ImageFormat::Jpeg => jpeg_is_whole(bytes),
        image::ImageFormat::WebP => webp_is_whole(bytes),
        _ => return None,
    };
    (!whole).then_some(bytes.len())
}

/// Whether a PNG's chunks (length, type, data, CRC after the 8-byte signature) reach `IEND`.
fn png_is_whole(bytes: &[u8]) -> bool {
    let mut at = 8;
    while let Some(head) = bytes.get(at..at + 8) {
        let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let end = at.saturating_add(12).saturating_add(length);
        if end > bytes.len() {
            return false;
        }
        if &head[4..8] == b"IEND" {
            return true;
        }
        at = end;
    }
    false
}

/// Whether a JPEG reaches its end-of-image marker (`FF D9`): markers after the start-of-image,
/// each segment skipped by its length. A scan's entropy-coded data needs no rule of its own:
/// its bytes are skipped as any between markers are, and the `FF 00` (a stuffed byte) and
/// `FF D0`–`FF D7` (restart markers) in it stand alone, so the walk goes on to the marker
/// after the scan.
fn jpeg_is_whole(bytes: &[u8]) -> bool {
    let mut at = 2;
    loop {
        // The next marker: an `FF` (any number of fill bytes) and its code.
        while bytes.get(at).is_some_and(|&b| b != 0xFF) {
            at += 1;
        }
        while bytes.get(at) == Some(&0xFF) {
            at += 1;
        }
        let Some(&code) = bytes.get(at) else {
            return false;
        };
        at += 1;
        match code {
            0xD9 => return true,
            // Standalone markers: no length follows.
            0x00 | 0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        // A segment: skipped by its length (which counts its own two bytes). One that runs past
        // the end leaves no marker to find.
        let Some(length) = bytes.get(at..at + 2) else {
            return false;
        };
        at += usize::from(u16::from_be_bytes([length[0], length[1]]));
    }
}

/// Whether a WebP holds the whole RIFF chunk its header announces (its size counts from byte 8).
fn webp_is_whole(bytes: &[u8]) -> bool {
    bytes.get(4..8).is_some_and(|size| {
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        bytes.len() >= size.saturating_add(8)
    })
}

/// `image` downscaled (aspect ratio kept, each side at least 1 px) so its longer side is at
/// most `max_side`; unchanged when it already is.
pub(crate) fn fit_for_gpu(image: &RgbaImage, max_side: u32) -> RgbaImage {
    let (w, h) = image.dimensions();
    let longest = w.max(h);
    if longest <= max_side {
        return image.clone();
    }
    let scale = f64::from(max_side) / f64::from(longest);
    // Sizes ≤ 20 000 × a scale < 1: both fit in u32 after rounding.
    let size = |side: u32| ((f64::from(side) * scale).round() as u32).clamp(1, max_side);
    image::imageops::resize(image, size(w), size(h), FilterType::Triangle)
}

/// A sampled texture and its default view.
#[derive(Debug)]
pub(crate) struct GpuTexture {
    pub view: wgpu::TextureView,
}

/// Uploads `image` (sRGB-encoded RGBA8, top row first) as an `Rgba8UnormSrgb` texture with a
/// full mip chain, so sampling returns linear colour.
pub(crate) fn upload_rgba(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    image: &RgbaImage,
    label: &str,
) -> Result<GpuTexture, RenderError> {
    let (width, height) = image.dimensions();
    let max = device.limits().max_texture_dimension_2d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(RenderError::ImageSize { width, height, max });
    }
    let mip_level_count = 32 - width.max(height).leading_zeros();
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut level_image = image.clone();
    for level in 0..mip_level_count {
        if level > 0 {
            let w = (width >> level).max(1);
            let h = (height >> level).max(1);
            level_image = image::imageops::resize(&level_image, w, h, FilterType::Triangle);
        }
        let (w, h) = level_image.dimensions();
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            level_image.as_raw(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * w),
                rows_per_image: Some(h),
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
    }
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some(label),
        ..Default::default()
    });
    Ok(GpuTexture { view })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_flag_decodes_at_three_to_two_and_uses_its_palette() {
        let img = default_flag_image().unwrap();
        assert_eq!(img.dimensions(), (512, 341));
        for colour in FLAG_PALETTE {
            let hits = img.pixels().filter(|p| p.0[..3] == colour).count();
            assert!(
                hits > 500,
                "palette colour {colour:?} appears only {hits} times"
            );
        }
    }

    /// A JPEG's structure by hand: start of image, an APP1 segment whose data holds an
    /// end-of-image marker (as an EXIF thumbnail's does), a scan whose data holds a stuffed
    /// `FF 00`, a restart marker and fill bytes, then the end of image.
    fn jpeg_by_hand() -> Vec<u8> {
        let mut j = vec![0xFF, 0xD8];
        j.extend([0xFF, 0xE1, 0x00, 0x06, 0xFF, 0xD9, 0x12, 0x34]);
        j.extend([0xFF, 0xDA, 0x00, 0x04, 0x01, 0x02]);
        j.extend([0x55, 0xFF, 0x00, 0x66, 0xFF, 0xD3, 0x77, 0xFF, 0xFF, 0xD9]);
        j
    }

    #[test]
    fn a_jpeg_is_whole_only_when_it_reaches_its_end_of_image_marker() {
        let whole = jpeg_by_hand();
        assert_eq!(cut_short(&whole), None);
        let mut trailing = whole.clone();
        trailing.extend(b"data after the end");
        assert_eq!(cut_short(&trailing), None);
        // Cut anywhere before the last byte: inside the scan, at the stuffed byte, at the
        // restart marker, in the APP1 segment (whose own FF D9 is data, not the end), or in
        // its length.
        for n in 3..whole.len() {
            assert_eq!(cut_short(&whole[..n]), Some(n), "cut at {n}");
        }
        // A standalone marker between segments (TEM), fill bytes before a marker and stray
        // bytes between segments are skipped; a segment's length runs past the file's end.
        let mut standalone = vec![0xFF, 0xD8, 0xFF, 0x01, 0xFF, 0xFF, 0xFE, 0x00, 0x03, 0xAA];
        standalone.extend([0x12, 0x34, 0xFF, 0xD9]);
        assert_eq!(cut_short(&standalone), None);
        assert_eq!(cut_short(&standalone[..13]), Some(13));
        let long = [0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x40, 0xAA, 0xFF, 0xD9];
        assert_eq!(cut_short(&long), Some(long.len()));
    }

    #[test]
    fn a_png_is_whole_at_its_iend_chunk_and_a_webp_at_its_riff_length() {
        let chunk = |kind: &[u8], data: &[u8]| {
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend(kind);
            c.extend(data);
            c.extend([0; 4]);
            c
        };
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(b"IHDR", &[0; 13]));
        png.extend(chunk(b"IDAT", &[7; 5]));
        png.extend(chunk(b"IEND", &[]));
        assert_eq!(cut_short(&png), None);
        for n in 9..png.len() {
            assert_eq!(cut_short(&png[..n]), Some(n), "cut at {n}");
        }
        // A chunk whose length runs past the end.
        let mut long = b"\x89PNG\r\n\x1a\n".to_vec();
        long.extend(chunk(b"IHDR", &[0; 13]));
        long.extend([0xFF, 0xFF, 0xFF, 0xF0]);
        long.extend(b"IDAT");
        long.extend(chunk(b"IEND", &[]));
        assert_eq!(cut_short(&long), Some(long.len()));

        // RIFF, the size of what follows byte 8 (4 + 10 = 14), WEBP, then 10 bytes.
        let mut webp = b"RIFF".to_vec();
        webp.extend(14u32.to_le_bytes());
        webp.extend(b"WEBPVP8L");
        webp.extend([0; 6]);
        assert_eq!(webp.len(), 22);
        assert_eq!(cut_short(&webp), None);
        assert_eq!(cut_short(&webp[..21]), Some(21));
        webp.push(0);
        assert_eq!(cut_short(&webp), None);
        // Not an image at all: nothing to say.
        assert_eq!(cut_short(b"plain words"), None);
    }
}
