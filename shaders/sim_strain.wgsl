// Strain limiting on the GPU (issue 27), in f32: long-range tethers, then Provot's sweeps, then
// each moved node's velocity `(x − x_before) / h`. CPU twins: `sim::tethers::Tethers::project`
// (`tethers`), `sim::constraints::provot_sweeps_coloured` (`provot`, one dispatch a colour of
// springs, no two of which share a node), and the end of `sim::constraints::limit_strain`
// (`strain_velocity`).

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
    pad: u32,
    // Provot's limit (1 + max stretch; the CPU's tolerance of 1e-9 is below f32's rounding),
    // and the tethers' (1 + τ).
    limit: f32,
    tether_limit: f32,
    // 1 / h, 1/s.
    inv_h: f32,
    pad1: f32,
}

@group(0) @binding(0) var<uniform> params: StrainParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
// 1 where the stage moved the node this step.
@group(0) @binding(2) var<storage, read_write> moved: array<u32>;
// 1 where the node is held.
@group(0) @binding(3) var<storage, read> kinematic: array<u32>;
@group(0) @binding(4) var<storage, read> springs: array<LimitedSpring>;
// Node i's tethers: anchors tether_anchor[e] (node indices, held nodes no tether moves) at
// rest distances tether_rest[e], e in tether_start[i] .. tether_start[i + 1].
@group(0) @binding(5) var<storage, read> tether_start: array<u32>;
@group(0) @binding(6) var<storage, read> tether_anchor: array<u32>;
@group(0) @binding(7) var<storage, read> tether_rest: array<f32>;
// `strain_velocity`: the positions before the stage, and the velocities it sets.
@group(0) @binding(8) var<storage, read> x_before: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> v: array<vec4<f32>>;

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
    let ka = kinematic[s.a] != 0u;
    let kb = kinematic[s.b] != 0u;
    if ka && kb {
        return;
    }
    let xa = x[s.a].xyz;
    let xb = x[s.b].xyz;
    let d = xb - xa;
    let len2 = dot(d, d);
    let most = params.limit * s.rest;
    if len2 <= most * most {
        return;
    }
    let len = sqrt(len2);
    let excess = ((len - most) / len) * d;
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

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
