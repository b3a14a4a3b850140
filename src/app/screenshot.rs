//! Reading a texture back to the CPU and saving it as a PNG.
//!
//! Any 8-bit RGBA or BGRA texture with `COPY_SRC` usage can be captured: the surface texture of
//! the current frame (before it is presented — see
//! [`WindowSurface::supports_copy_src`](super::surface::WindowSurface::supports_copy_src)) or an
//! offscreen target. The copy goes through a buffer whose rows are padded to
//! [`wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`] (256) bytes; the padding is stripped and BGRA is
//! swizzled to RGBA while unpacking. Pixel values are stored as they are: a gamma-space surface
//! already holds sRGB-encoded values, which is what a PNG expects.
//!
//! Two ways to use it: [`capture_texture`] records, submits and waits in one call; or
//! [`encode_readback`] records the copy into the frame's own encoder and
//! [`Readback::finish`] waits for it after the frame is submitted.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use web_time::{SystemTime, UNIX_EPOCH};

/// Everything that can go wrong between a texture and a PNG file.
#[derive(Debug, thiserror::Error)]
pub enum ScreenshotError {
    /// The texture was not created with `TextureUsages::COPY_SRC`.
    #[error("the texture cannot be read back: it lacks COPY_SRC usage")]
    NotCopyable,
    /// Only 8-bit RGBA/BGRA colour textures are supported.
    #[error("texture format {0:?} cannot be saved as a screenshot (need 8-bit RGBA or BGRA)")]
    UnsupportedFormat(wgpu::TextureFormat),
    /// A zero-sized texture has no pixels to save.
    #[error("the texture has no pixels ({0}x{1})")]
    Empty(u32, u32),
    /// Mapping the readback buffer failed (device lost, out of memory).
    #[error("mapping the readback buffer failed")]
    Map(#[from] wgpu::BufferAsyncError),
    /// The mapped range could not be viewed.
    #[error("reading the mapped readback buffer failed")]
    MapRange(#[from] wgpu::MapRangeError),
    /// Waiting for the GPU failed.
    #[error("waiting for the GPU failed")]
    Poll(#[from] wgpu::PollError),
    /// The map callback was dropped without being run.
    #[error("the readback buffer was not mapped after waiting for the GPU")]
    NotMapped,
    /// The directory for the file could not be created.
    #[error("cannot create directory {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Encoding or writing the PNG failed (unwritable path, full disk).
    #[error("cannot write PNG {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: image::ImageError,
    },
}

/// A texture copy recorded into an encoder, waiting for that encoder to be submitted.
#[derive(Debug)]
pub(crate) struct Readback {
    buffer: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_bytes_per_row: u32,
    bgra: bool,
}

/// Bytes per row of a `width`-pixel RGBA8 row in a copy buffer: rounded up to 256.
pub(crate) fn padded_bytes_per_row(width: u32) -> u32 {
    let unpadded = width * 4;
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Whether the format is BGRA (needs a swizzle), RGBA (does not), or unsupported (`None`).
fn channel_order(format: wgpu::TextureFormat) -> Option<bool> {
    use wgpu::TextureFormat as F;
    match format {
        F::Bgra8Unorm | F::Bgra8UnormSrgb => Some(true),
        F::Rgba8Unorm | F::Rgba8UnormSrgb => Some(false),
        _ => None,
    }
}

/// Records a copy of mip level 0 of `texture` into a new readback buffer. Submit `encoder`
/// (after the commands that draw into the texture), then call [`Readback::finish`].
pub(crate) fn encode_readback(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> Result<Readback, ScreenshotError> {
    if !texture.usage().contains(wgpu::TextureUsages::COPY_SRC) {
        return Err(ScreenshotError::NotCopyable);
    }
    let bgra = channel_order(texture.format())
        .ok_or(ScreenshotError::UnsupportedFormat(texture.format()))?;
    let size = texture.size();
    let (width, height) = (size.width, size.height);
    if width == 0 || height == 0 {
        return Err(ScreenshotError::Empty(width, height));
    }
    let padded = padded_bytes_per_row(width);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("screenshot readback"),
        size: u64::from(padded) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    Ok(Readback {
        buffer,
        width,
        height,
        padded_bytes_per_row: padded,
        bgra,
    })
}

impl Readback {
    /// Waits for the copy (the encoder holding it must have been submitted) and returns the
    /// pixels as RGBA.
    pub(crate) fn finish(self, device: &wgpu::Device) -> Result<image::RgbaImage, ScreenshotError> {
        let mapping = self.map();
        device.poll(wgpu::PollType::wait_indefinitely())?;
        // Blocks rather than tries: in the viewer's GPU mode the simulation thread polls the
        // same device, and its poll may have taken this callback and be about to run it when
        // this poll returns.
        let mapped = mapping
            .answer
            .recv()
            .map_err(|_| ScreenshotError::NotMapped)?;
        mapping.readback.read(mapped)
    }

    /// Asks for the copy to be mapped, without waiting: a page's browser maps it between
    /// frames ([`Mapping::try_finish`]).
    pub(crate) fn map(self) -> Mapping {
        let (tx, rx) = mpsc::channel();
        self.buffer
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |result| {
                // The receiver only goes away if the mapping was given up.
                let _ = tx.send(result);
            });
        Mapping {
            readback: self,
            answer: rx,
        }
    }

    /// The pixels as RGBA, once `mapped` says the buffer is.
    fn read(
        self,
        mapped: Result<(), wgpu::BufferAsyncError>,
    ) -> Result<image::RgbaImage, ScreenshotError> {
        mapped?;
        let rgba = {
            let mapped = self.buffer.slice(..).get_mapped_range()?;
            unpad_rows(
                &mapped,
                self.width,
                self.height,
                self.padded_bytes_per_row,
                self.bgra,
            )
        };
        self.buffer.unmap();
        // `unpad_rows` returns exactly width * height * 4 bytes, so this cannot fail.
        image::RgbaImage::from_raw(self.width, self.height, rgba).ok_or(ScreenshotError::NotMapped)
    }
}

/// A read-back whose buffer is being mapped.
pub(crate) struct Mapping {
    readback: Readback,
    answer: mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

#[cfg_attr(
    not(target_arch = "wasm32"),
    allow(
        dead_code,
        reason = "the page downloads screenshots; on the desktop its tests read them"
    )
)]
impl Mapping {
    /// The pixels once the buffer is mapped (`None` while it is not yet).
    pub(crate) fn try_finish(&mut self) -> Option<Result<image::RgbaImage, ScreenshotError>> {
        let mapped = match self.answer.try_recv() {
            Ok(mapped) => mapped,
            Err(mpsc::TryRecvError::Empty) => return None,
            Err(mpsc::TryRecvError::Disconnected) => return Some(Err(ScreenshotError::NotMapped)),
        };
        let readback = Readback {
            buffer: self.readback.buffer.clone(),
            ..self.readback
        };
        Some(readback.read(mapped))
    }
}

/// Strips the row padding of a copy buffer and converts BGRA to RGBA when `bgra`.
fn unpad_rows(
    padded: &[u8],
    width: u32,
    height: u32,
    padded_bytes_per_row: u32,
    bgra: bool,
) -> Vec<u8> {
    let row_bytes = width as usize * 4;
    let mut out = Vec::with_capacity(row_bytes * height as usize);
    for row in padded
        .chunks(padded_bytes_per_row as usize)
        .take(height as usize)
    {
        let row = &row[..row_bytes.min(row.len())];
        if bgra {
            out.extend(row.chunks_exact(4).flat_map(|p| [p[2], p[1], p[0], p[3]]));
        } else {
            out.extend_from_slice(row);
        }
    }
    out
}

/// An offscreen colour target that can be read back: for platforms whose surface textures lack
/// `COPY_SRC` (e.g. the GL backend), render the frame a second time into this and capture it.
pub fn create_capture_target(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    size_px: [u32; 2],
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("screenshot capture target"),
        size: wgpu::Extent3d {
            width: size_px[0].max(1),
            height: size_px[1].max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        // COPY_DST: the viewer's frame code copies its stretched backdrop in, as into the window.
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

/// Copies `texture` to the CPU and returns it as RGBA: records the copy, submits it and waits.
/// Call it after the commands that draw into the texture have been submitted (and, for a
/// surface texture, before presenting it).
pub fn capture_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, ScreenshotError> {
    start_capture(device, queue, texture)?.finish(device)
}

/// [`capture_texture`] without the wait: the copy recorded and submitted.
pub(crate) fn start_capture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<Readback, ScreenshotError> {
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("screenshot copy"),
    });
    let readback = encode_readback(device, &mut encoder, texture)?;
    queue.submit([encoder.finish()]);
    Ok(readback)
}

/// A name for a screenshot taken now, e.g. `flagsim-2026-11-21_23-59-01.png` (UTC): a page's
/// download.
#[cfg_attr(
    not(target_arch = "wasm32"),
    allow(dead_code, reason = "the page's downloads")
)]
pub(crate) fn timestamped_name() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("flagsim-{}.png", utc_timestamp(secs))
}

/// `image` as the bytes of a PNG file.
#[cfg_attr(
    not(target_arch = "wasm32"),
    allow(dead_code, reason = "the page's downloads")
)]
pub(crate) fn png_bytes(image: &image::RgbaImage) -> Result<Vec<u8>, image::ImageError> {
    let mut bytes = Vec::new();
    image.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )?;
    Ok(bytes)
}

/// Writes `image` as a PNG at `path`, creating the parent directory if needed.
pub(crate) fn save_png(image: &image::RgbaImage, path: &Path) -> Result<(), ScreenshotError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ScreenshotError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    crate::files::save_image(path, image, image::ImageFormat::Png).map_err(|source| {
        ScreenshotError::Write {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// Where F12's screenshots and the viewer's recordings go: `screenshots/` in the folder
/// flagsim was started from, as an absolute path, so that the notice after a save names a
/// place the user can find (a bare `screenshots/…` is relative to a folder they never chose).
pub(crate) fn captures_folder() -> PathBuf {
    let relative = Path::new("screenshots");
    std::path::absolute(relative).unwrap_or_else(|_| relative.to_path_buf())
}

/// A fresh file name in `dir` for a screenshot taken now, e.g.
/// `screenshots/flagsim-2026-11-21_23-59-01.png` (UTC). If that file exists already (two
/// shots in one second), `-2`, `-3`, … is appended.
pub(crate) fn timestamped_path(dir: &Path) -> PathBuf {
    timestamped_file(dir, "png")
}

/// As [`timestamped_path`], with the extension `ext` (a video, or none for a folder).
pub(crate) fn timestamped_file(dir: &Path, ext: &str) -> PathBuf {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stem = format!("flagsim-{}", utc_timestamp(secs));
    let named = |suffix: String| dir.join(&suffix).with_extension(ext);
    let mut path = named(stem.clone());
    let mut n = 2;
    while path.exists() {
        path = named(format!("{stem}-{n}"));
        n += 1;
    }
    path
}

/// `YYYY-MM-DD_hh-mm-ss` in UTC for `secs` seconds after the Unix epoch.
fn utc_timestamp(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}_{:02}-{:02}-{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Proleptic Gregorian date of the day `days` after 1970-01-01 (H. Hinnant's `civil_from_days`,
/// restricted to dates after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let doe = z % 146_097; // day of the 400-year era, [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year
    let mp = (5 * doy + 2) / 153; // month, March = 0
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_padded_to_256_bytes() {
        assert_eq!(padded_bytes_per_row(1), 256);
        assert_eq!(padded_bytes_per_row(64), 256);
        assert_eq!(padded_bytes_per_row(65), 512);
        assert_eq!(padded_bytes_per_row(1280), 5120);
    }

    #[test]
    fn unpad_strips_padding_and_swizzles_bgra() {
        // 2x2 image, rows padded to 12 bytes; pixel = [B, G, R, A].
        let padded = [
            1, 2, 3, 4, 5, 6, 7, 8, 0xEE, 0xEE, 0xEE, 0xEE, //
            9, 10, 11, 12, 13, 14, 15, 16, 0xEE, 0xEE, 0xEE, 0xEE,
        ];
        assert_eq!(
            unpad_rows(&padded, 2, 2, 12, true),
            [3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9, 12, 15, 14, 13, 16]
        );
        assert_eq!(
            unpad_rows(&padded, 2, 2, 12, false),
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
        );
    }

    #[test]
    fn only_8_bit_rgba_and_bgra_are_supported() {
        use wgpu::TextureFormat as F;
        assert_eq!(channel_order(F::Bgra8Unorm), Some(true));
        assert_eq!(channel_order(F::Rgba8UnormSrgb), Some(false));
        assert_eq!(channel_order(F::Rgba16Float), None);
    }

    #[test]
    fn utc_timestamp_matches_known_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01_00-00-00");
        assert_eq!(utc_timestamp(951_825_600), "2000-02-29_12-00-00");
        assert_eq!(utc_timestamp(1_795_305_541), "2026-11-21_23-59-01");
        assert_eq!(utc_timestamp(4_107_542_400), "2100-03-01_00-00-00");
    }

    #[test]
    fn captures_go_to_an_absolute_screenshots_folder_in_the_working_directory() {
        let folder = captures_folder();
        assert!(folder.is_absolute(), "{}", folder.display());
        assert_eq!(folder, std::env::current_dir().unwrap().join("screenshots"));
    }

    #[test]
    fn timestamped_path_lives_in_dir_and_avoids_existing_files() {
        let dir = std::env::temp_dir().join(format!("flagsim-shot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = timestamped_path(&dir);
        assert_eq!(first.parent(), Some(dir.as_path()));
        let name = first.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("flagsim-")
                && std::path::Path::new(name)
                    .extension()
                    .is_some_and(|e| e == "png"),
            "{name}"
        );
        assert_eq!(name.len(), "flagsim-2026-11-21_23-59-01.png".len());
        std::fs::write(&first, b"").unwrap();
        let second = timestamped_path(&dir);
        // Either the clock moved on to a new second or a suffix was added; never the same file.
        assert_ne!(first, second);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A headless device, or `None` (after a loud SKIPPED line) when the machine has no
    /// adapter or device at all. Under `CI=true` that is a failure: CI runs these on lavapipe.
    fn headless_device() -> Option<(wgpu::Device, wgpu::Queue)> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let device =
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
                .map_err(|e| e.to_string())
                .and_then(|adapter| {
                    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                        label: Some("screenshot test device"),
                        required_limits: wgpu::Limits::downlevel_defaults(),
                        ..Default::default()
                    }))
                    .map_err(|e| e.to_string())
                });
        match device {
            Ok(d) => Some(d),
            Err(e) => {
                assert!(
                    std::env::var("CI").map_or(true, |v| v != "true"),
                    "CI=true but no GPU adapter or device: {e}"
                );
                eprintln!("SKIPPED: no GPU adapter or device ({e})");
                None
            }
        }
    }

    fn cleared_texture(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        usage: wgpu::TextureUsages,
    ) -> wgpu::Texture {
        // 70 px wide: 280 bytes per row, so the copy has 232 bytes of padding per row.
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("screenshot test target"),
            size: wgpu::Extent3d {
                width: 70,
                height: 3,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("screenshot test clear"),
        });
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("screenshot test clear"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                resolve_target: None,
                depth_slice: None,
                ops: wgpu::Operations {
                    // Exactly representable in 8 bits: 51, 102, 204, 255.
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.2,
                        g: 0.4,
                        b: 0.8,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        queue.submit([encoder.finish()]);
        texture
    }

    #[test]
    fn capture_returns_rgba_pixels_for_bgra_and_rgba_textures() {
        let Some((device, queue)) = headless_device() else {
            return;
        };
        for format in [
            wgpu::TextureFormat::Bgra8Unorm,
            wgpu::TextureFormat::Rgba8Unorm,
        ] {
            let texture = cleared_texture(&device, &queue, format, wgpu::TextureUsages::COPY_SRC);
            let image = capture_texture(&device, &queue, &texture).unwrap();
            assert_eq!(image.dimensions(), (70, 3));
            for pixel in image.pixels() {
                assert_eq!(pixel.0, [51, 102, 204, 255], "{format:?}");
            }
        }
    }

    #[test]
    fn a_mapping_gives_nothing_until_the_buffer_is_mapped_then_the_pixels_as_a_png() {
        let Some((device, queue)) = headless_device() else {
            return;
        };
        let texture = cleared_texture(
            &device,
            &queue,
            wgpu::TextureFormat::Bgra8Unorm,
            wgpu::TextureUsages::COPY_SRC,
        );
        let mut mapping = start_capture(&device, &queue, &texture).unwrap().map();
        // Nothing maps a buffer until the device is polled (a page's browser does it between
        // frames).
        assert!(mapping.try_finish().is_none());
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let image = mapping.try_finish().expect("mapped").unwrap();
        assert_eq!(image.dimensions(), (70, 3));
        assert!(image.pixels().all(|p| p.0 == [51, 102, 204, 255]));
        let png = png_bytes(&image).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let back = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
        assert_eq!(back.to_rgba8(), image);
    }

    #[test]
    fn a_downloads_name_is_the_utc_time_now() {
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let name = timestamped_name();
        let after = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let names: Vec<String> = (before..=after)
            .map(|s| format!("flagsim-{}.png", utc_timestamp(s)))
            .collect();
        assert!(names.contains(&name), "{name} not in {names:?}");
    }

    #[test]
    fn capture_of_a_texture_without_copy_src_is_an_error() {
        let Some((device, queue)) = headless_device() else {
            return;
        };
        let texture = cleared_texture(
            &device,
            &queue,
            wgpu::TextureFormat::Rgba8Unorm,
            wgpu::TextureUsages::empty(),
        );
        let err = capture_texture(&device, &queue, &texture).unwrap_err();
        assert!(matches!(err, ScreenshotError::NotCopyable), "{err}");
    }

    #[test]
    fn saving_to_an_unwritable_path_is_an_error_not_a_panic() {
        let image = image::RgbaImage::new(2, 2);
        let err = save_png(&image, Path::new("/proc/flagsim/cannot/shot.png")).unwrap_err();
        assert!(
            matches!(
                err,
                ScreenshotError::CreateDir { .. } | ScreenshotError::Write { .. }
            ),
            "{err}"
        );
        let dir = std::env::temp_dir();
        let err = save_png(&image, &dir).unwrap_err();
        assert!(matches!(err, ScreenshotError::Write { .. }), "{err}");
    }
}
