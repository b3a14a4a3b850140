//! The live plots' points decimated to what a plot shows: at most about two a pixel, so the
//! plots cost the same to lay out every frame whatever their window.

use std::collections::VecDeque;

use egui_plot::PlotPoint;

/// One quantity of one trace, decimated as it is recorded, to what a plot shows: time is cut
/// into columns of a fixed width (on a grid fixed in time, so a column never moves as the
/// window slides), and each column is kept as its lowest and its highest point (the first of
/// equals), in the order they came; the newest column also keeps its last point. `egui_plot`
/// draws the points within one pixel as a band from the lowest to the highest, so with columns
/// narrower than a pixel the picture is the same (but for the oldest column, which the window
/// cuts), and the points laid out every frame are at most about two a pixel, whatever the
/// window. Points with a non-finite value are left out.
#[derive(Debug, Clone, Default)]
pub(super) struct Decimated {
    /// The closed columns' points, oldest first.
    points: VecDeque<[f64; 2]>,
    /// The newest column, still filling: its number and its lowest, highest and last points.
    open: Option<(i64, [[f64; 2]; 3])>,
}

impl Decimated {
    /// Takes in `p`, in columns `width` seconds wide (with no width, every point is kept).
    pub(super) fn push(&mut self, p: [f64; 2], width: f64) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return;
        }
        if width.is_nan() || width <= 0.0 {
            self.points.push_back(p);
            return;
        }
        let column = (p[0] / width).floor() as i64;
        match &mut self.open {
            Some((c, [lo, hi, last])) if *c == column => {
                if p[1] < lo[1] {
                    *lo = p;
                }
                if p[1] > hi[1] {
                    *hi = p;
                }
                *last = p;
            }
            open => {
                if let Some((_, [lo, hi, _])) = open.take() {
                    let (a, b) = if lo[0] <= hi[0] { (lo, hi) } else { (hi, lo) };
                    self.points.push_back(a);
                    if b != a {
                        self.points.push_back(b);
                    }
                }
                *open = Some((column, [p; 3]));
            }
        }
    }

    /// Drops the closed columns' points older than `oldest` (the open column holds the newest
    /// points, so it stays).
    pub(super) fn trim(&mut self, oldest: f64) {
        while self.points.front().is_some_and(|p| p[0] < oldest) {
            self.points.pop_front();
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.points.is_empty() && self.open.is_none()
    }

    /// The points to draw, in order of time.
    pub(super) fn series(&self) -> Vec<PlotPoint> {
        let mut out: Vec<PlotPoint> = self.points.iter().map(|&p| PlotPoint::from(p)).collect();
        if let Some((_, [lo, hi, last])) = self.open {
            let (a, b) = if lo[0] <= hi[0] { (lo, hi) } else { (hi, lo) };
            for p in [a, b, last] {
                if out.last().is_none_or(|q| [q.x, q.y] != p) {
                    out.push(PlotPoint::from(p));
                }
            }
        }
        out
    }
}

/// `points` (in order of time) as the plots draw them with columns `width` seconds wide: see
/// [`Decimated`].
#[cfg(test)]
pub(crate) fn decimate(points: impl IntoIterator<Item = [f64; 2]>, width: f64) -> Vec<PlotPoint> {
    let mut d = Decimated::default();
    for p in points {
        d.push(p, width);
    }
    d.series()
}

#[cfg(test)]
mod tests {
    use super::decimate;

    #[test]
    fn a_column_keeps_its_lowest_and_highest_point_in_the_order_they_came() {
        // Columns 1 s wide. [0, 1): four points, the highest (0.2, 5) before the lowest
        // (0.4, -3); [1, 2): one point; [2, 3), the newest: two equal points, so its lowest
        // and highest are the first of them, and its last point is kept too.
        let points = [
            [0.0, 1.0],
            [0.2, 5.0],
            [0.4, -3.0],
            [0.6, 2.0],
            [1.5, 0.0],
            [2.1, 4.0],
            [2.5, 4.0],
        ];
        let kept: Vec<[f64; 2]> = decimate(points, 1.0).iter().map(|p| [p.x, p.y]).collect();
        assert_eq!(
            kept,
            [[0.2, 5.0], [0.4, -3.0], [1.5, 0.0], [2.1, 4.0], [2.5, 4.0]]
        );
        // The lowest before the highest keeps that order.
        let kept: Vec<[f64; 2]> = decimate([[0.0, 2.0], [0.5, -1.0], [0.7, 3.0], [1.2, 0.0]], 1.0)
            .iter()
            .map(|p| [p.x, p.y])
            .collect();
        assert_eq!(kept, [[0.5, -1.0], [0.7, 3.0], [1.2, 0.0]]);
    }

    #[test]
    fn of_equal_points_a_column_keeps_the_first() {
        // [0, 1): three equal values, so its lowest and highest are both the first, kept once.
        let kept: Vec<[f64; 2]> = decimate([[0.1, 3.0], [0.5, 3.0], [0.9, 3.0], [1.5, 0.0]], 1.0)
            .iter()
            .map(|p| [p.x, p.y])
            .collect();
        assert_eq!(kept, [[0.1, 3.0], [1.5, 0.0]]);
    }

    #[test]
    fn non_finite_points_are_left_out_and_no_width_keeps_every_point() {
        let nan = f64::NAN;
        let points = [
            [0.0, 1.0],
            [1.0, nan],
            [2.0, f64::INFINITY],
            [nan, 3.0],
            [3.0, 2.0],
            [3.1, 2.5],
        ];
        for width in [0.0, 10.0] {
            let kept: Vec<[f64; 2]> = decimate(points, width).iter().map(|p| [p.x, p.y]).collect();
            let expected: &[[f64; 2]] = if width == 0.0 {
                &[[0.0, 1.0], [3.0, 2.0], [3.1, 2.5]]
            } else {
                // One column: lowest (0, 1), highest (3.1, 2.5), and it is the last point.
                &[[0.0, 1.0], [3.1, 2.5]]
            };
            assert_eq!(kept, expected, "width {width}");
        }
    }

    #[test]
    fn every_column_shows_the_extremes_of_its_points_with_at_most_two_kept() {
        // A jagged signal, 10 000 points over 100 s, in columns of 0.25 s.
        let (width, n) = (0.25, 10_000);
        let points: Vec<[f64; 2]> = (0..n)
            .map(|i| {
                let t = f64::from(i) * 0.01;
                [
                    t,
                    (t * 7.3).sin() + 0.3 * (t * 131.0).sin() + f64::from(i % 7) * 0.05,
                ]
            })
            .collect();
        let kept = decimate(points.iter().copied(), width);
        let columns = (100.0 / width) as usize;
        assert!(kept.len() <= 2 * columns + 1, "{} points kept", kept.len());
        assert!(kept.windows(2).all(|w| w[0].x <= w[1].x), "out of order");
        assert!(
            kept.iter().all(|k| points.contains(&[k.x, k.y])),
            "a kept point is not one of the points"
        );
        let extremes = |ps: &mut dyn Iterator<Item = [f64; 2]>, c: i64| {
            ps.filter(|p| (p[0] / width).floor() as i64 == c)
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(p[1]), hi.max(p[1]))
                })
        };
        for c in 0..columns as i64 {
            assert_eq!(
                extremes(&mut kept.iter().map(|p| [p.x, p.y]), c),
                extremes(&mut points.iter().copied(), c),
                "column {c}"
            );
        }
    }
}
