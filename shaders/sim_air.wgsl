// The GPU simulation's air: the key mesh's normals and each node's air forces in the
// seeded wind field. CPU twins: `sim::model::cloth::Cloth::node_normals` and
// `sim::model::forces::external_forces` (`WindField::velocity`, `air_force`), in f32.
//
// `triangle_normals`, one invocation a triangle (a, b, c): (x_b − x_a) × (x_c − x_a).
// `node_normals`, one a node: the sum over the node's triangles, normalised (zero stays zero).
// `air_forces`, one a node: v_rel = v − wind(x, t), then
//   lift  (paper)  K_L cosθ |v_rel|² ((Ñ × v̂) × v̂),  Ñ = ±N̂ facing v̂
//         (smooth) −K_L |v_rel|² (N̂·v̂) (N̂ − (N̂·v̂) v̂)
//   drag  c = K_D |N̂·v̂| |v_rel|  (semi-implicit: a coefficient; explicit: −c v_rel in the force)
//   linear wind −k_w v_rel
// and, semi-implicit, air_c = |F_air| / |v_rel|.
//
// The wind's gust noise is value noise on an integer lattice hashed with splitmix64, as the CPU
// does it in u64: here in pairs of u32 (lo, hi). The time's part of each octave's argument is
// split on the CPU into an integer lattice index and a fraction, so the f32 arithmetic here
// only ever sees the small part that varies over the cloth, however long the run.

struct AirParams {
    nodes: u32,
    triangles: u32,
    // 1: semi-implicit drag (drag as a coefficient), 0: explicit.
    semi_implicit: u32,
    // 0: the paper's lift, 1: the smooth one.
    lift_model: u32,
    // 1 when the wind has gusts (strength > 0 and speed > 0); 0: the base velocity everywhere.
    gusty: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // The wind's base velocity and frame (xyz).
    base: vec4<f32>,
    dir: vec4<f32>,
    side: vec4<f32>,
    up: vec4<f32>,
    // speed, strength, 1 / period, 1 / max(speed, 1)
    wind: vec4<f32>,
    // drag K_D, lift K_L, linear k_w (already scaled per node), unused
    air: vec4<f32>,
    // Per octave: its argument's time part, fraction ...
    octave_frac: vec4<f32>,
    // ... and lattice index (two's complement i64 as lo, hi)
    octave_k_lo: vec4<u32>,
    octave_k_hi: vec4<u32>,
    // Per octave: its scale on τ, and its seed (lo, hi).
    octave_scale: vec4<f32>,
    seed_lo: vec4<u32>,
    seed_hi: vec4<u32>,
}

@group(0) @binding(0) var<uniform> params: AirParams;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
// Three node indices a triangle.
@group(0) @binding(3) var<storage, read> triangles: array<u32>;
@group(0) @binding(4) var<storage, read> tri_start: array<u32>;
@group(0) @binding(5) var<storage, read> tri_of_node: array<u32>;
@group(0) @binding(6) var<storage, read_write> tri_normals: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> normals: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> v_rel: array<vec4<f32>>;
// The air force other than the semi-implicit drag, N.
@group(0) @binding(9) var<storage, read_write> air: array<vec4<f32>>;
// (air_c, drag_c), kg/s.
@group(0) @binding(10) var<storage, read_write> coeff: array<vec2<f32>>;

@compute @workgroup_size(64)
fn triangle_normals(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let t = id.x;
    if t >= params.triangles {
        return;
    }
    let a = x[triangles[3u * t]].xyz;
    let b = x[triangles[3u * t + 1u]].xyz;
    let c = x[triangles[3u * t + 2u]].xyz;
    tri_normals[t] = vec4<f32>(cross(b - a, c - a), 0.0);
}

@compute @workgroup_size(64)
fn node_normals(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    var sum = vec3<f32>(0.0);
    for (var k = tri_start[i]; k < tri_start[i + 1u]; k += 1u) {
        sum += tri_normals[tri_of_node[k]].xyz;
    }
    let len = length(sum);
    var n = vec3<f32>(0.0);
    if len > 0.0 {
        n = sum / len;
    }
    normals[i] = vec4<f32>(n, 0.0);
}

// ---- u64 arithmetic in (lo, hi) pairs, for splitmix64 ----

// The full 64-bit product of two u32.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xFFFFu;
    let a1 = a >> 16u;
    let b0 = b & 0xFFFFu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);
    let lo = (p00 & 0xFFFFu) | (mid << 16u);
    let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(lo, hi);
}

// a · b mod 2⁶⁴.
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = mul_wide(a.x, b.x);
    return vec2<u32>(low.x, low.y + a.x * b.y + a.y * b.x);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// z >> n for 0 < n < 32.
fn shr64(z: vec2<u32>, n: u32) -> vec2<u32> {
    return vec2<u32>((z.x >> n) | (z.y << (32u - n)), z.y >> n);
}

// `hash_to_unit(seed, k)`: splitmix64 of (seed, k), its top 53 bits as a value in [−1, 1).
fn hash_to_unit(seed: vec2<u32>, k: vec2<u32>) -> f32 {
    var z = seed ^ mul64(k, vec2<u32>(0x7F4A7C15u, 0x9E3779B9u));
    z = mul64(z ^ shr64(z, 30u), vec2<u32>(0x1CE4E5B9u, 0xBF58476Du));
    z = mul64(z ^ shr64(z, 27u), vec2<u32>(0x133111EBu, 0x94D049BBu));
    z = z ^ shr64(z, 31u);
    // (z >> 11) / 2⁵³ = hi / 2³² + (lo >> 11) / 2⁵³
    let unit = f32(z.y) * 2.3283064e-10 + f32(z.x >> 11u) * 1.110223e-16;
    return unit * 2.0 - 1.0;
}

// Octave o's value noise where the part of its argument that varies over the cloth is `rel`.
fn octave(o: u32, rel: f32) -> f32 {
    let arg = params.octave_frac[o] + params.octave_scale[o] * rel;
    let whole = floor(arg);
    let f = arg - whole;
    let s = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    let d = i32(whole);
    let k = add64(
        vec2<u32>(params.octave_k_lo[o], params.octave_k_hi[o]),
        vec2<u32>(u32(d), select(0u, 0xFFFFFFFFu, d < 0)),
    );
    let seed = vec2<u32>(params.seed_lo[o], params.seed_hi[o]);
    let a = hash_to_unit(seed, k);
    let b = hash_to_unit(seed, add64(k, vec2<u32>(1u, 0u)));
    return a + (b - a) * s;
}

// `WindField::velocity` at x.
fn wind_at(p: vec3<f32>) -> vec3<f32> {
    if params.gusty == 0u {
        return params.base.xyz;
    }
    let dir = params.dir.xyz;
    let side = params.side.xyz;
    let travel = dot(p, dir) * params.wind.w;
    // τ less its time part (which the octaves' fractions and indices carry).
    let rel = -travel * params.wind.z + 0.2 * dot(p, side);
    let g1 = (octave(0u, rel) + 0.5 * octave(1u, rel)) / 1.5;
    let g2 = octave(2u, rel);
    let g3 = octave(3u, rel);
    let s = params.wind.y;
    return params.wind.x * ((1.0 + s * g1) * dir + 0.3 * s * g2 * side + 0.15 * s * g3 * params.up.xyz);
}

@compute @workgroup_size(64)
fn air_forces(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    let vr = v[i].xyz - wind_at(x[i].xyz);
    v_rel[i] = vec4<f32>(vr, 0.0);
    let normal = normals[i].xyz;
    let speed = length(vr);
    if speed == 0.0 || all(normal == vec3<f32>(0.0)) {
        air[i] = vec4<f32>(0.0);
        coeff[i] = vec2<f32>(0.0);
        return;
    }
    let v_hat = vr / speed;
    let n_dot_v = dot(normal, v_hat);
    var lift: vec3<f32>;
    if params.lift_model == 0u {
        var n_tilde = -normal;
        if n_dot_v > 0.0 {
            n_tilde = normal;
        }
        let u = cross(cross(n_tilde, v_hat), v_hat);
        let cos_theta = sqrt(max(1.0 - n_dot_v * n_dot_v, 0.0));
        lift = params.air.y * cos_theta * speed * speed * u;
    } else {
        lift = -params.air.y * speed * speed * n_dot_v * (normal - n_dot_v * v_hat);
    }
    let c = params.air.x * abs(n_dot_v) * speed;
    let linear = -params.air.z * vr;
    var force = lift + linear;
    var drag_c = c;
    var air_c = 0.0;
    if params.semi_implicit == 1u {
        air_c = length(force) / speed;
    } else {
        force -= c * vr;
        drag_c = 0.0;
    }
    air[i] = vec4<f32>(force, 0.0);
    coeff[i] = vec2<f32>(air_c, drag_c);
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
