//! Every flag of a scene stepped side by side, as the headless commands run them.

use crate::sim::format::error::SimError;
use crate::sim::format::scene::Scene;
use crate::sim::runtime::simulation::Simulation;
use crate::sim::runtime::snapshot::Snapshot;

/// Every flag of a scene simulated side by side, as the headless commands run them (the
/// simulation thread keeps its own list): they share the parameters but their hoists, and
/// step together.
#[derive(Debug, Clone)]
pub struct FlagSet {
    /// One simulation per flag, flag 0 first.
    pub flags: Vec<Simulation>,
}

impl FlagSet {
    /// The flags of `scene` at its start; a flag that makes no cloth is named.
    pub fn new(scene: &Scene) -> Result<Self, SimError> {
        if scene.flags.is_empty() {
            return Ok(Self {
                flags: vec![scene.simulation()?],
            });
        }
        let flags = (0..scene.flag_count())
            .map(|k| {
                scene
                    .flag_scene(k)
                    .simulation()
                    .map_err(|e| SimError::InFlag {
                        flag: k,
                        error: Box::new(e),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { flags })
    }

    /// The first flag.
    pub fn first(&self) -> &Simulation {
        &self.flags[0]
    }

    /// One step of every flag that has not diverged; false once every flag has stopped (each
    /// keeps its last good state).
    pub fn step(&mut self) -> bool {
        for flag in self.flags.iter_mut().filter(|f| f.divergence.is_none()) {
            flag.step();
        }
        self.flags.iter().any(|f| f.divergence.is_none())
    }

    /// The first divergence among the flags, with the flag it stopped.
    pub fn divergence(&self) -> Option<(usize, &crate::sim::runtime::simulation::Divergence)> {
        self.flags
            .iter()
            .enumerate()
            .find_map(|(k, f)| f.divergence.as_ref().map(|d| (k, d)))
    }

    /// Flag 0's snapshot with the others' in `flags`.
    pub fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot::of(&self.flags[0]);
        snap.flags = self.flags[1..].iter().map(Snapshot::of).collect();
        snap
    }
}
