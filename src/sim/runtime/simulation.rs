//! One simulation: a cloth, its parameters, and the order of a step (docs/method.md §8).
//!
//! A published step advances `dt` in `substeps` physics steps of `h = dt / substeps`. Each physics
//! step is one short pipeline:
//!
//! ```text
//! kinematic nodes → normals, wavelet regions → external forces
//!   → integrator.internal_forces → integrator.advance (into the next-state buffers)
//!   → swap buffers → wavelet fill → strain limiting (tethers, Provot) → colliders
//!   → integrator.finish
//! ```
//!
//! After the published step the stability guard checks the state; if anything is non-finite or
//! has blown up it restores the state from before the step, pauses, and records which integrator
//! diverged and why. Nothing is copied to make that possible: the integrator writes the next
//! state into a second pair of buffers, the buffers are swapped, and the state from before the
//! published step stays in a third pair until the guard has passed. A step allocates nothing
//! once its work arrays have their size.

use web_time::Instant;

use glam::DVec3;

use crate::sim::constraints::limit::StrainScratch;
use crate::sim::format::error::SimError;
use crate::sim::format::params::{HandlePath, IntegratorKind, Params};
use crate::sim::model::cloth::Cloth;
use crate::sim::model::forces::{self, External};
use crate::sim::model::shape;
use crate::sim::runtime::guard;
use crate::sim::solvers::integrators::desbrun::Desbrun;
use crate::sim::solvers::integrators::{
    self, ForceInput, ForceWork, Integrator, Next, SolverReport, Step, StepInput,
};
use crate::sim::solvers::wavelet::Segmentation;

/// From this many nodes on the per-node loops run on the rayon pool (same results bit for bit).
/// Below it a loop is too short to pay for handing work to another thread.
pub(crate) const PARALLEL_THRESHOLD: usize = 4096;

/// The fastest a kinematic node (the grabbed node, the pole's pins) moves toward its target,
/// as a fraction of [`guard::speed_limit`]: a mouse flick or a pole drag that jumps a
/// metre between two frames is followed over a few steps instead of in one, so the nodes it
/// drags along never trip the guard's speed test (followed in one step, a long jump of the grab
/// would throw its neighbours past the speed limit and stop the viewer with a divergence).
pub(crate) const KINEMATIC_SPEED_FRACTION: f64 = 0.5;

/// Why and where the guard stopped a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    pub integrator: IntegratorKind,
    /// The published step that failed (its state was discarded).
    pub step: u64,
    /// Simulated time at the start of that step, s.
    pub time: f64,
    pub reason: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} diverged at step {} (t = {:.3} s): {}",
            self.integrator.name(),
            self.step,
            self.time,
            self.reason
        )
    }
}

/// Per-step statistics for the UI and the output files.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepStats {
    /// Wall time of the last published step, s.
    pub step_seconds: f64,
    /// Largest `|x_ab| / L` over strain-limited springs.
    pub max_strain: f64,
    /// `h² k_structural / m̄`: how far `kang` is from the exact filter (small is close).
    pub h2k_over_m: f64,
    /// The integrator's own figures for the last physics step (its solver's iterations, its
    /// precompute): [`SolverReport::None`] for schemes without any.
    pub solver: SolverReport,
    /// Fraction of the nodes the wavelet interpolation filled in the last physics step (0 when
    /// it is off).
    pub interpolated_fraction: f64,
    /// Flat regions it found in the last physics step.
    pub interpolated_regions: usize,
    /// Provot corrections in the last step.
    pub provot_corrections: usize,
    /// Provot sweeps in the last physics step (they stop when nothing is over the limit).
    pub provot_sweeps: u32,
    /// Tether corrections in the last step.
    pub tether_corrections: usize,
    /// Corrections on the coarse levels in the last step ([`crate::sim::constraints::strain_levels`]).
    pub level_corrections: usize,
    /// Tethers in use (0 when they are off or nothing is kinematic).
    pub tethers: usize,
    /// Collider contacts in the last step.
    pub contacts: usize,
}

/// The mouse grab: one node follows a target point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grab {
    pub node: usize,
    /// Where the node should be, m.
    pub target: DVec3,
}

/// The pipeline's work arrays, reused between steps.
#[derive(Debug, Clone, Default)]
struct Work {
    kinematic: Vec<bool>,
    known_dv: Vec<DVec3>,
    target_x: Vec<DVec3>,
    tri_normals: Vec<DVec3>,
    normals: Vec<DVec3>,
    force: Vec<DVec3>,
    forces: ForceWork,
    ext: External,
    /// The integrator writes the next state here; after the swap it holds the state from
    /// before the physics step.
    next_x: Vec<DVec3>,
    next_v: Vec<DVec3>,
    /// The state from before the published step, for the guard (valid once a physics step has
    /// swapped it in).
    saved_x: Vec<DVec3>,
    saved_v: Vec<DVec3>,
    /// `Δv` of the published step, swapped into the cloth when the guard passes.
    published_dv: Vec<DVec3>,
    /// The integrator's `Δv` of the last physics step.
    dv: Vec<DVec3>,
    strain: StrainScratch,
    segmentation: Segmentation,
    /// Kinematic or interpolated: the nodes the Jacobi sweeps hold fixed (wavelet on only).
    held: Vec<bool>,
    held_dv: Vec<DVec3>,
    /// `Δv` of the last physics step (wavelet on only): interpolated nodes enter the next step's
    /// Jacobi sweeps with it.
    prev_dv: Vec<DVec3>,
    /// `prev_dv` before the published step, put back when the guard discards it.
    prev_dv_kept: Vec<DVec3>,
}

/// What a device's physics step takes from the CPU ([`Simulation::begin_device_step`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeviceStep<'a> {
    /// The time at its start, s.
    pub t: f64,
    /// The base wind during it, m/s.
    pub base_wind: DVec3,
    /// Per node: whether it is held, and for the held ones their known `Δv` (m/s) and where
    /// they must be at the step's end (m).
    pub kinematic: &'a [bool],
    pub known_dv: &'a [DVec3],
    pub target_x: &'a [DVec3],
    /// The parameters it runs with.
    pub params: &'a Params,
}

/// A running simulation. Everything the step needs is in here or passed in; no globals.
#[derive(Debug, Clone)]
pub struct Simulation {
    pub cloth: Cloth,
    params: Params,
    /// Simulated time, s.
    pub time: f64,
    /// Published steps taken.
    pub step_index: u64,
    /// Set by the guard; a paused simulation does not step until resumed.
    pub paused: bool,
    pub divergence: Option<Divergence>,
    pub stats: StepStats,
    pub grab: Option<Grab>,
    /// The user's displacement of the pole (all pinned nodes), m.
    pub pole_offset: DVec3,
    /// How far up its pole the flag is now, as a share of [`Simulation::hoist_travel`]
    /// (`params.hoist.height` is where it is going).
    hoist: f64,
    /// How far the pinned nodes go down from the top of the pole to the bottom, m.
    hoist_travel: f64,
    /// Force the parallel path on or off; `None` chooses by [`PARALLEL_THRESHOLD`].
    pub parallel: Option<bool>,
    /// The base wind the air has now, m/s (follows `params.wind.velocity`).
    pub base_wind: DVec3,
    /// Whether the stability guard runs (default `true`). Only the benchmark turns it off, to
    /// time the arithmetic of a step of a scheme that is unstable at that step.
    pub guard: bool,
    /// One instance per integrator kind used so far, kept so that switching back finds its
    /// caches (the `desbrun` inverse) and history (`choi-ko`).
    integrators: Vec<Option<Box<dyn Integrator>>>,
    work: Work,
}

/// The wind the air has after `h` more seconds of following `params.wind.velocity`, m/s: it
/// moves toward the set value by `1 − exp(−h / response)` (at once when `response` is 0).
fn air_after(params: &Params, base_wind: DVec3, h: f64) -> DVec3 {
    let target = DVec3::from_array(params.wind.velocity);
    let follow = if params.wind.response > 0.0 {
        1.0 - (-h / params.wind.response).exp()
    } else {
        1.0
    };
    base_wind + (target - base_wind) * follow
}

impl Work {
    /// The wavelet segmentation of this step from the normals: which nodes are interpolated,
    /// and what the Jacobi sweeps hold (kinematic nodes at their known `Δv`, interpolated ones
    /// at their last). Returns the interpolated fraction and the number of regions.
    fn segment(
        &mut self,
        grid: &crate::sim::model::cloth::GridInfo,
        threshold: f64,
    ) -> (f64, usize) {
        let n = self.kinematic.len();
        let seg = &mut self.segmentation;
        seg.classify(grid, &self.normals, &self.kinematic, threshold);
        self.prev_dv.resize(n, DVec3::ZERO);
        self.held.clear();
        self.held.extend(
            self.kinematic
                .iter()
                .zip(&seg.interpolated)
                .map(|(k, i)| *k || *i),
        );
        self.held_dv.clear();
        let (prev_dv, known_dv) = (&self.prev_dv, &self.known_dv);
        self.held_dv.extend((0..n).map(|i| {
            if seg.interpolated[i] {
                prev_dv[i]
            } else {
                known_dv[i]
            }
        }));
        (seg.count as f64 / n.max(1) as f64, seg.regions.len())
    }
}

/// How far the pinned nodes can be lowered: from the lowest pinned node's anchor (where the
/// scene places it, at the top of the pole) down to the ground collider's height (0 without
/// one), m; 0 without pinned nodes or when the lowest is at or below the ground.
fn hoist_travel(cloth: &Cloth, params: &Params) -> f64 {
    let ground = params
        .colliders
        .iter()
        .find_map(|c| match c {
            crate::sim::format::params::Collider::Ground(g) => Some(g.height),
            crate::sim::format::params::Collider::Sphere(_) => None,
        })
        .unwrap_or(0.0);
    let lowest = (cloth.pinned.iter().zip(&cloth.topology.anchor))
        .filter(|(pinned, _)| **pinned)
        .map(|(_, a)| a.y)
        .fold(f64::INFINITY, f64::min);
    if lowest.is_finite() {
        (lowest - ground).max(0.0)
    } else {
        0.0
    }
}

fn slot(kind: IntegratorKind) -> usize {
    kind.index()
}

impl Simulation {
    /// A simulation of `cloth` with validated `params`.
    pub(crate) fn new(mut cloth: Cloth, params: Params) -> Result<Self, SimError> {
        params.validate()?;
        cloth.apply_stiffness(&params.stiffness);
        let mut sim = Self {
            cloth,
            params: params.clone(),
            time: 0.0,
            step_index: 0,
            paused: false,
            divergence: None,
            stats: StepStats::default(),
            grab: None,
            pole_offset: DVec3::ZERO,
            hoist: params.hoist.height,
            hoist_travel: 0.0,
            parallel: None,
            base_wind: DVec3::from_array(params.wind.velocity),
            guard: true,
            integrators: (0..IntegratorKind::ALL.len()).map(|_| None).collect(),
            work: Work::default(),
        };
        sim.check_integrator_fits()?;
        // A flag that starts below the top of its pole starts there, whole: no jump.
        sim.hoist_travel = hoist_travel(&sim.cloth, &sim.params);
        let drop = DVec3::Y * sim.hoist_drop();
        for x in &mut sim.cloth.x {
            *x -= drop;
        }
        sim.stats.max_strain = sim.cloth.max_strain();
        sim.stats.h2k_over_m = sim.h2k_over_m();
        Ok(sim)
    }

    /// A simulation of `cloth` with `params` at `other`'s moment, where `cloth` is a key grid
    /// of the same sheet as `other`'s at another resolution: `other`'s nodes, velocities and
    /// last `Δv` taken at this grid's nodes ([`shape::resample`]), its clock, pole, hoist and
    /// air. How a lab copy at its own key grid takes another copy's state. A cloth that is not
    /// a grid has no such moment.
    pub(crate) fn at_moment_of(
        cloth: Cloth,
        params: Params,
        other: &Simulation,
    ) -> Result<Self, SimError> {
        let mut sim = Self::new(cloth, params)?;
        let (Some(to), Some(from)) = (sim.cloth.grid(), other.cloth.grid()) else {
            return Err(SimError::Structure {
                field: "cloth.grid",
                problem: "missing: only grid cloths take each other's state at another grid",
            });
        };
        let (from, to) = ([from.nx, from.ny], [to.nx, to.ny]);
        sim.cloth.x = shape::resample(&other.cloth.x, from, to);
        sim.cloth.v = shape::resample(&other.cloth.v, from, to);
        sim.cloth.dv = shape::resample(&other.cloth.dv, from, to);
        sim.time = other.time;
        sim.step_index = other.step_index;
        sim.pole_offset = other.pole_offset;
        sim.hoist = other.hoist;
        sim.base_wind = other.base_wind;
        sim.stats.max_strain = sim.cloth.max_strain();
        Ok(sim)
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the parameters between two steps. The state is kept, so switching integrator,
    /// `dt`, stiffness or wind mid-run continues from the same positions and velocities.
    pub fn set_params(&mut self, params: Params) -> Result<(), SimError> {
        params.validate()?;
        let old = std::mem::replace(&mut self.params, params);
        self.cloth.apply_stiffness(&self.params.stiffness);
        if let Err(e) = self.check_integrator_fits() {
            self.params = old;
            self.cloth.apply_stiffness(&self.params.stiffness);
            return Err(e);
        }
        self.stats.h2k_over_m = self.h2k_over_m();
        self.hoist_travel = hoist_travel(&self.cloth, &self.params);
        Ok(())
    }

    /// How far up its pole the flag is now, as a share of the way (1 at the top, where the
    /// scene placed it); it moves towards `params.hoist.height` at `params.hoist.speed`.
    pub fn hoist(&self) -> f64 {
        self.hoist
    }

    /// How far below the top of the pole the pinned nodes are now, m.
    pub fn hoist_drop(&self) -> f64 {
        (1.0 - self.hoist) * self.hoist_travel
    }

    /// How far the pinned nodes travel from the top of the pole to the bottom, m: from where
    /// the lowest of them is at the top down to the ground.
    pub fn hoist_travel(&self) -> f64 {
        self.hoist_travel
    }

    /// Where the flag is `h` seconds on: `hoist` moved towards `params.hoist.height` by at most
    /// `speed · h` metres of travel.
    fn hoist_after(&self, h: f64) -> f64 {
        let target = self.params.hoist.height;
        if self.hoist_travel <= 0.0 {
            return target;
        }
        let most = self.params.hoist.speed * h / self.hoist_travel;
        self.hoist + (target - self.hoist).clamp(-most, most)
    }

    fn check_integrator_fits(&self) -> Result<(), SimError> {
        if self.params.integrator == IntegratorKind::Desbrun {
            Desbrun::check_fits(&self.cloth.pinned)?;
        }
        Ok(())
    }

    /// Rescales the masses so the cloth weighs `total` kg.
    pub fn set_total_mass(&mut self, total: f64) -> Result<(), SimError> {
        crate::sim::format::params::spec::TOTAL_MASS.check(total)?;
        self.cloth.set_total_mass(total);
        self.stats.h2k_over_m = self.h2k_over_m();
        Ok(())
    }

    /// `h² k / m̄` with the structural stiffness (or the mean custom stiffness) and mean mass.
    pub(crate) fn h2k_over_m(&self) -> f64 {
        let n = self.cloth.cloth_node_count().max(1) as f64;
        let m_mean = self.cloth.total_mass() / n;
        let k = if self.cloth.grid().is_some() {
            self.params.stiffness.structural
        } else if self.cloth.k().is_empty() {
            0.0
        } else {
            self.cloth.k().iter().sum::<f64>() / self.cloth.k().len() as f64
        };
        let h = self.params.h();
        h * h * k / m_mean
    }

    /// Whether the wavelet interpolation runs with the current parameters: enabled, a member of
    /// the local implicit family (`kang`, `hybrid`) and a grid cloth.
    pub fn wavelet_active(&self) -> bool {
        self.params.wavelet.enabled
            && matches!(
                self.params.integrator,
                IntegratorKind::Kang | IntegratorKind::Hybrid
            )
            && self.cloth.grid().is_some()
    }

    /// Per node, whether the last physics step interpolated it (empty when the wavelet
    /// interpolation is off).
    pub fn interpolated(&self) -> &[bool] {
        if self.wavelet_active() {
            &self.work.segmentation.interpolated
        } else {
            &[]
        }
    }

    /// The tethers of the last step (empty before the first step or when they are off).
    pub fn tethers(&self) -> &crate::sim::constraints::tethers::Tethers {
        &self.work.strain.tethers
    }

    /// Clears the guard so stepping resumes (the state is the last good one).
    pub fn clear_divergence(&mut self) {
        self.divergence = None;
        self.paused = false;
    }

    fn use_parallel(&self) -> bool {
        self.parallel
            .unwrap_or(self.cloth.node_count() >= PARALLEL_THRESHOLD)
    }

    /// Offset of the scripted handle path at time `t`, m.
    pub fn handle_offset(&self, t: f64) -> DVec3 {
        let hd = &self.params.handle;
        match hd.path {
            HandlePath::None => DVec3::ZERO,
            HandlePath::Figure8 => {
                let w = std::f64::consts::TAU / hd.period;
                let a = hd.amplitude;
                DVec3::new(0.0, 0.5 * a * (2.0 * w * t).sin(), a * (w * t).sin())
            }
        }
    }

    /// The integrator of `kind`, made on first use.
    fn integrator_mut(&mut self, kind: IntegratorKind) -> &mut Box<dyn Integrator> {
        self.integrators[slot(kind)].get_or_insert_with(|| integrators::make(kind))
    }

    /// Runs up to `n` published steps, stopping after the first one the guard rejects (the
    /// simulation is then paused on the last good state). Returns how many it ran, the rejected
    /// one included. While paused every step does nothing, and all `n` "run".
    pub fn step_n(&mut self, n: u32) -> u32 {
        for k in 1..=n {
            if !self.step() {
                return k;
            }
        }
        n
    }

    /// Advances one published step (`dt`). Does nothing while paused. Returns `false` when the
    /// guard fired (the state is then the one from before the step).
    pub fn step(&mut self) -> bool {
        if self.paused {
            return true;
        }
        if self.use_parallel() && rayon::current_thread_index().is_none() {
            // Run the whole step on the pool: its parallel loops then start from a worker
            // instead of waking the pool and sleeping on each one.
            return rayon::scope(|_| self.step_on_this_thread());
        }
        self.step_on_this_thread()
    }

    fn step_on_this_thread(&mut self) -> bool {
        let start = Instant::now();
        let (time0, step0, wind0) = (self.time, self.step_index, self.base_wind);
        let hoist0 = self.hoist;
        self.stats.provot_corrections = 0;
        self.stats.tether_corrections = 0;
        self.stats.level_corrections = 0;
        self.stats.contacts = 0;
        // What only some integrators report: a switch away from one must not leave its
        // figures standing (or the panel would show `implicit-cg`'s CG iterations under `kang`).
        self.stats.solver = SolverReport::None;
        let h = self.params.h();
        // What the next step reads of this one outside the cloth, kept in case the guard
        // discards it: the integrator's warm start or history, the wavelet's previous `Δv`.
        let kind = self.params.integrator;
        self.integrator_mut(kind).checkpoint();
        let w = &mut self.work;
        w.prev_dv_kept.clone_from(&w.prev_dv);
        let mut failure = None;
        let mut swapped = false;
        for _ in 0..self.params.substeps {
            if let Err(e) = self.substep(h, !swapped) {
                failure = Some(e.to_string());
                break;
            }
            swapped = true;
        }
        let (strain_all, strain_limited) = self.cloth.strain_maxima(self.use_parallel());
        if failure.is_none() && self.guard {
            failure = guard::check(
                &self.cloth,
                &self.params,
                &self.work.kinematic,
                self.use_parallel(),
                strain_all,
            );
        }
        if let Some(reason) = failure {
            if swapped {
                let w = &mut self.work;
                std::mem::swap(&mut self.cloth.x, &mut w.saved_x);
                std::mem::swap(&mut self.cloth.v, &mut w.saved_v);
            }
            self.integrator_mut(kind).rollback();
            let w = &mut self.work;
            std::mem::swap(&mut w.prev_dv, &mut w.prev_dv_kept);
            self.time = time0;
            self.step_index = step0;
            self.base_wind = wind0;
            self.hoist = hoist0;
            self.paused = true;
            self.divergence = Some(Divergence {
                integrator: self.params.integrator,
                step: step0 + 1,
                time: time0,
                reason,
            });
            return false;
        }
        if swapped {
            let parallel = self.use_parallel();
            let w = &mut self.work;
            let (v, v0) = (&self.cloth.v, &w.saved_v);
            w.published_dv.resize(v.len(), DVec3::ZERO);
            crate::sim::model::par::for_each_node(parallel, &mut w.published_dv, |i, dv| {
                *dv = v[i] - v0[i];
            });
            std::mem::swap(&mut self.cloth.dv, &mut w.published_dv);
        }
        self.step_index += 1;
        self.stats.max_strain = strain_limited;
        self.stats.step_seconds = start.elapsed().as_secs_f64();
        true
    }

    /// The cloth's kinetic energy `½ Σ m_i |v_i|²` over every node, J.
    pub(crate) fn kinetic_energy(&self) -> f64 {
        let c = &self.cloth;
        0.5 * c
            .m
            .iter()
            .zip(&c.v)
            .map(|(m, v)| m * v.length_squared())
            .sum::<f64>()
    }

    /// The fastest a free node may move before the guard calls it a blow-up, m/s
    /// ([`guard::speed_limit`]).
    pub(crate) fn speed_limit(&self) -> f64 {
        guard::speed_limit(&self.params)
    }

    /// Provot's sweeps in the GPU's order (colours of springs, `gpu_sim::StrainPass`) from now
    /// on (`true`), or by bands (`false`, the default: faster on the CPU). Both limit every
    /// spring alike; where the sweeps correct much they leave different, equally limited
    /// cloths, so a CPU run that is to follow the GPU's step sweeps in its order.
    #[cfg(test)]
    pub(crate) fn set_gpu_strain_order(&mut self, on: bool) {
        self.work.strain.coloured = on;
    }

    /// The CPU's share of a physics step that another device takes (the GPU step, docs/gpu.md):
    /// places the kinematic nodes for `t + h` and moves the air on, as [`Simulation::step`]
    /// does before its forces. The device then steps the free nodes; [`Self::end_device_step`]
    /// finishes the step here.
    pub(crate) fn begin_device_step(&mut self) -> DeviceStep<'_> {
        let h = self.params.h();
        self.place_kinematic(h);
        self.base_wind = air_after(&self.params, self.base_wind, h);
        DeviceStep {
            t: self.time,
            base_wind: self.base_wind,
            kinematic: &self.work.kinematic,
            known_dv: &self.work.known_dv,
            target_x: &self.work.target_x,
            params: &self.params,
        }
    }

    /// Ends a physics step another device took: the kinematic nodes at their targets with
    /// `v = (target − x) / h` (as the step's end moves them on the device), the clock on by
    /// `h` ([`Simulation::step_index`] counts published steps: the caller counts them). The
    /// free nodes keep the state they had here until the device's is read back into
    /// [`Simulation::cloth`].
    pub(crate) fn end_device_step(&mut self) {
        let h = self.params.h();
        let w = &self.work;
        let c = &mut self.cloth;
        for i in 0..c.node_count() {
            if w.kinematic[i] {
                c.v[i] = (w.target_x[i] - c.x[i]) / h;
                c.x[i] = w.target_x[i];
            }
        }
        self.time += h;
    }

    /// Takes the state another device's steps reached (positions, m, and velocities, m/s,
    /// every node), `steps` published steps after the state the cloth has now, through the
    /// guard as [`Simulation::step`] does: a state that fails it is not taken (the cloth keeps
    /// the last good one), the simulation pauses with the divergence, and `false` is returned.
    /// Each node's `dv` becomes its mean change of velocity a published step over them.
    pub(crate) fn accept_device_state(&mut self, x: Vec<DVec3>, v: Vec<DVec3>, steps: u64) -> bool {
        let n = self.cloth.node_count();
        if x.len() != n || v.len() != n {
            return false;
        }
        let old_x = std::mem::replace(&mut self.cloth.x, x);
        let old_v = std::mem::replace(&mut self.cloth.v, v);
        let parallel = self.use_parallel();
        let (strain_all, strain_limited) = self.cloth.strain_maxima(parallel);
        let kinematic = self.held_now();
        let failure = if self.guard {
            guard::check(&self.cloth, &self.params, &kinematic, parallel, strain_all)
        } else {
            None
        };
        if let Some(reason) = failure {
            self.cloth.x = old_x;
            self.cloth.v = old_v;
            self.paused = true;
            self.divergence = Some(Divergence {
                integrator: self.params.integrator,
                step: self.step_index,
                time: self.time,
                reason,
            });
            return false;
        }
        let per_step = 1.0 / steps.max(1) as f64;
        let c = &mut self.cloth;
        c.dv.resize(n, DVec3::ZERO);
        for ((dv, v), v0) in c.dv.iter_mut().zip(&c.v).zip(&old_v) {
            *dv = (*v - *v0) * per_step;
        }
        self.stats.max_strain = strain_limited;
        true
    }

    /// Takes the last good state another device kept when one of its steps failed the guard it
    /// runs itself (the GPU's, [`crate::gpu_sim`]): the cloth becomes `x`, `v` (every node,
    /// the held ones included), the clock goes back to that state's published step `step` and
    /// time `time` (s), and the simulation pauses with the divergence of the step after it, as
    /// [`Simulation::step`] does when its guard fires. (The base wind and the hoisting go on
    /// from where the CPU's share had taken them.)
    pub(crate) fn accept_device_divergence(
        &mut self,
        x: Vec<DVec3>,
        v: Vec<DVec3>,
        step: u64,
        time: f64,
        reason: String,
    ) {
        let n = self.cloth.node_count();
        if x.len() == n && v.len() == n {
            self.cloth.x = x;
            self.cloth.v = v;
        }
        self.step_index = step;
        self.time = time;
        self.paused = true;
        self.divergence = Some(Divergence {
            integrator: self.params.integrator,
            step: step + 1,
            time,
            reason,
        });
    }

    /// The nodes the next step holds: the pins, a shaped flag's cut nodes and the grabbed
    /// node.
    pub(crate) fn held_now(&self) -> Vec<bool> {
        let c = &self.cloth;
        let mut held = c.pinned.clone();
        for (h, &cut) in held.iter_mut().zip(&c.topology.mesh.cut) {
            *h |= cut;
        }
        if let Some(g) = self.grab
            && let Some(h) = held.get_mut(g.node)
        {
            *h = true;
        }
        held
    }

    /// Kinematic nodes: which they are, where they must be at `t + h`, and their known `Δv`.
    fn place_kinematic(&mut self, h: f64) {
        let n = self.cloth.node_count();
        let t = self.time;
        self.hoist = self.hoist_after(h);
        let offset = self.cloth_offset(t + h);
        let max_move = KINEMATIC_SPEED_FRACTION * self.speed_limit() * h;
        let w = &mut self.work;
        w.kinematic.clear();
        w.kinematic.extend_from_slice(&self.cloth.pinned);
        // A shaped flag's cut nodes: held where they are (they have no springs).
        let cut = &self.cloth.topology.mesh.cut;
        for (k, c) in w.kinematic.iter_mut().zip(cut) {
            *k |= *c;
        }
        w.known_dv.resize(n, DVec3::ZERO);
        w.target_x.resize(n, DVec3::ZERO);
        if let Some(g) = self.grab {
            w.kinematic[g.node] = true;
        }
        let c = &self.cloth;
        for i in 0..n {
            if !w.kinematic[i] {
                continue;
            }
            let wanted = match self.grab {
                Some(g) if g.node == i => g.target,
                _ if c.topology.mesh.is_cut(i) => c.x[i],
                _ => c.topology.anchor[i] + offset,
            };
            let target = c.x[i] + (wanted - c.x[i]).clamp_length_max(max_move);
            w.target_x[i] = target;
            w.known_dv[i] = (target - c.x[i]) / h - c.v[i];
        }
    }

    /// Where the pinned nodes sit at time `t` relative to their anchors, m.
    fn cloth_offset(&self, t: f64) -> DVec3 {
        self.pole_offset + self.handle_offset(t) - DVec3::Y * self.hoist_drop()
    }

    /// One physics step of `h` (the pipeline above). With `keep_start` the state from before it
    /// is kept for the guard.
    fn substep(&mut self, h: f64, keep_start: bool) -> Result<(), SimError> {
        let parallel = self.use_parallel();
        let n = self.cloth.node_count();
        let t = self.time;
        let kind = self.params.integrator;
        self.place_kinematic(h);
        let wavelet = self.wavelet_active();
        let mut integrator = self.integrators[slot(kind)]
            .take()
            .unwrap_or_else(|| integrators::make(kind));
        let result = self.run_pipeline(integrator.as_mut(), h, t, n, parallel, wavelet);
        self.stats.solver = integrator.report();
        self.integrators[slot(kind)] = Some(integrator);
        result?;
        if keep_start {
            let w = &mut self.work;
            std::mem::swap(&mut w.next_x, &mut w.saved_x);
            std::mem::swap(&mut w.next_v, &mut w.saved_v);
        }
        Ok(())
    }

    /// The step's first stage: the key mesh's normals (for the air and the wavelet regions),
    /// then the wavelet segmentation (which nodes this step interpolates instead of
    /// integrating).
    fn normals_and_regions(&mut self, n: usize, parallel: bool, wavelet: bool) {
        let params = &self.params;
        let w = &mut self.work;
        let air = params.wind.drag != 0.0 || params.wind.lift != 0.0 || params.wind.linear != 0.0;
        w.normals.resize(n, DVec3::ZERO);
        if air || wavelet {
            self.cloth
                .node_normals(parallel, &mut w.tri_normals, &mut w.normals);
        }
        let (fraction, regions) = match self.cloth.grid() {
            Some(grid) if wavelet => w.segment(&grid, params.wavelet.threshold),
            _ => (0.0, 0),
        };
        self.stats.interpolated_fraction = fraction;
        self.stats.interpolated_regions = regions;
    }

    fn run_pipeline(
        &mut self,
        integrator: &mut dyn Integrator,
        h: f64,
        t: f64,
        n: usize,
        parallel: bool,
        wavelet: bool,
    ) -> Result<(), SimError> {
        self.normals_and_regions(n, parallel, wavelet);
        let params = &self.params;
        let w = &mut self.work;
        let skip: &[bool] = if wavelet {
            &w.segmentation.interpolated
        } else {
            &[]
        };
        let input = StepInput {
            cloth: &self.cloth,
            kinematic: &w.kinematic,
            known_dv: &w.known_dv,
            h,
            parallel,
        };
        // External forces, in the air as it is now.
        self.base_wind = air_after(params, self.base_wind, h);
        forces::external_forces(
            &self.cloth,
            params,
            t,
            self.base_wind,
            &w.normals,
            parallel,
            skip,
            &mut w.ext,
        );
        // Internal forces, then the integrator's step into the next-state buffers.
        w.force.resize(n, DVec3::ZERO);
        let at = ForceInput {
            input: &input,
            params,
            skip,
        };
        w.forces.inv_len.clear();
        integrator.internal_forces(&at, &mut w.forces, &mut w.force);
        w.next_x.resize(n, DVec3::ZERO);
        w.next_v.resize(n, DVec3::ZERO);
        let (held, held_dv): (&[bool], &[DVec3]) = if wavelet {
            (&w.held, &w.held_dv)
        } else {
            (&w.kinematic, &w.known_dv)
        };
        let step = Step {
            input,
            params,
            target_x: &w.target_x,
            force: &w.force,
            inv_len: &w.forces.inv_len,
            ext: &w.ext,
            skip,
            held,
            held_dv,
        };
        let mut next = Next {
            x: &mut w.next_x,
            v: &mut w.next_v,
            dv: &mut w.dv,
        };
        integrator.advance(&step, &mut next)?;
        // The new state becomes current; the buffers keep the state from before the step.
        std::mem::swap(&mut self.cloth.x, &mut w.next_x);
        std::mem::swap(&mut self.cloth.v, &mut w.next_v);
        let cloth = &mut self.cloth;
        if wavelet && let Some(grid) = cloth.grid() {
            // Interior nodes of flat regions: interpolated from the integrated edges.
            let seg = &w.segmentation;
            seg.interpolate(grid.nx, &mut cloth.x);
            seg.interpolate(grid.nx, &mut cloth.v);
            seg.interpolate(grid.nx, &mut w.dv);
            w.prev_dv.copy_from_slice(&w.dv);
        }
        // Strain limiting, then colliders.
        let report = crate::sim::constraints::limit::limit_strain(
            cloth,
            &w.kinematic,
            &w.next_x,
            &mut w.strain,
            h,
            &params.provot,
            parallel,
        );
        self.stats.provot_corrections += report.corrections;
        self.stats.provot_sweeps = report.sweeps;
        self.stats.tether_corrections += report.tether_corrections;
        self.stats.level_corrections += report.level_corrections;
        self.stats.tethers = if params.provot.enabled && params.provot.tethers {
            w.strain.tethers.len()
        } else {
            0
        };
        self.stats.contacts +=
            crate::sim::constraints::colliders::collide(cloth, &w.kinematic, &params.colliders);
        integrator.finish(cloth, h);
        self.time += h;
        Ok(())
    }

    /// `Δv` that integrator `kind` would produce for one physics step from the current state,
    /// without changing the state (for the Fig. 8 comparison and the accuracy benchmark).
    pub fn probe_delta_v(&mut self, kind: IntegratorKind) -> Result<Vec<DVec3>, SimError> {
        let saved = (
            self.cloth.x.clone(),
            self.cloth.v.clone(),
            self.time,
            self.stats,
            self.params.integrator,
            self.params.provot.enabled,
            self.params.colliders.clone(),
            self.base_wind,
        );
        self.params.integrator = kind;
        self.params.provot.enabled = false;
        self.params.colliders.clear();
        let h = self.params.h();
        // Step state that is not in the cloth: choi-ko's BDF2 history and the Δv the wavelet
        // interpolation holds interpolated nodes at.
        let history = self.integrator_mut(kind).save_history();
        let prev_dv = self.work.prev_dv.clone();
        let result = self.substep(h, false);
        if let Some(h) = history {
            self.integrators[slot(kind)] = Some(h);
        }
        self.work.prev_dv = prev_dv;
        let dv: Vec<DVec3> = self
            .cloth
            .v
            .iter()
            .zip(&saved.1)
            .map(|(a, b)| *a - *b)
            .collect();
        self.cloth.x = saved.0;
        self.cloth.v = saved.1;
        self.time = saved.2;
        self.stats = saved.3;
        self.params.integrator = saved.4;
        self.params.provot.enabled = saved.5;
        self.params.colliders = saved.6;
        self.base_wind = saved.7;
        result?;
        Ok(dv)
    }
}
