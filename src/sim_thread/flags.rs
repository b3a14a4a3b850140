//! The scene's flags: adding, removing and changing one while the others fly on.

use crate::sim::format::error::SimError;
use crate::sim::format::flag_spec::FlagSpec;
use crate::sim::format::flags::MAX_FLAGS;
use crate::sim::format::scene::Scene;
use crate::sim::runtime::simulation::Simulation;

use super::worker::Worker;

impl Worker {
    /// The scene's flags as a list whose every pole stands where it stands now (so that
    /// adding or removing one moves none of the others when the scene is reset).
    pub(super) fn placed_flags(&self) -> Result<Scene, SimError> {
        if !self.lab.copies.is_empty() {
            return Err(SimError::FlagsInLab);
        }
        let mut scene = self.scene.clone();
        scene.place_flags();
        Ok(scene)
    }

    /// Flag `k` of `scene` as a simulation with the shared parameters and its own hoist, at
    /// the flags' present time.
    pub(super) fn flag_simulation(&self, scene: &Scene, k: usize) -> Result<Simulation, SimError> {
        let alone = scene.flag_scene(k);
        let mut params = self.shared.clone();
        params.hoist = alone.params.hoist;
        let mut sim = Simulation::new(alone.build_cloth(), params)?;
        sim.time = self.cloths.first().map_or(0.0, |c| c.time);
        Ok(sim)
    }

    pub(super) fn add_flag(&mut self, flag: FlagSpec) -> Result<(), SimError> {
        if self.cloths.len() >= MAX_FLAGS {
            return Err(SimError::TooManyFlags { limit: MAX_FLAGS });
        }
        let mut scene = self.placed_flags()?;
        scene.flags.push(flag);
        scene.validate()?;
        let sim = self.flag_simulation(&scene, scene.flags.len() - 1)?;
        self.scene = scene;
        self.cloths.push(sim);
        self.generation += 1;
        Ok(())
    }

    pub(super) fn remove_flag(&mut self, n: usize) -> Result<(), SimError> {
        let count = self.cloths.len();
        if n >= count {
            return Err(SimError::NoFlag { flag: n, count });
        }
        if count == 1 {
            return Err(SimError::LastFlag);
        }
        let mut scene = self.placed_flags()?;
        scene.flags.remove(n);
        self.scene = scene;
        self.cloths.remove(n);
        self.generation += 1;
        Ok(())
    }

    pub(super) fn set_flag(&mut self, n: usize, flag: FlagSpec) -> Result<(), SimError> {
        let count = self.cloths.len();
        if n >= count {
            return Err(SimError::NoFlag { flag: n, count });
        }
        let mut scene = self.placed_flags()?;
        scene.flags[n] = flag;
        scene.validate()?;
        let sim = self.flag_simulation(&scene, n)?;
        self.scene = scene;
        self.cloths[n] = sim;
        self.generation += 1;
        Ok(())
    }
}
