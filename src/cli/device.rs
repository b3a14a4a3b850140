//! `--device` for the headless commands: a scene's cloth stepped on the CPU, or on a headless
//! GPU by `kang-mg` ([`GpuStepper`]), read back only where the command needs the state.

use super::{CliError, Result};
use crate::gpu_sim::{GpuProvider, GpuSimError, GpuStepper};
use crate::render::device::gpu::GpuContext;
use crate::sim::format::device_choice::AUTO_GPU_NODES;
use crate::sim::lab::copies::CopySpec;
use crate::sim::{DeviceChoice, IntegratorKind, Simulation};

/// How a headless command steps its cloth.
pub(super) enum Stepping {
    Cpu,
    Gpu {
        ctx: Box<GpuContext>,
        stepper: Box<GpuStepper>,
    },
}

impl Stepping {
    /// Where `choice` puts `sim` (a scene's first flag; [`Self::beside`] puts the others
    /// where it is): the CPU, or a headless GPU with `sim`'s state uploaded. `gpu` without a
    /// GPU adapter, or for a scene the GPU step refuses, is an error that says why; `auto` opens
    /// a GPU only for a `kang-mg` cloth of at least [`AUTO_GPU_NODES`] nodes and keeps it only on
    /// a hardware GPU.
    pub(crate) fn new(choice: DeviceChoice, sim: &mut Simulation) -> Result<Self> {
        let bad = |e: String| CliError::BadInput(e);
        let worth_opening = match choice {
            DeviceChoice::Cpu => false,
            DeviceChoice::Gpu => true,
            DeviceChoice::Auto => {
                sim.params().integrator == IntegratorKind::KangMg
                    && sim.cloth.node_count() >= AUTO_GPU_NODES
            }
        };
        if !worth_opening {
            return Ok(Self::Cpu);
        }
        let ctx = match GpuContext::new_headless() {
            Ok(ctx) => ctx,
            Err(e) if choice == DeviceChoice::Gpu => {
                return Err(CliError::Failed(format!("--device gpu: {e}")));
            }
            Err(_) => return Ok(Self::Cpu),
        };
        let provider = GpuProvider::new(
            ctx.device.clone(),
            ctx.queue.clone(),
            ctx.adapter.get_info(),
        );
        if !(choice.wants_gpu(Some(&provider), sim)).map_err(|e| bad(e.to_string()))? {
            return Ok(Self::Cpu);
        }
        let stepper = GpuStepper::new(&ctx.device, &ctx.queue, sim)
            .map_err(|e| CliError::Failed(e.to_string()))?;
        log::info!("stepping on the GPU: {}", ctx.adapter_report());
        Ok(Self::Gpu {
            ctx: Box::new(ctx),
            stepper: Box::new(stepper),
        })
    }

    /// Stepping for each of a scene's `flags`: the first where `choice` puts it
    /// ([`Self::new`]), the others on the same device ([`Self::beside`]).
    pub(crate) fn for_flags(choice: DeviceChoice, flags: &mut [Simulation]) -> Result<Vec<Self>> {
        let Some((first, rest)) = flags.split_first_mut() else {
            return Ok(Vec::new());
        };
        let lead = Self::new(choice, first)?;
        let others = (rest.iter_mut())
            .map(|flag| lead.beside(flag))
            .collect::<Result<Vec<_>>>()?;
        Ok(std::iter::once(lead).chain(others).collect())
    }

    /// `"cpu"` or `"gpu"`, for the outputs.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu { .. } => "gpu",
        }
    }

    /// Published steps [`Self::advance`] takes at once before the state is needed again at
    /// step `next` (a recorded frame, the end): one on the CPU (its statistics are taken
    /// each step), all of them on the GPU.
    pub(crate) fn chunk(&self, step: u64, next: u64) -> u64 {
        match self {
            Self::Cpu => 1,
            Self::Gpu { .. } => next.saturating_sub(step).max(1),
        }
    }

    /// `n` published steps of `sim`, its state current afterwards (read back from the GPU,
    /// through the guard). Returns false when the guard stopped it (the state is then the last
    /// good one).
    pub(crate) fn advance(&mut self, sim: &mut Simulation, n: u64) -> Result<bool> {
        match self {
            Self::Cpu => {
                for _ in 0..n {
                    if !sim.step() {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Self::Gpu { ctx, stepper } => {
                let failed = |e: String| CliError::Failed(format!("the GPU step: {e}"));
                let n = u32::try_from(n).map_err(|e| failed(e.to_string()))?;
                stepper
                    .step_n(&ctx.device, &ctx.queue, sim, n)
                    .map_err(|e| failed(e.to_string()))?;
                stepper
                    .read_back(&ctx.device, &ctx.queue, sim)
                    .map_err(|e| failed(e.to_string()))?;
                ctx.check().map_err(|e| failed(e.to_string()))?;
                Ok(sim.divergence.is_none())
            }
        }
    }

    /// Stepping for another simulation (another flag of the scene, a copy run ahead for a
    /// clip's framing) on the same device: the CPU, or a stepper of its own on this GPU with
    /// `sim`'s state uploaded (a cloth the GPU step refuses is refused with the reason).
    pub(crate) fn beside(&self, sim: &mut Simulation) -> Result<Self> {
        match self {
            Self::Cpu => Ok(Self::Cpu),
            Self::Gpu { ctx, .. } => {
                let stepper =
                    GpuStepper::new(&ctx.device, &ctx.queue, sim).map_err(|e| match e {
                        GpuSimError::Unsupported(_) => {
                            CliError::BadInput(format!("--device gpu: {e}"))
                        }
                        e => CliError::Failed(e.to_string()),
                    })?;
                Ok(Self::Gpu {
                    ctx: ctx.clone(),
                    stepper: Box::new(stepper),
                })
            }
        }
    }

    /// V-cycles a step on the GPU (`None` on the CPU, whose statistics say).
    pub(crate) fn cycles(&self) -> Option<u32> {
        match self {
            Self::Cpu => None,
            Self::Gpu { stepper, .. } => Some(stepper.cycles),
        }
    }
}

/// Parses `--device`.
pub(super) fn parse_device(text: &str) -> std::result::Result<DeviceChoice, String> {
    text.parse()
}

/// `specs` with every CPU copy of an integrator the GPU steps (`kang-mg`, `implicit-mg`) moved
/// to `device` (where one is given).
pub(super) fn on_device(specs: &[CopySpec], device: Option<DeviceChoice>) -> Vec<CopySpec> {
    let mut specs = specs.to_vec();
    if let Some(device) = device {
        for spec in &mut specs {
            if spec.integrator.steps_on_gpu() && spec.device == DeviceChoice::Cpu {
                spec.device = device;
            }
        }
    }
    specs
}

/// A GPU for the copies that may step on one (none when no copy may); a copy that must step
/// on one and finds no adapter is a failure.
pub(super) fn gpu_for(specs: &[CopySpec]) -> Result<Option<GpuProvider>> {
    if specs.iter().all(|s| s.device == DeviceChoice::Cpu) {
        return Ok(None);
    }
    match GpuContext::new_headless() {
        Ok(ctx) => Ok(Some(GpuProvider::new(
            ctx.device.clone(),
            ctx.queue.clone(),
            ctx.adapter.get_info(),
        ))),
        Err(e) if specs.iter().any(|s| s.device == DeviceChoice::Gpu) => {
            Err(CliError::Failed(format!("a copy on the GPU: {e}")))
        }
        Err(_) => Ok(None),
    }
}
