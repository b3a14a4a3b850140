//! The lab's plots as SVG: kinetic energy, max strain and step time against simulated time,
//! and with a reference copy each copy's RMS distance from it; one panel each, one line per
//! copy in its colour.

use std::fmt::Write as _;

use super::{COPY_COLOURS, Series};
use crate::sim::lab::copies::Sample;

/// One plotted quantity: its title, unit and how to read it from a sample.
struct Quantity {
    title: &'static str,
    unit: &'static str,
    value: fn(&Sample) -> f64,
}

/// The panel of distances from the reference, drawn when the lab had one.
const DISTANCE: Quantity = Quantity {
    title: "RMS distance from the reference",
    unit: "cm",
    value: |s| s.distance.map_or(f64::NAN, |d| 100.0 * d.rms),
};

const QUANTITIES: [Quantity; 3] = [
    Quantity {
        title: "kinetic energy",
        unit: "J",
        value: |s| s.kinetic_energy,
    },
    Quantity {
        title: "max strain",
        unit: "|x|/L",
        value: |s| s.max_strain,
    },
    Quantity {
        title: "step time",
        unit: "µs",
        value: |s| s.step_seconds * 1e6,
    },
];

/// `#rrggbb` of copy `i`'s colour.
pub(crate) fn hex(i: usize) -> String {
    let [r, g, b] = COPY_COLOURS[i % COPY_COLOURS.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A round step for about `n` ticks across `span`: 1, 2 or 5 times a power of ten.
fn tick_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(f64::MIN_POSITIVE);
    let decade = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * decade)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * decade)
}

/// The plot's size and margins, px, and its time axis.
struct Layout {
    width: f64,
    panel_height: f64,
    left: f64,
    right: f64,
    top: f64,
    /// The last sample's time, s: the right end of the time axis.
    t_end: f64,
}

impl Layout {
    /// The x of simulated time `t`.
    fn x(&self, t: f64) -> f64 {
        self.left + t / self.t_end * (self.width - self.left - self.right)
    }

    fn centre(&self) -> f64 {
        f64::midpoint(self.width - self.right, self.left)
    }
}

/// The three panels stacked, with a legend, as an SVG document.
pub(crate) fn plot_svg(series: &Series, title: &str) -> String {
    let t_end = series
        .samples
        .iter()
        .filter_map(|s| s.last())
        .map(|s| s.time)
        .fold(0.0, f64::max)
        .max(1e-9);
    let l = Layout {
        width: 900.0,
        panel_height: 220.0,
        left: 80.0,
        right: 170.0,
        top: 50.0,
        t_end,
    };
    let with_reference = series
        .samples
        .iter()
        .flatten()
        .any(|s| s.distance.is_some());
    let mut panels: Vec<&Quantity> = QUANTITIES.iter().collect();
    if with_reference {
        panels.push(&DISTANCE);
    }
    let (w, h) = (l.width, l.top + l.panel_height * panels.len() as f64 + 40.0);
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/><text x="{}" y="26" text-anchor="middle" font-size="15">{}</text>"#,
        l.centre(),
        escape(title)
    );
    for (p, q) in panels.into_iter().enumerate() {
        panel(&mut svg, &l, series, q, l.top + p as f64 * l.panel_height);
    }
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">simulated time (s)</text>"#,
        l.centre(),
        h - 12.0
    );
    let legend = w - l.right;
    for (i, label) in series.labels.iter().enumerate() {
        let y = l.top + 20.0 + 20.0 * i as f64;
        let _ = write!(
            svg,
            r#"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}" stroke-width="3"/><text x="{4}" y="{5}">{6}</text>"#,
            legend + 14.0,
            y,
            legend + 38.0,
            hex(i),
            legend + 44.0,
            y + 4.0,
            escape(label)
        );
    }
    svg += "</svg>\n";
    svg
}

/// The range of `q` over every copy's finite values, widened when it is a single value.
fn value_range(series: &Series, q: &Quantity) -> (f64, f64) {
    // Finite values only: a copy that blew up before the guard caught it must not flatten
    // the others' lines.
    let values = series
        .samples
        .iter()
        .flatten()
        .map(q.value)
        .filter(|v| v.is_finite());
    let (mut v0, mut v1) = values.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if v0 > v1 {
        (v0, v1) = (0.0, 1.0);
    }
    if v1 - v0 < 1e-12 * v1.abs().max(1e-12) {
        (v0, v1) = (v0 - 0.5 * v0.abs().max(1e-9), v1 + 0.5 * v1.abs().max(1e-9));
    }
    (v0, v1)
}

/// One panel, `q` against time, from `y_top` down: title, grid, tick labels and a line per
/// copy (up to its divergence).
fn panel(svg: &mut String, l: &Layout, series: &Series, q: &Quantity, y_top: f64) {
    let (y_lo, y_hi) = (y_top + 28.0, y_top + l.panel_height - 30.0);
    let (left, right_end) = (l.left, l.width - l.right);
    let (v0, v1) = value_range(series, q);
    let sy = |v: f64| y_hi - (v - v0) / (v1 - v0) * (y_hi - y_lo);
    let _ = write!(
        svg,
        r#"<text x="{left}" y="{}" font-size="13">{} ({})</text>"#,
        y_top + 12.0,
        q.title,
        q.unit
    );
    let step = tick_step(v1 - v0, 4.0);
    let mut v = (v0 / step).ceil() * step;
    while v <= v1 + step * 1e-9 {
        let _ = write!(
            svg,
            r##"<line x1="{left}" y1="{0:.1}" x2="{right_end}" y2="{0:.1}" stroke="#ddd"/><text x="{1}" y="{2:.1}" text-anchor="end">{3}</text>"##,
            sy(v),
            left - 6.0,
            sy(v) + 4.0,
            number(v)
        );
        v += step;
    }
    let t_step = tick_step(l.t_end, 8.0);
    let mut t = 0.0;
    while t <= l.t_end + t_step * 1e-9 {
        let _ = write!(
            svg,
            r##"<line x1="{0:.1}" y1="{y_lo}" x2="{0:.1}" y2="{y_hi}" stroke="#eee"/><text x="{0:.1}" y="{1}" text-anchor="middle">{2}</text>"##,
            l.x(t),
            y_hi + 15.0,
            number(t)
        );
        t += t_step;
    }
    for (i, samples) in series.samples.iter().enumerate() {
        let points: Vec<String> = samples
            .iter()
            .filter(|s| !s.diverged && (q.value)(s).is_finite())
            .map(|s| format!("{:.1},{:.1}", l.x(s.time), sy((q.value)(s))))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
            hex(i),
            points.join(" ")
        );
    }
}

/// A tick label: plain for moderate numbers, scientific for very large or small ones.
fn number(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e4 || v.abs() < 1e-3 {
        format!("{v:.1e}")
    } else {
        // Round away the step's accumulated error (0.30000000000000004).
        let text = format!("{v:.6}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_one_two_or_five_times_a_power_of_ten() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
        assert!(close(tick_step(10.0, 8.0), 2.0));
        assert!(close(tick_step(1.0, 4.0), 0.5));
        assert!(close(tick_step(0.03, 4.0), 0.01));
        assert!(close(tick_step(700.0, 4.0), 200.0));
    }

    #[test]
    fn labels_read_as_written() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(12000.0), "1.2e4");
        assert_eq!(hex(1), "#0072b2");
    }
}
