//! The lab's copies: the reference copy, syncing one copy's state to the others, a copy's own
//! `dt`.

use crate::sim::format::error::SimError;
use crate::sim::model::shape;
use crate::sim::runtime::simulation::Simulation;

use super::worker::{Worker, copy_params};

impl Worker {
    /// Starts the reference copy from copy 0's state, every other copy synced to it, or stops
    /// it. Only in the lab.
    pub(super) fn set_reference(&mut self, on: bool) -> Result<(), SimError> {
        if !on {
            self.lab.reference = None;
            return Ok(());
        }
        if self.lab.copies.is_empty() {
            return Err(SimError::ReferenceOutsideLab);
        }
        self.sync(0)?;
        self.lab.reference = Some(self.reference_from(0)?);
        Ok(())
    }

    /// A reference copy with copy `n`'s state: the shared parameters made accurate.
    pub(super) fn reference_from(&self, n: usize) -> Result<Simulation, SimError> {
        let mut sim = self.cloths[n].clone();
        sim.grab = None;
        sim.clear_divergence();
        sim.set_params(shape::reference_params(&self.shared))
            .map_err(SimError::in_reference)?;
        Ok(sim)
    }

    /// Restarts a running reference from copy `n`'s state (after a sync, a reset or a new
    /// scene), so that it starts where the copies start. New parameters do not restart it: it
    /// takes them and keeps its state, as the copies do.
    pub(super) fn restart_reference(&mut self, n: usize) -> Result<(), SimError> {
        if self.lab.reference.is_some() {
            self.lab.reference = Some(self.reference_from(n)?);
        }
        Ok(())
    }

    /// Every other copy takes copy `n`'s state and keeps its integrator and `dt`.
    pub(super) fn sync(&mut self, n: usize) -> Result<(), SimError> {
        if n >= self.cloths.len() {
            return Err(SimError::NoCopy { copy: n });
        }
        for i in 0..self.cloths.len() {
            if i != n {
                self.take_state(i, n)?;
            }
        }
        self.restart_reference(n)
    }

    /// Copy `n` takes copy `m`'s state (its divergence and grab dropped) and keeps its own
    /// integrator and `dt`.
    pub(super) fn take_state(&mut self, n: usize, m: usize) -> Result<(), SimError> {
        let Some(source) = self.cloths.get(m) else {
            return Err(SimError::NoCopy { copy: m });
        };
        let mut copy = source.clone();
        copy.grab = None;
        copy.clear_divergence();
        copy.set_params(copy_params(&self.shared, self.lab.copies.get(n)))?;
        self.cloths[n] = copy;
        Ok(())
    }

    /// Copy `n`'s own `dt` in the lab.
    pub(super) fn set_copy_dt(&mut self, n: usize, dt: f64) -> Result<(), SimError> {
        if self.lab.copies.is_empty() {
            return Err(SimError::NotInLab {
                command: "a copy's own dt".into(),
            });
        }
        crate::sim::format::params::spec::DT.check(dt)?;
        let mut spec = self.lab.copies[n];
        spec.dt = Some(dt);
        self.cloths[n].set_params(copy_params(&self.shared, Some(&spec)))?;
        self.lab.copies[n] = spec;
        Ok(())
    }
}
