//! The scaling plot as SVG.

use super::Report;
use crate::sim::IntegratorKind;

/// One colour and one marker per integrator, in `IntegratorKind::ALL` order: the Okabe–Ito
/// palette (distinguishable with any common colour-vision deficiency) plus black, grey and wine, and a
/// different marker for each, so no two lines look alike even in grey.
pub(crate) const STYLES: [(&str, Marker); IntegratorKind::ALL.len()] = [
    ("#D55E00", Marker::Circle),       // kang: vermilion
    ("#0072B2", Marker::Square),       // explicit-euler: blue
    ("#009E73", Marker::Triangle),     // symplectic-euler: bluish green
    ("#CC79A7", Marker::Diamond),      // verlet: reddish purple
    ("#E69F00", Marker::Cross),        // implicit-cg: orange
    ("#56B4E9", Marker::Plus),         // desbrun: sky blue
    ("#000000", Marker::Star),         // hybrid: black
    ("#F0E442", Marker::TriangleDown), // xpbd: yellow
    ("#7F7F7F", Marker::Ring),         // choi-ko: grey
    ("#882255", Marker::Hexagon),      // kang-mg: wine (Tol's muted palette)
    ("#44AA99", Marker::SquareRing),   // implicit-mg: teal (Tol's muted palette)
];

/// A point marker of the plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
    Plus,
    Star,
    TriangleDown,
    Ring,
    Hexagon,
    /// An open square.
    SquareRing,
}

/// The SVG of `marker` at `(x, y)` in colour `c`.
fn marker(m: Marker, x: f64, y: f64, c: &str) -> String {
    let r = 4.0;
    let poly = |pts: &[(f64, f64)]| {
        let p: Vec<String> = pts
            .iter()
            .map(|(dx, dy)| format!("{:.1},{:.1}", x + dx, y + dy))
            .collect();
        format!(r#"<polygon points="{}" fill="{c}"/>"#, p.join(" "))
    };
    let line = |x1: f64, y1: f64, x2: f64, y2: f64| {
        format!(
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="2"/>"#,
            x + x1,
            y + y1,
            x + x2,
            y + y2
        )
    };
    match m {
        Marker::Circle => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{c}"/>"#),
        Marker::Ring => format!(
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="white" stroke="{c}" stroke-width="2"/>"#
        ),
        Marker::Square => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{}" height="{}" fill="{c}"/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        Marker::SquareRing => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{}" height="{}" fill="white" stroke="{c}" stroke-width="2"/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        Marker::Triangle => poly(&[(0.0, -r - 1.0), (r + 1.0, r), (-r - 1.0, r)]),
        Marker::TriangleDown => poly(&[(0.0, r + 1.0), (r + 1.0, -r), (-r - 1.0, -r)]),
        Marker::Diamond => poly(&[
            (0.0, -r - 1.0),
            (r + 1.0, 0.0),
            (0.0, r + 1.0),
            (-r - 1.0, 0.0),
        ]),
        Marker::Hexagon => poly(&[
            (r + 1.0, 0.0),
            (0.5 * (r + 1.0), 0.87 * (r + 1.0)),
            (-0.5 * (r + 1.0), 0.87 * (r + 1.0)),
            (-r - 1.0, 0.0),
            (-0.5 * (r + 1.0), -0.87 * (r + 1.0)),
            (0.5 * (r + 1.0), -0.87 * (r + 1.0)),
        ]),
        Marker::Cross => line(-r, -r, r, r) + &line(-r, r, r, -r),
        Marker::Plus => line(-r - 1.0, 0.0, r + 1.0, 0.0) + &line(0.0, -r - 1.0, 0.0, r + 1.0),
        Marker::Star => {
            line(-r - 1.0, 0.0, r + 1.0, 0.0) + &line(-r, -r, r, r) + &line(-r, r, r, -r)
        }
    }
}

/// A log-log plot of time per step against node count, one line per integrator, as SVG.
pub(crate) fn plot_svg(r: &Report) -> String {
    // Plot area from `m` to `w - right` (the legend sits in the right margin).
    let (w, h, m, right) = (900.0, 480.0, 70.0, 170.0);
    let top = m + 16.0;
    let pts: Vec<(f64, f64)> = r
        .step_cost
        .iter()
        .map(|c| ((c.nodes as f64).log10(), c.seconds_per_step.median.log10()))
        .collect();
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (x0, x1, y0, y1) = (x0.floor(), x1.ceil(), y0.floor(), y1.ceil());
    let sx = |x: f64| m + (x - x0) / (x1 - x0).max(1e-9) * (w - m - right);
    let sy = |y: f64| h - m - (y - y0) / (y1 - y0).max(1e-9) * (h - 2.0 * m);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>"#
    );
    let mut e = x0;
    while e <= x1 + 1e-9 {
        s += &format!(
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">1e{4}</text>"##,
            sx(e),
            m,
            h - m,
            h - m + 18.0,
            e as i32
        );
        e += 1.0;
    }
    let mut e = y0;
    while e <= y1 + 1e-9 {
        s += &format!(
            r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">1e{5} s</text>"##,
            m,
            sy(e),
            w - m,
            m - 6.0,
            sy(e) + 4.0,
            e as i32
        );
        e += 1.0;
    }
    s += &format!(
        r#"<text x="{}" y="{}" text-anchor="middle">nodes</text><text x="{}" y="24" text-anchor="middle" font-size="14">time per step against node count (log-log), {}</text>"#,
        w / 2.0,
        h - 20.0,
        w / 2.0,
        r.machine
    );
    for (k, kind) in IntegratorKind::ALL.iter().enumerate() {
        let line: Vec<(f64, f64)> = r
            .step_cost
            .iter()
            .filter(|c| c.integrator == kind.name())
            .map(|c| {
                (
                    sx((c.nodes as f64).log10()),
                    sy(c.seconds_per_step.median.log10()),
                )
            })
            .collect();
        if line.is_empty() {
            continue;
        }
        let (c, mark) = STYLES[k];
        let path: Vec<String> = line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        s += &format!(
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for (x, y) in &line {
            s += &marker(mark, *x, *y, c);
        }
        let ly = top + 18.0 * k as f64;
        s += &marker(mark, w - right + 16.0, ly - 4.0, c);
        s += &format!(
            r#"<text x="{}" y="{ly}">{}</text>"#,
            w - right + 28.0,
            kind.name()
        );
    }
    // A slope-1 guide through kang's first point.
    if let Some(c) = r.step_cost.iter().find(|c| c.integrator == "kang") {
        let (lx, ly) = ((c.nodes as f64).log10(), c.seconds_per_step.median.log10());
        s += &format!(
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#999" stroke-dasharray="4 4"/>"##,
            sx(lx),
            sy(ly),
            sx(x1),
            sy(ly + (x1 - lx))
        );
    }
    s += "</svg>\n";
    s
}

#[cfg(test)]
mod tests {
    use super::STYLES;

    #[test]
    fn every_integrator_has_its_own_colour_and_marker() {
        for (i, a) in STYLES.iter().enumerate() {
            for b in &STYLES[i + 1..] {
                assert!(a.0 != b.0 && a.1 != b.1, "{a:?} and {b:?}");
            }
        }
    }
}
