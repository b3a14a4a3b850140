//! The lab's copies: the reference copy, syncing one copy's state to the others, a copy's own
//! `dt`, how each copy and the reference move (the resolution study's figures), and the states
//! kept of each copy to resume it from after its guard stops it.

use std::collections::VecDeque;

use crate::sim::format::error::SimError;
use crate::sim::lab::motion::{Motion, MotionProbe};
use crate::sim::model::shape;
use crate::sim::runtime::simulation::Simulation;
use crate::sim::runtime::snapshot::Resumed;

use super::worker::{Worker, copy_params};

/// Lab time between two samples of the copies' motion, s: ten a second resolve a flag's
/// flapping (about 1 Hz) up to 5 Hz.
const MOTION_INTERVAL: f64 = 0.1;

/// The lab's motion figures are those of the last this many seconds of lab time.
pub const MOTION_WINDOW: f64 = 20.0;

/// Lab time between two computations of the motion figures, s (the frequency search over a
/// window costs a few milliseconds).
const MOTION_REFRESH: f64 = 1.0;

/// Lab time between two states kept of each copy, s, and how many are kept (the last two
/// seconds): where *resume* goes back to.
const CHECKPOINT_INTERVAL: f64 = 0.5;
const CHECKPOINTS: usize = 4;

/// The largest strain (`|x| / L`) of a state kept to resume from: the guard stops a copy at
/// ten times the rest length, but a cloth already stretched to twice its rest length is no
/// state to go on from.
const CHECKPOINT_STRAIN: f64 = 2.0;

/// States of each copy kept to resume it from after its guard stops it.
#[derive(Debug, Default)]
pub(super) struct Checkpoints {
    /// Per copy, oldest first: the lab time and the copy's state then.
    states: Vec<VecDeque<(f64, Simulation)>>,
    /// Lab time of the next state to keep, s.
    next: f64,
    /// Per copy, its last resume.
    pub(super) resumed: Vec<Option<Resumed>>,
}

/// How the lab's copies and its reference move: one probe each (none for a cloth that is not a
/// grid) over the last [`MOTION_WINDOW`] seconds, and the figures last computed from them.
#[derive(Debug, Default)]
pub(super) struct LabMotion {
    probes: Vec<Option<MotionProbe>>,
    reference: Option<MotionProbe>,
    /// Lab time of the next sample and of the next computation of the figures, s.
    next_sample: f64,
    next_figures: f64,
    /// Per copy, and the reference's: `None` before the first computation.
    pub(super) figures: Vec<Option<Motion>>,
    pub(super) reference_figures: Option<Motion>,
}

impl Worker {
    /// Starts the reference copy from copy 0's state, every other copy synced to it, or stops
    /// it. Only in the lab.
    pub(super) fn set_reference(&mut self, on: bool) -> Result<(), SimError> {
        if !on {
            self.lab.reference = None;
            self.lab.motion.reference = None;
            self.lab.motion.reference_figures = None;
            return Ok(());
        }
        if self.lab.copies.is_empty() {
            return Err(SimError::ReferenceOutsideLab);
        }
        self.sync(0)?;
        self.lab.reference = Some(self.reference_from(0)?);
        self.clear_motion();
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
        self.restart_reference(n)?;
        self.clear_motion();
        Ok(())
    }

    /// Copy `n` takes copy `m`'s state (its divergence and grab dropped) and keeps its own
    /// integrator, `dt` and key grid: from a copy at another grid, the state is taken at its
    /// own grid's nodes ([`Simulation::at_moment_of`]).
    pub(super) fn take_state(&mut self, n: usize, m: usize) -> Result<(), SimError> {
        let Some(source) = self.cloths.get(m) else {
            return Err(SimError::NoCopy { copy: m });
        };
        let params = copy_params(&self.shared, self.lab.copies.get(n));
        let own = &self.cloths[n].cloth;
        let dims = |c: &crate::sim::Cloth| c.grid().map(|g| (g.nx, g.ny));
        let copy = if dims(own) == dims(&source.cloth) {
            let mut copy = source.clone();
            copy.grab = None;
            copy.clear_divergence();
            copy.set_params(params)?;
            copy
        } else {
            Simulation::at_moment_of(own.clone(), params, source)?
        };
        self.cloths[n] = copy;
        if let Some(resumed) = self.lab.checkpoints.resumed.get_mut(n) {
            *resumed = None;
        }
        if let Some(Some(probe)) = self.lab.motion.probes.get_mut(n) {
            probe.clear();
        }
        if let Some(figures) = self.lab.motion.figures.get_mut(n) {
            *figures = None;
        }
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

    /// No state kept of any copy, and none resumed: the next is kept after the next lab step
    /// (a copy that fails at once has that to go back to).
    pub(super) fn restart_checkpoints(&mut self) {
        let n = self.cloths.len();
        self.lab.checkpoints = Checkpoints {
            states: (0..n).map(|_| VecDeque::default()).collect(),
            next: self.lab.time,
            resumed: vec![None; n],
        };
    }

    /// After a lab step: when one is due, the state of every copy that steps on the CPU, has
    /// not stopped and is not stretched past [`CHECKPOINT_STRAIN`], the oldest dropped past
    /// [`CHECKPOINTS`].
    pub(super) fn keep_checkpoints(&mut self) {
        let time = self.lab.time;
        let c = &mut self.lab.checkpoints;
        if self.lab.copies.is_empty() || time + 1e-9 < c.next {
            return;
        }
        while c.next <= time + 1e-9 {
            c.next += CHECKPOINT_INTERVAL;
        }
        let on_gpu = |n: usize| self.gpu.steppers.get(n).is_some_and(Option::is_some);
        for (n, (sim, kept)) in self.cloths.iter().zip(&mut c.states).enumerate() {
            if on_gpu(n) || sim.divergence.is_some() || sim.stats.max_strain > CHECKPOINT_STRAIN {
                continue;
            }
            let mut state = sim.clone();
            state.grab = None;
            kept.push_back((time, state));
            if kept.len() > CHECKPOINTS {
                kept.pop_front();
            }
        }
    }

    /// Resumes copy `n`, stopped by its guard, from a state kept before it stopped, at the
    /// lab's time (its steps count on): the newest kept state, or, when its last resume at the
    /// same `dt` failed again at once, one further back than that one. With no state kept to
    /// go back to, it goes on from its last good state. Its own parameters (a `dt` halved
    /// since) apply.
    pub(super) fn resume_copy(&mut self, n: usize) -> Result<(), SimError> {
        let params = copy_params(&self.shared, self.lab.copies.get(n));
        let sim = &self.cloths[n];
        let (Some(divergence), Some(kept)) = (&sim.divergence, self.lab.checkpoints.states.get(n))
        else {
            return Ok(());
        };
        let last = self.lab.checkpoints.resumed[n];
        // Newest first. Every state kept came before the step that failed: none is kept of a
        // stopped copy.
        let before: Vec<usize> = (0..kept.len()).rev().collect();
        let back = match last {
            Some(r) if r.dt == params.dt && r.failed_at_once(divergence) => before
                .iter()
                .position(|&k| kept[k].0 < r.from_time)
                .unwrap_or(before.len()),
            _ => 0,
        };
        let Some(&k) = before.get(back) else {
            return Ok(());
        };
        let (from_time, state) = &kept[k];
        let mut resumed = state.clone();
        resumed.set_params(params)?;
        resumed.time = self.lab.time;
        resumed.step_index = sim.step_index;
        resumed.pole_offset = sim.pole_offset;
        self.lab.checkpoints.resumed[n] = Some(Resumed {
            from_time: *from_time,
            at_time: self.lab.time,
            at_step: sim.step_index,
            dt: resumed.params().dt,
            earlier: before.len() - back - 1,
        });
        self.cloths[n] = resumed;
        Ok(())
    }

    /// New probes for the copies as they are now (as built: a probe takes the cloth's plane
    /// from it), none for the reference until it runs; outside the lab, none.
    pub(super) fn restart_motion(&mut self) {
        let keep = (MOTION_WINDOW / MOTION_INTERVAL).round() as usize;
        let probes = if self.lab.copies.is_empty() {
            Vec::new()
        } else {
            self.cloths
                .iter()
                .map(|c| {
                    MotionProbe::new(&c.cloth, MOTION_INTERVAL)
                        .ok()
                        .map(|p| p.keeping(keep))
                })
                .collect()
        };
        self.lab.motion = LabMotion {
            figures: vec![None; probes.len()],
            probes,
            ..LabMotion::default()
        };
        self.clear_motion();
    }

    /// Every probe starts again from the next sample (the copies were synced, the reference
    /// started): the reference's, while it runs, is that of the first copy at its key grid,
    /// emptied.
    pub(super) fn clear_motion(&mut self) {
        let m = &mut self.lab.motion;
        for probe in m.probes.iter_mut().flatten() {
            probe.clear();
        }
        let grid = |sim: &Simulation| sim.cloth.grid().map(|g| (g.nx, g.ny));
        m.reference = self.lab.reference.as_ref().and_then(|r| {
            (m.probes.iter().zip(&self.cloths))
                .find(|(_, c)| grid(c) == grid(r))
                .and_then(|(p, _)| p.clone())
        });
        m.figures.iter_mut().for_each(|f| *f = None);
        m.reference_figures = None;
        m.next_sample = self.lab.time + MOTION_INTERVAL;
        m.next_figures = self.lab.time + MOTION_REFRESH;
    }

    /// After a lab step: a sample of every copy that has not stopped and of the reference
    /// when one is due, and the figures when they are.
    pub(super) fn sample_motion(&mut self) {
        let time = self.lab.time;
        let m = &mut self.lab.motion;
        if m.probes.is_empty() || time + 1e-9 < m.next_sample {
            return;
        }
        while m.next_sample <= time + 1e-9 {
            m.next_sample += MOTION_INTERVAL;
        }
        for (probe, sim) in m.probes.iter_mut().zip(&self.cloths) {
            if let Some(probe) = probe
                && sim.divergence.is_none()
            {
                probe.sample(&sim.cloth);
            }
        }
        if let (Some(probe), Some(reference)) = (&mut m.reference, &self.lab.reference)
            && reference.divergence.is_none()
        {
            probe.sample(&reference.cloth);
        }
        if time + 1e-9 >= m.next_figures {
            while m.next_figures <= time + 1e-9 {
                m.next_figures += MOTION_REFRESH;
            }
            m.figures = m
                .probes
                .iter()
                .map(|p| p.as_ref().and_then(MotionProbe::motion))
                .collect();
            m.reference_figures = m.reference.as_ref().and_then(MotionProbe::motion);
        }
    }
}
