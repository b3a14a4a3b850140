//! Animated GIF, written as frames arrive: one palette for the whole clip (learnt by `NeuQuant`
//! from the first frame: the sky, the pole and the flag's colours are all in it), and each later
//! frame stored as the rectangle that changed, with the pixels that did not change transparent.
//! The background of a flag clip never changes, so a frame costs about what the flag covers; a
//! palette per frame would make every unchanged pixel change index and the file several times
//! larger. The clip loops forever; frame delays are whole hundredths of a second (the format's
//! unit), rounded so that the clip's total length stays exact ([`delay_cs`]).

use std::io::Write;

use color_quant::NeuQuant;
use gif::{DisposalMethod, Encoder, Frame, Repeat};
use image::RgbaImage;
use rayon::prelude::*;

/// The palette index of a pixel that shows the frame below (unchanged since the last frame).
pub const TRANSPARENT: u8 = 255;
/// Colours learnt for the palette; index [`TRANSPARENT`] is kept for "unchanged".
const COLORS: usize = 255;
/// `NeuQuant` learns from one pixel in this many (1 = all, slowest; 30 = fastest).
const SAMPLE_FACTOR: i32 = 10;
/// Bits per channel of the colour lookup table (2^18 entries of one byte).
const TABLE_BITS: u32 = 6;

/// The delay of frame `k`, in hundredths of a second, at `fps`: the difference of the rounded
/// times of frames `k + 1` and `k`, so that `n` frames last `round(100 n / fps)` hundredths
/// (at 30 fps: 3, 4, 3, 3, 4, 3, …).
pub fn delay_cs(k: u32, fps: f64) -> u16 {
    let at = |k: u32| (f64::from(k) * 100.0 / fps).round();
    (at(k + 1) - at(k)).clamp(0.0, f64::from(u16::MAX)) as u16
}

/// The clip's palette and a table from 6-bit-per-channel colours to palette indices.
struct Palette {
    /// 256 RGB triples: the learnt colours, then black for [`TRANSPARENT`].
    rgb: Vec<u8>,
    table: Vec<u8>,
}

impl Palette {
    fn learn(rgba: &[u8]) -> Self {
        let quant = NeuQuant::new(SAMPLE_FACTOR, COLORS, rgba);
        let mut rgb = quant.color_map_rgb();
        rgb.resize(3 * 256, 0);
        let levels = 1usize << TABLE_BITS;
        let mut table = vec![0u8; levels * levels * levels];
        let centre = |c: usize| ((c << (8 - TABLE_BITS)) | (1 << (7 - TABLE_BITS))) as u8;
        table.par_iter_mut().enumerate().for_each(|(i, entry)| {
            let (r, g, b) = (
                i >> (2 * TABLE_BITS),
                (i >> TABLE_BITS) % levels,
                i % levels,
            );
            // NeuQuant has at most COLORS (255) entries, so the index fits and is never
            // TRANSPARENT.
            *entry = quant.index_of(&[centre(r), centre(g), centre(b), 255]) as u8;
        });
        Self { rgb, table }
    }

    fn index(&self, px: &[u8]) -> u8 {
        let shift = 8 - TABLE_BITS;
        let (r, g, b) = (
            usize::from(px[0] >> shift),
            usize::from(px[1] >> shift),
            usize::from(px[2] >> shift),
        );
        self.table[(((r << TABLE_BITS) | g) << TABLE_BITS) | b]
    }
}

/// Why a GIF could not be written.
#[derive(Debug, thiserror::Error)]
pub enum GifError {
    #[error("{0}")]
    Encoding(#[from] gif::EncodingError),
    #[error("a frame is {got:?} pixels, the clip {want:?}")]
    FrameSize { got: (u32, u32), want: (u32, u32) },
    #[error("{0:?} pixels: a GIF is at most 65535 × 65535")]
    TooLarge((u32, u32)),
}

/// An animated GIF being written to `W` (see the module).
pub struct GifWriter<W: Write> {
    size: (u16, u16),
    fps: f64,
    out: Option<W>,
    encoder: Option<(Encoder<W>, Palette)>,
    /// The palette indices of the frame on screen after the last frame written.
    previous: Vec<u8>,
    frames: u32,
}

impl<W: Write> GifWriter<W> {
    /// A clip of `width × height` frames at `fps` frames per second.
    pub fn new(out: W, width: u32, height: u32, fps: f64) -> Result<Self, GifError> {
        let size = (
            u16::try_from(width).map_err(|_| GifError::TooLarge((width, height)))?,
            u16::try_from(height).map_err(|_| GifError::TooLarge((width, height)))?,
        );
        Ok(Self {
            size,
            fps,
            out: Some(out),
            encoder: None,
            previous: Vec::new(),
            frames: 0,
        })
    }

    /// Frames written so far.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Appends `image` as the next frame.
    pub fn push(&mut self, image: &RgbaImage) -> Result<(), GifError> {
        let (w, h) = (self.size.0, self.size.1);
        if image.dimensions() != (u32::from(w), u32::from(h)) {
            return Err(GifError::FrameSize {
                got: image.dimensions(),
                want: (u32::from(w), u32::from(h)),
            });
        }
        if self.encoder.is_none()
            && let Some(out) = self.out.take()
        {
            let palette = Palette::learn(image.as_raw());
            let mut encoder = Encoder::new(out, w, h, &palette.rgb)?;
            encoder.set_repeat(Repeat::Infinite)?;
            self.encoder = Some((encoder, palette));
        }
        let Some((encoder, palette)) = self.encoder.as_mut() else {
            unreachable!("the encoder is made from `out` on the first frame");
        };
        let indices: Vec<u8> = image
            .as_raw()
            .par_chunks(4)
            .map(|px| palette.index(px))
            .collect();
        let mut frame = changed_part(&indices, &self.previous, usize::from(w));
        frame.delay = delay_cs(self.frames, self.fps);
        frame.dispose = DisposalMethod::Keep;
        encoder.write_frame(&frame)?;
        self.previous = indices;
        self.frames += 1;
        Ok(())
    }

    /// Ends the file (its trailer) and hands back the writer.
    pub fn finish(self) -> Result<W, GifError> {
        match (self.encoder, self.out) {
            (Some((encoder, _)), _) => Ok(encoder.into_inner()?),
            // No frame: an empty clip is not a GIF a viewer can open; the caller reports it.
            (None, Some(out)) => Ok(out),
            (None, None) => unreachable!("`out` is taken only to make the encoder"),
        }
    }
}

/// The frame that turns `previous` (empty before the first frame) into `indices`: the bounding
/// rectangle of the changed pixels, unchanged ones in it [`TRANSPARENT`]; a single transparent
/// pixel when nothing changed (the frame still holds its delay).
fn changed_part(indices: &[u8], previous: &[u8], width: usize) -> Frame<'static> {
    let height = indices.len() / width;
    let whole = |buffer: Vec<u8>, left, top, w, h| Frame {
        left: left as u16,
        top: top as u16,
        width: w as u16,
        height: h as u16,
        buffer: buffer.into(),
        transparent: Some(TRANSPARENT),
        ..Frame::default()
    };
    if previous.len() != indices.len() {
        return whole(indices.to_vec(), 0, 0, width, height);
    }
    let (mut x0, mut y0, mut x1, mut y1) = (width, height, 0, 0);
    for (i, (a, b)) in indices.iter().zip(previous).enumerate() {
        if a != b {
            let (x, y) = (i % width, i / width);
            x0 = x0.min(x);
            x1 = x1.max(x + 1);
            y0 = y0.min(y);
            y1 = y1.max(y + 1);
        }
    }
    if x0 >= x1 {
        return whole(vec![TRANSPARENT], 0, 0, 1, 1);
    }
    let mut buffer = Vec::with_capacity((x1 - x0) * (y1 - y0));
    for y in y0..y1 {
        let row = y * width;
        for x in x0..x1 {
            let (now, was) = (indices[row + x], previous[row + x]);
            buffer.push(if now == was { TRANSPARENT } else { now });
        }
    }
    whole(buffer, x0, y0, x1 - x0, y1 - y0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_add_up_to_the_clip_length_at_any_rate() {
        for fps in [30.0, 24.0, 25.0, 12.5, 50.0, 7.0] {
            let n = 97;
            let total: u32 = (0..n).map(|k| u32::from(delay_cs(k, fps))).sum();
            assert_eq!(
                f64::from(total),
                (f64::from(n) * 100.0 / fps).round(),
                "{fps}"
            );
            for k in 0..n {
                let d = f64::from(delay_cs(k, fps));
                assert!((d - 100.0 / fps).abs() < 1.0, "{fps} fps frame {k}: {d}");
            }
        }
        assert_eq!(
            (0..6).map(|k| delay_cs(k, 30.0)).collect::<Vec<_>>(),
            [3, 4, 3, 3, 4, 3]
        );
    }

    #[test]
    fn only_the_changed_rectangle_is_stored_with_unchanged_pixels_transparent() {
        // 4 × 3 frame; pixels (1, 1) and (2, 2) change.
        let previous = vec![7u8; 12];
        let mut now = previous.clone();
        now[5] = 1;
        now[10] = 2;
        let f = changed_part(&now, &previous, 4);
        assert_eq!((f.left, f.top, f.width, f.height), (1, 1, 2, 2));
        assert_eq!(&*f.buffer, &[1, TRANSPARENT, TRANSPARENT, 2]);
        // Nothing changed: one transparent pixel; the first frame: everything.
        let f = changed_part(&previous, &previous, 4);
        assert_eq!((f.width, f.height, &*f.buffer), (1, 1, &[TRANSPARENT][..]));
        let f = changed_part(&now, &[], 4);
        assert_eq!((f.left, f.top, f.width, f.height), (0, 0, 4, 3));
        assert_eq!(&*f.buffer, &now[..]);
    }

    #[test]
    fn the_palette_keeps_distinct_colours_apart() {
        // Half red, half blue: each half maps to a palette colour close to its own.
        let mut img = RgbaImage::new(64, 64);
        for (x, _, p) in img.enumerate_pixels_mut() {
            *p = if x < 32 {
                image::Rgba([230, 20, 20, 255])
            } else {
                image::Rgba([20, 40, 220, 255])
            };
        }
        let palette = Palette::learn(img.as_raw());
        for colour in [[230u8, 20, 20, 255], [20, 40, 220, 255]] {
            let i = usize::from(palette.index(&colour));
            assert_ne!(i, usize::from(TRANSPARENT));
            let rgb = &palette.rgb[3 * i..3 * i + 3];
            for c in 0..3 {
                assert!(rgb[c].abs_diff(colour[c]) <= 8, "{colour:?} became {rgb:?}");
            }
        }
    }
}
