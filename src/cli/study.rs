//! `flagsim compare SCENE --resolutions 10,32,64`: the resolution study headless.

use std::fmt::Write as _;
use std::path::Path;

use super::device::{gpu_for, on_device};
use super::{CliError, CompareArgs, Result, print_stdout};
use crate::sim::Scene;
use crate::sim::format::scene::GRID_SIDE;
use crate::sim::lab::copies::CopySpec;
use crate::sim::lab::motion::{is_still, relative_difference};
use crate::sim::lab::resolution::{StudyRow, StudySettings, study_grid};
use crate::sim::runtime::device::DeviceProvider;

/// The most copies a grid runs beside its accurate solve.
const MAX_COPIES: usize = 4;

/// The settling time when none is given: a third of the run, at most this, s.
const DEFAULT_SETTLE: f64 = 5.0;

/// The CSV's columns, one row per grid and copy.
pub(super) const STUDY_CSV_HEADER: &str = "nx,ny,copy,sway_m,frequency_hz,reach_m,spread_m,\
shortest_edge,short_edges,distance_m,step_us,diverged,accurate_grid,sway_vs_accurate,\
frequency_vs_accurate,reach_vs_accurate\n";

pub(super) fn study(args: &CompareArgs, scene: &Scene) -> Result<()> {
    let grids = args.resolutions.as_deref().unwrap_or_default();
    let (min, max) = (GRID_SIDE.start(), GRID_SIDE.end());
    if let Some(&bad) = grids.iter().find(|&&n| !GRID_SIDE.contains(&n)) {
        return Err(CliError::BadInput(format!(
            "--resolutions: each grid must be {min} to {max} nodes a side, got {bad}"
        )));
    }
    if scene.cloth.grid.is_none() {
        return Err(CliError::BadInput(format!(
            "{}: cloth.grid: missing: the resolution study changes a grid cloth's key grid",
            args.scene
        )));
    }
    if args.plot.is_some() {
        return Err(CliError::BadInput(
            "--plot: the resolution study writes a table and --csv, not plots".into(),
        ));
    }
    let settle = args
        .settle
        .unwrap_or_else(|| (args.seconds / 3.0).min(DEFAULT_SETTLE));
    if !(settle.is_finite() && settle >= 0.0 && settle < args.seconds) {
        return Err(CliError::BadInput(format!(
            "--settle: must be at least 0 and less than --seconds ({}), got {settle}",
            args.seconds
        )));
    }
    let specs = match &args.integrators {
        Some(copies) => copies.0.clone(),
        None => vec![CopySpec {
            integrator: scene.params.integrator,
            dt: None,
            grid: None,
            device: crate::sim::DeviceChoice::Cpu,
        }],
    };
    if let Some(own) = specs.iter().find(|s| s.grid.is_some()) {
        return Err(CliError::BadInput(format!(
            "--integrators: '{own}' has its own key grid; the resolution study sets every copy's from --resolutions"
        )));
    }
    if specs.len() > MAX_COPIES {
        return Err(CliError::BadInput(format!(
            "--integrators: the resolution study runs 1 to {MAX_COPIES} copies, got {}",
            specs.len()
        )));
    }
    let specs = on_device(&specs, args.device);
    let provider = gpu_for(&specs)?;
    let provider = provider.as_ref().map(|p| p as &dyn DeviceProvider);
    let settings = StudySettings {
        seconds: args.seconds,
        settle,
        reference_up_to: if args.reference {
            args.reference_up_to
        } else {
            0
        },
    };
    let mut rows = Vec::new();
    for &n in grids {
        log::info!("compare: the {n} × {n} grid");
        let grid_rows = study_grid(scene, [n, n], &specs, provider, settings)
            .map_err(|e| CliError::BadInput(format!("{} at {n} × {n}: {e}", args.scene)))?;
        rows.extend(grid_rows);
    }
    let table = format!(
        "resolution study of {}: {} s a grid, measured after {settle} s{}\n{}",
        args.scene,
        args.seconds,
        if args.reference {
            format!("; the accurate solve up to {0} × {0}", args.reference_up_to)
        } else {
            String::new()
        },
        study_table(&rows)
    );
    match args.csv.as_deref() {
        None => print_stdout(&table)?,
        Some(path) if path == Path::new("-") => {
            print_stdout(&study_csv(&rows))?;
            eprint!("{table}");
        }
        Some(path) => {
            crate::files::write_atomically(path, study_csv(&rows).as_bytes())
                .map_err(|e| CliError::write(format!("the CSV {}", path.display()), e))?;
            print_stdout(&table)?;
        }
    }
    Ok(())
}

/// The accurate row a copy's row is compared with: the same grid's, else the finest one run
/// on a coarser grid (the accurate solve's motion does not depend on the grid).
fn accurate_for<'a>(rows: &'a [StudyRow], row: &StudyRow) -> Option<&'a StudyRow> {
    let same = rows
        .iter()
        .find(|r| r.accurate && r.grid == row.grid && r.motion.is_some());
    same.or_else(|| {
        rows.iter()
            .filter(|r| r.accurate && r.motion.is_some() && r.grid[0] <= row.grid[0])
            .max_by_key(|r| r.grid[0])
    })
}

/// Each copy's sway, frequency and reach relative to its accurate row's, and that row's grid.
fn versus(rows: &[StudyRow], row: &StudyRow) -> Option<([usize; 2], [Option<f64>; 3])> {
    if row.accurate {
        return None;
    }
    let (motion, accurate) = (row.motion?, accurate_for(rows, row)?);
    let reference = accurate.motion?;
    Some((
        accurate.grid,
        [
            relative_difference(motion.sway, reference.sway),
            relative_difference(motion.frequency, reference.frequency),
            relative_difference(motion.reach, reference.reach),
        ],
    ))
}

fn percent(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:+.0} %", 100.0 * v))
}

/// The table's sway and frequency beside the accurate solve's: shares of them where the
/// accurate fly edge moves; where it is still ([`is_still`]), "still" for a copy that is too
/// and the copy's sway in mm for one that is not (a share of noise would be thousands of %).
fn motion_versus(
    rows: &[StudyRow],
    row: &StudyRow,
    sway: Option<f64>,
    freq: Option<f64>,
) -> [String; 2] {
    let accurate = accurate_for(rows, row).and_then(|a| a.motion);
    match (row.motion, accurate) {
        (Some(m), Some(a)) if is_still(&a) => {
            if is_still(&m) {
                ["still".into(), "still".into()]
            } else {
                [format!("sways {:.0} mm", 1e3 * m.sway), "-".into()]
            }
        }
        _ => [percent(sway), percent(freq)],
    }
}

/// The study as a table, a row per grid and copy.
pub(super) fn study_table(rows: &[StudyRow]) -> String {
    let mut out = format!(
        "{:<9} {:<14} {:>7} {:>7} {:>7} {:>8} {:>8} {:>7} {:>8} {:>9}  {}\n",
        "grid",
        "copy",
        "sway m",
        "freq Hz",
        "reach m",
        "spread m",
        "shortest",
        "short",
        "dist m",
        "µs/step",
        "vs accurate: sway, freq, reach"
    );
    for row in rows {
        let grid = format!("{}×{}", row.grid[0], row.grid[1]);
        let label = if row.diverged {
            format!("{} (stopped)", row.label)
        } else {
            row.label.clone()
        };
        let _ = write!(out, "{grid:<9} {label:<14} ");
        match row.motion {
            Some(m) => {
                let _ = write!(
                    out,
                    "{:>7.3} {:>7.2} {:>7.3} {:>8.4} {:>8.2} {:>6.1}% ",
                    m.sway,
                    m.frequency,
                    m.reach,
                    m.spread,
                    m.shortest_edge,
                    100.0 * m.short_edges
                );
            }
            None => {
                let _ = write!(
                    out,
                    "{:>7} {:>7} {:>7} {:>8} {:>8} {:>7} ",
                    "-", "-", "-", "-", "-", "-"
                );
            }
        }
        let distance = row.distance.map_or("-".into(), |d| format!("{d:.4}"));
        let step = row
            .step_seconds
            .map_or("-".into(), |s| format!("{:.1}", s * 1e6));
        let _ = write!(out, "{distance:>8} {step:>9}");
        if let Some((grid, [sway, freq, reach])) = versus(rows, row) {
            let at = if grid == row.grid {
                String::new()
            } else {
                format!(" (its {}×{})", grid[0], grid[1])
            };
            let [sway, freq] = motion_versus(rows, row, sway, freq);
            let _ = write!(out, "  {sway}, {freq}, {}{at}", percent(reach));
        }
        out.push('\n');
    }
    out
}

/// The study as CSV ([`STUDY_CSV_HEADER`]).
pub(super) fn study_csv(rows: &[StudyRow]) -> String {
    let mut out = STUDY_CSV_HEADER.to_string();
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    for row in rows {
        let m = row.motion;
        let vs = versus(rows, row);
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            row.grid[0],
            row.grid[1],
            row.label,
            opt(m.map(|m| m.sway)),
            opt(m.map(|m| m.frequency)),
            opt(m.map(|m| m.reach)),
            opt(m.map(|m| m.spread)),
            opt(m.map(|m| m.shortest_edge)),
            opt(m.map(|m| m.short_edges)),
            opt(row.distance),
            opt(row.step_seconds.map(|s| s * 1e6)),
            row.diverged,
            vs.map_or(String::new(), |(g, _)| format!("{}x{}", g[0], g[1])),
            opt(vs.and_then(|(_, v)| v[0])),
            opt(vs.and_then(|(_, v)| v[1])),
            opt(vs.and_then(|(_, v)| v[2])),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::lab::motion::Motion;

    fn row(label: &str, sway: f64, frequency: f64, reach: f64) -> StudyRow {
        StudyRow {
            grid: [10, 10],
            label: label.into(),
            accurate: label == "accurate",
            motion: Some(Motion {
                sway,
                frequency,
                reach,
                spread: 0.01,
                shortest_edge: 0.99,
                short_edges: 0.0,
                samples: 100,
            }),
            diverged: false,
            distance: None,
            step_seconds: None,
        }
    }

    /// The last column of the table's row `k` (after the header).
    fn versus_cell(rows: &[StudyRow], k: usize) -> String {
        let table = study_table(rows);
        let line = table.lines().nth(k + 1).expect("a row");
        line.split("  ").last().expect("cells").trim().to_owned()
    }

    /// Shares of the accurate solve's sway and frequency where its fly edge moves; where it is
    /// still (under 1 mm), "still" for a copy that is still too and the copy's sway in mm for
    /// one that moves. The reach is a share either way.
    #[test]
    fn the_table_compares_sway_and_frequency_only_where_the_accurate_solve_moves() {
        // (0.18 − 0.2) / 0.2 = −10 %, (0.5 − 1) / 1 = −50 %, (1.05 − 1) / 1 = +5 %.
        let moving = [
            row("accurate", 0.2, 1.0, 1.0),
            row("implicit-mg", 0.18, 0.5, 1.05),
        ];
        assert_eq!(versus_cell(&moving, 1), "-10 %, -50 %, +5 %");
        // A sheet at rest: 40 µm of noise at 7 Hz beside 0.3 µm at 0.5 Hz.
        let still = [
            row("accurate", 3e-7, 0.5, 1.0),
            row("implicit-mg", 4e-5, 7.0, 0.99),
            row("kang", 0.235, 0.25, 1.3),
        ];
        assert_eq!(versus_cell(&still, 1), "still, still, -1 %");
        assert_eq!(versus_cell(&still, 2), "sways 235 mm, -, +30 %");
    }
}
