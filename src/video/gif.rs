//! Animated GIF, written as frames arrive. Each frame after the first stores only the rectangle
//! around the pixels that changed since the frame before, with the unchanged ones in it
//! transparent, and its own palette learnt (`NeuQuant`) from the changed pixels alone. The
//! background of a flag clip never changes, so a frame costs about what the flag covers, and the
//! flag's colours get the whole palette as its shading moves (one palette learnt from the first
//! frame turned the shaded teal of a flag turning away into patches of navy). The clip loops
//! forever; frame delays are whole hundredths of a second (the format's unit), rounded so that
//! the clip's total length stays exact ([`delay_cs`]).

use std::collections::HashMap;
use std::io::Write;

use color_quant::NeuQuant;
use gif::{DisposalMethod, Encoder, Frame, Repeat};
use image::RgbaImage;
use rayon::prelude::*;

/// The palette index of a pixel that shows the frame below (unchanged since the last frame).
pub(crate) const TRANSPARENT: u8 = 255;
/// Colours in a frame's palette; index [`TRANSPARENT`] is kept for "unchanged".
const COLORS: usize = 255;
/// `NeuQuant` learns from one pixel in this many (1 = all, slowest; 30 = fastest) ...
const SAMPLE_FACTOR: i32 = 10;
/// ... unless fewer pixels changed than this; then from every one.
const SMALL: usize = 20_000;

/// The delay of frame `k`, in hundredths of a second, at `fps`: the difference of the rounded
/// times of frames `k + 1` and `k`, so that `n` frames last `round(100 n / fps)` hundredths
/// (at 30 fps: 3, 4, 3, 3, 4, 3, …).
pub(crate) fn delay_cs(k: u32, fps: f64) -> u16 {
    let at = |k: u32| (f64::from(k) * 100.0 / fps).round();
    (at(k + 1) - at(k)).clamp(0.0, f64::from(u16::MAX)) as u16
}

/// `NeuQuant`'s sample factor for `pixels` pixels: every pixel below [`SMALL`] (a few hundred
/// samples would leave most of the 255 colours untrained), one in [`SAMPLE_FACTOR`] from there
/// (the time goes with the samples; a flag covering 100 000 pixels still gives 10 000).
fn sample_factor(pixels: usize) -> i32 {
    if pixels < SMALL { 1 } else { SAMPLE_FACTOR }
}

/// A frame's palette: its colours exactly when there are at most [`COLORS`], else `NeuQuant`'s.
enum Palette {
    Exact(HashMap<[u8; 3], u8>, Vec<u8>),
    Learnt(NeuQuant),
}

impl Palette {
    /// The palette for `rgba` (opaque pixels, 4 bytes each).
    fn of(rgba: &[u8]) -> Self {
        let mut exact = HashMap::new();
        for px in rgba.chunks_exact(4) {
            let next = exact.len();
            if next > COLORS {
                break;
            }
            exact.entry([px[0], px[1], px[2]]).or_insert(next as u8);
        }
        if exact.len() <= COLORS {
            let mut rgb = vec![0; 3 * exact.len()];
            for (c, &i) in &exact {
                rgb[3 * usize::from(i)..][..3].copy_from_slice(c);
            }
            return Self::Exact(exact, rgb);
        }
        Self::Learnt(NeuQuant::new(sample_factor(rgba.len() / 4), COLORS, rgba))
    }

    /// 256 RGB triples (unused entries, [`TRANSPARENT`]'s included, black).
    fn rgb(&self) -> Vec<u8> {
        let mut rgb = match self {
            Self::Exact(_, rgb) => rgb.clone(),
            Self::Learnt(quant) => quant.color_map_rgb(),
        };
        rgb.resize(3 * 256, 0);
        rgb
    }

    fn index(&self, px: &[u8]) -> u8 {
        match self {
            // Every colour of the frame is in the map; a miss cannot happen.
            Self::Exact(map, _) => map.get(&[px[0], px[1], px[2]]).copied().unwrap_or(0),
            // At most COLORS (255) entries: the index fits and is never TRANSPARENT.
            Self::Learnt(quant) => quant.index_of(px) as u8,
        }
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
pub(crate) struct GifWriter<W: Write> {
    encoder: Encoder<W>,
    size: (u16, u16),
    fps: f64,
    /// The picture a viewer shows after the frames written so far (RGBA), to find what to
    /// change.
    shown: Vec<u8>,
    frames: u32,
}

impl<W: Write> GifWriter<W> {
    /// A clip of `width × height` frames at `fps` frames per second.
    pub(crate) fn new(out: W, width: u32, height: u32, fps: f64) -> Result<Self, GifError> {
        let too_large = |_| GifError::TooLarge((width, height));
        let size = (
            u16::try_from(width).map_err(too_large)?,
            u16::try_from(height).map_err(too_large)?,
        );
        // Every frame brings its own palette: no global one.
        let mut encoder = Encoder::new(out, size.0, size.1, &[])?;
        encoder.set_repeat(Repeat::Infinite)?;
        Ok(Self {
            encoder,
            size,
            fps,
            shown: Vec::new(),
            frames: 0,
        })
    }

    /// Appends `image` as the next frame.
    pub(crate) fn push(&mut self, image: &RgbaImage) -> Result<(), GifError> {
        let want = (u32::from(self.size.0), u32::from(self.size.1));
        if image.dimensions() != want {
            return Err(GifError::FrameSize {
                got: image.dimensions(),
                want,
            });
        }
        let mut frame = changed_part(image.as_raw(), &mut self.shown, want.0 as usize);
        frame.delay = delay_cs(self.frames, self.fps);
        frame.dispose = DisposalMethod::Keep;
        self.encoder.write_frame(&frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Ends the file (its trailer) and hands back the writer.
    pub(crate) fn finish(self) -> Result<W, GifError> {
        Ok(self.encoder.into_inner()?)
    }
}

/// How far, in levels of any channel, a pixel shown may be from the frame's before it is drawn
/// again: small shading changes of the still background are left, and a pixel that was
/// quantized badly is drawn again with the next frame's palette.
pub(crate) const TOLERANCE: u8 = 6;

/// Whether `shown` must be drawn again to look like `px`.
fn differs(px: &[u8], shown: &[u8]) -> bool {
    (0..3).any(|c| px[c].abs_diff(shown[c]) > TOLERANCE)
}

/// The frame that turns the picture `shown` (RGBA; empty before the first frame) into about
/// `rgba`, and `shown` updated to what it draws: the bounding rectangle of the pixels that
/// differ by more than [`TOLERANCE`], with a palette learnt from them, the others in it
/// [`TRANSPARENT`]; a single transparent pixel when none differs (the frame still holds its
/// delay).
fn changed_part(rgba: &[u8], shown: &mut Vec<u8>, width: usize) -> Frame<'static> {
    let first = shown.len() != rgba.len();
    if first {
        shown.clear();
        shown.resize(rgba.len(), 255);
    }
    let changed: Vec<bool> = rgba
        .par_chunks(4)
        .zip(shown.par_chunks(4))
        .map(|(px, was)| first || differs(px, was))
        .collect();
    // The changed pixels' bounds, empty (x0 ≥ x1) until one is found.
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for (y, row) in changed.chunks(width).enumerate() {
        if let (Some(a), Some(b)) = (row.iter().position(|&c| c), row.iter().rposition(|&c| c)) {
            x0 = x0.min(a);
            x1 = x1.max(b + 1);
            y0 = y0.min(y);
            y1 = y1.max(y + 1);
        }
    }
    if x0 >= x1 {
        // With no global palette a frame needs its own: two black entries, 0 transparent.
        return Frame {
            width: 1,
            height: 1,
            buffer: vec![0].into(),
            palette: Some(vec![0; 6]),
            transparent: Some(0),
            ..Frame::default()
        };
    }
    let (w, h) = (x1 - x0, y1 - y0);
    let at = |x: usize, y: usize| (y0 + y) * width + x0 + x;
    let mut learn = Vec::with_capacity(4 * w * h);
    for y in 0..h {
        for x in (0..w).filter(|&x| changed[at(x, y)]) {
            learn.extend_from_slice(&rgba[4 * at(x, y)..][..4]);
        }
    }
    let palette = Palette::of(&learn);
    let colours = palette.rgb();
    let mut buffer = vec![TRANSPARENT; w * h];
    // Rows y0..y1 of `shown`, each cut to columns x0..x1, beside the frame's rows.
    let shown_rows = shown[4 * y0 * width..4 * y1 * width].par_chunks_mut(4 * width);
    buffer
        .par_chunks_mut(w)
        .zip(shown_rows)
        .enumerate()
        .for_each(|(y, (row, shown_row))| {
            for (x, out) in row.iter_mut().enumerate() {
                let i = at(x, y);
                if changed[i] {
                    *out = palette.index(&rgba[4 * i..][..4]);
                    let c = 3 * usize::from(*out);
                    shown_row[4 * (x0 + x)..][..3].copy_from_slice(&colours[c..c + 3]);
                }
            }
        });
    Frame {
        left: x0 as u16,
        top: y0 as u16,
        width: w as u16,
        height: h as u16,
        buffer: buffer.into(),
        palette: Some(colours),
        transparent: (!first).then_some(TRANSPARENT),
        ..Frame::default()
    }
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

    /// An RGBA buffer of `w` pixels a row from grey levels.
    fn grey(levels: &[u8]) -> Vec<u8> {
        levels.iter().flat_map(|&l| [l, l, l, 255]).collect()
    }

    #[test]
    fn only_the_changed_rectangle_is_stored_with_unchanged_pixels_transparent() {
        // 4 × 3 frame; pixels (1, 1) and (2, 2) change by more than the tolerance, (3, 0) by
        // exactly the tolerance (left as shown).
        let before = [70u8; 12];
        let mut now = before;
        now[5] = 10;
        now[10] = 20;
        now[3] = 70 + TOLERANCE;
        let mut shown = grey(&before);
        let f = changed_part(&grey(&now), &mut shown, 4);
        assert_eq!((f.left, f.top, f.width, f.height), (1, 1, 2, 2));
        // Two colours: the exact palette, in the order met.
        assert_eq!(&*f.buffer, &[0, TRANSPARENT, TRANSPARENT, 1]);
        let palette = f.palette.unwrap();
        assert_eq!(&palette[..6], &[10, 10, 10, 20, 20, 20]);
        assert_eq!(f.transparent, Some(TRANSPARENT));
        // What a viewer shows now: the two pixels drawn, the rest as it was.
        let mut expected = before;
        expected[5] = 10;
        expected[10] = 20;
        assert_eq!(shown, grey(&expected));
        // Nothing differs: one transparent pixel.
        let f = changed_part(&grey(&expected), &mut shown, 4);
        assert_eq!((f.width, f.height, &*f.buffer), (1, 1, &[0][..]));
        assert_eq!(f.transparent, Some(0));
        // The first frame: everything, nothing transparent.
        let mut shown = Vec::new();
        let f = changed_part(&grey(&now), &mut shown, 4);
        assert_eq!((f.left, f.top, f.width, f.height), (0, 0, 4, 3));
        assert_eq!(f.transparent, None);
        let palette = f.palette.unwrap();
        for (i, &level) in f.buffer.iter().zip(&now) {
            assert_eq!(palette[3 * usize::from(*i)], level);
        }
        assert_eq!(shown, grey(&now));
    }

    #[test]
    fn small_regions_are_learnt_from_every_pixel_large_ones_from_a_sample() {
        assert_eq!(sample_factor(1), 1);
        assert_eq!(sample_factor(SMALL - 1), 1);
        assert_eq!(sample_factor(SMALL), SAMPLE_FACTOR);
        assert_eq!(sample_factor(800 * 600), SAMPLE_FACTOR);
    }

    #[test]
    fn a_pixel_shown_wrong_is_drawn_again_though_its_source_did_not_change() {
        // The source is still; pixel 2 shows a colour 7 levels off (quantized badly before).
        let source = grey(&[50, 60, 70, 80]);
        let mut shown = source.clone();
        shown[8] = 70 - TOLERANCE - 1;
        let f = changed_part(&source, &mut shown, 4);
        assert_eq!((f.left, f.top, f.width, f.height), (2, 0, 1, 1));
        assert_eq!(shown, source);
    }

    #[test]
    fn a_many_coloured_frame_gets_a_learnt_palette_close_to_its_colours() {
        // A 64 × 64 gradient of 4096 colours: NeuQuant's 255 colours, each pixel within a few
        // levels of its own.
        let rgba: Vec<u8> = (0..64 * 64)
            .flat_map(|i| [(i % 64 * 4) as u8, (i / 64 * 4) as u8, 128, 255])
            .collect();
        let palette = Palette::of(&rgba);
        assert!(matches!(palette, Palette::Learnt(_)));
        let rgb = palette.rgb();
        let (mut worst, mut sum) = (0, 0.0);
        for px in rgba.chunks(4) {
            let i = usize::from(palette.index(px));
            assert_ne!(i, usize::from(TRANSPARENT));
            let off = (0..3)
                .map(|c| rgb[3 * i + c].abs_diff(px[c]))
                .max()
                .unwrap();
            worst = worst.max(off);
            sum += f64::from(off);
        }
        // 255 square cells tiling the 256 × 256 square of red and green are s = 256 / √255 ≈ 16
        // levels a side; a colour uniform in its cell is max(|dr|, |dg|) = s / 3 ≈ 5.3 levels
        // from the centre on average. NeuQuant's cells are uneven and trained on few pixels here:
        // within twice that on average, and no colour two cells away.
        let mean = sum / 4096.0;
        let ideal = 256.0 / 255f64.sqrt() / 3.0;
        assert!(
            mean <= 2.0 * ideal && worst <= 32,
            "mean {mean}, worst {worst} levels off"
        );
    }
}
