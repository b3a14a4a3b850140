//! `flagsim bench`: the suite, `--frame` and `--gpu-sim`.

use super::{
    BenchArgs, CliError, Result, failed, flag_images, load_scene, print_stdout, write_json,
};

pub(super) fn bench(args: BenchArgs) -> Result<()> {
    if let Some(p) = &args.plot
        && !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(CliError::BadInput(format!(
            "--plot: {} must end in .svg",
            p.display()
        )));
    }
    let cfg = crate::bench::BenchConfig { quick: args.quick };
    if args.frame {
        let device = args.device.unwrap_or(crate::sim::DeviceChoice::Cpu);
        return bench_frame(cfg, args.scene.as_deref(), device, args.json);
    }
    if args.device.is_some() && !args.gpu_sim {
        return Err(CliError::BadInput(
            "--device goes with --frame or --gpu-sim".to_string(),
        ));
    }
    if args.gpu_sim {
        return bench_gpu_sim(&args);
    }
    let spinner = super::progress::spinner("flagsim bench");
    let report = crate::bench::run(cfg, |section| spinner.set_message(section.to_string()));
    spinner.finish_and_clear();
    // The report first: a plot that cannot be written must not lose the measurements.
    if args.json {
        write_json(&report, None)?;
    } else {
        print_stdout(&crate::bench::table(&report))?;
    }
    if let Some(p) = &args.plot {
        crate::files::write_atomically(p, crate::bench::plot_svg(&report).as_bytes())
            .map_err(|e| CliError::write(format!("the plot {}", p.display()), e))?;
        log::info!("bench: wrote {}", p.display());
    }
    Ok(())
}

/// `flagsim bench --gpu-sim`: the simulation on the CPU and on the GPU, side by side.
fn bench_gpu_sim(args: &BenchArgs) -> Result<()> {
    use crate::bench::gpu_sim;
    let mut plan = gpu_sim::GpuSimPlan::new(args.quick);
    if let Some(sizes) = &args.sizes {
        plan.sizes = sizes.iter().map(|&n| n as usize).collect();
    }
    if let Some(n) = args.cpu_up_to {
        plan.cpu_up_to = n as usize;
    }
    if let Some(kind) = args.gpu_integrator {
        plan.integrator = kind;
    }
    match args.device {
        Some(crate::sim::DeviceChoice::Cpu) => {
            plan.gpu = false;
            plan.cpu_up_to = usize::MAX;
        }
        Some(crate::sim::DeviceChoice::Gpu) => plan.cpu_up_to = 0,
        _ => {}
    }
    let gpu = if plan.gpu {
        Some(crate::render::GpuContext::new_headless().map_err(failed)?)
    } else {
        None
    };
    let spinner = super::progress::spinner("flagsim bench --gpu-sim");
    let report = gpu_sim::run(gpu.as_ref(), &plan, |what| {
        spinner.set_message(what.to_string());
    });
    spinner.finish_and_clear();
    // What was measured first, then the reason the run stopped, if it did.
    if args.json {
        write_json(&report, None)?;
    } else {
        print_stdout(&gpu_sim::table(&report))?;
    }
    match report.stopped {
        Some(reason) => Err(failed(format!("bench --gpu-sim stopped at {reason}"))),
        None => Ok(()),
    }
}

/// `flagsim bench --frame`: the viewer's frame split alone, its flags stepping on `device`.
fn bench_frame(
    cfg: crate::bench::BenchConfig,
    scene: Option<&str>,
    device: crate::sim::DeviceChoice,
    json: bool,
) -> Result<()> {
    let name = scene.unwrap_or("flag");
    let mut scene = load_scene(name, None)?;
    // Every flag's image is checked here, before the GPU: a bad one is bad input.
    flag_images(&mut scene, None)?;
    let gpu = crate::render::GpuContext::new_headless().map_err(failed)?;
    let spinner = super::progress::spinner("flagsim bench --frame");
    let split = crate::bench::frame_split_of(cfg, &gpu, name, &scene, device);
    spinner.finish_and_clear();
    gpu.check().map_err(failed)?;
    let split = split.map_err(|e| failed(format!("bench --frame on {name}: {e}")))?;
    if json {
        write_json(&split, None)
    } else {
        print_stdout(&crate::bench::frame_table(&split))
    }
}
