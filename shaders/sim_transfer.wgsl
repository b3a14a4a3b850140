// The multigrid's grid transfers on the GPU: the CPU twins are
// `sim::solvers::multigrid::GridTransfer::restrict` and `::prolong`, in f32. A fine grid of nx × ny nodes
// (row-major) and the next coarser one of cx × cy = (nx / 2 + 1) × (ny / 2 + 1): along each
// direction an even fine node i is coarse node i / 2, the last node of an even count is the last
// coarse node, any other odd node lies halfway between (i − 1) / 2 and (i + 1) / 2 (linear
// interpolation, exact at both ends). P interpolates; Pᵀ gathers back.

struct TransferParams {
    nx: u32,
    ny: u32,
    cx: u32,
    cy: u32,
}

@group(0) @binding(0) var<uniform> params: TransferParams;
// The fine level's residual (restrict reads it).
@group(0) @binding(1) var<storage, read> fine_r: array<vec4<f32>>;
// Per node, 1 where the node is an unknown of its level (its diagonal is positive), 0 where not.
@group(0) @binding(2) var<storage, read> fine_active: array<u32>;
// The coarse level's right-hand side (restrict writes it).
@group(0) @binding(3) var<storage, read_write> coarse_b: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> coarse_active: array<u32>;
// The coarse level's solution (prolong reads it) and the fine level's (prolong adds to it).
@group(0) @binding(5) var<storage, read> coarse_x: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> fine_x: array<vec4<f32>>;

// Up to three (fine index, weight) pairs along one direction, in increasing fine index.
struct Line {
    index: array<u32, 3>,
    weight: array<f32, 3>,
    count: u32,
}

// The fine nodes along a direction of n that interpolate from coarse node c: P's column.
fn children(c: u32, n: u32) -> Line {
    var out: Line;
    out.count = 0u;
    let even = 2u * c;
    if c >= 1u && even - 1u < n {
        // The odd node before: halfway, or the last node of an even count (all of it).
        out.index[out.count] = even - 1u;
        out.weight[out.count] = select(0.5, 1.0, even == n);
        out.count += 1u;
    }
    if even < n {
        out.index[out.count] = even;
        out.weight[out.count] = 1.0;
        out.count += 1u;
    }
    if even + 1u < n && even + 2u != n {
        // The odd node after, unless it is the last of an even count (that one's parent is the
        // next coarse node alone).
        out.index[out.count] = even + 1u;
        out.weight[out.count] = 0.5;
        out.count += 1u;
    }
    return out;
}

// The coarse nodes along a direction of n that fine node i interpolates from: P's row.
fn parents(i: u32, n: u32) -> Line {
    var out: Line;
    if i % 2u == 0u {
        out.index[0] = i / 2u;
        out.weight[0] = 1.0;
        out.count = 1u;
    } else if i + 1u == n {
        out.index[0] = n / 2u;
        out.weight[0] = 1.0;
        out.count = 1u;
    } else {
        out.index[0] = i / 2u;
        out.weight[0] = 0.5;
        out.index[1] = i / 2u + 1u;
        out.weight[1] = 0.5;
        out.count = 2u;
    }
    return out;
}

// b_coarse = Pᵀ r_fine on the coarse unknowns, zero elsewhere: one invocation a coarse node.
@compute @workgroup_size(64)
fn restrict_residual(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let c = id.x;
    if c >= params.cx * params.cy {
        return;
    }
    if coarse_active[c] == 0u {
        coarse_b[c] = vec4<f32>(0.0);
        return;
    }
    let lx = children(c % params.cx, params.nx);
    let ly = children(c / params.cx, params.ny);
    var sum = vec3<f32>(0.0);
    for (var a = 0u; a < ly.count; a += 1u) {
        let row = ly.index[a] * params.nx;
        var part = vec3<f32>(0.0);
        for (var b = 0u; b < lx.count; b += 1u) {
            part += lx.weight[b] * fine_r[row + lx.index[b]].xyz;
        }
        sum += ly.weight[a] * part;
    }
    coarse_b[c] = vec4<f32>(sum, 0.0);
}

// x_fine += P x_coarse on the fine unknowns: one invocation a fine node.
@compute @workgroup_size(64)
fn prolong_correction(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nx * params.ny || fine_active[i] == 0u {
        return;
    }
    let lx = parents(i % params.nx, params.nx);
    let ly = parents(i / params.nx, params.ny);
    var add = vec3<f32>(0.0);
    for (var a = 0u; a < ly.count; a += 1u) {
        let row = ly.index[a] * params.cx;
        var part = vec3<f32>(0.0);
        for (var b = 0u; b < lx.count; b += 1u) {
            part += lx.weight[b] * coarse_x[row + lx.index[b]].xyz;
        }
        add += ly.weight[a] * part;
    }
    fine_x[i] = vec4<f32>(fine_x[i].xyz + add, 0.0);
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
