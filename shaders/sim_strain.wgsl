// Strain limiting on the GPU, in f32: Provot's sweeps on the coarse levels, coarsest
// first, each level's moves interpolated to the next finer one, then long-range tethers, then
// the sweeps on the cloth's own springs, then each moved node's velocity `(x − x_before) / h`. CPU twins:
// `sim::constraints::tethers::Tethers::project` (`tethers`), `sim::constraints::strain_levels::StrainLevels::limit`
// (`keep_x0`, `provot` on a level's springs, `interpolate`),
// `sim::constraints::limit::provot_sweeps_coloured` (`provot`, one dispatch a colour of springs, no two
// of which share a node), and the end of `sim::constraints::limit::limit_strain` (`strain_velocity`).

struct LimitedSpring {
    a: u32,
    b: u32,
    rest: f32,
    pad: f32,
}

struct StrainParams {
    nodes: u32,
    // `provot`: the colour's springs, `springs[first .. first + count]`.
    first: u32,
    count: u32,
    // `provot`, `interpolate`: the level (0: the cloth's own springs); a node is held on it
    // when `held_from[node] <= level`.
    level: u32,
    // Provot's limit (1 + max stretch; the CPU's tolerance of 1e-9 is below f32's rounding),
    // and the tethers' (1 + τ).
    limit: f32,
    tether_limit: f32,
    // 1 / h, 1/s.
    inv_h: f32,
    // The shortest a spring may be, in rest lengths (1 − τ_c; 0 on the coarse levels, whose
    // springs are straight lines across folds).
    shortest: f32,
    // `interpolate`: the finer level's size, and where its columns and rows and the coarse
    // level's are in `axes` (each the cloth's column or row of the level's).
    fine_nx: u32,
    fine_ny: u32,
    fine_cols: u32,
    fine_rows: u32,
    coarse_cols: u32,
    coarse_rows: u32,
    // The cloth's width in nodes.
    nx: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: StrainParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
// 1 where the stage moved the node this step.
@group(0) @binding(2) var<storage, read_write> moved: array<u32>;
// The first level on which the node is held (0: kinematic; 0xffffffff: never).
@group(0) @binding(3) var<storage, read> held_from: array<u32>;
@group(0) @binding(4) var<storage, read> springs: array<LimitedSpring>;
// Node i's tethers: anchors tether_anchor[e] (node indices, held nodes no tether moves) at
// rest distances tether_rest[e], e in tether_start[i] .. tether_start[i + 1].
@group(0) @binding(5) var<storage, read> tether_start: array<u32>;
@group(0) @binding(6) var<storage, read> tether_anchor: array<u32>;
@group(0) @binding(7) var<storage, read> tether_rest: array<f32>;
// `strain_velocity`: the positions before the stage, and the velocities it sets.
@group(0) @binding(8) var<storage, read> x_before: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> v: array<vec4<f32>>;
// `keep_x0`, `interpolate`: the positions at the start of the stage.
@group(0) @binding(10) var<storage, read_write> x0: array<vec4<f32>>;
// `interpolate`: the levels' columns and rows (see `StrainParams`).
@group(0) @binding(11) var<storage, read> axes: array<u32>;

// A node with several tethers is pulled onto each sphere in turn, in rounds while a round
// corrects anything (`sim::tethers`'s ROUNDS).
const ROUNDS: u32 = 3u;

@compute @workgroup_size(64)
fn tethers(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes {
        return;
    }
    let first = tether_start[i];
    let end = tether_start[i + 1u];
    if first == end {
        return;
    }
    var xi = x[i].xyz;
    var fixed = 0u;
    for (var round = 0u; round < ROUNDS; round += 1u) {
        var this_round = 0u;
        for (var e = first; e < end; e += 1u) {
            let p = x[tether_anchor[e]].xyz;
            let d = xi - p;
            let len2 = dot(d, d);
            let most = params.tether_limit * tether_rest[e];
            if len2 > most * most {
                xi = p + d * (most / sqrt(len2));
                this_round += 1u;
            }
        }
        fixed += this_round;
        if this_round == 0u || end - first == 1u {
            break;
        }
    }
    if fixed > 0u {
        x[i] = vec4<f32>(xi, 0.0);
        moved[i] = 1u;
    }
}

@compute @workgroup_size(64)
fn provot(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = flat_index(gid, groups);
    if k >= params.count {
        return;
    }
    let s = springs[params.first + k];
    let ka = held_from[s.a] <= params.level;
    let kb = held_from[s.b] <= params.level;
    if ka && kb {
        return;
    }
    let xa = x[s.a].xyz;
    let xb = x[s.b].xyz;
    let d = xb - xa;
    let len2 = dot(d, d);
    let most = params.limit * s.rest;
    let least = params.shortest * s.rest;
    var aim = most;
    if len2 <= most * most {
        if len2 >= least * least || len2 == 0.0 {
            return;
        }
        aim = least;
    }
    let len = sqrt(len2);
    let excess = ((len - aim) / len) * d;
    if ka {
        x[s.b] = vec4<f32>(xb - excess, 0.0);
        moved[s.b] = 1u;
    } else if kb {
        x[s.a] = vec4<f32>(xa + excess, 0.0);
        moved[s.a] = 1u;
    } else {
        x[s.a] = vec4<f32>(xa + 0.5 * excess, 0.0);
        x[s.b] = vec4<f32>(xb - 0.5 * excess, 0.0);
        moved[s.a] = 1u;
        moved[s.b] = 1u;
    }
}

@compute @workgroup_size(64)
fn strain_velocity(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes {
        return;
    }
    if moved[i] != 0u {
        v[i] = vec4<f32>((x[i].xyz - x_before[i].xyz) * params.inv_h, 0.0);
        moved[i] = 0u;
    }
}

// The positions at the start of the coarse levels.
@compute @workgroup_size(64)
fn keep_x0(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i < params.nodes {
        x0[i] = x[i];
    }
}

// Along one direction of `n` nodes of the finer level, the coarse nodes node `i` interpolates
// from (`sim::solvers::multigrid::parents`): an even node is coarse node `i / 2`, the last node of an
// even count the last coarse node, any other odd node halfway between `(i − 1) / 2` and
// `(i + 1) / 2`. Returns the two coarse nodes (the same one twice when one) and the count.
fn parents(i: u32, n: u32) -> vec3<u32> {
    if i % 2u == 0u {
        return vec3<u32>(i / 2u, i / 2u, 1u);
    }
    if i + 1u == n {
        return vec3<u32>(n / 2u, n / 2u, 1u);
    }
    return vec3<u32>(i / 2u, i / 2u + 1u, 2u);
}

// Each node of the finer level that is not on the coarse one and not kinematic moves by the
// linear interpolation of its coarse neighbours' moves since `keep_x0`.
@compute @workgroup_size(64)
fn interpolate(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = flat_index(gid, groups);
    if k >= params.fine_nx * params.fine_ny {
        return;
    }
    let i = k % params.fine_nx;
    let j = k / params.fine_nx;
    let pi = parents(i, params.fine_nx);
    let pj = parents(j, params.fine_ny);
    if pi.z == 1u && pj.z == 1u {
        return;
    }
    let f = axes[params.fine_rows + j] * params.nx + axes[params.fine_cols + i];
    if held_from[f] == 0u {
        return;
    }
    let wi = 1.0 / f32(pi.z);
    let wj = 1.0 / f32(pj.z);
    var d = vec3<f32>(0.0);
    for (var b = 0u; b < pj.z; b += 1u) {
        for (var a = 0u; a < pi.z; a += 1u) {
            let c = axes[params.coarse_rows + pj[b]] * params.nx + axes[params.coarse_cols + pi[a]];
            d += (wi * wj) * (x[c].xyz - x0[c].xyz);
        }
    }
    if any(d != vec3<f32>(0.0)) {
        x[f] = vec4<f32>(x[f].xyz + d, 0.0);
        moved[f] = 1u;
    }
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
