//! What happens after `x += h v`: strain limiting (long-range tethers, then Provot's sweeps;
//! docs/method.md §5), then colliders (§6). Kinematic nodes are never moved here.

use glam::DVec3;
use rayon::prelude::*;

pub use crate::sim::constraints::provot::Bounds;
pub(crate) use crate::sim::constraints::provot::colour_springs;
use crate::sim::constraints::provot::provot_moves;
use crate::sim::constraints::strain_levels::{self, StrainLevels};
use crate::sim::constraints::tethers::Tethers;
use crate::sim::format::params::Provot;
use crate::sim::model::cloth::{Cloth, LimitedSpring};
use crate::sim::model::par::for_each_node2;

/// Work arrays of the strain-limiting stage, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrainScratch {
    /// Per node, whether the stage moved it this step.
    pub moved: Vec<bool>,
    pub tethers: Tethers,
    /// Sweep Provot's springs by colours ([`provot_sweeps_coloured`], the GPU's order) instead
    /// of by bands: set where a CPU run is to follow the GPU's step.
    pub coloured: bool,
    /// The colours and whether they hold the shear springs (`provot.shear`), made on first use
    /// and when that setting changes (the cloth's springs do not change).
    colours: (Vec<Vec<LimitedSpring>>, bool),
    /// The coarse levels (`provot.levels`), built on first use.
    pub levels: StrainLevels,
}

/// What one strain-limiting stage did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StrainReport {
    /// Provot corrections.
    pub corrections: usize,
    /// Provot sweeps run (they stop at the first sweep that corrects nothing).
    pub sweeps: u32,
    /// Tether corrections.
    pub tether_corrections: usize,
    /// Corrections on the coarse levels ([`crate::sim::constraints::strain_levels`]).
    pub level_corrections: usize,
}

/// The strain-limiting stage of a step: on a grid, first the same limit on its coarse levels
/// (`provot.levels`, [`StrainLevels::limit`]: they carry a correction across the cloth); with
/// `provot.tethers`, every free node is then pulled back within `(1 + tether_stretch)` of its
/// rest distance from the kinematic nodes ([`Tethers`], rebuilt when the kinematic set
/// changes); then Provot's sweeps ([`provot_sweeps`]) within `max_stretch` and
/// `max_compression`; then every moved node gets `v = (x_corrected - x_before) / h`.
///
/// The coarse levels come first: a coarse spring shortened half from each end moves a node
/// near a pin away from it, which the tethers after them take back (with the tethers before
/// the levels, a sheet on a lifted pole would end farther from its pins than they allow).
///
/// The sweeps come last: they may push a node a little beyond its tether (the tests hold a
/// sheet far too soft to carry itself within `1 + τ` of its pins), but tethers after them
/// would re-stretch the springs the sweeps have just limited.
pub(crate) fn limit_strain(
    cloth: &mut Cloth,
    kinematic: &[bool],
    x_before: &[DVec3],
    scratch: &mut StrainScratch,
    h: f64,
    provot: &Provot,
    parallel: bool,
) -> StrainReport {
    let mut report = StrainReport::default();
    if !provot.enabled {
        return report;
    }
    let n = cloth.node_count();
    scratch.moved.clear();
    scratch.moved.resize(n, false);
    let limit = 1.0 + provot.max_stretch;
    let bounds = Bounds {
        longest: limit,
        shortest: 1.0 - provot.max_compression,
    };
    let tether_limit = 1.0 + provot.tether_stretch;
    if provot.levels > 0
        && strain_levels::applies(cloth)
        && let Some(g) = cloth.grid()
    {
        scratch
            .levels
            .build(g.nx, g.ny, g.l0_u, g.l0_v, provot.levels, provot.shear);
        report.level_corrections = scratch.levels.limit(
            &mut cloth.x,
            kinematic,
            &mut scratch.moved,
            limit,
            provot.iterations,
        );
    }
    if provot.tethers {
        scratch.tethers.update(cloth, kinematic);
        report.tether_corrections =
            scratch
                .tethers
                .project(&mut cloth.x, &mut scratch.moved, tether_limit, parallel);
    }
    (report.corrections, report.sweeps) = if scratch.coloured {
        if scratch.colours.0.is_empty() || scratch.colours.1 != provot.shear {
            scratch.colours = (coloured_limited_springs(cloth, provot.shear), provot.shear);
        }
        provot_sweeps_coloured(
            &mut cloth.x,
            kinematic,
            &mut scratch.moved,
            &scratch.colours.0,
            bounds,
            provot.iterations,
        )
    } else {
        provot_sweeps(
            cloth,
            kinematic,
            &mut scratch.moved,
            provot.shear,
            bounds,
            provot.iterations,
            parallel,
        )
    };
    if report.corrections + report.tether_corrections + report.level_corrections > 0 {
        let moved = &scratch.moved;
        let inv_h = 1.0 / h;
        for_each_node2(parallel, &mut cloth.x, &mut cloth.v, |i, x, v| {
            if moved[i] {
                *v = (*x - x_before[i]) * inv_h;
            }
        });
    }
    report
}

/// Provot 1995: at most `iterations` Gauss–Seidel sweeps over the structural and shear springs
/// (the structural ones alone unless `shear`; every spring of an explicit cloth), stopping
/// after the first sweep that corrects nothing.
/// A spring longer than `bounds.longest · L` is shortened to that and one shorter than
/// `bounds.shortest · L` (but not of length 0) lengthened to that: each end moves half the
/// difference, the free end all of it when the other end is kinematic, neither when both are.
/// Springs with `L = 0` are not among them. Moved nodes are marked in `moved`. Returns `(corrections, sweeps)`.
///
/// The sweeps follow [`StrainOrder`](crate::sim::model::cloth::StrainOrder): forward on odd sweeps
/// (bands, then the springs between them) and backward on even ones (the reverse), a symmetric
/// Gauss–Seidel. Bands run in parallel when `parallel`, with the serial result.
pub fn provot_sweeps(
    cloth: &mut Cloth,
    kinematic: &[bool],
    moved: &mut [bool],
    shear: bool,
    bounds: Bounds,
    iterations: u32,
    parallel: bool,
) -> (usize, u32) {
    let order = cloth.topology.strain_order(shear);
    let springs = Springs { kinematic, bounds };
    let x = &mut cloth.x;
    let mut corrections = 0;
    for sweep in 0..iterations {
        let backward = sweep % 2 == 1;
        let mut made = 0;
        if backward {
            made += springs.correct(&order.boundary, true, 0, x, moved);
        }
        let band = |(b, (xs, ms)): (usize, (&mut [DVec3], &mut [bool]))| {
            springs.correct(&order.bands[b], backward, b * order.band_nodes, xs, ms)
        };
        made += if parallel && order.bands.len() > 1 {
            x.par_chunks_mut(order.band_nodes)
                .zip(moved.par_chunks_mut(order.band_nodes))
                .enumerate()
                .map(band)
                .sum::<usize>()
        } else {
            x.chunks_mut(order.band_nodes)
                .zip(moved.chunks_mut(order.band_nodes))
                .enumerate()
                .map(band)
                .sum::<usize>()
        };
        if !backward {
            made += springs.correct(&order.boundary, false, 0, x, moved);
        }
        corrections += made;
        if made == 0 {
            return (corrections, sweep + 1);
        }
    }
    (corrections, iterations)
}

/// The springs Provot limits (every band's and the boundary's; the shear springs only with
/// `shear`), coloured so that no two springs of a colour share a node: greedily in spring
/// order, each the first colour neither end has. The GPU's sweeps (`shaders/sim_strain.wgsl`)
/// correct a colour's springs all at once, which then gives what correcting them one after
/// another does.
pub(crate) fn coloured_limited_springs(cloth: &Cloth, shear: bool) -> Vec<Vec<LimitedSpring>> {
    let order = cloth.topology.strain_order(shear);
    let mut springs: Vec<LimitedSpring> = order.bands.iter().flatten().copied().collect();
    springs.extend_from_slice(&order.boundary);
    colour_springs(springs, cloth.node_count())
}

/// Provot's sweeps in the GPU's order: at most `iterations` sweeps of the `colours`
/// ([`coloured_limited_springs`]), in order on odd sweeps and in reverse on even ones (a
/// symmetric Gauss–Seidel, as [`provot_sweeps`]), stopping after the first sweep that corrects
/// nothing; each spring as [`provot_sweeps`] corrects it. Moved nodes are marked in `moved`.
/// Returns `(corrections, sweeps)`. The twin of `shaders/sim_strain.wgsl`'s `provot`, which
/// runs every sweep (one that corrects nothing changes nothing, nor do the ones after it).
pub(crate) fn provot_sweeps_coloured(
    x: &mut [DVec3],
    kinematic: &[bool],
    moved: &mut [bool],
    colours: &[Vec<LimitedSpring>],
    bounds: Bounds,
    iterations: u32,
) -> (usize, u32) {
    let springs = Springs { kinematic, bounds };
    let mut corrections = 0;
    for sweep in 0..iterations {
        let backward = sweep % 2 == 1;
        let mut made = 0;
        for c in 0..colours.len() {
            let colour = if backward { colours.len() - 1 - c } else { c };
            made += springs.correct(&colours[colour], false, 0, x, moved);
        }
        corrections += made;
        if made == 0 {
            return (corrections, sweep + 1);
        }
    }
    (corrections, iterations)
}

/// What a sweep reads besides the springs.
struct Springs<'a> {
    kinematic: &'a [bool],
    bounds: Bounds,
}

impl Springs<'_> {
    /// The corrections of `list` in order (reversed when `backward`), on the nodes from
    /// `offset` on: `x[k]` and `moved[k]` are node `offset + k`. Returns how many were made.
    fn correct(
        &self,
        list: &[LimitedSpring],
        backward: bool,
        offset: usize,
        x: &mut [DVec3],
        moved: &mut [bool],
    ) -> usize {
        if backward {
            self.correct_in(list.iter().rev(), offset, x, moved)
        } else {
            self.correct_in(list.iter(), offset, x, moved)
        }
    }

    #[allow(clippy::inline_always)] // reason: the innermost loop of the fast core
    #[inline(always)]
    fn correct_in<'s>(
        &self,
        list: impl Iterator<Item = &'s LimitedSpring>,
        offset: usize,
        x: &mut [DVec3],
        moved: &mut [bool],
    ) -> usize {
        let mut corrections = 0;
        for s in list {
            let (a, b) = (s.a as usize, s.b as usize);
            let (ka, kb) = (self.kinematic[a], self.kinematic[b]);
            let (la, lb) = (a - offset, b - offset);
            if let Some([da, db]) = provot_moves(x[la], x[lb], s.rest, self.bounds, ka, kb) {
                x[la] += da;
                x[lb] += db;
                moved[la] |= !ka;
                moved[lb] |= !kb;
                corrections += 1;
            }
        }
        corrections
    }
}

/// The Provot sweeps alone, as a standalone pass over a cloth (tests and tools): afterwards
/// every moved node gets `v = (x_corrected - x_before) / h`. Returns the number of corrections.
pub fn strain_limit(
    cloth: &mut Cloth,
    kinematic: &[bool],
    x_before: &[DVec3],
    h: f64,
    provot: &Provot,
    parallel: bool,
) -> usize {
    let mut scratch = StrainScratch::default();
    let provot = Provot {
        tethers: false,
        ..*provot
    };
    limit_strain(
        cloth,
        kinematic,
        x_before,
        &mut scratch,
        h,
        &provot,
        parallel,
    )
    .corrections
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Scene;

    /// One scratch through a change of `provot.shear`, in the GPU's order: a 2 × 2 sheet sheared
    /// into a rhombus of 60° (structural springs at rest, a diagonal at √3 against its rest √2)
    /// is left alone with the shear springs off, and its long diagonal is pulled back within
    /// 10 % once they are on: the colours are made again for the new setting (and again when
    /// it goes back).
    #[test]
    fn the_colours_follow_a_change_of_the_shear_setting() {
        let json = r#"{ "cloth": { "grid": { "nx": 2, "ny": 2, "width": 1, "height": 1,
                        "shear": "both", "bend": false, "pins": "none" } } }"#;
        let sim = Scene::from_json(json, "t").unwrap().simulation().unwrap();
        let origin = sim.cloth.x[0];
        let (du, dv) = (sim.cloth.x[1] - origin, sim.cloth.x[2] - origin);
        let (c, s) = (0.5, 3f64.sqrt() / 2.0);
        let sheared: Vec<DVec3> = [(0.0, 0.0), (1.0, 0.0), (c, s), (1.0 + c, s)]
            .iter()
            .map(|&(u, v)| origin + du * u + dv * v)
            .collect();
        let kinematic = vec![false; 4];
        let mut scratch = StrainScratch {
            coloured: true,
            ..StrainScratch::default()
        };
        let mut run = |shear: bool| {
            let mut cloth = sim.cloth.clone();
            cloth.x.clone_from(&sheared);
            let provot = Provot {
                enabled: true,
                max_stretch: 0.1,
                iterations: 10,
                shear,
                ..Provot::default()
            };
            let report = limit_strain(
                &mut cloth,
                &kinematic,
                &sheared,
                &mut scratch,
                0.01,
                &provot,
                false,
            );
            (report.corrections, (cloth.x[3] - cloth.x[0]).length())
        };
        let (corrections, long) = run(false);
        assert_eq!(corrections, 0);
        assert!((long - 3f64.sqrt()).abs() < 1e-12, "{long}");
        let (corrections, long) = run(true);
        assert!(
            corrections > 0 && long <= 1.1 * 2f64.sqrt() + 1e-9,
            "{long}"
        );
        assert_eq!(run(false).0, 0);
    }
}
