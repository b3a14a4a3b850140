//! Where the simulation steps: the CPU (every integrator, f64) or the GPU (`kang-mg` and
//! `implicit-mg`, f32, [`crate::gpu_sim`]), chosen by a scene's `"device"`, `--device` or the
//! panel's switch.
//!
//! This module holds the rule that turns the choice into a device and the two traits the simulation thread steps a cloth on a
//! device through; [`crate::gpu_sim`] implements them (the simulation never imports the GPU
//! code: the viewer hands the thread a [`DeviceProvider`]).

use std::fmt;

use crate::sim::format::device_choice::{AUTO_GPU_NODES, DeviceChoice};
use crate::sim::format::error::SimError;
use crate::sim::runtime::simulation::Simulation;

impl DeviceChoice {
    /// Whether `sim` steps on the GPU of `provider` (none: no GPU was opened): `cpu` never,
    /// `gpu` always (an error without a GPU or where the GPU step refuses the scene), `auto`
    /// by the rule of [`DeviceChoice::Auto`].
    pub(crate) fn wants_gpu(
        self,
        provider: Option<&dyn DeviceProvider>,
        sim: &Simulation,
    ) -> Result<bool, SimError> {
        match self {
            Self::Cpu => Ok(false),
            Self::Gpu => {
                let provider = provider.ok_or(SimError::NoGpu)?;
                match provider.refusal(sim) {
                    Some(reason) => Err(SimError::Gpu { reason }),
                    None => Ok(true),
                }
            }
            Self::Auto => Ok(provider.is_some_and(|p| {
                p.hardware()
                    && sim.cloth.node_count() >= AUTO_GPU_NODES
                    && sim.params().integrator == crate::sim::IntegratorKind::KangMg
                    && p.refusal(sim).is_none()
            })),
        }
    }
}

/// What a device has read back of the cloth it steps: what the viewer's GPU mode counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadBacks {
    /// Waited-for read-backs (before the step is built again for a grab, new parameters or
    /// masses, and when the thread takes the state back to the CPU).
    pub waited: u64,
    /// Asynchronous snapshots that arrived (never waited for).
    pub snapshots: u64,
    /// Bytes of all of them.
    pub bytes: u64,
}

impl std::ops::AddAssign for ReadBacks {
    /// Counts `other`'s read-backs in too (another stepper's, another flag's).
    fn add_assign(&mut self, other: Self) {
        self.waited += other.waited;
        self.snapshots += other.snapshots;
        self.bytes += other.bytes;
    }
}

impl std::ops::Sub for ReadBacks {
    type Output = Self;
    /// The read-backs between two counts of the same steppers (`self` the later one).
    fn sub(self, earlier: Self) -> Self {
        Self {
            waited: self.waited - earlier.waited,
            snapshots: self.snapshots - earlier.snapshots,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// A GPU opened for the simulation (the viewer's, shared with its renderer).
pub trait DeviceProvider: Send + Sync + fmt::Debug {
    /// The adapter's name, as the panel shows it.
    fn adapter(&self) -> String;
    /// A hardware GPU, not a CPU adapter (lavapipe): `auto` considers only these.
    fn hardware(&self) -> bool;
    /// Why `sim` cannot step on it (in words for the user), or `None`.
    fn refusal(&self, sim: &Simulation) -> Option<String>;
    /// The device's step for `sim` (its state uploaded; an integrator the GPU does not step
    /// becomes `kang-mg`), the cloth `slot` of its scene (a flag, a lab copy: where the
    /// renderer finds its nodes).
    fn stepper(
        &self,
        sim: &mut Simulation,
        slot: usize,
    ) -> Result<Box<dyn DeviceStepper>, SimError>;
    /// Whether its steppers may wait for the device (the desktop's thread can). A page's
    /// frame cannot: the browser answers a read-back between frames, so there the simulation
    /// asks for each cloth's state with [`DeviceStepper::settle`] and holds a command that
    /// changes the cloths until the state came.
    fn waits(&self) -> bool {
        true
    }
}

/// One cloth stepping on a device: the CPU's [`Simulation`] keeps the held nodes, the clock
/// and the parameters; its free nodes are the device's as of the last read-back.
pub trait DeviceStepper: Send + fmt::Debug {
    /// Submits `steps` published steps (nothing waited for, unless the held set, the
    /// parameters or the masses changed since the stepper was made).
    fn step_n(&mut self, sim: &mut Simulation, steps: u32) -> Result<(), SimError>;
    /// Takes a snapshot that arrived into `sim` (through the guard) and asks for the next one;
    /// never waits. Returns whether one arrived.
    fn poll(&mut self, sim: &mut Simulation) -> Result<bool, SimError>;
    /// Reads the device's state into `sim`, waiting for it (before the CPU takes over). A
    /// stepper that cannot wait reads nothing: `sim` has the state [`Self::settle`] brought
    /// (or the last snapshot's, unsettled).
    fn sync(&mut self, sim: &mut Simulation) -> Result<(), SimError>;
    /// Whether `sim` holds the device's state after every step submitted; if not, asks for it
    /// (never waits) and says false, and true once it came.
    fn settle(&mut self, sim: &mut Simulation) -> Result<bool, SimError>;
    /// What has been read back so far.
    fn read_backs(&self) -> ReadBacks;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{IntegratorKind, Scene};

    /// A GPU that only answers questions: hardware or not, refusing a cloth or not.
    #[derive(Debug)]
    struct Fake {
        hardware: bool,
        refusal: Option<&'static str>,
    }

    impl DeviceProvider for Fake {
        fn adapter(&self) -> String {
            "fake".into()
        }
        fn hardware(&self) -> bool {
            self.hardware
        }
        fn refusal(&self, _: &Simulation) -> Option<String> {
            self.refusal.map(str::to_owned)
        }
        fn stepper(
            &self,
            _: &mut Simulation,
            _: usize,
        ) -> Result<Box<dyn DeviceStepper>, SimError> {
            Err(SimError::NoGpu)
        }
    }

    fn sheet(nx: usize, ny: usize, integrator: IntegratorKind) -> Simulation {
        let mut scene = Scene::from_json(
            &format!(r#"{{ "cloth": {{ "grid": {{ "nx": {nx}, "ny": {ny} }} }} }}"#),
            "test",
        )
        .unwrap();
        scene.params.integrator = integrator;
        scene.simulation().unwrap()
    }

    /// Read-backs add up field by field, and the difference of two counts is what came between.
    #[test]
    fn read_backs_add_and_subtract_field_by_field() {
        let mut total = ReadBacks {
            waited: 1,
            snapshots: 10,
            bytes: 4_800,
        };
        total += ReadBacks {
            waited: 2,
            snapshots: 3,
            bytes: 1_440,
        };
        assert_eq!(
            total,
            ReadBacks {
                waited: 3,
                snapshots: 13,
                bytes: 6_240
            }
        );
        let earlier = ReadBacks {
            waited: 1,
            snapshots: 4,
            bytes: 1_920,
        };
        assert_eq!(
            total - earlier,
            ReadBacks {
                waited: 2,
                snapshots: 9,
                bytes: 4_320
            }
        );
    }

    #[test]
    fn the_choice_is_read_and_written_by_its_name() {
        for d in DeviceChoice::ALL {
            assert_eq!(d.name().parse::<DeviceChoice>(), Ok(d));
            assert_eq!(d.to_string(), d.name());
        }
        assert_eq!(DeviceChoice::Gpu.name(), "gpu");
        assert_eq!(DeviceChoice::default(), DeviceChoice::Cpu);
        let e = "tpu".parse::<DeviceChoice>().unwrap_err();
        assert!(e.contains("cpu, gpu, auto"), "{e}");
        assert_eq!(
            serde_json::from_str::<DeviceChoice>("\"auto\"").unwrap(),
            DeviceChoice::Auto
        );
    }

    #[test]
    fn gpu_needs_a_gpu_that_takes_the_cloth_and_cpu_never_uses_one() {
        let sim = sheet(16, 16, IntegratorKind::KangMg);
        let fine = Fake {
            hardware: false,
            refusal: None,
        };
        let refusing = Fake {
            hardware: true,
            refusal: Some("no thanks"),
        };
        assert_eq!(DeviceChoice::Cpu.wants_gpu(Some(&fine), &sim), Ok(false));
        assert_eq!(DeviceChoice::Gpu.wants_gpu(Some(&fine), &sim), Ok(true));
        assert_eq!(
            DeviceChoice::Gpu.wants_gpu(None, &sim),
            Err(SimError::NoGpu)
        );
        assert_eq!(
            DeviceChoice::Gpu.wants_gpu(Some(&refusing), &sim),
            Err(SimError::Gpu {
                reason: "no thanks".into()
            })
        );
    }

    /// `auto`: a hardware GPU, at least 128² nodes, `kang-mg`, a cloth the GPU takes: each
    /// condition alone turns it down, the boundary of the size included.
    #[test]
    fn auto_picks_a_hardware_gpu_for_a_big_kang_mg_cloth_only() {
        let hardware = Fake {
            hardware: true,
            refusal: None,
        };
        let big = sheet(128, 128, IntegratorKind::KangMg);
        assert_eq!(big.cloth.node_count(), AUTO_GPU_NODES);
        let auto = |p: Option<&dyn DeviceProvider>, s: &Simulation| {
            DeviceChoice::Auto.wants_gpu(p, s).unwrap()
        };
        assert!(auto(Some(&hardware), &big));
        assert!(!auto(None, &big));
        let software = Fake {
            hardware: false,
            refusal: None,
        };
        assert!(!auto(Some(&software), &big));
        let refusing = Fake {
            hardware: true,
            refusal: Some("no"),
        };
        assert!(!auto(Some(&refusing), &big));
        let just_under = sheet(127, 129, IntegratorKind::KangMg);
        assert_eq!(just_under.cloth.node_count(), AUTO_GPU_NODES - 1);
        assert!(!auto(Some(&hardware), &just_under));
        let other = sheet(128, 128, IntegratorKind::ImplicitMg);
        assert!(!auto(Some(&hardware), &other));
    }
}
