// The end of a step on the GPU: the CPU twin is
// `sim::solvers::integrators::symplectic_next`, in f32, one invocation a node, in place:
//   held:  x' = target,       v' = (target − x) / h
//   free:  v' = v + Δv,       x' = x + h v'            (eq. 1)

struct StepEndParams {
    nodes: u32,
    // The step h, s.
    h: f32,
    pad: vec2<f32>,
}

@group(0) @binding(0) var<uniform> params: StepEndParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> dv: array<vec4<f32>>;
// Per node: where a held node must be at the end of the step (xyz, m), and w = 1 where the node
// is held, 0 where it is free.
@group(0) @binding(4) var<storage, read> target_x: array<vec4<f32>>;

@compute @workgroup_size(64)
fn step_end(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let i = id.x;
    if i >= params.nodes {
        return;
    }
    let x0 = x[i].xyz;
    let t = target_x[i];
    if t.w != 0.0 {
        x[i] = vec4<f32>(t.xyz, 0.0);
        v[i] = vec4<f32>((t.xyz - x0) / params.h, 0.0);
    } else {
        let v1 = v[i].xyz + dv[i].xyz;
        v[i] = vec4<f32>(v1, 0.0);
        x[i] = vec4<f32>(x0 + params.h * v1, 0.0);
    }
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
