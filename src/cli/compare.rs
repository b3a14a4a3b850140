//! `flagsim compare`: the integrator lab headless.

use std::io::{BufWriter, Write};
use std::path::Path;

use super::{CliError, CompareArgs, Result, load_scene, print_stdout};
use crate::lab::{CSV_HEADER, Series, Summaries, csv_rows, plot::plot_svg};
use crate::sim::lab::Lab;

/// The longest run `--seconds` takes, s.
const MAX_SECONDS: f64 = 3600.0;

/// Samples per copy the plot keeps at most (about two per horizontal pixel).
const PLOT_SAMPLES: usize = 2048;

pub(super) fn compare(args: CompareArgs) -> Result<()> {
    let scene = load_scene(&args.scene, None)?;
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= MAX_SECONDS) {
        return Err(CliError::BadInput(format!(
            "--seconds: must be more than 0 and at most {MAX_SECONDS}, got {}",
            args.seconds
        )));
    }
    if let Some(p) = &args.plot
        && !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(CliError::BadInput(format!(
            "--plot: {} must end in .svg",
            p.display()
        )));
    }
    let mut lab = Lab::new(&scene, &args.integrators.0)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?;
    let ticks = ((args.seconds / lab.dt).round() as u64).max(1);
    let to_stdout = args.csv.as_deref() == Some(Path::new("-"));
    let mut csv: Option<(String, Box<dyn Write>)> = match &args.csv {
        None => None,
        Some(_) if to_stdout => Some(("stdout".into(), Box::new(std::io::stdout().lock()))),
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| CliError::write(format!("the CSV {}", path.display()), e))?;
            Some((
                format!("the CSV {}", path.display()),
                Box::new(BufWriter::new(file)),
            ))
        }
    };
    let mut summaries = Summaries::new(&lab);
    let mut series = args.plot.as_ref().map(|_| Series::new(&lab, PLOT_SAMPLES));
    if let Some((what, out)) = &mut csv {
        out.write_all(CSV_HEADER.as_bytes())
            .map_err(|e| CliError::write(&*what, e))?;
    }
    for _ in 0..ticks {
        lab.tick();
        summaries.add(&lab);
        if let Some(series) = &mut series {
            series.add(&lab);
        }
        if let Some((what, out)) = &mut csv {
            out.write_all(csv_rows(&lab).as_bytes())
                .map_err(|e| CliError::write(&*what, e))?;
        }
    }
    if let Some((what, mut out)) = csv {
        out.flush().map_err(|e| CliError::write(what, e))?;
    }
    let table = format!(
        "{} copies of {} for {:.3} s ({ticks} lab steps of {} s)\n{}",
        lab.copies.len(),
        args.scene,
        lab.time(),
        lab.dt,
        summaries.table()
    );
    if to_stdout {
        eprint!("{table}");
    } else {
        print_stdout(&table)?;
    }
    if let (Some(path), Some(series)) = (&args.plot, &series) {
        let title = format!("{}: {}", args.scene, series.labels.join(" vs "));
        std::fs::write(path, plot_svg(series, &title))
            .map_err(|e| CliError::write(format!("the plot {}", path.display()), e))?;
        eprintln!("flagsim compare: wrote {}", path.display());
    }
    Ok(())
}
