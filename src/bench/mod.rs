//! `flagsim bench`: the paper's claims and flagsim's own costs measured side by side on this
//! machine. Every timing is the median of repeated runs, reported with its spread (min … max).
//!
//! Sections: cost per step of every integrator against grid size (and the ratios the paper
//! argues about), the log-log scaling slope of `kang`, the rayon path against the serial one,
//! the largest stable `dt` of every integrator, `kang`'s agreement with the precomputed filter
//! (Fig. 8) as `h²k/m` grows and as the grid is refined, CPU against GPU upsampling, and the
//! viewer's frame split into its parts.

mod frame;
pub(crate) mod gpu_sim;
mod plot;
mod report;
mod run;
mod stability;
mod stats;
mod suite;

pub(crate) use crate::sim::lab::stability::RUNAWAY_STRAIN;
pub(crate) use frame::{FrameSplit, frame_split, frame_split_of};
pub(crate) use plot::plot_svg;
pub(crate) use report::frame_table;
pub(crate) use report::table;
pub(crate) use run::*;
pub(crate) use stability::Stability;
pub(crate) use stability::stability;
pub(crate) use stats::Stat;
pub(crate) use suite::{
    Accuracy, Parallel, PublishCost, Ratio, Scaling, StepCost, WaveletSaving, publish_costs,
    step_costs,
};
pub use suite::{
    Upsampling, accuracy, parallel, ratios, scaling, square_flag, thesis_scene, upsampling, wavelet,
};
