// The colliders on the GPU: twin of `constraints::collide` on every free node, after
// strain limiting, in place on the cloth's x and v. A penetrating node goes to the collider's
// surface (plus its margin), loses its inward normal velocity, and its tangential speed drops
// by μ times the removed normal speed, never below zero. Colliders in the scene's order.

struct Collider {
    // A sphere: its centre (xyz, m) and radius plus margin (w, m); the ground: w is its height
    // plus margin, m.
    a: vec4<f32>,
    // x: Coulomb friction μ; y: 0 for a sphere, 1 for the ground.
    b: vec4<f32>,
}

struct CollideParams {
    nodes: u32,
    count: u32,
    pad0: u32,
    pad1: u32,
    colliders: array<Collider, 16>,
}

@group(0) @binding(0) var<uniform> params: CollideParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v: array<vec4<f32>>;
// The step end's targets: w = 1 where the node is held (never moved here).
@group(0) @binding(3) var<storage, read> target_x: array<vec4<f32>>;

@compute @workgroup_size(64)
fn collide(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = flat_index(gid, groups);
    if i >= params.nodes || target_x[i].w != 0.0 {
        return;
    }
    var p = x[i].xyz;
    var u = v[i].xyz;
    for (var k = 0u; k < params.count; k++) {
        let c = params.colliders[k];
        var normal = vec3<f32>(0.0, 1.0, 0.0);
        var depth = 0.0;
        if c.b.y == 0.0 {
            let d = p - c.a.xyz;
            let dist = length(d);
            if dist >= c.a.w {
                continue;
            }
            if dist > 0.0 {
                normal = d / dist;
            }
            depth = c.a.w - dist;
        } else {
            if p.y >= c.a.w {
                continue;
            }
            depth = c.a.w - p.y;
        }
        p += depth * normal;
        let vn = dot(u, normal);
        if vn < 0.0 {
            let vt = u - vn * normal;
            let vt_len = length(vt);
            var scale = 0.0;
            if vt_len > 0.0 {
                scale = max(1.0 - c.b.x * (-vn) / vt_len, 0.0);
            }
            u = vt * scale;
        }
    }
    x[i] = vec4<f32>(p, x[i].w);
    v[i] = vec4<f32>(u, v[i].w);
}

// The invocation's place in a dispatch of any size: one of more than 65 535 workgroups is laid
// out in rows of `groups.x` workgroups (`gpu_sim::kernel::dispatch`).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
