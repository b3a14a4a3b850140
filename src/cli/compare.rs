//! `flagsim compare`: the integrator lab headless.

use std::io::Write;
use std::path::Path;

use super::device::{gpu_for, on_device};
use super::{CliError, CompareArgs, Result, load_scene, print_stdout};
use crate::lab_report::{CSV_HEADER, Series, Summaries, csv_rows, plot::plot_svg};
use crate::sim::lab::copies::{Lab, check_count};
use crate::sim::runtime::device::DeviceProvider;

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
    if args.resolutions.is_some() {
        return super::study::study(&args, &scene);
    }
    if let Some(p) = &args.plot
        && !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(CliError::BadInput(format!(
            "--plot: {} must end in .svg",
            p.display()
        )));
    }
    let Some(copies) = &args.integrators else {
        return Err(CliError::BadInput(
            "--integrators: give 2 to 4 copies to compare (or --resolutions for a resolution \
             study)"
                .into(),
        ));
    };
    check_count(copies.0.len()).map_err(|e| CliError::BadInput(format!("--integrators: {e}")))?;
    let specs = on_device(&copies.0, args.device);
    let provider = gpu_for(&specs)?;
    let provider = provider.as_ref().map(|p| p as &dyn DeviceProvider);
    let mut lab = Lab::new_on(&scene, &specs, provider)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?;
    if args.reference {
        lab = lab
            .with_reference(&scene)
            .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scene)))?;
    }
    let ticks = ((args.seconds / lab.dt).round() as u64).max(1);
    let to_stdout = args.csv.as_deref() == Some(Path::new("-"));
    let mut summaries = Summaries::new(&lab);
    let mut series = args.plot.as_ref().map(|_| Series::new(&lab, PLOT_SAMPLES));
    let mut run = |out: Option<&mut dyn Write>| {
        run_lab(&mut lab, ticks, &mut summaries, series.as_mut(), out)
    };
    match &args.csv {
        None => run(None).map_err(|e| CliError::write("the lab", e))?,
        Some(_) if to_stdout => {
            let mut out = std::io::stdout().lock();
            run(Some(&mut out)).map_err(|e| CliError::write("stdout", e))?;
        }
        Some(path) => crate::files::write_with(path, |out| run(Some(out as &mut dyn Write)))
            .map_err(|e| CliError::write(format!("the CSV {}", path.display()), e))?,
    }
    let reference = match lab.reference.as_deref() {
        None => String::new(),
        Some(r) => format!(
            "distances from a reference copy: {}, {} substeps, CG to {:e}, no strain limiting{}\n",
            r.params().integrator.name(),
            r.params().substeps,
            r.params().cg.tolerance,
            match &r.divergence {
                Some(d) => format!(" (it stopped: {d})"),
                None => String::new(),
            }
        ),
    };
    let table = format!(
        "{} copies of {} for {:.3} s ({ticks} lab steps of {} s)\n{reference}{}",
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
        crate::files::write_atomically(path, plot_svg(series, &title).as_bytes())
            .map_err(|e| CliError::write(format!("the plot {}", path.display()), e))?;
        log::info!("compare: wrote {}", path.display());
    }
    Ok(())
}

/// Runs `ticks` lab steps, adding each to the summaries and the plot's series and, with `out`,
/// writing the CSV (its header first).
fn run_lab(
    lab: &mut Lab,
    ticks: u64,
    summaries: &mut Summaries,
    mut series: Option<&mut Series>,
    mut out: Option<&mut dyn Write>,
) -> std::io::Result<()> {
    if let Some(out) = out.as_mut() {
        out.write_all(CSV_HEADER.as_bytes())?;
    }
    let bar = super::progress::bar(ticks, "flagsim compare");
    for _ in 0..ticks {
        lab.tick();
        bar.inc(1);
        summaries.add(lab);
        if let Some(series) = series.as_mut() {
            series.add(lab);
        }
        if let Some(out) = out.as_mut() {
            out.write_all(csv_rows(lab).as_bytes())?;
        }
    }
    bar.finish_and_clear();
    if let Some(out) = out {
        out.flush()?;
    }
    Ok(())
}
