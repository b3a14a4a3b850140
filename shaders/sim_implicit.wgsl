// implicit-mg's assembly and solve on the GPU, in f32: backward Euler with every spring's true
// 3 × 3 block, by flexible CG preconditioned with coloured block Gauss–Seidel sweeps and the
// multigrid's two-grid correction. CPU twins: `sim::solvers::jacobian` (`SpringBlock`,
// `right_hand_side`), `implicit_mg::diagonal_block`, and `sim::solvers::coloured`
// (`ColouredSystem`: `product`, `residual`, `sweep_colour`, `solve`).
//
//   spring_blocks  per spring: x̂ and h² K_s = iso I + along P, S_s = iso I + (along + h c) P
//   diagonal       per free node: (m + h (c_air + c_drag)) I + Σ S_s, inverted
//   rhs_springs    b_i += Σ h² K_s (v_j − v_i) + Σ_{j held} S_s Δv_j  (after the node terms)
//   product        dst = A src;  residual  dst = aux − A src  (held neighbours count as zero)
//   sweep          one colour (ox + 3 kx, oy + 3 ky): z_i = D_i⁻¹ (r_i + Σ S_s z_j), z = 0 held
//   add_correction dst += src on the free nodes;  direction  dst = src + β dst
//   update         y += α p, r −= α q
//   partial_dots   per workgroup two dot products; the finish_* kernels sum them in one
//                  workgroup and set the solve's scalars (`Solve`), so nothing is read back.
//
// Held nodes are not unknowns: their rows are zero, their diagonal entry says so (w = 0).
// Once the residual is small enough (or a direction has no curvature) `solve.going` is 0 and
// the iterations' kernels leave every vector as it is.

struct Spring {
    a: u32,
    b: u32,
    rest: f32,
    k: f32,
}

struct ImplicitParams {
    nodes: u32,
    springs: u32,
    nx: u32,
    ny: u32,
    // The colour a `sweep` dispatch updates.
    ox: u32,
    oy: u32,
    // 1: the air pass's coefficients act in the diagonal.
    has_air: u32,
    // How many workgroup sums `partial_dots` writes.
    partials: u32,
    // The step h, s, and the spring damping c, N·s/m.
    h: f32,
    damping: f32,
    // (h |g| |m|)², the smallest scale² of the residual (|m| over the free nodes).
    weight2: f32,
    // The relative tolerance², the stopping rule's.
    tolerance2: f32,
}

struct Solve {
    alpha: f32,
    beta: f32,
    // p · q of the last direction.
    pq: f32,
    // |r|² now.
    rr: f32,
    // |r|² at which the iterations stop.
    limit: f32,
    // 1 while the iterations go on.
    going: u32,
    iterations: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: ImplicitParams;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> springs: array<Spring>;
// Two a spring: (x̂, iso), (along, along + h c, 0, 0).
@group(0) @binding(3) var<storage, read_write> blocks: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> link_start: array<u32>;
@group(0) @binding(5) var<storage, read> links: array<vec2<u32>>;
// Two a node: the inverse diagonal block's (xx, yy, zz, xy), (xz, yz, m + h c, 1 where free).
@group(0) @binding(6) var<storage, read_write> diag: array<vec4<f32>>;
// The right-hand side's node buffer: a held node's known Δv (xyz) and the mass, kg (w; −1
// where held).
@group(0) @binding(7) var<storage, read> node: array<vec4<f32>>;
// Per node: (c_air, c_drag), kg/s.
@group(0) @binding(8) var<storage, read> coeff: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> b: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read> aux: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read_write> dst2: array<vec4<f32>>;
@group(0) @binding(15) var<storage, read_write> solve: Solve;
@group(0) @binding(16) var<storage, read_write> partials: array<vec2<f32>>;
@group(0) @binding(17) var<storage, read> src2: array<vec4<f32>>;
@group(0) @binding(18) var<storage, read> aux2: array<vec4<f32>>;

var<workgroup> sums: array<vec2<f32>, 64>;

// S_s u.
fn times(s: u32, u: vec3<f32>) -> vec3<f32> {
    let d = blocks[2u * s];
    return d.w * u + (blocks[2u * s + 1u].y * dot(d.xyz, u)) * d.xyz;
}

// h² K_s u.
fn stiffness_times(s: u32, u: vec3<f32>) -> vec3<f32> {
    let d = blocks[2u * s];
    return d.w * u + (blocks[2u * s + 1u].x * dot(d.xyz, u)) * d.xyz;
}

fn free(i: u32) -> bool {
    return diag[2u * i + 1u].w != 0.0;
}

// D_i⁻¹ u.
fn diag_inv_times(i: u32, u: vec3<f32>) -> vec3<f32> {
    let a = diag[2u * i];
    let c = diag[2u * i + 1u];
    return vec3<f32>(
        a.x * u.x + a.w * u.y + c.x * u.z,
        a.w * u.x + a.y * u.y + c.y * u.z,
        c.x * u.x + c.y * u.y + a.z * u.z,
    );
}

// (A u)_i for a free node.
fn row(i: u32) -> vec3<f32> {
    let ui = src[i].xyz;
    var sum = vec3<f32>(0.0);
    for (var l = link_start[i]; l < link_start[i + 1u]; l += 1u) {
        let j = links[l].x;
        var uj = vec3<f32>(0.0);
        if free(j) {
            uj = src[j].xyz;
        }
        sum += times(links[l].y, ui - uj);
    }
    return diag[2u * i + 1u].z * ui + sum;
}

@compute @workgroup_size(64)
fn spring_blocks(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let s = flat_index(gid, groups);
    if s >= params.springs {
        return;
    }
    let sp = springs[s];
    let d = x[sp.b].xyz - x[sp.a].xyz;
    let len2 = dot(d, d);
    let h2k = params.h * params.h * sp.k;
    if len2 <= 0.0 {
        blocks[2u * s] = vec4<f32>(0.0, 0.0, 0.0, h2k);
        blocks[2u * s + 1u] = vec4<f32>(0.0);
        return;
    }
    let inv = 1.0 / sqrt(len2);
    let stretch = 1.0 - sp.rest * inv;
    var iso = 0.0;
    if stretch > 0.0 {
        iso = h2k * stretch;
    }
    let along = h2k - iso;
    blocks[2u * s] = vec4<f32>(d * inv, iso);
    blocks[2u * s + 1u] = vec4<f32>(along, along + params.h * params.damping, 0.0, 0.0);
}

@compute @workgroup_size(64)
fn diagonal(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes {
        return;
    }
    if node[i].w < 0.0 {
        diag[2u * i] = vec4<f32>(0.0);
        diag[2u * i + 1u] = vec4<f32>(0.0);
        return;
    }
    var m = node[i].w;
    if params.has_air != 0u {
        m += params.h * (coeff[i].x + coeff[i].y);
    }
    // The block's distinct entries, summed as `implicit_mg::diagonal_block` sums them.
    var iso = m;
    var outer = vec3<f32>(0.0);
    var cross = vec3<f32>(0.0);
    for (var l = link_start[i]; l < link_start[i + 1u]; l += 1u) {
        let s = links[l].y;
        let d = blocks[2u * s];
        let u = d.xyz * blocks[2u * s + 1u].y;
        iso += d.w;
        outer += u * d.xyz;
        cross += vec3<f32>(u.x * d.y, u.x * d.z, u.y * d.z);
    }
    let a00 = iso + outer.x;
    let a11 = iso + outer.y;
    let a22 = iso + outer.z;
    let a01 = cross.x;
    let a02 = cross.y;
    let a12 = cross.z;
    // The symmetric inverse by cofactors (the block is symmetric positive definite).
    let c00 = a11 * a22 - a12 * a12;
    let c01 = a02 * a12 - a01 * a22;
    let c02 = a01 * a12 - a02 * a11;
    let c11 = a00 * a22 - a02 * a02;
    let c12 = a01 * a02 - a00 * a12;
    let c22 = a00 * a11 - a01 * a01;
    let inv_det = 1.0 / (a00 * c00 + a01 * c01 + a02 * c02);
    diag[2u * i] = vec4<f32>(c00, c11, c22, c01) * inv_det;
    diag[2u * i + 1u] = vec4<f32>(c02 * inv_det, c12 * inv_det, m, 1.0);
}

@compute @workgroup_size(64)
fn rhs_springs(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes || node[i].w < 0.0 {
        return;
    }
    var sum = b[i].xyz;
    let vi = v[i].xyz;
    for (var l = link_start[i]; l < link_start[i + 1u]; l += 1u) {
        let j = links[l].x;
        let s = links[l].y;
        sum += stiffness_times(s, v[j].xyz - vi);
        if node[j].w < 0.0 {
            sum += times(s, node[j].xyz);
        }
    }
    b[i] = vec4<f32>(sum, 0.0);
}

@compute @workgroup_size(64)
fn product(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes || solve.going == 0u {
        return;
    }
    if free(i) {
        dst[i] = vec4<f32>(row(i), 0.0);
    } else {
        dst[i] = vec4<f32>(0.0);
    }
}

@compute @workgroup_size(64)
fn residual(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes {
        return;
    }
    if free(i) {
        dst[i] = vec4<f32>(aux[i].xyz - row(i), 0.0);
    } else {
        dst[i] = vec4<f32>(0.0);
    }
}

@compute @workgroup_size(64)
fn sweep(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = flat_index(gid, groups);
    // The colour's nodes, row by row: ceil((nx − ox) / 3) of them in each of its rows.
    let across = (params.nx - params.ox + 2u) / 3u;
    let rows = (params.ny - params.oy + 2u) / 3u;
    if k >= across * rows || solve.going == 0u {
        return;
    }
    let i = (params.oy + 3u * (k / across)) * params.nx + params.ox + 3u * (k % across);
    if !free(i) {
        return;
    }
    // A held neighbour's z is zero (cleared, never updated), so every link is summed.
    var sum = src[i].xyz;
    for (var l = link_start[i]; l < link_start[i + 1u]; l += 1u) {
        sum += times(links[l].y, dst[links[l].x].xyz);
    }
    dst[i] = vec4<f32>(diag_inv_times(i, sum), 0.0);
}

@compute @workgroup_size(64)
fn add_correction(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes || solve.going == 0u || !free(i) {
        return;
    }
    dst[i] = vec4<f32>(dst[i].xyz + src[i].xyz, 0.0);
}

@compute @workgroup_size(64)
fn direction(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes || solve.going == 0u {
        return;
    }
    dst[i] = vec4<f32>(src[i].xyz + solve.beta * dst[i].xyz, 0.0);
}

// y (dst) += α p (src), r (dst2) −= α q (aux).
@compute @workgroup_size(64)
fn update(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes || solve.going == 0u {
        return;
    }
    let alpha = solve.alpha;
    dst[i] = vec4<f32>(dst[i].xyz + alpha * src[i].xyz, 0.0);
    dst2[i] = vec4<f32>(dst2[i].xyz - alpha * aux[i].xyz, 0.0);
}

// Per workgroup: (src · aux, src2 · aux2) over its nodes.
@compute @workgroup_size(64)
fn partial_dots(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    var value = vec2<f32>(0.0);
    if i < params.nodes {
        value = vec2<f32>(dot(src[i].xyz, aux[i].xyz), dot(src2[i].xyz, aux2[i].xyz));
    }
    sums[t] = value;
    reduce(t);
    let w = wid.x + wid.y * groups.x;
    if t == 0u && w < params.partials {
        partials[w] = sums[0];
    }
}

// The workgroup's `sums` added into `sums[0]`.
fn reduce(t: u32) {
    for (var half = 32u; half > 0u; half /= 2u) {
        workgroupBarrier();
        if t < half {
            sums[t] += sums[t + half];
        }
    }
    workgroupBarrier();
}

// The partial sums added up (one workgroup).
fn total(t: u32) -> vec2<f32> {
    var sum = vec2<f32>(0.0);
    for (var w = t; w < params.partials; w += 64u) {
        sum += partials[w];
    }
    sums[t] = sum;
    reduce(t);
    return sums[0];
}

// After (b · b, r · r) of the warm start: the scale and the stopping limit; the iterations
// begin (at least one is taken).
@compute @workgroup_size(64)
fn finish_start(@builtin(local_invocation_index) t: u32) {
    let bb_rr = total(t);
    if t == 0u {
        let scale2 = max(max(params.weight2, bb_rr.x), 1e-30);
        solve.limit = params.tolerance2 * scale2;
        solve.rr = bb_rr.y;
        solve.going = 1u;
        solve.iterations = 0u;
        solve.pq = 0.0;
        solve.alpha = 0.0;
        solve.beta = 0.0;
    }
}

// After (z · q): β = −z·q / p·q against the last direction (none before the first).
@compute @workgroup_size(64)
fn finish_beta(@builtin(local_invocation_index) t: u32) {
    let zq = total(t).x;
    if t == 0u && solve.going != 0u {
        var beta = 0.0;
        if solve.iterations > 0u && solve.pq > 0.0 {
            beta = -zq / solve.pq;
        }
        solve.beta = beta;
    }
}

// After (p · q, p · r): α = p·r / p·q; a direction of no curvature (or NaN) ends the solve.
@compute @workgroup_size(64)
fn finish_alpha(@builtin(local_invocation_index) t: u32) {
    let pq_pr = total(t);
    if t == 0u && solve.going != 0u {
        let pq = pq_pr.x;
        solve.pq = pq;
        if pq > 0.0 {
            solve.alpha = pq_pr.y / pq;
        } else {
            solve.alpha = 0.0;
            solve.going = 0u;
        }
    }
}

// After (r · r): one iteration more; the solve ends at the limit.
@compute @workgroup_size(64)
fn finish_check(@builtin(local_invocation_index) t: u32) {
    let rr = total(t).x;
    if t == 0u && solve.going != 0u {
        solve.iterations += 1u;
        solve.rr = rr;
        if rr <= solve.limit {
            solve.going = 0u;
        }
    }
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
