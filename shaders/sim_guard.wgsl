// The GPU simulation's guard: after a step, whether the cloth blew up, as one small
// report the CPU reads back. CPU twins: `sim::model::cloth::Cloth::strain_maxima` and the tests of
// `sim::runtime::guard::check`.
//
// `clear_report`: one invocation, empties the step's part of the report.
// `spring_strains`, one invocation a spring: r² = |x_ab|² / L² (0 where L = 0); the largest over
//   every spring and over the springs Provot limits, and the first spring beyond 10 L.
// `node_checks`, one invocation a node: the first node with a non-finite position or velocity,
//   or (with strain limiting on) a free node faster than the speed limit.
// `judge`, one invocation, inside the step (after each published step): the first step that
//   blew up trips the guard for good (until the step is built again), with what blew up; every
//   call counts a step.
// `commit`, one invocation a node, after `judge`: while the guard has not tripped, the state is
//   kept as the last good one; once it has, the last good state is put back. So between two
//   submitted steps the node buffer the renderer reads always holds a state that passed: a
//   blow-up never reaches the screen (the CPU twin: `Simulation::step` restoring the state
//   from before a step that failed `sim::runtime::guard::check`).
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
    // Published steps judged since the step was built.
    steps: u32,
    // The step (counted as `steps`) that tripped the guard, NONE: none yet.
    tripped_at: u32,
    // What tripped it: the first bad node and the first stretched spring of that step.
    trip_node: u32,
    trip_spring: u32,
    // The bad node's speed, m/s (NONE's bits where its position or velocity is not finite),
    // or else the stretched spring's |x_ab| / L.
    trip_value: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Spring {
    a: u32,
    b: u32,
    rest: f32,
    k: f32,
}

@group(0) @binding(0) var<uniform> params: GuardParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> springs: array<Spring>;
// Per spring: 1 / L² (0 where L = 0), and 1 where Provot limits it, else 0.
@group(0) @binding(4) var<storage, read> strain_data: array<vec2<f32>>;
// Per node: 1 where it is held (kinematic).
@group(0) @binding(5) var<storage, read> kinematic: array<u32>;
@group(0) @binding(6) var<storage, read_write> report: Report;
// The last state that passed (positions, velocities), `commit`'s.
@group(0) @binding(7) var<storage, read_write> good_x: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> good_v: array<vec4<f32>>;

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

@compute @workgroup_size(1)
fn judge() {
    let node = atomicLoad(&report.first_bad_node);
    let spring = atomicLoad(&report.first_stretched_spring);
    if report.tripped_at == NONE && (node != NONE || spring != NONE) {
        report.tripped_at = report.steps;
        report.trip_node = node;
        report.trip_spring = spring;
        if node != NONE {
            let u = v[node].xyz;
            if finite(x[node].xyz) && finite(u) {
                report.trip_value = bitcast<u32>(length(u));
            } else {
                report.trip_value = NONE;
            }
        } else {
            let sp = springs[spring];
            let x_ab = x[sp.b].xyz - x[sp.a].xyz;
            report.trip_value = bitcast<u32>(sqrt(dot(x_ab, x_ab) * strain_data[spring].x));
        }
    }
    report.steps += 1u;
}

@compute @workgroup_size(64)
fn commit(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes {
        return;
    }
    if report.tripped_at == NONE {
        good_x[i] = x[i];
        good_v[i] = v[i];
    } else {
        x[i] = good_x[i];
        v[i] = good_v[i];
    }
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
