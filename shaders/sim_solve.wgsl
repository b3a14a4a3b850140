// The multigrid's work on one level on the GPU, in f32. CPU twins in
// `sim::multigrid`: `residual` (r = b − A x), `sweep` (`node_coloured_sweep`, one colour a
// dispatch), `coarsest` (the dense solve with `Multigrid::coarsest_factor`), and `air_diagonal`
// (`Multigrid::set_extra_diagonal` with kang-mg's `h (c_drag + c_air)`).
//
// A level of nx × ny nodes, row-major; its matrix in CSR: A_ii = diag[i] (0 on rows that are not
// unknowns), 1 / A_ii, and row i's off-diagonal entries val[e] at columns col[e],
// e in start[i] .. start[i + 1]. Vectors are vec4<f32> a node (w unused).

struct LevelParams {
    nodes: u32,
    nx: u32,
    ny: u32,
    // The colour a `sweep` dispatch updates: the nodes (ox + 3 kx, oy + 3 ky).
    ox: u32,
    oy: u32,
    // `coarsest`: the factor's order (how many unknowns).
    unknowns: u32,
    // `air_diagonal`: the step h, s, and 1 where the air acts.
    h: f32,
    has_air: u32,
}

@group(0) @binding(0) var<uniform> params: LevelParams;
@group(0) @binding(1) var<storage, read_write> diag: array<f32>;
@group(0) @binding(2) var<storage, read_write> inv_diag: array<f32>;
@group(0) @binding(3) var<storage, read> start: array<u32>;
@group(0) @binding(4) var<storage, read> col: array<u32>;
@group(0) @binding(5) var<storage, read> val: array<f32>;
@group(0) @binding(6) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> b: array<vec4<f32>>;
// `residual` writes it; `coarsest` uses it as its scratch (y of L y = b, by factor row).
@group(0) @binding(8) var<storage, read_write> r: array<vec4<f32>>;
// `coarsest`: the factor (its rows left of the diagonal packed, 1 / L_pp, the level node of
// each factor row).
@group(0) @binding(9) var<storage, read> factor_l: array<f32>;
@group(0) @binding(10) var<storage, read> factor_inv: array<f32>;
@group(0) @binding(11) var<storage, read> factor_node: array<u32>;
// `air_diagonal`: level 0's diagonal as built, and the air pass's (c_air, c_drag), kg/s.
@group(0) @binding(12) var<storage, read> base_diag: array<f32>;
@group(0) @binding(13) var<storage, read> coeff: array<vec2<f32>>;

fn off_diagonal(i: u32) -> vec3<f32> {
    var sum = vec3<f32>(0.0);
    for (var e = start[i]; e < start[i + 1u]; e += 1u) {
        sum += val[e] * x[col[e]].xyz;
    }
    return sum;
}

@compute @workgroup_size(64)
fn residual(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    if diag[i] > 0.0 {
        r[i] = vec4<f32>(b[i].xyz - diag[i] * x[i].xyz - off_diagonal(i), 0.0);
    } else {
        r[i] = vec4<f32>(0.0);
    }
}

@compute @workgroup_size(64)
fn sweep(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    // The colour's nodes, row by row: ceil((nx − ox) / 3) of them in each of its rows.
    let across = (params.nx - params.ox + 2u) / 3u;
    let rows = (params.ny - params.oy + 2u) / 3u;
    if id.x >= across * rows {
        return;
    }
    let i = (params.oy + 3u * (id.x / across)) * params.nx + params.ox + 3u * (id.x % across);
    if diag[i] > 0.0 {
        x[i] = vec4<f32>((b[i].xyz - off_diagonal(i)) * inv_diag[i], 0.0);
    }
}

// One invocation: L y = b, then Lᵀ x = y, on the factor's rows; x is zero on the level's other
// nodes. The coarsest level has at most 64 nodes.
@compute @workgroup_size(1)
fn coarsest(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = params.unknowns;
    for (var i = 0u; i < params.nodes; i += 1u) {
        x[i] = vec4<f32>(0.0);
    }
    var row = 0u;
    for (var p = 0u; p < n; p += 1u) {
        var sum = b[factor_node[p]].xyz;
        for (var k = 0u; k < p; k += 1u) {
            sum -= factor_l[row + k] * r[k].xyz;
        }
        r[p] = vec4<f32>(sum * factor_inv[p], 0.0);
        row += p;
    }
    for (var q = n; q > 0u; q -= 1u) {
        let p = q - 1u;
        row -= p;
        let yp = r[p].xyz * factor_inv[p];
        r[p] = vec4<f32>(yp, 0.0);
        for (var k = 0u; k < p; k += 1u) {
            r[k] = vec4<f32>(r[k].xyz - factor_l[row + k] * yp, 0.0);
        }
    }
    for (var p = 0u; p < n; p += 1u) {
        x[factor_node[p]] = r[p];
    }
}

@compute @workgroup_size(64)
fn air_diagonal(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    let base = base_diag[i];
    if base > 0.0 {
        var d = base;
        if params.has_air != 0u {
            d += params.h * (coeff[i].x + coeff[i].y);
        }
        diag[i] = d;
        inv_diag[i] = 1.0 / d;
    } else {
        diag[i] = 0.0;
        inv_diag[i] = 0.0;
    }
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
