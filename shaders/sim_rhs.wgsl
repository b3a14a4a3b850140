// kang-mg's right-hand side on the GPU: the CPU twin is
// `sim::solvers::integrators::kang_mg::right_hand_side`, in f32.
//
//   b_i = 0                                              on a held node,
//   b_i = h (F_i + m_i g + F_air,i − c_drag,i v_rel,i)   on a free one (`node_terms`),
//   b_i += h² Σ_{j held} k_ij Δv_j                       over its links in spring order
//                                                        (`held_terms`, after `node_terms`),
// where F is the spring-force pass's node force (with eq. 4's viscosity) and F_air, v_rel and
// c_drag come from the air pass (without air: gravity only). Two kernels because together they
// read nine storage buffers, and a stage may bind eight.

struct Spring {
    a: u32,
    b: u32,
    rest: f32,
    k: f32,
}

struct RhsParams {
    nodes: u32,
    // 1: the air pass's forces act; 0: gravity only.
    has_air: u32,
    // The step h, s.
    h: f32,
    pad: f32,
    // Gravity, m/s² (w unused).
    gravity: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: RhsParams;
// Per node: the known Δv of a held node (xyz, m/s) and in w the node's mass, kg, or −1 where
// the node is held.
@group(0) @binding(1) var<storage, read> node: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> b: array<vec4<f32>>;
// `node_terms` only.
@group(0) @binding(3) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> air: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> v_rel: array<vec4<f32>>;
// Per node: (air_c, drag_c), kg/s.
@group(0) @binding(6) var<storage, read> coeff: array<vec2<f32>>;
// `held_terms` only.
@group(0) @binding(7) var<storage, read> springs: array<Spring>;
@group(0) @binding(8) var<storage, read> link_start: array<u32>;
@group(0) @binding(9) var<storage, read> links: array<vec2<u32>>;

fn held(i: u32) -> bool {
    return node[i].w < 0.0;
}

@compute @workgroup_size(64)
fn node_terms(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    if held(i) {
        b[i] = vec4<f32>(0.0);
        return;
    }
    let m = node[i].w;
    var f = m * params.gravity.xyz;
    if params.has_air != 0u {
        f += air[i].xyz - coeff[i].y * v_rel[i].xyz;
    }
    b[i] = vec4<f32>(params.h * (force[i].xyz + f), 0.0);
}

@compute @workgroup_size(64)
fn held_terms(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes || held(i) {
        return;
    }
    let h2 = params.h * params.h;
    var sum = b[i].xyz;
    for (var l = link_start[i]; l < link_start[i + 1u]; l += 1u) {
        let j = links[l].x;
        if held(j) {
            sum += (h2 * springs[links[l].y].k) * node[j].xyz;
        }
    }
    b[i] = vec4<f32>(sum, 0.0);
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
