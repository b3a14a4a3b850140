//! The CSV: one row per lab step and copy, and the copies' colours.

use crate::sim::lab::copies::Lab;
use std::fmt::Write as _;

/// The copies' colours, in copy order: the first four of the Okabe–Ito palette (told apart
/// with any common colour-vision deficiency). The viewer's labels and plots use them too.
pub(crate) const COPY_COLOURS: [[u8; 3]; 4] = [
    [0xD5, 0x5E, 0x00], // vermilion
    [0x00, 0x72, 0xB2], // blue
    [0x00, 0x9E, 0x73], // bluish green
    [0xCC, 0x79, 0xA7], // reddish purple
];

/// The CSV's first line. The distance columns are empty when the lab has no reference.
pub(crate) const CSV_HEADER: &str = "time,integrator,kinetic_energy,max_strain,step_us,diverged,\
shortest_edge,short_edges,rms_distance_m,max_distance_m\n";

/// The CSV rows of the lab's latest samples, one per copy.
pub(crate) fn csv_rows(lab: &Lab) -> String {
    let mut out = String::new();
    for copy in &lab.copies {
        let s = &copy.sample;
        // `{:e}`/`{}` print the shortest text that reads back to the same f64.
        let (rms, max) = s.distance.map_or((String::new(), String::new()), |d| {
            (format!("{:e}", d.rms), format!("{:e}", d.max))
        });
        let _ = writeln!(
            out,
            "{},{},{:e},{},{:.3},{},{},{},{rms},{max}",
            s.time,
            copy.spec,
            s.kinetic_energy,
            s.max_strain,
            s.step_seconds * 1e6,
            s.diverged,
            s.shortest_edge,
            s.short_edges
        );
    }
    out
}
