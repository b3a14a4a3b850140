//! Where a scene asks its cloth to step: `"device"` in a scene file, `--device`, the panel's
//! switch. The rule that turns the choice into a device is [`crate::sim::runtime::device`]'s.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Nodes from which `auto` runs a cloth on a hardware GPU: 128 × 128, the size from which the
/// GPU step beats the CPU's on a hardware GPU (docs/performance.md); a CPU adapter such as
/// lavapipe never wins, so `auto` never picks one.
pub(crate) const AUTO_GPU_NODES: usize = 128 * 128;

/// Where a scene's cloth steps. Default: `cpu`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    /// Every integrator, in f64 (the default).
    #[default]
    Cpu,
    /// `kang-mg` on the GPU in f32; the scene's integrator becomes `kang-mg`.
    Gpu,
    /// The GPU where it wins: a hardware GPU (not a CPU adapter such as lavapipe), a cloth of
    /// at least [`AUTO_GPU_NODES`] nodes, `kang-mg`, and a scene the GPU step takes; the CPU
    /// otherwise.
    Auto,
}

impl DeviceChoice {
    /// Every choice, in the order the panel lists them.
    pub(crate) const ALL: [Self; 3] = [Self::Cpu, Self::Gpu, Self::Auto];

    /// The name in scene files and on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu => "gpu",
            Self::Auto => "auto",
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DeviceChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| format!("unknown device {s:?}: one of cpu, gpu, auto"))
    }
}
