// The held nodes' per-step values on the GPU: the CPU places the kinematic nodes
// (`Simulation::begin_device_step`) and hands over only theirs, a short list; this kernel puts
// each where the right-hand side and the step's end read it. Its CPU twin is the CPU's own
// writing of the same values (`RhsPass::set_nodes`, `StepEndPass::set_targets`).

struct HeldParams {
    count: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> params: HeldParams;
// Per held node: its index, its known Δv (xyz, m/s) and its target (xyz, m).
@group(0) @binding(1) var<storage, read> held_index: array<u32>;
@group(0) @binding(2) var<storage, read> held_dv: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> held_target: array<vec4<f32>>;
// The right-hand side's node buffer (xyz: known Δv, w: mass or −1 where held) and the step
// end's targets (xyz: target, w: 1 where held).
@group(0) @binding(4) var<storage, read_write> node: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> target_x: array<vec4<f32>>;

@compute @workgroup_size(64)
fn scatter_held(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let id = vec3<u32>(flat_index(gid, groups), 0u, 0u);
    let k = id.x;
    if k >= params.count {
        return;
    }
    let i = held_index[k];
    // The w of both (held: −1 and 1) was written with the held set, at the step's creation.
    node[i] = vec4<f32>(held_dv[k].xyz, node[i].w);
    target_x[i] = vec4<f32>(held_target[k].xyz, target_x[i].w);
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
