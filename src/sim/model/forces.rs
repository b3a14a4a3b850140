//! The one force path every integrator uses: Hooke springs with optional damping, the viscosity
//! term of eq. 4, gravity, and air (drag eq. 17, lift eqs. 18–19, linear wind) in a seeded,
//! deterministic wind field.
//!
//! Internal (spring) forces are computed per spring, then gathered per node over its adjacency in
//! a fixed order, so the serial and the parallel path give bit-identical sums.

use glam::DVec3;
use rayon::prelude::*;

use crate::sim::format::params::{DragModel, LiftModel, Params, Wind};
use crate::sim::model::cloth::Cloth;
use crate::sim::model::par::{MIN_PARALLEL_CHUNK, for_each_node, for_each_node2};

/// `1 / |x_ab|` from `|x_ab|²`, 0 for coincident ends: one square root and one division, the
/// same operations whether a spring is computed alone or in a batch (so both give one answer).
#[inline]
pub(crate) fn inverse_length(len2: f64) -> f64 {
    if len2 > 0.0 { 1.0 / len2.sqrt() } else { 0.0 }
}

/// [`spring_force_on_a`] given `1 / |x_ab|`.
#[inline]
fn spring_force_with(
    x_ab: DVec3,
    inv_len: f64,
    v_ab: DVec3,
    k: f64,
    rest: f64,
    damping: f64,
) -> DVec3 {
    let hooke = (k * (1.0 - rest * inv_len)) * x_ab;
    if damping > 0.0 {
        let dir = x_ab * inv_len;
        hooke + damping * v_ab.dot(dir) * dir
    } else {
        hooke
    }
}

/// Scratch of the shared force path ([`spring_forces`]).
#[derive(Debug, Clone, Default)]
pub struct ForceWork {
    /// Per spring, its force on end `a`, N (the parallel path's).
    pub spring_f: Vec<DVec3>,
    /// Per spring, `1 / |x_ab|` at the step's positions, 1/m, where the shared force path ran
    /// (the simulation empties it before each step's forces: an integrator with forces of its
    /// own leaves it so).
    pub inv_len: Vec<f64>,
}

/// Spring forces `F_i` (Hooke + damping): in parallel per spring into `spring_f`, then
/// gathered into `out` over each node's links in a fixed order; on one thread spring by spring
/// into both ends (`scatter_spring_forces`, the same bits). With `viscosity = Some(h)` either
/// path adds the viscosity term of eq. 4, `h Σ_j k_ij (v_j - v_i)`, so `out` is the implicit
/// family's `F̃`.
/// Nodes with `skip[i]` (an empty `skip` skips none) get no force, and springs between two
/// skipped nodes are not evaluated: the wavelet interpolation does not need them.
/// `work.inv_len` receives every spring's `1 / |x_ab|` ([`inverse_length`]), skipped or not:
/// the spring blocks of the implicit solvers are built from it at the same positions.
pub fn spring_forces(
    cloth: &Cloth,
    damping: f64,
    viscosity: Option<f64>,
    parallel: bool,
    skip: &[bool],
    work: &mut ForceWork,
    out: &mut [DVec3],
) {
    let ForceWork { spring_f, inv_len } = work;
    let skipped = |i: usize| !skip.is_empty() && skip[i];
    let (x, v, k, rest) = (&cloth.x, &cloth.v, cloth.k(), &cloth.topology.rest);
    inv_len.resize(cloth.topology.ends.len(), 0.0);
    if !parallel {
        scatter_spring_forces(cloth, damping, viscosity, skip, inv_len, out);
        return;
    }
    spring_f.resize(cloth.topology.ends.len(), DVec3::ZERO);
    {
        use rayon::prelude::*;
        spring_f
            .par_chunks_mut(SPRING_BATCH)
            .zip(inv_len.par_chunks_mut(SPRING_BATCH))
            .with_min_len(MIN_PARALLEL_CHUNK / SPRING_BATCH)
            .enumerate()
            .for_each(|(c, (f, inv_len))| {
                let first = c * SPRING_BATCH;
                let ends = &cloth.topology.ends[first..first + f.len()];
                batch_inverse_lengths(x, ends, f, inv_len);
                for (j, (&[a, b], f)) in ends.iter().zip(f.iter_mut()).enumerate() {
                    let (a, b, s) = (a as usize, b as usize, first + j);
                    if !skip.is_empty() && skipped(a) && skipped(b) {
                        continue;
                    }
                    *f = spring_term(
                        *f,
                        inv_len[j],
                        v[b] - v[a],
                        k[s],
                        rest[s],
                        damping,
                        viscosity,
                    );
                }
            });
    }
    let spring_f = &*spring_f;
    let topology = &*cloth.topology;
    for_each_node(parallel, out, |i, f| {
        if skipped(i) {
            *f = DVec3::ZERO;
            return;
        }
        let range = topology.link_start[i]..topology.link_start[i + 1];
        let mut sum = DVec3::ZERO;
        for (l, &sg) in topology.links[range.clone()]
            .iter()
            .zip(&topology.link_sign[range])
        {
            sum += sg * spring_f[l.spring as usize];
        }
        *f = sum;
    });
}

/// What spring `s` adds to its end `a` (its end `b` gets the negative): the force of
/// [`spring_force_with`], plus with `viscosity = Some(h)` the viscosity term `h k (v_b − v_a)`
/// of eq. 4. One term a spring, so the forces and the viscosity go to the nodes in one pass
/// (a pass of the viscosity's own would read every spring and node a second time).
#[inline]
fn spring_term(
    x_ab: DVec3,
    inv_len: f64,
    v_ab: DVec3,
    k: f64,
    rest: f64,
    damping: f64,
    viscosity: Option<f64>,
) -> DVec3 {
    let f = spring_force_with(x_ab, inv_len, v_ab, k, rest, damping);
    match viscosity {
        Some(h) => f + (h * k) * v_ab,
        None => f,
    }
}

/// Springs per batch of [`batch_inverse_lengths`].
const SPRING_BATCH: usize = 64;

/// For a batch of springs (at most [`SPRING_BATCH`]): `x_ab = x_b − x_a` and `1 / |x_ab|`. The
/// square roots and divisions, the slowest instructions of the force pass and independent of
/// each other, run in a loop of their own, which the compiler vectorises.
#[inline]
fn batch_inverse_lengths(x: &[DVec3], ends: &[[u32; 2]], x_ab: &mut [DVec3], inv_len: &mut [f64]) {
    for ((e, d), l) in ends.iter().zip(x_ab.iter_mut()).zip(inv_len.iter_mut()) {
        *d = x[e[1] as usize] - x[e[0] as usize];
        *l = d.length_squared();
    }
    for l in &mut inv_len[..ends.len()] {
        *l = inverse_length(*l);
    }
}

/// [`spring_forces`] on one thread: each spring's force added to both ends as it is computed,
/// in spring order. Each node's links are in spring order too, so every node receives the same
/// terms in the same order as the gather sums them (and `a − f` is `a + (−1)·f` exactly): the
/// result is the gather's bit for bit, without the per-spring array and the second pass.
fn scatter_spring_forces(
    cloth: &Cloth,
    damping: f64,
    viscosity: Option<f64>,
    skip: &[bool],
    all_inv_len: &mut [f64],
    out: &mut [DVec3],
) {
    let skipped = |i: usize| !skip.is_empty() && skip[i];
    let (x, v, k, rest) = (&cloth.x, &cloth.v, cloth.k(), &cloth.topology.rest);
    out.fill(DVec3::ZERO);
    let mut x_ab = [DVec3::ZERO; SPRING_BATCH];
    for (first, (ends, inv_len)) in cloth
        .topology
        .ends
        .chunks(SPRING_BATCH)
        .zip(all_inv_len.chunks_mut(SPRING_BATCH))
        .enumerate()
    {
        let first = first * SPRING_BATCH;
        batch_inverse_lengths(x, ends, &mut x_ab, inv_len);
        for (j, &[a, b]) in ends.iter().enumerate() {
            let (a, b, s) = (a as usize, b as usize, first + j);
            if !skip.is_empty() && skipped(a) && skipped(b) {
                continue;
            }
            let f = spring_term(
                x_ab[j],
                inv_len[j],
                v[b] - v[a],
                k[s],
                rest[s],
                damping,
                viscosity,
            );
            out[a] += f;
            out[b] -= f;
        }
    }
    if !skip.is_empty() {
        for (f, &skipped) in out.iter_mut().zip(skip) {
            if skipped {
                *f = DVec3::ZERO;
            }
        }
    }
}

/// External forces of one step, per node.
#[derive(Debug, Clone, Default)]
pub struct External {
    /// Gravity, m/s² (the same for every node).
    pub gravity: DVec3,
    /// Air forces other than the semi-implicit drag: lift, linear wind, and the drag itself with
    /// the explicit model, N.
    pub air: Vec<DVec3>,
    /// `|air| / |v_rel|`, kg/s, with the semi-implicit model (0 with the explicit one): `air` is
    /// then applied as `h F / (m + h c)`, like the drag, so in one step it can never change the
    /// relative velocity by more than its size, however large `h` is.
    pub air_c: Vec<f64>,
    /// Semi-implicit drag coefficient `c = K_D |N̂·v̂| |v_rel|`, kg/s (0 with explicit drag).
    pub drag_c: Vec<f64>,
    /// Velocity relative to the air, `v - v_wind`, m/s.
    pub v_rel: Vec<DVec3>,
    /// Whether any air constant is non-zero. Without air only gravity acts: the per-node
    /// arrays above are all zero and are not recomputed.
    pub has_air: bool,
}

impl External {
    pub(crate) fn resize(&mut self, n: usize) {
        self.air.resize(n, DVec3::ZERO);
        self.air_c.resize(n, 0.0);
        self.drag_c.resize(n, 0.0);
        self.v_rel.resize(n, DVec3::ZERO);
    }

    /// Gravity alone: zeroes the air arrays (once; they stay zero while there is no air, and
    /// `resize` fills new entries with zeros).
    fn gravity_only(&mut self, gravity: DVec3) {
        self.gravity = gravity;
        if self.has_air {
            self.air.fill(DVec3::ZERO);
            self.air_c.fill(0.0);
            self.drag_c.fill(0.0);
            self.v_rel.fill(DVec3::ZERO);
            self.has_air = false;
        }
    }

    /// `h (c_drag + c_air)` of node `i`, kg: what the semi-implicit air adds to its mass in an
    /// implicit system (0 without air).
    #[inline]
    pub(crate) fn implicit_air(&self, i: usize, h: f64) -> f64 {
        if self.has_air {
            h * (self.drag_c[i] + self.air_c[i])
        } else {
            0.0
        }
    }

    /// The unfiltered velocity change of the external forces over `h` for node `i` of mass `m`:
    /// `h g`, the air force `h F / (m + h c_air)`, and the semi-implicit drag
    /// `-(c h / (m + c h)) v_rel`.
    #[allow(clippy::inline_always)] // reason: the innermost loop of the fast core
    #[inline(always)]
    pub fn delta_v(&self, i: usize, m: f64, h: f64) -> DVec3 {
        if !self.has_air {
            return h * self.gravity;
        }
        let c = self.drag_c[i];
        h * self.gravity + h * self.air[i] / (m + h * self.air_c[i])
            - (c * h / (m + c * h)) * self.v_rel[i]
    }

    /// The external force on node `i` of mass `m` as one force (drag written explicitly), for
    /// the "filter all forces" option and the implicit solve's right-hand side.
    #[inline]
    pub fn as_force(&self, i: usize, m: f64) -> DVec3 {
        if !self.has_air {
            return m * self.gravity;
        }
        m * self.gravity + self.air[i] - self.drag_c[i] * self.v_rel[i]
    }
}

/// Air forces on one node (paper §4). Returns `(explicit force, semi-implicit drag c)`.
///
/// `normal` is the node's unit normal `N̂` (zero: no air), `v_rel` the velocity relative to the
/// air. Drag (eq. 17) `F_D = -K_D |N̂·v̂| |v_rel|² v̂`; lift (eqs. 18–19) `F_L = K_L cosθ |v_rel|² U`
/// with `U = (Ñ × v̂) × v̂`, or the smooth variant; linear wind `-k_w v_rel`.
pub fn air_force(wind: &Wind, normal: DVec3, v_rel: DVec3) -> (DVec3, f64) {
    let speed = v_rel.length();
    if speed == 0.0 || normal == DVec3::ZERO {
        return (DVec3::ZERO, 0.0);
    }
    let v_hat = v_rel / speed;
    let n_dot_v = normal.dot(v_hat);
    let lift = match wind.lift_model {
        LiftModel::Paper => {
            let n_tilde = if n_dot_v > 0.0 { normal } else { -normal };
            let u = n_tilde.cross(v_hat).cross(v_hat);
            let cos_theta = (1.0 - n_dot_v * n_dot_v).max(0.0).sqrt();
            wind.lift * cos_theta * speed * speed * u
        }
        LiftModel::Smooth => -wind.lift * speed * speed * n_dot_v * (normal - n_dot_v * v_hat),
    };
    let c = wind.drag * n_dot_v.abs() * speed;
    let linear = -wind.linear * v_rel;
    match wind.drag_model {
        DragModel::SemiImplicit => (lift + linear, c),
        DragModel::Explicit => (lift + linear - c * v_rel, 0.0),
    }
}

/// The node count the air constants are given for (the paper's 10 × 10 key nodes).
pub(crate) const AIR_REFERENCE_NODES: f64 = 100.0;

/// Gravity and air on every node at time `t`, given the key-mesh normals and the base wind
/// the air currently has (m/s; it lags `params.wind.velocity` by `params.wind.response`).
/// Air is not evaluated on `skip`ped nodes (an empty `skip` skips none).
#[allow(clippy::too_many_arguments)]
pub fn external_forces(
    cloth: &Cloth,
    params: &Params,
    t: f64,
    base_wind: DVec3,
    normals: &[DVec3],
    parallel: bool,
    skip: &[bool],
    ext: &mut External,
) {
    let skipped = |i: usize| !skip.is_empty() && skip[i];
    let gravity = DVec3::from_array(params.gravity);
    let w = &params.wind;
    ext.resize(cloth.node_count());
    if w.drag == 0.0 && w.lift == 0.0 && w.linear == 0.0 {
        ext.gravity_only(gravity);
        return;
    }
    ext.has_air = true;
    ext.gravity = gravity;
    let field = WindField::with_base(&params.wind, base_wind);
    // The air constants are the paper's, per key node of a 10 × 10 cloth; a cloth of N nodes
    // gives each node 100 / N of them, so the same cloth feels the same total air force at any
    // resolution (a 512 × 512 flag would otherwise take the wind 2600 times over).
    let scale = AIR_REFERENCE_NODES / cloth.node_count().max(1) as f64;
    let wind = Wind {
        drag: params.wind.drag * scale,
        lift: params.wind.lift * scale,
        linear: params.wind.linear * scale,
        ..params.wind
    };
    let semi_implicit = params.wind.drag_model == DragModel::SemiImplicit;
    let External {
        air,
        air_c,
        drag_c,
        v_rel,
        ..
    } = ext;
    field.relative_velocities(&cloth.x, &cloth.v, t, parallel, v_rel);
    let v_rel = &*v_rel;
    for_each_node2(parallel, air, drag_c, |i, f, c| {
        (*f, *c) = if skipped(i) {
            (DVec3::ZERO, 0.0)
        } else {
            air_force(&wind, normals[i], v_rel[i])
        };
    });
    let air = &*air;
    for_each_node(parallel, air_c, |i, c| {
        let speed = v_rel[i].length();
        *c = if semi_implicit && speed > 0.0 {
            air[i].length() / speed
        } else {
            0.0
        };
    });
}

/// The wind velocity field: a base velocity with smooth, seeded gusts that travel downwind.
///
/// Gust noise is evaluated at `τ = (t - x·d̂ / |V|) / period` (a gust reaches the fly end after
/// the hoist) plus a small cross-wind phase, so it varies smoothly in time and along the cloth.
/// The speed is scaled by `1 + strength · g₁(τ)` and the direction swings across the wind by
/// `0.3 · strength · g₂(4τ)` and vertically by half that (a quicker swirl, one octave). Same
/// seed, same wind.
#[derive(Debug, Clone, Copy)]
pub struct WindField {
    base: DVec3,
    speed: f64,
    dir: DVec3,
    side: DVec3,
    up: DVec3,
    strength: f64,
    period: f64,
    seed: u64,
}

impl WindField {
    /// The field of `w` with its base velocity.
    pub fn new(w: &Wind) -> Self {
        Self::with_base(w, DVec3::from_array(w.velocity))
    }

    /// The field of `w`'s gusts around another base velocity, m/s.
    pub(crate) fn with_base(w: &Wind, base: DVec3) -> Self {
        let speed = base.length();
        let dir = if speed > 0.0 { base / speed } else { DVec3::X };
        let side = dir.cross(DVec3::Y).try_normalize().unwrap_or(DVec3::Z);
        let up = side.cross(dir);
        Self {
            base,
            speed,
            dir,
            side,
            up,
            strength: w.gust.strength,
            period: w.gust.period,
            seed: w.gust.seed,
        }
    }

    /// The field's frame and gust settings, for a twin of [`Self::velocity`] elsewhere (the GPU
    /// simulation's).
    pub(crate) fn frame(&self) -> WindFrame {
        WindFrame {
            base: self.base,
            speed: self.speed,
            dir: self.dir,
            side: self.side,
            up: self.up,
            strength: self.strength,
            period: self.period,
            seeds: octave_seeds(self.seed),
        }
    }

    /// Wind velocity at `x` (m) and time `t` (s), m/s.
    pub fn velocity(&self, x: DVec3, t: f64) -> DVec3 {
        self.velocity_with(&mut NoiseMemo::default(), x, t)
    }

    /// [`Self::velocity`], reusing the lattice values `memo` holds. Nodes next to each other
    /// read the same few lattice points, so over a cloth almost every hash is a hit; the result
    /// is the same bit for bit.
    fn velocity_with(&self, memo: &mut NoiseMemo, x: DVec3, t: f64) -> DVec3 {
        if self.strength == 0.0 || self.speed == 0.0 {
            return self.base;
        }
        let travel = x.dot(self.dir) / self.speed.max(1.0);
        let tau = (t - travel) / self.period + 0.2 * x.dot(self.side);
        let seeds = octave_seeds(self.seed);
        let octave = |o: usize| OCTAVE_SCALE[o] * tau + OCTAVE_OFFSET[o];
        // smooth_noise(seed, τ): two octaves.
        let g1 = (memo.value(0, seeds[0], tau) + 0.5 * memo.value(1, seeds[1], octave(1))) / 1.5;
        // The cross-wind swirl is four times quicker than the gusts: at flag speeds its
        // wavelength along the wind is about a flag's length, so ripples travel down the cloth.
        let g2 = memo.value(2, seeds[2], octave(2));
        let g3 = memo.value(3, seeds[3], octave(3));
        let s = self.strength;
        self.speed
            * ((1.0 + s * g1) * self.dir + 0.3 * s * g2 * self.side + 0.15 * s * g3 * self.up)
    }

    /// `out[i] = v[i] − wind(x[i], t)` for every node: the velocity relative to the air.
    pub(crate) fn relative_velocities(
        &self,
        x: &[DVec3],
        v: &[DVec3],
        t: f64,
        parallel: bool,
        out: &mut [DVec3],
    ) {
        let fill = |offset: usize, chunk: &mut [DVec3]| {
            let mut memo = NoiseMemo::default();
            for (k, o) in chunk.iter_mut().enumerate() {
                let i = offset + k;
                *o = v[i] - self.velocity_with(&mut memo, x[i], t);
            }
        };
        if parallel {
            out.par_chunks_mut(MIN_PARALLEL_CHUNK)
                .enumerate()
                .for_each(|(c, chunk)| fill(c * MIN_PARALLEL_CHUNK, chunk));
        } else {
            fill(0, out);
        }
    }
}

/// The wind's four noise octaves are read at `OCTAVE_SCALE[o] τ + OCTAVE_OFFSET[o]` (octave 0
/// at `τ` itself), each with its own seed ([`octave_seeds`]): the gusts' two octaves, the
/// cross-wind swirl and the vertical one.
pub(crate) const OCTAVE_SCALE: [f64; 4] = [1.0, 2.3, 4.0, 3.3];
/// See [`OCTAVE_SCALE`].
pub(crate) const OCTAVE_OFFSET: [f64; 4] = [0.0, 0.37, 13.1, 41.7];

/// The seeds of the wind's four noise octaves, from the gust seed.
pub(crate) fn octave_seeds(seed: u64) -> [u64; 4] {
    [
        seed,
        seed ^ 0xA5A5,
        seed.wrapping_add(0x9E37),
        seed.wrapping_add(0x7F4A),
    ]
}

/// A [`WindField`]'s frame and gust settings ([`WindField::frame`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WindFrame {
    /// The base velocity, m/s.
    pub base: DVec3,
    /// `|base|`, m/s.
    pub speed: f64,
    /// Unit vectors: downwind, across it (horizontal), and the third (up-ish).
    pub dir: DVec3,
    pub side: DVec3,
    pub up: DVec3,
    /// Gust strength (0: a steady wind) and period, s.
    pub strength: f64,
    pub period: f64,
    /// The octaves' seeds ([`octave_seeds`]).
    pub seeds: [u64; 4],
}

/// The lattice values last used by each of the wind's four noise octaves: `(k, h(k), h(k+1))`.
#[derive(Debug, Clone, Copy, Default)]
struct NoiseMemo {
    lattice: [Option<(i64, f64, f64)>; 4],
}

impl NoiseMemo {
    /// `value_noise(seed, t)` for octave `slot` (which always uses the same seed).
    #[inline]
    fn value(&mut self, slot: usize, seed: u64, t: f64) -> f64 {
        let (k, ki) = floor_with_integer(t);
        let f = t - k;
        let s = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
        let (_, a, b) = match self.lattice[slot] {
            Some(hit) if hit.0 == ki => hit,
            _ => {
                let fresh = (
                    ki,
                    hash_to_unit(seed, ki),
                    hash_to_unit(seed, ki.wrapping_add(1)),
                );
                self.lattice[slot] = Some(fresh);
                fresh
            }
        };
        a + (b - a) * s
    }
}

/// The noise lattice's value at integer `k` for `seed`, in `[-1, 1)`.
fn hash_to_unit(seed: u64, k: i64) -> f64 {
    // splitmix64 of (seed, k): a fixed, platform-independent integer hash.
    let mut z = seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

/// `t.floor()` (the same value for every `t` but −0, which gives 0), without a call: the
/// default x86-64 target has no rounding instruction, so `f64::floor` is a library routine,
/// and the wind reads four floors a node every step.
#[inline]
pub fn floor(t: f64) -> f64 {
    floor_with_integer(t).0
}

/// `(floor(t), floor(t) as i64)`, the integer from the same conversion.
#[inline]
fn floor_with_integer(t: f64) -> (f64, i64) {
    // Below 2⁵² in size the truncation is exact and a step down fixes negative fractions;
    // above it every f64 is an integer already (and NaN is handed on).
    if t.abs() < 4_503_599_627_370_496.0 {
        let i = t as i64;
        let f = i as f64;
        if f > t { (f - 1.0, i - 1) } else { (f, i) }
    } else {
        let f = t.floor();
        (f, f as i64)
    }
}
