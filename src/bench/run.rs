//! One whole run of the suite: how much to measure, the report, the machine it ran on.

use super::{
    Accuracy, FrameSplit, Parallel, PublishCost, Ratio, Scaling, Stability, Stat, StepCost,
    Upsampling, WaveletSaving, accuracy, frame_split, parallel, publish_costs, ratios, scaling,
    stability, step_costs, upsampling, wavelet,
};
use crate::render::device::gpu::GpuContext;
use serde::Serialize;

/// How much to measure.
#[derive(Debug, Clone, Copy)]
pub struct BenchConfig {
    pub quick: bool,
}

impl BenchConfig {
    pub(super) fn repeats(self) -> usize {
        if self.quick { 2 } else { 7 }
    }
    pub(super) fn grid_sizes(self) -> Vec<usize> {
        if self.quick {
            vec![10, 16]
        } else {
            vec![10, 16, 32, 64, 128, 256, 512]
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
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
pub(crate) fn run(cfg: BenchConfig, mut progress: impl FnMut(&str)) -> Report {
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
    let parallel = parallel(&cfg);
    progress("stability");
    let stability = stability(cfg);
    progress("accuracy against the filter");
    let (accuracy_vs_h2k_over_m, accuracy_vs_resolution) = accuracy(&cfg);
    progress("wavelet interpolation");
    let wavelet = wavelet(&cfg);
    progress("GPU");
    let gpu = GpuContext::new_headless();
    let gpu_note = gpu.as_ref().err().map(std::string::ToString::to_string);
    let gpu = gpu.ok();
    progress("upsampling");
    let upsampling = upsampling(&cfg, gpu.as_ref());
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
