//! `flagsim bench`: the paper's claims and flagsim's own costs measured side by side on this
//! machine. Every timing is the median of repeated runs, reported with its spread (min … max).
//!
//! Sections: cost per step of every integrator against grid size (and the ratios the paper
//! argues about), the log-log scaling slope of `kang`, the rayon path against the serial one,
//! the largest stable `dt` of every integrator, `kang`'s agreement with the precomputed filter
//! (Fig. 8) as `h²k/m` grows and as the grid is refined, CPU against GPU upsampling, and the
//! viewer's frame split into its parts.

mod frame;
pub mod gpu_sim;
mod plot;
mod report;
mod stability;
mod stats;
mod suite;

use serde::Serialize;

pub use crate::sim::stability::RUNAWAY_STRAIN;
pub use frame::{
    FlagChanges, FrameSplit, GpuShare, PlotsCost, PlotsFrame, frame_split, frame_split_of,
};
pub use plot::plot_svg;
pub use report::{frame_table, table};
pub use stability::{Stability, stability};
pub use stats::Stat;
pub use suite::{
    Accuracy, Parallel, PublishCost, Ratio, Scaling, StepCost, Upsampling, WaveletSaving, accuracy,
    parallel, publish_costs, ratios, scaling, square_flag, step_costs, thesis_scene, upsampling,
    wavelet,
};

use crate::render::gpu::GpuContext;

/// How much to measure.
#[derive(Debug, Clone, Copy)]
pub struct BenchConfig {
    pub quick: bool,
}

impl BenchConfig {
    fn repeats(self) -> usize {
        if self.quick { 2 } else { 7 }
    }
    fn grid_sizes(self) -> Vec<usize> {
        if self.quick {
            vec![10, 16]
        } else {
            vec![10, 16, 32, 64, 128, 256, 512]
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub machine: String,
    pub quick: bool,
    pub step_cost: Vec<StepCost>,
    pub publish_cost: Vec<PublishCost>,
    pub kang_10x10_seconds: Stat,
    pub ratios: Vec<Ratio>,
    pub scaling: Scaling,
    pub parallel: Parallel,
    pub stability: Vec<Stability>,
    pub accuracy_vs_h2k_over_m: Vec<Accuracy>,
    pub accuracy_vs_resolution: Vec<Accuracy>,
    pub upsampling: Vec<Upsampling>,
    pub wavelet: Vec<WaveletSaving>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameSplit>,
    /// Why a GPU section is missing, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_note: Option<String>,
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!(
        "{cpu}, {} threads, {} build",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    )
}

/// Everything, in one run.
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> Report {
    progress("cost per step");
    let step_cost = step_costs(cfg);
    let kang_10x10_seconds = step_cost
        .iter()
        .find(|c| c.integrator == "kang" && c.n == 10)
        .map_or(Stat::of(vec![]), |c| c.seconds_per_step);
    let ratios = ratios(&step_cost, cfg.quick);
    let scaling = scaling(&step_cost, cfg.quick);
    progress("cost per publish");
    let publish_cost = publish_costs(cfg);
    progress("parallel kang");
    let parallel = parallel(cfg);
    progress("stability");
    let stability = stability(cfg);
    progress("accuracy against the filter");
    let (accuracy_vs_h2k_over_m, accuracy_vs_resolution) = accuracy(cfg);
    progress("wavelet interpolation");
    let wavelet = wavelet(cfg);
    progress("GPU");
    let gpu = GpuContext::new_headless();
    let gpu_note = gpu.as_ref().err().map(std::string::ToString::to_string);
    let gpu = gpu.ok();
    progress("upsampling");
    let upsampling = upsampling(cfg, gpu.as_ref());
    progress("viewer frame");
    let frame = gpu.as_ref().and_then(|g| frame_split(cfg, g));
    Report {
        machine: machine(),
        quick: cfg.quick,
        step_cost,
        publish_cost,
        kang_10x10_seconds,
        ratios,
        scaling,
        parallel,
        stability,
        accuracy_vs_h2k_over_m,
        accuracy_vs_resolution,
        upsampling,
        wavelet,
        frame,
        gpu_note,
    }
}
