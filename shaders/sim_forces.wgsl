// The GPU simulation's spring forces: the CPU twin is `sim::model::forces::spring_forces`,
// its parallel path (a term per spring, then a gather per node over the node's links in spring
// order), in f32.
//
// `spring_terms`, one invocation a spring s from a to b, x_ab = x_b − x_a:
//   f_s = k (1 − L / |x_ab|) x_ab                       (Hooke; 0 length: k x_ab)
//       + c ((v_b − v_a) · x̂) x̂                         (spring damping, when c > 0)
//       + h k (v_b − v_a)                                (eq. 4's viscosity, when h ≥ 0)
// the force on a; b gets −f_s.
// `gather_forces`, one invocation a node i: F_i = Σ over its links (sign) f_s, sign +1 where i
// is the spring's a, −1 where it is its b.

struct Spring {
    a: u32,
    b: u32,
    // Rest length L, m.
    rest: f32,
    // Stiffness k, N/m.
    k: f32,
}

struct ForceParams {
    nodes: u32,
    springs: u32,
    // Spring damping c, N·s/m (0: none).
    damping: f32,
    // The step h, s, when the viscosity term is added; negative: not added.
    viscosity_h: f32,
}

@group(0) @binding(0) var<uniform> params: ForceParams;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> springs: array<Spring>;
@group(0) @binding(4) var<storage, read> link_start: array<u32>;
// Per link: (the neighbour, the spring).
@group(0) @binding(5) var<storage, read> links: array<vec2<u32>>;
@group(0) @binding(6) var<storage, read_write> spring_f: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> force: array<vec4<f32>>;

@compute @workgroup_size(64)
fn spring_terms(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let s = id.x;
    if s >= params.springs {
        return;
    }
    let sp = springs[s];
    let x_ab = x[sp.b].xyz - x[sp.a].xyz;
    let v_ab = v[sp.b].xyz - v[sp.a].xyz;
    let len2 = dot(x_ab, x_ab);
    var inv_len = 0.0;
    if len2 > 0.0 {
        inv_len = 1.0 / sqrt(len2);
    }
    var f = (sp.k * (1.0 - sp.rest * inv_len)) * x_ab;
    if params.damping > 0.0 {
        let dir = x_ab * inv_len;
        f += params.damping * dot(v_ab, dir) * dir;
    }
    if params.viscosity_h >= 0.0 {
        f += (params.viscosity_h * sp.k) * v_ab;
    }
    spring_f[s] = vec4<f32>(f, 0.0);
}

@compute @workgroup_size(64)
fn gather_forces(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    var sum = vec3<f32>(0.0);
    for (var l = link_start[i]; l < link_start[i + 1u]; l += 1u) {
        let s = links[l].y;
        let f = spring_f[s].xyz;
        if springs[s].a == i {
            sum += f;
        } else {
            sum -= f;
        }
    }
    force[i] = vec4<f32>(sum, 0.0);
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
