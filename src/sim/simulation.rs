//! One simulation: a cloth, its parameters, and the order of a step (method.md §8).
//!
//! A published step advances `dt` in `substeps` physics steps of `h = dt / substeps`. Each physics
//! step: move kinematic nodes; key-mesh normals; with the wavelet option, the flat regions whose
//! interior nodes are interpolated instead of integrated; spring forces (or `choi-ko`'s buckling
//! model) and the viscosity term; external forces; the integrator's `Δv`; positions (then the
//! interpolated nodes); Provot; colliders. After the published step the
//! stability guard checks the state; if anything is non-finite or has blown up it restores the
//! state from before the step, pauses, and records which integrator diverged and why.

use std::time::Instant;

use glam::DVec3;

use super::buckling;
use super::cloth::Cloth;
use super::constraints;
use super::forces::{self, External};
use super::integrators::choi_ko::{self, ChoiKoScratch};
use super::integrators::desbrun::{DesbrunFilter, TooLarge};
use super::integrators::implicit_cg::{self, CgReport, CgScratch};
use super::integrators::{StepInput, explicit, kang, xpbd};
use super::params::{HandlePath, IntegratorKind, Params};
use super::wavelet::Segmentation;

/// Above this many nodes the per-node loops run on the rayon pool (same results bit for bit).
pub const PARALLEL_THRESHOLD: usize = 16_384;

/// A spring stretched beyond this multiple of its rest length counts as blown up.
pub const BLOWUP_STRETCH: f64 = 10.0;

/// With strain limiting on, a free node faster than this (m/s), or than [`BLOWUP_WIND_FACTOR`]
/// times the wind speed, counts as blown up: no flag in a breeze moves that fast, but an unstable
/// explicit scheme held together by strain limiting does (its positions stay bounded while it
/// thrashes).
pub const BLOWUP_SPEED: f64 = 50.0;

/// See [`BLOWUP_SPEED`].
pub const BLOWUP_WIND_FACTOR: f64 = 2.5;

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
    /// Last `implicit-cg` or `choi-ko` solve.
    pub cg: CgReport,
    /// Whether the last `choi-ko` step was BDF2 (false: a BDF1 start).
    pub bdf2: bool,
    /// Fraction of the nodes the wavelet interpolation filled in the last physics step (0 when
    /// it is off).
    pub interpolated_fraction: f64,
    /// Flat regions it found in the last physics step.
    pub interpolated_regions: usize,
    /// Last time the dense `desbrun` inverse was computed, s.
    pub desbrun_precompute_seconds: f64,
    pub desbrun_builds: u64,
    /// Provot corrections in the last step.
    pub provot_corrections: usize,
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

#[derive(Debug, Clone, Default)]
struct Scratch {
    spring_f: Vec<DVec3>,
    force: Vec<DVec3>,
    ftilde: Vec<DVec3>,
    dv: Vec<DVec3>,
    tmp: Vec<DVec3>,
    known_dv: Vec<DVec3>,
    target_x: Vec<DVec3>,
    normals: Vec<DVec3>,
    kinematic: Vec<bool>,
    ext: External,
    x_before: Vec<DVec3>,
    provot: constraints::ProvotScratch,
    v_step_start: Vec<DVec3>,
    backup_x: Vec<DVec3>,
    backup_v: Vec<DVec3>,
    backup_dv: Vec<DVec3>,
    cg: CgScratch,
    xpbd: xpbd::XpbdScratch,
    choi_ko: ChoiKoScratch,
    dx: Vec<DVec3>,
    segmentation: Segmentation,
    /// Kinematic or interpolated: the nodes the Jacobi sweeps hold fixed (wavelet on only).
    held: Vec<bool>,
    held_dv: Vec<DVec3>,
    /// `Δv` of the last physics step (wavelet on only): interpolated nodes enter the next step's
    /// Jacobi sweeps with it.
    prev_dv: Vec<DVec3>,
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
    /// Force the parallel path on or off; `None` chooses by [`PARALLEL_THRESHOLD`].
    pub parallel: Option<bool>,
    /// The base wind the air has now, m/s (follows `params.wind.velocity`).
    pub base_wind: DVec3,
    /// Whether the stability guard runs (default `true`). Only the benchmark turns it off, to
    /// time the arithmetic of a step of a scheme that is unstable at that step.
    pub guard: bool,
    desbrun: DesbrunFilter,
    scratch: Scratch,
}

/// Errors a parameter change can raise.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    InvalidParams(String),
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
}

impl Simulation {
    /// A simulation of `cloth` with validated `params`.
    pub fn new(mut cloth: Cloth, params: Params) -> Result<Self, SimError> {
        params.validate().map_err(SimError::InvalidParams)?;
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
            parallel: None,
            base_wind: DVec3::from_array(params.wind.velocity),
            guard: true,
            desbrun: DesbrunFilter::default(),
            scratch: Scratch::default(),
        };
        sim.check_integrator_fits()?;
        sim.stats.max_strain = sim.cloth.max_strain();
        sim.stats.h2k_over_m = sim.h2k_over_m();
        Ok(sim)
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the parameters between two steps. The state is kept, so switching integrator,
    /// `dt`, stiffness or wind mid-run continues from the same positions and velocities.
    pub fn set_params(&mut self, params: Params) -> Result<(), SimError> {
        params.validate().map_err(SimError::InvalidParams)?;
        let old = std::mem::replace(&mut self.params, params);
        self.cloth.apply_stiffness(&self.params.stiffness);
        if let Err(e) = self.check_integrator_fits() {
            self.params = old;
            self.cloth.apply_stiffness(&self.params.stiffness);
            return Err(e);
        }
        self.stats.h2k_over_m = self.h2k_over_m();
        Ok(())
    }

    fn check_integrator_fits(&self) -> Result<(), SimError> {
        if self.params.integrator == IntegratorKind::Desbrun {
            let free = self.cloth.pinned.iter().filter(|p| !**p).count();
            if free > super::integrators::desbrun::MAX_DESBRUN_NODES {
                return Err(TooLarge { free }.into());
            }
        }
        Ok(())
    }

    /// Rescales the masses so the cloth weighs `total` kg.
    pub fn set_total_mass(&mut self, total: f64) -> Result<(), SimError> {
        if !(total.is_finite() && total > 0.0 && total <= 1e6) {
            return Err(SimError::InvalidParams(format!(
                "total mass: must be a finite number in (0, 1e6] kg, got {total}"
            )));
        }
        self.cloth.set_total_mass(total);
        self.stats.h2k_over_m = self.h2k_over_m();
        Ok(())
    }

    /// `h² k / m̄` with the structural stiffness (or the mean custom stiffness) and mean mass.
    pub fn h2k_over_m(&self) -> f64 {
        let n = self.cloth.node_count().max(1) as f64;
        let m_mean = self.cloth.total_mass() / n;
        let k = if self.cloth.grid.is_some() {
            self.params.stiffness.structural
        } else if self.cloth.k.is_empty() {
            0.0
        } else {
            self.cloth.k.iter().sum::<f64>() / self.cloth.k.len() as f64
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
            && self.cloth.grid.is_some()
    }

    /// Per node, whether the last physics step interpolated it (empty when the wavelet
    /// interpolation is off).
    pub fn interpolated(&self) -> &[bool] {
        if self.wavelet_active() {
            &self.scratch.segmentation.interpolated
        } else {
            &[]
        }
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

    /// Where pinned node `i` is at time `t`, m.
    pub fn pinned_position(&self, i: usize, t: f64) -> DVec3 {
        self.cloth.anchor[i] + self.pole_offset + self.handle_offset(t)
    }

    /// Advances one published step (`dt`). Does nothing while paused. Returns `false` when the
    /// guard fired (the state is then the one from before the step).
    pub fn step(&mut self) -> bool {
        if self.paused {
            return true;
        }
        let start = Instant::now();
        {
            let s = &mut self.scratch;
            s.backup_x.clone_from(&self.cloth.x);
            s.backup_v.clone_from(&self.cloth.v);
            s.backup_dv.clone_from(&self.cloth.dv);
            s.v_step_start.clone_from(&self.cloth.v);
        }
        let (time0, step0) = (self.time, self.step_index);
        self.stats.provot_corrections = 0;
        self.stats.contacts = 0;
        let h = self.params.h();
        let mut failure = None;
        for _ in 0..self.params.substeps {
            if let Err(e) = self.substep(h) {
                failure = Some(e);
                break;
            }
        }
        if failure.is_none() && self.guard {
            failure = self.check_blowup();
        }
        if let Some(reason) = failure {
            let s = &mut self.scratch;
            std::mem::swap(&mut self.cloth.x, &mut s.backup_x);
            std::mem::swap(&mut self.cloth.v, &mut s.backup_v);
            std::mem::swap(&mut self.cloth.dv, &mut s.backup_dv);
            self.time = time0;
            self.step_index = step0;
            self.paused = true;
            self.divergence = Some(Divergence {
                integrator: self.params.integrator,
                step: step0 + 1,
                time: time0,
                reason,
            });
            return false;
        }
        let (v, v0) = (&self.cloth.v, &self.scratch.v_step_start);
        forces::for_each_node(self.use_parallel(), &mut self.cloth.dv, |i, dv| {
            *dv = v[i] - v0[i];
        });
        self.step_index += 1;
        self.stats.max_strain = self.cloth.max_strain();
        self.stats.h2k_over_m = self.h2k_over_m();
        self.stats.step_seconds = start.elapsed().as_secs_f64();
        true
    }

    /// The fastest a free node may move before the guard calls it a blow-up, m/s.
    pub fn speed_limit(&self) -> f64 {
        let wind = DVec3::from_array(self.params.wind.velocity).length();
        BLOWUP_SPEED.max(BLOWUP_WIND_FACTOR * wind)
    }

    /// The guard's test: non-finite values, a free node faster than [`Self::speed_limit`], or a
    /// spring beyond [`BLOWUP_STRETCH`] times its rest length.
    fn check_blowup(&self) -> Option<String> {
        let c = &self.cloth;
        let limit = self.speed_limit();
        let grabbed = self.grab.map(|g| g.node);
        for i in 0..c.node_count() {
            if !c.x[i].is_finite() || !c.v[i].is_finite() {
                return Some(format!("node {i} has a non-finite position or velocity"));
            }
            // Strain limiting keeps positions bounded, so there speed is the symptom to watch;
            // without it the stretch test below catches a blow-up, and stiff systems may
            // legitimately move fast (the two-mass example at k = 5e4 N/m does).
            let kinematic = c.pinned[i] || grabbed == Some(i);
            if self.params.provot.enabled && !kinematic && c.v[i].length() > limit {
                return Some(format!(
                    "node {i} moves at {:.0} m/s (limit {limit:.0} m/s): the scheme is unstable at this step",
                    c.v[i].length()
                ));
            }
        }
        for (si, s) in c.springs.iter().enumerate() {
            if s.rest > 0.0 {
                let len = (c.x[s.b] - c.x[s.a]).length();
                if len > BLOWUP_STRETCH * s.rest {
                    return Some(format!(
                        "spring {si} ({}–{}) stretched to {:.1}× its rest length",
                        s.a,
                        s.b,
                        len / s.rest
                    ));
                }
            }
        }
        None
    }

    fn substep(&mut self, h: f64) -> Result<(), String> {
        let parallel = self.use_parallel();
        let n = self.cloth.node_count();
        let t = self.time;
        let kind = self.params.integrator;
        {
            let s = &mut self.scratch;
            for v in [
                &mut s.force,
                &mut s.ftilde,
                &mut s.dv,
                &mut s.tmp,
                &mut s.known_dv,
                &mut s.target_x,
                &mut s.normals,
                &mut s.x_before,
            ] {
                v.resize(n, DVec3::ZERO);
            }
            s.spring_f.resize(self.cloth.springs.len(), DVec3::ZERO);
            s.kinematic.clear();
            s.kinematic.extend_from_slice(&self.cloth.pinned);
            s.ext.resize(n);
        }
        // 1. Kinematic nodes: where they must be at t + h, and their known Δv.
        if let Some(g) = self.grab {
            self.scratch.kinematic[g.node] = true;
        }
        for i in 0..n {
            if !self.scratch.kinematic[i] {
                continue;
            }
            let target = match self.grab {
                Some(g) if g.node == i => g.target,
                _ => self.pinned_position(i, t + h),
            };
            let v_next = (target - self.cloth.x[i]) / h;
            self.scratch.target_x[i] = target;
            self.scratch.known_dv[i] = v_next - self.cloth.v[i];
        }
        let wavelet = self.wavelet_active();
        let cloth = &self.cloth;
        let params = &self.params;
        let s = &mut self.scratch;
        // 2. Key-mesh normals.
        cloth.node_normals(parallel, &mut s.normals);
        // 2b. Wavelet segmentation: which nodes this step interpolates instead of integrating.
        if wavelet && let Some(grid) = cloth.grid {
            s.segmentation
                .classify(&grid, &s.normals, &s.kinematic, params.wavelet.threshold);
            self.stats.interpolated_fraction = s.segmentation.count as f64 / n.max(1) as f64;
            self.stats.interpolated_regions = s.segmentation.regions.len();
            s.prev_dv.resize(n, DVec3::ZERO);
            s.held.clear();
            s.held.extend(
                s.kinematic
                    .iter()
                    .zip(&s.segmentation.interpolated)
                    .map(|(k, i)| *k || *i),
            );
            s.held_dv.clear();
            s.held_dv.extend((0..n).map(|i| {
                if s.segmentation.interpolated[i] {
                    s.prev_dv[i]
                } else {
                    s.known_dv[i]
                }
            }));
        } else {
            self.stats.interpolated_fraction = 0.0;
            self.stats.interpolated_regions = 0;
        }
        let skip: &[bool] = if wavelet {
            &s.segmentation.interpolated
        } else {
            &[]
        };
        // 3. Internal forces: Hooke springs, or Choi–Ko's buckling model (XPBD replaces them
        //    with constraints, so it needs none).
        match kind {
            IntegratorKind::Xpbd => {}
            IntegratorKind::ChoiKo => {
                s.choi_ko.topology.ensure(cloth);
                let material = buckling::Material {
                    k_b: params.choi_ko.flexural_rigidity,
                    c_b: params.choi_ko.buckling_clamp,
                    k_d: params.damping,
                };
                buckling::evaluate(
                    cloth,
                    &s.choi_ko.topology,
                    &material,
                    parallel,
                    &mut s.choi_ko.links,
                    &mut s.force,
                );
            }
            _ => forces::spring_forces(
                cloth,
                params.damping,
                parallel,
                skip,
                &mut s.spring_f,
                &mut s.force,
            ),
        }
        // 4. External forces, in the air as it is now.
        let target = DVec3::from_array(params.wind.velocity);
        let follow = if params.wind.response > 0.0 {
            1.0 - (-h / params.wind.response).exp()
        } else {
            1.0
        };
        self.base_wind += (target - self.base_wind) * follow;
        forces::external_forces(
            cloth,
            params,
            t,
            self.base_wind,
            &s.normals,
            parallel,
            skip,
            &mut s.ext,
        );
        // 5. The integrator's Δv.
        match kind {
            IntegratorKind::Kang | IntegratorKind::Hybrid | IntegratorKind::Desbrun => {
                s.ftilde.copy_from_slice(&s.force);
                if params.viscosity {
                    forces::add_viscosity(cloth, h, parallel, skip, &mut s.ftilde);
                }
                if params.filter_external {
                    let ext = &s.ext;
                    forces::for_each_node(parallel, &mut s.ftilde, |i, f| {
                        *f += ext.as_force(i, cloth.m[i])
                    });
                }
                if kind == IntegratorKind::Desbrun {
                    let rebuilt = self
                        .desbrun
                        .prepare(cloth, &s.kinematic, h)
                        .map_err(|e| e.to_string())?;
                    if rebuilt {
                        self.stats.desbrun_precompute_seconds = self.desbrun.precompute_seconds;
                        self.stats.desbrun_builds = self.desbrun.builds;
                    }
                    self.desbrun
                        .apply(cloth, &s.kinematic, h, &s.ftilde, &s.known_dv, &mut s.dv);
                } else {
                    // With the wavelet on, interpolated nodes are held at their last Δv like
                    // kinematic nodes are held at their known one.
                    let (held, held_dv) = if wavelet {
                        (&s.held[..], &s.held_dv[..])
                    } else {
                        (&s.kinematic[..], &s.known_dv[..])
                    };
                    let input = StepInput {
                        cloth,
                        kinematic: held,
                        known_dv: held_dv,
                        h,
                        parallel,
                    };
                    kang::jacobi_delta_v(
                        &input,
                        params.jacobi_iterations,
                        &s.ftilde,
                        &mut s.dv,
                        &mut s.tmp,
                    );
                }
                if !params.filter_external {
                    let ext = &s.ext;
                    let kin = &s.kinematic;
                    forces::for_each_node(parallel, &mut s.dv, |i, d| {
                        if !kin[i] && (skip.is_empty() || !skip[i]) {
                            *d += ext.delta_v(i, cloth.m[i], h);
                        }
                    });
                }
            }
            // XPBD turns the external forces into velocities itself, substep by substep.
            IntegratorKind::Xpbd => {}
            IntegratorKind::ExplicitEuler
            | IntegratorKind::SymplecticEuler
            | IntegratorKind::Verlet => {
                let input = StepInput {
                    cloth,
                    kinematic: &s.kinematic,
                    known_dv: &s.known_dv,
                    h,
                    parallel,
                };
                explicit::explicit_delta_v(&input, &s.force, &s.ext, &mut s.dv);
            }
            IntegratorKind::ImplicitCg => {
                let input = StepInput {
                    cloth,
                    kinematic: &s.kinematic,
                    known_dv: &s.known_dv,
                    h,
                    parallel,
                };
                self.stats.cg = implicit_cg::solve(
                    &input,
                    params.damping,
                    &s.force,
                    &s.ext,
                    &params.cg,
                    &mut s.cg,
                    &mut s.dv,
                );
            }
            IntegratorKind::ChoiKo => {
                let input = StepInput {
                    cloth,
                    kinematic: &s.kinematic,
                    known_dv: &s.known_dv,
                    h,
                    parallel,
                };
                s.dx.resize(n, DVec3::ZERO);
                self.stats.cg = choi_ko::solve(
                    &input,
                    &s.force,
                    &s.ext,
                    &s.target_x,
                    &params.cg,
                    &mut s.choi_ko,
                    &mut s.dx,
                    &mut s.dv,
                );
                self.stats.bdf2 = s.choi_ko.last_was_bdf2;
            }
        }
        // 6. Positions (eq. 1 and the schemes' variants). Kinematic nodes go to their targets.
        s.x_before.copy_from_slice(&self.cloth.x);
        let cloth = &mut self.cloth;
        if kind == IntegratorKind::Xpbd {
            let input = xpbd::XpbdInput {
                kinematic: &s.kinematic,
                target: &s.target_x,
                h,
                substeps: self.params.xpbd_substeps,
                parallel,
            };
            xpbd::advance(&input, cloth, &s.ext, &mut s.xpbd);
        } else {
            let (kin, target, dv, dx) = (&s.kinematic, &s.target_x, &s.dv, &s.dx);
            let skip: &[bool] = if wavelet {
                &s.segmentation.interpolated
            } else {
                &[]
            };
            forces::for_each_node2(parallel, &mut cloth.x, &mut cloth.v, |i, x, v| {
                if kin[i] {
                    *v = (target[i] - *x) / h;
                    *x = target[i];
                    return;
                }
                if !skip.is_empty() && skip[i] {
                    return; // filled in from the region's edges below
                }
                let (x0, v0, dv) = (*x, *v, dv[i]);
                match kind {
                    IntegratorKind::ExplicitEuler | IntegratorKind::Hybrid => {
                        *x = x0 + h * v0;
                        *v = v0 + dv;
                    }
                    IntegratorKind::Verlet => {
                        // x' = 2x - x_prev + h² F/m with x_prev = x - h v (v is (x - x_prev)/h after
                        // every step), so a switch to Verlet mid-run needs no history.
                        let x_prev = x0 - h * v0;
                        let x_new = 2.0 * x0 - x_prev + h * dv;
                        *v = (x_new - x0) / h;
                        *x = x_new;
                    }
                    IntegratorKind::ChoiKo => {
                        *x = x0 + dx[i];
                        *v = v0 + dv;
                    }
                    _ => {
                        *v = v0 + dv;
                        *x = x0 + h * *v;
                    }
                }
            });
            if wavelet && let Some(grid) = cloth.grid {
                // 6b. Interior nodes of flat regions: interpolated from the integrated edges.
                let seg = &s.segmentation;
                seg.interpolate(grid.nx, &mut cloth.x);
                seg.interpolate(grid.nx, &mut cloth.v);
                seg.interpolate(grid.nx, &mut s.dv);
                s.prev_dv.copy_from_slice(&s.dv);
            }
        }
        // 7. Strain limiting, 8. colliders.
        self.stats.provot_corrections += constraints::strain_limit(
            cloth,
            &s.kinematic,
            &s.x_before,
            &mut s.provot,
            h,
            &self.params.provot,
            parallel,
        );
        self.stats.contacts += constraints::collide(cloth, &s.kinematic, &self.params.colliders);
        if kind == IntegratorKind::ChoiKo {
            s.choi_ko.finish(&cloth.x, &cloth.v, h);
        }
        self.time += h;
        Ok(())
    }

    /// `Δv` that integrator `kind` would produce for one physics step from the current state,
    /// without changing the state (for the Fig. 8 comparison and the accuracy benchmark).
    pub fn probe_delta_v(&mut self, kind: IntegratorKind) -> Result<Vec<DVec3>, SimError> {
        let saved = (
            self.cloth.x.clone(),
            self.cloth.v.clone(),
            self.cloth.dv.clone(),
            self.time,
            self.stats,
            self.params.integrator,
            self.params.provot.enabled,
            self.params.colliders.clone(),
        );
        self.params.integrator = kind;
        self.params.provot.enabled = false;
        self.params.colliders.clear();
        let v0 = self.cloth.v.clone();
        let h = self.params.h();
        let base_wind = self.base_wind;
        // Step state that is not in the cloth: choi-ko's BDF2 history and the Δv the wavelet
        // interpolation holds interpolated nodes at.
        let history = self.scratch.choi_ko.save_history();
        let prev_dv = self.scratch.prev_dv.clone();
        let result = self.substep(h);
        self.scratch.choi_ko.restore_history(history);
        self.scratch.prev_dv = prev_dv;
        self.base_wind = base_wind;
        let dv: Vec<DVec3> = self.cloth.v.iter().zip(&v0).map(|(a, b)| *a - *b).collect();
        self.cloth.x = saved.0;
        self.cloth.v = saved.1;
        self.cloth.dv = saved.2;
        self.time = saved.3;
        self.stats = saved.4;
        self.params.integrator = saved.5;
        self.params.provot.enabled = saved.6;
        self.params.colliders = saved.7;
        result.map_err(SimError::InvalidParams)?;
        Ok(dv)
    }
}
