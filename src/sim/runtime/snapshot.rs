//! What the simulation publishes: [`Snapshot`], a copy of everything the renderer and the
//! panels show, made between steps. The renderer and the UI read snapshots and nothing else of
//! the simulation; the thread (`sim_thread`) makes and publishes them.

use std::sync::Arc;
use web_time::Instant;

use glam::DVec3;

use crate::sim::format::device_choice::DeviceChoice;
use crate::sim::format::error::SimError;
use crate::sim::format::params::Params;
use crate::sim::model::cloth::{GridInfo, KeyMesh};
use crate::sim::model::shape::{Distance, Motion};
use crate::sim::runtime::agreement::Comparison;
use crate::sim::runtime::device::ReadBacks;
use crate::sim::runtime::simulation::{Divergence, Simulation, StepStats};

/// A copy of everything the renderer and the UI show, published after each batch of steps:
/// the state is copied, the topology ([`KeyMesh`]) shared.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Increases with every publish.
    pub seq: u64,
    /// Increases on reset and scene load, so the renderer does not interpolate across them.
    pub generation: u64,
    pub x: Vec<DVec3>,
    pub v: Vec<DVec3>,
    pub dv: Vec<DVec3>,
    pub pinned: Vec<bool>,
    /// Nodes the last step's wavelet interpolation filled in (empty when it is off).
    pub interpolated: Vec<bool>,
    pub grid: Option<GridInfo>,
    /// The key mesh's springs and triangles: the cloth's own, shared, never copied.
    pub mesh: Arc<KeyMesh>,
    pub time: f64,
    pub step: u64,
    pub stats: StepStats,
    pub params: Params,
    pub total_mass: f64,
    /// `½ Σ m v²` over every node, J.
    pub kinetic_energy: f64,
    pub paused: bool,
    pub divergence: Option<Divergence>,
    /// The last command that failed, with why (the viewer puts it into words).
    pub error: Option<SimError>,
    pub pole_offset: DVec3,
    /// How far up its pole the flag is, as a share of the way ([`Simulation::hoist`]).
    pub hoist: f64,
    /// How far below the top of the pole the pinned nodes are, m ([`Simulation::hoist_drop`]).
    pub hoist_drop: f64,
    /// Current offset of the scripted handle, m.
    pub handle_offset: DVec3,
    pub grabbed: Option<usize>,
    pub compare: Option<Comparison>,
    /// Published steps per wall second (measured over the last second).
    pub steps_per_second: f64,
    /// The stepper had to drop backlog: the machine cannot keep real time.
    pub behind: bool,
    pub time_scale: f64,
    /// Wall-clock instant of publication (for interpolation on the render side).
    pub published_at: Instant,
    /// In the lab, the other copies' snapshots, published with this one (same lab time);
    /// empty outside the lab.
    pub lab: Vec<Snapshot>,
    /// In a scene of several flags, the other flags' snapshots (flag 1 first), published with
    /// this one, flag 0's; empty for one flag.
    pub flags: Vec<Snapshot>,
    /// This cloth's distance from the lab's reference copy at the same time (`None`: no
    /// reference runs, or the reference's guard stopped it).
    pub reference_distance: Option<Distance>,
    /// How this lab copy moved over the lab's last seconds (the fly edge's sway, frequency and
    /// reach, the shortest edge); `None` outside the lab, before the first figures, or for a
    /// cloth that is not a grid.
    pub motion: Option<Motion>,
    /// The reference copy while it runs: its last step's wall time, s, and whether its guard
    /// stopped it (copy 0's snapshot only; `None` without one).
    pub reference: Option<ReferenceStatus>,
    /// Where the cloth steps (copy 0's snapshot only; the default elsewhere).
    pub device: DeviceStatus,
    /// The last time this lab copy was resumed after its guard stopped it (`None`: never, or
    /// outside the lab).
    pub resumed: Option<Resumed>,
}

/// A lab copy resumed after its guard stopped it: from which earlier state, when, and what is
/// left to go back to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resumed {
    /// The lab time the state it went back to was kept at, s.
    pub from_time: f64,
    /// The lab time and the copy's step count when it resumed (its steps count on).
    pub at_time: f64,
    pub at_step: u64,
    /// Its `dt` when it resumed, s.
    pub dt: f64,
    /// How many kept states are older than the one it went back to.
    pub earlier: usize,
}

impl Resumed {
    /// Lab time within which a copy that stops again counts as having failed at once, s.
    pub const AT_ONCE: f64 = 1.0;

    /// Whether `divergence` (the copy's latest, which a resume clears: any with a resume
    /// came after it) came at once after this resume.
    pub fn failed_at_once(&self, divergence: &Divergence) -> bool {
        divergence.time < self.at_time + Self::AT_ONCE
    }
}

/// Where the cloth steps, as the panel shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceStatus {
    /// What was asked for.
    pub choice: DeviceChoice,
    /// Whether it steps on the GPU now (its positions and velocities here are then those of
    /// the last snapshot read back, a few steps behind the drawing).
    pub on_gpu: bool,
    /// The GPU lent to the simulation, if any.
    pub adapter: Option<String>,
    /// What has been read back from the GPU since the thread started.
    pub read_backs: ReadBacks,
}

/// The lab's reference copy as the panels show it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReferenceStatus {
    /// Wall time of its last step, s.
    pub step_seconds: f64,
    /// Whether its guard has stopped it (its distances are then not measured).
    pub diverged: bool,
    /// How it moved over the lab's last seconds (`None` before the first figures, or for a
    /// cloth that is not a grid).
    pub motion: Option<Motion>,
}

impl Snapshot {
    /// How many flags the snapshot shows: this one and `flags`.
    pub fn flag_count(&self) -> usize {
        1 + self.flags.len()
    }

    /// Flag `k`'s snapshot (0 is this one); `None` past the last.
    pub fn flag(&self, k: usize) -> Option<&Snapshot> {
        if k == 0 {
            Some(self)
        } else {
            self.flags.get(k - 1)
        }
    }

    /// Every flag's snapshot, flag 0 first.
    pub fn all_flags(&self) -> impl Iterator<Item = &Snapshot> {
        std::iter::once(self).chain(&self.flags)
    }

    pub fn of(sim: &Simulation) -> Self {
        let c = &sim.cloth;
        Snapshot {
            seq: 0,
            generation: 0,
            x: c.x.clone(),
            v: c.v.clone(),
            dv: c.dv.clone(),
            pinned: c.pinned.clone(),
            interpolated: sim.interpolated().to_vec(),
            grid: c.grid(),
            mesh: Arc::clone(&c.topology.mesh),
            time: sim.time,
            step: sim.step_index,
            stats: sim.stats,
            params: sim.params().clone(),
            total_mass: c.total_mass(),
            kinetic_energy: sim.kinetic_energy(),
            paused: sim.paused,
            divergence: sim.divergence.clone(),
            error: None,
            pole_offset: sim.pole_offset,
            hoist: sim.hoist(),
            hoist_drop: sim.hoist_drop(),
            handle_offset: sim.handle_offset(sim.time),
            grabbed: sim.grab.map(|g| g.node),
            compare: None,
            steps_per_second: 0.0,
            behind: false,
            time_scale: 1.0,
            published_at: Instant::now(),
            lab: Vec::new(),
            flags: Vec::new(),
            reference_distance: None,
            motion: None,
            reference: None,
            device: DeviceStatus::default(),
            resumed: None,
        }
    }
}
