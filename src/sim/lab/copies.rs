//! The integrator lab: 2 to 4 copies of one scene, each with its own integrator (and, if asked,
//! its own `dt`), started from the same state and stepped in lock-step, so that integrators are
//! compared on the same cloth at the same simulated time rather than from memory.
//!
//! Lock-step means every copy reaches the lab's time at the end of every lab step. The lab
//! steps by the scene's `dt`; a copy with its own `dt` takes as many of its own steps as bring
//! it to the lab's time (several per lab step for a smaller `dt`, one every few lab steps for a
//! larger one). Copies that share the scene's `dt` take exactly one step each per lab step.
//! A copy the guard stops stays paused on its last good state; the others go on.

use std::fmt;

use crate::sim::format::device_choice::DeviceChoice;
use crate::sim::format::error::{SimError, nearest_name};
use crate::sim::format::params::IntegratorKind;
use crate::sim::format::scene::{GRID_SIDE, Scene};
use crate::sim::model::shape::{self, Distance};
use crate::sim::runtime::device::{DeviceProvider, DeviceStepper};
use crate::sim::runtime::simulation::Simulation;

/// The fewest and the most copies a lab holds.
pub(crate) const MIN_COPIES: usize = 2;
pub(crate) const MAX_COPIES: usize = 4;

/// A copy's own key grid: its nodes along the width and, when given, along the height (else
/// the height keeps the scene's grid proportions, as the Cloth panel's key grid does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyGrid {
    pub nx: usize,
    pub ny: Option<usize>,
}

impl CopyGrid {
    /// Parses `NX` or `NXxNY` (`64`, `64x40`), each side within [`GRID_SIDE`]; `None` for
    /// anything else.
    fn parse(text: &str) -> Option<Self> {
        let side = |t: &str| {
            t.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| GRID_SIDE.contains(n))
        };
        match text.split_once(['x', '×']) {
            Some((nx, ny)) => Some(Self {
                nx: side(nx)?,
                ny: Some(side(ny)?),
            }),
            None => Some(Self {
                nx: side(text)?,
                ny: None,
            }),
        }
    }
}

impl fmt::Display for CopyGrid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ny {
            Some(ny) => write!(f, "{}x{ny}", self.nx),
            None => write!(f, "{}", self.nx),
        }
    }
}

/// One copy as asked for: its integrator, optionally its own `dt` and key grid, and its
/// device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopySpec {
    pub integrator: IntegratorKind,
    /// The copy's published step, s; `None` takes the scene's.
    pub dt: Option<f64>,
    /// The copy's key grid; `None` takes the scene's. The sheet's size, total mass, springs
    /// and wind stay the scene's ([`Scene::with_key_grid`]).
    pub grid: Option<CopyGrid>,
    /// Where it steps: the CPU, or (`:gpu`, `kang-mg` only) the GPU, or (`:auto`) where
    /// [`DeviceChoice::Auto`] says.
    pub device: DeviceChoice,
}

impl CopySpec {
    /// Parses `NAME`, `NAME@DT` (`kang`, `xpbd@0.005`), each optionally followed by a key grid
    /// `#NX` or `#NXxNY` (`implicit-mg#64`: 64 nodes across, the height in the scene's
    /// proportions) and then by `:gpu` (`kang-mg:gpu`: the copy steps on the GPU), `:auto` or
    /// `:cpu`. An unknown name's message suggests the closest known one.
    pub fn parse(text: &str) -> Result<Self, SimError> {
        let text = text.trim();
        let (copy, device) = match text.rsplit_once(':') {
            Some((copy, device)) => {
                let device = match device.trim() {
                    "gpu" => DeviceChoice::Gpu,
                    "cpu" => DeviceChoice::Cpu,
                    "auto" => DeviceChoice::Auto,
                    other => {
                        return Err(SimError::CopyDevice {
                            text: text.to_string(),
                            device: other.to_string(),
                        });
                    }
                };
                (copy.trim(), device)
            }
            None => (text, DeviceChoice::Cpu),
        };
        let (copy, grid) = match copy.split_once('#') {
            Some((copy, grid)) => {
                let grid = CopyGrid::parse(grid).ok_or_else(|| SimError::CopyGrid {
                    text: text.to_string(),
                    min: *GRID_SIDE.start(),
                    max: *GRID_SIDE.end(),
                })?;
                (copy.trim(), Some(grid))
            }
            None => (copy, None),
        };
        let (name, dt) = match copy.split_once('@') {
            Some((name, dt)) => (name.trim(), Some(dt.trim())),
            None => (copy, None),
        };
        let integrator =
            IntegratorKind::from_name(name).ok_or_else(|| SimError::UnknownIntegrator {
                name: name.to_string(),
                nearest: nearest_name(name, &IntegratorKind::ALL.map(IntegratorKind::name)),
                known: IntegratorKind::ALL.map(IntegratorKind::name).to_vec(),
            })?;
        let dt = match dt {
            None => None,
            Some(dt) => {
                let v: f64 = dt.parse().map_err(|_| SimError::CopyDtNotANumber {
                    text: text.to_string(),
                })?;
                let spec = &crate::sim::format::params::spec::DT;
                spec.check(v).map_err(|e| SimError::CopyText {
                    text: text.to_string(),
                    source: Box::new(e),
                })?;
                Some(v)
            }
        };
        if device != DeviceChoice::Cpu && !integrator.steps_on_gpu() {
            return Err(SimError::CopyDevice {
                text: text.to_string(),
                device: "gpu".into(),
            });
        }
        Ok(Self {
            integrator,
            dt,
            grid,
            device,
        })
    }

    /// `scene` at this copy's key grid (`scene` itself without one): a `#NX` grid keeps the
    /// scene's proportions. A cloth that is not a grid, or a grid the scene refuses, is an
    /// error.
    pub(crate) fn grid_scene(&self, scene: &Scene) -> Result<Scene, SimError> {
        let Some(grid) = self.grid else {
            return Ok(scene.clone());
        };
        let ny = match grid.ny {
            Some(ny) => ny,
            None => scene
                .proportional_height(grid.nx)
                .ok_or(SimError::Structure {
                    field: "cloth.grid",
                    problem: "missing: only a grid cloth has a key grid to change",
                })?,
        };
        scene.with_key_grid(grid.nx, ny)
    }

    /// Parses a comma-separated list of 2 to 4 copies (`kang,xpbd@0.005,choi-ko`).
    pub fn parse_list(text: &str) -> Result<Vec<Self>, SimError> {
        let copies = text
            .split(',')
            .map(Self::parse)
            .collect::<Result<Vec<_>, _>>()?;
        check_count(copies.len())?;
        Ok(copies)
    }
}

impl fmt::Display for CopySpec {
    /// The copy's label: its integrator, `@dt` when it has its own, `#grid` when it has its
    /// own, `:gpu` on the GPU.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.integrator.name())?;
        if let Some(dt) = self.dt {
            write!(f, "@{dt}")?;
        }
        if let Some(grid) = self.grid {
            write!(f, "#{grid}")?;
        }
        match self.device {
            DeviceChoice::Cpu => Ok(()),
            device => write!(f, ":{device}"),
        }
    }
}

/// `Ok` for 2 to 4 copies; otherwise the failure.
pub(crate) fn check_count(n: usize) -> Result<(), SimError> {
    if (MIN_COPIES..=MAX_COPIES).contains(&n) {
        Ok(())
    } else {
        Err(SimError::CopyCount {
            count: n,
            min: MIN_COPIES,
            max: MAX_COPIES,
        })
    }
}

/// What a copy measured at the end of a lab step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sample {
    /// The lab's simulated time, s.
    pub time: f64,
    /// `½ Σ m_i |v_i|²` over every node, J.
    pub kinetic_energy: f64,
    /// Largest `|x_ab| / L` over the strain-limited springs (1 is rest length).
    pub max_strain: f64,
    /// Mean wall time of the copy's steps in this lab step, s (the last one's when it took
    /// none).
    pub step_seconds: f64,
    /// Whether the guard has stopped this copy.
    pub diverged: bool,
    /// The shortest structural edge over its rest length (1 at rest, 0.5 squeezed to half).
    pub shortest_edge: f64,
    /// Share of structural edges under [`shape::SHORT_EDGE`] of their rest length, 0–1.
    pub short_edges: f64,
    /// Distance of every node from the lab's reference copy at this time, m (`None`: the lab
    /// has no reference, or the reference has stopped).
    pub distance: Option<Distance>,
}

impl Sample {
    /// What `sim` measures now, at lab time `time`; the lab fills in the distance from its
    /// reference, if it has one.
    fn of(sim: &Simulation, time: f64, step_seconds: f64) -> Self {
        let edges = shape::structural_edges(&sim.cloth, &sim.cloth.x);
        Self {
            time,
            kinetic_energy: sim.kinetic_energy(),
            max_strain: sim.stats.max_strain,
            step_seconds,
            diverged: sim.divergence.is_some(),
            shortest_edge: edges.shortest,
            short_edges: edges.share_short,
            distance: None,
        }
    }
}

/// One copy: what was asked for, its simulation and how many of its steps it has taken.
#[derive(Debug)]
pub struct LabCopy {
    pub spec: CopySpec,
    pub sim: Simulation,
    /// Its step on the GPU, for a `:gpu` copy.
    pub device: Option<Box<dyn DeviceStepper>>,
    /// The copy's own steps since the start (the guard's rejected one not counted).
    pub steps: u64,
    /// Its latest sample.
    pub sample: Sample,
}

impl LabCopy {
    /// The copy's published step, s.
    pub(crate) fn dt(&self) -> f64 {
        self.sim.params().dt
    }
}

/// 2 to 4 copies of one scene in lock-step, and optionally an accurate solve of the same
/// springs beside them ([`shape::reference_params`]) that every copy is measured against.
#[derive(Debug)]
pub struct Lab {
    pub copies: Vec<LabCopy>,
    /// The reference copy, stepped in lock-step with the others (its wall time is not any
    /// copy's). `None` when the lab runs without one.
    pub reference: Option<Box<Simulation>>,
    /// Lab steps taken.
    pub ticks: u64,
    /// The lab's step (the scene's `dt`), s.
    pub dt: f64,
}

impl Lab {
    /// The copies of `scene` that `specs` ask for, all from the scene's initial state. The
    /// error names the copy and what is wrong (a count outside 2..=4, an invalid `dt`, an
    /// integrator that does not fit the cloth).
    pub fn new(scene: &Scene, specs: &[CopySpec]) -> Result<Self, SimError> {
        Self::new_on(scene, specs, None)
    }

    /// [`Self::new`], the `:gpu` copies stepping on `gpu` (none: such a copy is refused).
    pub fn new_on(
        scene: &Scene,
        specs: &[CopySpec],
        gpu: Option<&dyn DeviceProvider>,
    ) -> Result<Self, SimError> {
        check_count(specs.len())?;
        Self::of_copies(scene, specs, gpu)
    }

    /// [`Self::new_on`] for any number of copies (the resolution study runs one beside its
    /// reference).
    pub(crate) fn of_copies(
        scene: &Scene,
        specs: &[CopySpec],
        gpu: Option<&dyn DeviceProvider>,
    ) -> Result<Self, SimError> {
        let copies = specs
            .iter()
            .enumerate()
            .map(|(k, spec)| {
                let mut scene = spec.grid_scene(scene).map_err(|e| e.in_copy(spec))?;
                scene.params.integrator = spec.integrator;
                if let Some(dt) = spec.dt {
                    scene.params.dt = dt;
                }
                let mut sim = scene.simulation().map_err(|e| e.in_copy(spec))?;
                let on_gpu = (spec.device.wants_gpu(gpu, &sim)).map_err(|e| e.in_copy(spec))?;
                let device = match gpu {
                    Some(gpu) if on_gpu => {
                        Some(gpu.stepper(&mut sim, k).map_err(|e| e.in_copy(spec))?)
                    }
                    _ => None,
                };
                let sample = Sample::of(&sim, 0.0, 0.0);
                Ok(LabCopy {
                    spec: *spec,
                    sim,
                    device,
                    steps: 0,
                    sample,
                })
            })
            .collect::<Result<Vec<_>, SimError>>()?;
        Ok(Self {
            copies,
            reference: None,
            ticks: 0,
            dt: scene.params.dt,
        })
    }

    /// The lab with a reference copy of `scene` (the scene the copies were made from): an
    /// accurate solve of the same springs from the same initial state. Only before the first
    /// lab step, so that the reference starts where the copies started.
    pub(crate) fn with_reference(mut self, scene: &Scene) -> Result<Self, SimError> {
        if self.ticks > 0 {
            return Err(SimError::ReferenceLate);
        }
        let mut reference = scene.clone();
        reference.params = shape::reference_params(&scene.params);
        let sim = reference.simulation().map_err(SimError::in_reference)?;
        for copy in &mut self.copies {
            let d =
                shape::cloth_distance(&copy.sim.cloth, &copy.sim.cloth.x, &sim.cloth, &sim.cloth.x);
            copy.sample.distance = Some(d);
        }
        self.reference = Some(Box::new(sim));
        Ok(self)
    }

    /// The reference while it runs (`None` without one, or once its guard stopped it).
    fn running_reference(&self) -> Option<&Simulation> {
        self.reference.as_deref().filter(|r| r.divergence.is_none())
    }

    /// The lab's simulated time, s.
    pub fn time(&self) -> f64 {
        self.ticks as f64 * self.dt
    }

    /// Advances every copy to the next lab time and takes each one's sample.
    pub fn tick(&mut self) {
        self.ticks += 1;
        let time = self.time();
        if let Some(reference) = self.reference.as_deref_mut() {
            advance_to(reference, time);
        }
        for copy in &mut self.copies {
            let (taken, wall) = match &mut copy.device {
                None => advance_to(&mut copy.sim, time),
                Some(device) => advance_on(&mut copy.sim, device.as_mut(), time, true),
            };
            copy.steps += u64::from(taken);
            let step_seconds = if taken > 0 {
                wall / f64::from(taken)
            } else {
                copy.sample.step_seconds
            };
            copy.sample = Sample::of(&copy.sim, time, step_seconds);
        }
        if let Some(r) = self.running_reference() {
            let distances: Vec<Distance> = self
                .copies
                .iter()
                .map(|c| shape::cloth_distance(&c.sim.cloth, &c.sim.cloth.x, &r.cloth, &r.cloth.x))
                .collect();
            for (copy, d) in self.copies.iter_mut().zip(distances) {
                copy.sample.distance = Some(d);
            }
        }
    }
}

/// Steps `sim` as long as its next step ends at or before `time` (s) and the guard lets it:
/// how a copy keeps in lock-step with the lab whatever its own `dt`. Returns the steps taken
/// and their wall time, s.
pub(crate) fn advance_to(sim: &mut Simulation, time: f64) -> (u32, f64) {
    let (mut taken, mut wall) = (0u32, 0.0);
    loop {
        let dt = sim.params().dt;
        // The allowance keeps rounding from skipping a step that ends exactly at `time`.
        if sim.paused || sim.divergence.is_some() || sim.time + dt > time + 1e-9 * dt {
            break;
        }
        if !sim.step() {
            break;
        }
        taken += 1;
        wall += sim.stats.step_seconds;
    }
    (taken, wall)
}

/// [`advance_to`] for a copy stepping on a device: the same steps submitted at once, then
/// (with `wait`) its state read back through the guard. The wall time is the submission's
/// and, with `wait`, the wait for the device. A device that fails stops the copy as the guard
/// does (its divergence says why).
pub(crate) fn advance_on(
    sim: &mut Simulation,
    device: &mut dyn DeviceStepper,
    time: f64,
    wait: bool,
) -> (u32, f64) {
    let dt = sim.params().dt;
    let mut steps = 0u32;
    let mut t = sim.time;
    while !(sim.paused || sim.divergence.is_some()) && t + dt <= time + 1e-9 * dt {
        t += dt;
        steps += 1;
    }
    if steps == 0 {
        return (0, 0.0);
    }
    let start = web_time::Instant::now();
    let done = device
        .step_n(sim, steps)
        .and_then(|()| if wait { device.sync(sim) } else { Ok(()) });
    if let Err(e) = done {
        sim.paused = true;
        sim.divergence = Some(crate::sim::runtime::simulation::Divergence {
            integrator: sim.params().integrator,
            step: sim.step_index,
            time: sim.time,
            reason: e.to_string(),
        });
        return (0, start.elapsed().as_secs_f64());
    }
    (steps, start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_suggests_the_name_and_nonsense_suggests_nothing() {
        let unknown = |name: &str, nearest| SimError::UnknownIntegrator {
            name: name.into(),
            nearest,
            known: IntegratorKind::ALL.map(IntegratorKind::name).to_vec(),
        };
        assert_eq!(
            CopySpec::parse("kangg").unwrap_err(),
            unknown("kangg", Some("kang"))
        );
        let e = CopySpec::parse("choiko").unwrap_err();
        assert_eq!(e, unknown("choiko", Some("choi-ko")));
        assert!(e.to_string().contains("did you mean 'choi-ko'"), "{e}");
        let e = CopySpec::parse("banana").unwrap_err();
        assert_eq!(e, unknown("banana", None));
        assert!(!e.to_string().contains("did you mean"), "{e}");
        assert!(e.to_string().contains("known: kang, explicit-euler"), "{e}");
    }

    /// Copies at different key grids are the same sheet (size, total mass, springs) in more
    /// nodes: each moves exactly as its grid's scene run alone, and each one's distance from the
    /// reference is taken at the reference's nodes (0 at the start, where every grid is the flat
    /// sheet).
    #[test]
    fn copies_at_different_grids_are_the_same_flag_and_are_measured_at_the_references_nodes() {
        use crate::sim::model::shape;
        let scene = Scene::load("flag").unwrap();
        let specs = CopySpec::parse_list("implicit-mg,implicit-mg#19,kang#13x7").unwrap();
        let mut lab = Lab::new(&scene, &specs)
            .unwrap()
            .with_reference(&scene)
            .unwrap();
        let sizes: Vec<usize> = lab
            .copies
            .iter()
            .map(|c| c.sim.cloth.node_count())
            .collect();
        assert_eq!(sizes, [100, 361, 91]);
        let extent = |x: &[glam::DVec3]| {
            let (lo, hi) = x.iter().fold(
                (glam::DVec3::INFINITY, glam::DVec3::NEG_INFINITY),
                |(lo, hi), p| (lo.min(*p), hi.max(*p)),
            );
            hi - lo
        };
        let sheet = extent(&lab.copies[0].sim.cloth.x);
        for copy in &lab.copies {
            let mass: f64 = copy.sim.cloth.m.iter().sum();
            assert!((mass - 0.12).abs() < 1e-12, "{}: {mass} kg", copy.spec);
            assert!(
                (extent(&copy.sim.cloth.x) - sheet).length() < 1e-12,
                "{}",
                copy.spec
            );
            let d = copy.sample.distance.expect("a distance");
            assert!(d.rms < 1e-12 && d.max < 1e-12, "{}: {d:?}", copy.spec);
        }
        for _ in 0..30 {
            lab.tick();
        }
        let mut alone = scene.with_key_grid(19, 19).unwrap().simulation().unwrap();
        assert_eq!(alone.step_n(30), 30);
        assert_eq!(
            lab.copies[1].sim.cloth.x, alone.cloth.x,
            "the 19 × 19 copy is its scene"
        );
        let mut reference = scene.clone();
        reference.params = shape::reference_params(&scene.params);
        let mut reference = reference.simulation().unwrap();
        assert_eq!(reference.step_n(30), 30);
        for copy in &lab.copies {
            let g = copy.sim.cloth.grid().unwrap();
            let at_reference = shape::resample(&copy.sim.cloth.x, [g.nx, g.ny], [10, 10]);
            let expected = shape::distance(&at_reference, &reference.cloth.x);
            let got = copy.sample.distance.expect("a distance");
            assert!(
                (got.rms - expected.rms).abs() < 1e-12,
                "{}: {got:?}",
                copy.spec
            );
            assert!(got.rms > 0.0 && got.rms < 0.5, "{}: {got:?}", copy.spec);
        }
    }
}
