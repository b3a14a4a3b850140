// The GPU simulation's guard (issue 27): after a step, whether the cloth blew up, as one small
// report the CPU reads back. CPU twins: `sim::cloth::Cloth::strain_maxima` and the tests of
// `sim::guard::check`.
//
// `clear_report`: one invocation, empties the report.
// `spring_strains`, one invocation a spring: r² = |x_ab|² / L² (0 where L = 0); the largest over
//   every spring and over the springs Provot limits, and the first spring beyond 10 L.
// `node_checks`, one invocation a node: the first node with a non-finite position or velocity,
//   or (with strain limiting on) a free node faster than the speed limit.
//
// Maxima of non-negative f32 are kept as their bit patterns with atomicMax: for non-negative
// floats the order of the bits is the order of the values. Non-finite values are told by their
// exponent bits, not by comparisons (WGSL lets an implementation assume floats are finite).

struct GuardParams {
    nodes: u32,
    springs: u32,
    // 1: test the speed (strain limiting is on).
    check_speed: u32,
    _pad: u32,
    // The speed limit squared, (m/s)².
    limit2: f32,
    // BLOWUP_STRETCH².
    stretch2: f32,
    _pad1: f32,
    _pad2: f32,
}

struct Report {
    // Bits of the largest r² over every spring, and over the limited ones.
    strain_all2: atomic<u32>,
    strain_limited2: atomic<u32>,
    // The first bad node and the first spring beyond the stretch, 0xFFFFFFFF: none.
    first_bad_node: atomic<u32>,
    first_stretched_spring: atomic<u32>,
}

struct Spring {
    a: u32,
    b: u32,
    rest: f32,
    k: f32,
}

@group(0) @binding(0) var<uniform> params: GuardParams;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> springs: array<Spring>;
// Per spring: 1 / L² (0 where L = 0), and 1 where Provot limits it, else 0.
@group(0) @binding(4) var<storage, read> strain_data: array<vec2<f32>>;
// Per node: 1 where it is held (kinematic).
@group(0) @binding(5) var<storage, read> kinematic: array<u32>;
@group(0) @binding(6) var<storage, read_write> report: Report;

const NONE: u32 = 0xFFFFFFFFu;

fn finite(value: vec3<f32>) -> bool {
    let bits = bitcast<vec3<u32>>(value) & vec3<u32>(0x7F800000u);
    return all(bits != vec3<u32>(0x7F800000u));
}

@compute @workgroup_size(1)
fn clear_report() {
    atomicStore(&report.strain_all2, 0u);
    atomicStore(&report.strain_limited2, 0u);
    atomicStore(&report.first_bad_node, NONE);
    atomicStore(&report.first_stretched_spring, NONE);
}

@compute @workgroup_size(64)
fn spring_strains(
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
    let data = strain_data[s];
    let r2 = dot(x_ab, x_ab) * data.x;
    // A non-finite strain (a non-finite position) is the node check's to report; the CPU's
    // maximum skips it too.
    if (bitcast<u32>(r2) & 0x7F800000u) == 0x7F800000u {
        return;
    }
    atomicMax(&report.strain_all2, bitcast<u32>(r2));
    atomicMax(&report.strain_limited2, bitcast<u32>(r2 * data.y));
    if data.x > 0.0 && r2 > params.stretch2 {
        atomicMin(&report.first_stretched_spring, s);
    }
}

@compute @workgroup_size(64)
fn node_checks(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    let p = x[i].xyz;
    let u = v[i].xyz;
    var bad = !finite(p) || !finite(u);
    if !bad && params.check_speed == 1u && kinematic[i] == 0u {
        bad = dot(u, u) > params.limit2;
    }
    if bad {
        atomicMin(&report.first_bad_node, i);
    }
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
