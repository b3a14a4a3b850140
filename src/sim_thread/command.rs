//! What the UI (or a test) can ask of the simulation thread.

use std::sync::Arc;

use glam::DVec3;

use crate::sim::format::device_choice::DeviceChoice;
use crate::sim::format::flag_spec::FlagSpec;
use crate::sim::format::params::{IntegratorKind, Params};
use crate::sim::format::scene::Scene;
use crate::sim::runtime::device::DeviceProvider;

/// What the UI (or a test) can ask of the simulation.
#[derive(Debug, Clone)]
pub enum Command {
    /// Replace every parameter (validated; a bad value is reported in the snapshot and ignored).
    SetParams(Box<Params>),
    /// Switch integrator, keeping the state.
    SetIntegrator(IntegratorKind),
    /// Rescale masses so the cloth weighs this many kg.
    SetTotalMass(f64),
    /// Back to the loaded scene's initial state and parameters.
    Reset,
    /// Replace the scene (and reset to it).
    LoadScene(Box<Scene>),
    Pause(bool),
    TogglePause,
    /// One published step, while paused.
    Step,
    /// Grab key node `node`, which then follows `target` (m).
    Grab {
        node: usize,
        target: DVec3,
    },
    /// Move the grab target, m.
    MoveGrab(DVec3),
    /// Let go; the node keeps its velocity.
    Release,
    /// Displace the pole (all pinned nodes) by this offset from where the scene put it, m.
    SetPoleOffset(DVec3),
    /// Simulated seconds per wall second.
    SetTimeScale(f64),
    /// Compute the Fig. 8 comparison with the precomputed filter after every step.
    SetCompare(bool),
    /// Clear a divergence and resume from the last good state.
    ClearDivergence,
    /// In the lab, inside [`Command::Copy`]: the copy's own `dt`, s (checked against the
    /// shared `dt`'s range); the other copies keep theirs.
    SetCopyDt(f64),
    /// In the lab, inside [`Command::Copy`]: the copy takes copy `m`'s state (positions,
    /// velocities, time; its divergence cleared) and keeps its integrator and `dt`: how a
    /// diverged copy starts again from a healthy one.
    TakeState(usize),
    /// In the lab: apply `Grab`, `MoveGrab`, `Release`, `SetPoleOffset`, `ClearDivergence`,
    /// `SetCopyDt` or `TakeState` to copy `n` (0 is the first; unwrapped, they go to copy 0).
    Copy(usize, Box<Command>),
    /// In a scene of several flags: apply `SetParams` (the flag takes its hoist from them, the
    /// others keep theirs), `Grab`, `MoveGrab`, `Release`, `SetPoleOffset` or
    /// `ClearDivergence` to flag `n` (0 is the first; unwrapped, they go to flag 0).
    Flag(usize, Box<Command>),
    /// Adds a flag at the end of the scene's list (a scene of one flag becomes a list of two),
    /// starting at the flags' present time with the shared parameters; the others go on.
    AddFlag(Box<FlagSpec>),
    /// Removes flag `n`; the others go on. A scene keeps at least one.
    RemoveFlag(usize),
    /// Flag `n` becomes this entry (its image, size, shape, pole, hoist), starting afresh; the
    /// others go on.
    SetFlag(usize, Box<FlagSpec>),
    /// In the lab: give every other copy copy `n`'s state (positions, velocities, time), each
    /// keeping its integrator and `dt`.
    Sync(usize),
    /// In the lab: run (or stop) a reference copy beside the others, an accurate solve of the
    /// same springs ([`shape::reference_params`]) from copy 0's present state, every copy
    /// synced to that state too; each copy's distance from it is then published every step.
    SetReference(bool),
    /// Lends the thread a GPU (the viewer's device) for [`Command::SetDevice`] and scenes'
    /// `"device"`.
    ProvideGpu(Arc<dyn DeviceProvider>),
    /// Where the cloth steps from now on ([`DeviceChoice`]); the state goes along.
    SetDevice(DeviceChoice),
    Shutdown,
}

impl Command {
    /// Whether the command leaves a cloth stepping on the GPU as it is: the others take the
    /// device's state back to the CPU first (a waited read-back), and the cloth goes back to
    /// the device with the next step, built again for what they changed.
    pub(super) fn keeps_the_device_step(&self) -> bool {
        match self {
            Self::Pause(_)
            | Self::TogglePause
            | Self::Step
            | Self::SetTimeScale(_)
            | Self::SetCompare(_)
            | Self::MoveGrab(_)
            | Self::SetPoleOffset(_)
            | Self::ProvideGpu(_)
            | Self::SetDevice(_) => true,
            Self::Copy(_, cmd) | Self::Flag(_, cmd) => cmd.keeps_the_device_step(),
            _ => false,
        }
    }

    /// Whether the command needs the CPU to hold the GPU's state first: those that take it
    /// back ([`Self::keeps_the_device_step`]) and a device choice that may move the cloth to
    /// the CPU, which takes it with the next step.
    pub(super) fn needs_the_device_state(&self) -> bool {
        match self {
            Self::SetDevice(choice) => *choice != DeviceChoice::Gpu,
            Self::Copy(_, cmd) | Self::Flag(_, cmd) => cmd.needs_the_device_state(),
            cmd => !cmd.keeps_the_device_step(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The commands a page holds until the GPU's state came: those that take it back to the
    /// CPU, and a device choice that may move the cloth there; the steps, the grab's moves,
    /// the pole, the clock and the switch to the GPU go on without it.
    #[test]
    fn the_commands_that_change_the_cloth_need_the_gpus_state_first() {
        let grab = || Command::Grab {
            node: 3,
            target: DVec3::ONE,
        };
        let needs = [
            grab(),
            Command::Release,
            Command::Reset,
            Command::SetTotalMass(0.2),
            Command::SetParams(Box::default()),
            Command::SetIntegrator(IntegratorKind::KangMg),
            Command::SetDevice(DeviceChoice::Cpu),
            Command::SetDevice(DeviceChoice::Auto),
            Command::Flag(1, Box::new(grab())),
            Command::Copy(0, Box::new(Command::SetDevice(DeviceChoice::Cpu))),
        ];
        for cmd in &needs {
            assert!(cmd.needs_the_device_state(), "{cmd:?}");
        }
        let goes_on = [
            Command::Step,
            Command::Pause(true),
            Command::TogglePause,
            Command::MoveGrab(DVec3::ONE),
            Command::SetPoleOffset(DVec3::X),
            Command::SetTimeScale(0.5),
            Command::SetDevice(DeviceChoice::Gpu),
            Command::Flag(1, Box::new(Command::MoveGrab(DVec3::ONE))),
            Command::Copy(0, Box::new(Command::SetDevice(DeviceChoice::Gpu))),
        ];
        for cmd in &goes_on {
            assert!(!cmd.needs_the_device_state(), "{cmd:?}");
        }
    }
}
