// Wrinkled cubic spline upsampling (Kang et al. 2001 §3, eq. 14; docs/method.md §7) on the GPU.
//
// Three kernels, dispatched in this order, each one invocation per output node:
//   frame_nodes_pass         pass 1: spline along each key row, sampled at every render column u_r
//   column_frame_nodes_pass  pass 1 of the symmetric option: along each key column, at every v_s
//   internal_nodes_pass      pass 2: spline along each render column through its frame nodes
//                            (symmetric: averaged with the row-wise column-first result);
//                            the bilinear key mesh in key-only mode
//   normals_pass             pass 3: central differences of the final grid
//
// The CPU twin is src/upsample/ (same function names, same f32 operation order); tests compare
// the two. Positions in metres. Storage buffers hold vec4<f32> with w unused (1 for positions,
// 0 for normals), row-major: render node (r, s) at s * R_u + r, key node (i, j) at j * nx + i,
// each counted from the cloth's own base.
//
// One dispatch of a kernel upsamples every cloth of a batch (the flags of a scene): workgroup
// z is the cloth, whose uniforms (sizes, settings and where its nodes start in each buffer) are
// batch[z]; x and y cover the largest cloth, and the invocations past a smaller one's nodes
// return at once.

// Keep in sync with `UpsampleUniforms` in src/render/passes/upsample_pass.rs (size asserted by
// tests/shaders.rs).
struct UpsampleUniforms {
    // [nx, ny] key nodes
    key_count: vec2<u32>,
    // [R_u, R_v] render nodes
    resolution: vec2<u32>,
    // [l0_u, l0_v] rest spacing of the key grid, metres
    rest_length: vec2<f32>,
    // eq. 14 frequency constant c, radians per unit relative compression
    wrinkle_c: f32,
    // MODE_KEY_ONLY, MODE_SMOOTH or MODE_WRINKLED
    mode: u32,
    // 1: average row-first and column-first results
    symmetric: u32,
    // 1: round f to a multiple of pi
    c1_seam: u32,
    // where this cloth's nodes start in key_positions, row_frame_nodes, column_frame_nodes
    // and the two outputs
    key_base: u32,
    row_frame_base: u32,
    column_frame_base: u32,
    render_base: u32,
    _padding: vec2<u32>,
}

// Keep in sync with the MODE_* constants in src/render/passes/upsample_pass.rs.
const MODE_KEY_ONLY: u32 = 0u;
const MODE_SMOOTH: u32 = 1u;
const MODE_WRINKLED: u32 = 2u;

// Keep in sync with WORKGROUP_SIZE in src/render/passes/upsample_pass.rs (checked by
// tests/shaders.rs).
const WORKGROUP_SIZE_X: u32 = 8u;
const WORKGROUP_SIZE_Y: u32 = 8u;

const PI: f32 = 3.14159265358979323846;
// Keep in sync with src/upsample/surface.rs DEGENERATE_SIN_SQ.
const DEGENERATE_SIN_SQ: f32 = 1e-10;
// f32's largest, exactly: a decimal literal rounds past it, which the browser's compiler refuses.
const F32_MAX: f32 = 0x1.fffffep+127f;
// Keep in sync with src/upsample/cpu.rs FALLBACK_NORMAL.
const FALLBACK_NORMAL: vec3<f32> = vec3<f32>(0.0, 0.0, 1.0);

// Which buffer control_points() reads.
const SOURCE_KEYS: u32 = 0u;
const SOURCE_ROW_FRAME: u32 = 1u;
const SOURCE_COLUMN_FRAME: u32 = 2u;

// One per cloth of the batch.
@group(0) @binding(0) var<storage, read> batch: array<UpsampleUniforms>;
// The invocation's cloth: batch[workgroup z], set first thing by every kernel.
var<private> uniforms: UpsampleUniforms;
// nx * ny key positions
@group(0) @binding(1) var<storage, read> key_positions: array<vec4<f32>>;
// ny * R_u frame nodes, key row j at j * R_u + r
@group(0) @binding(2) var<storage, read_write> row_frame_nodes: array<vec4<f32>>;
// R_v * nx column-first frame nodes, key column i at s * nx + i
@group(0) @binding(3) var<storage, read_write> column_frame_nodes: array<vec4<f32>>;
// R_u * R_v outputs
@group(0) @binding(4) var<storage, read_write> render_positions: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> render_normals: array<vec4<f32>>;

// ---- spline.rs ------------------------------------------------------------------------------

struct SplineSample {
    segment: u32,
    t: f32,
}

// u = (key_count - 1) index / (resolution - 1); the segment in exact integer arithmetic.
fn render_sample(key_count: u32, index: u32, resolution: u32) -> SplineSample {
    let span = resolution - 1u;
    let scaled = (key_count - 1u) * index;
    let segment = min(scaled / span, key_count - 2u);
    let t = f32(scaled - segment * span) / f32(span);
    return SplineSample(segment, t);
}

fn key_sample(key_count: u32, index: u32) -> SplineSample {
    let segment = min(index, key_count - 2u);
    return SplineSample(segment, f32(index - segment));
}

fn phantom_point(end: vec3<f32>, inner: vec3<f32>) -> vec3<f32> {
    return 2.0 * end - inner;
}

fn fetch_point(source: u32, index: u32) -> vec3<f32> {
    switch source {
        case SOURCE_ROW_FRAME: {
            return row_frame_nodes[uniforms.row_frame_base + index].xyz;
        }
        case SOURCE_COLUMN_FRAME: {
            return column_frame_nodes[uniforms.column_frame_base + index].xyz;
        }
        default: {
            return key_positions[uniforms.key_base + index].xyz;
        }
    }
}

// Control points P0..P3 of `segment` along the polyline source[base + k * stride],
// k < count, with linear phantom points past either end.
fn control_points(source: u32, base: u32, stride: u32, count: u32, segment: u32) -> array<vec3<f32>, 4> {
    let p1 = fetch_point(source, base + segment * stride);
    let p2 = fetch_point(source, base + (segment + 1u) * stride);
    var p0: vec3<f32>;
    if segment == 0u {
        p0 = phantom_point(p1, p2);
    } else {
        p0 = fetch_point(source, base + (segment - 1u) * stride);
    }
    var p3: vec3<f32>;
    if segment + 2u >= count {
        p3 = phantom_point(p2, p1);
    } else {
        p3 = fetch_point(source, base + (segment + 2u) * stride);
    }
    return array<vec3<f32>, 4>(p0, p1, p2, p3);
}

fn catmull_rom_coefficients(p: array<vec3<f32>, 4>) -> array<vec3<f32>, 4> {
    let a0 = 2.0 * p[1];
    let a1 = p[2] - p[0];
    let a2 = 2.0 * p[0] - 5.0 * p[1] + 4.0 * p[2] - p[3];
    let a3 = -p[0] + 3.0 * p[1] - 3.0 * p[2] + p[3];
    return array<vec3<f32>, 4>(a0, a1, a2, a3);
}

// Q(t) = 1/2 [2P1 + (-P0 + P2) t + (2P0 - 5P1 + 4P2 - P3) t^2 + (-P0 + 3P1 - 3P2 + P3) t^3]
fn catmull_rom(p: array<vec3<f32>, 4>, t: f32) -> vec3<f32> {
    let a = catmull_rom_coefficients(p);
    return 0.5 * (a[0] + t * (a[1] + t * (a[2] + t * a[3])));
}

fn catmull_rom_tangent(p: array<vec3<f32>, 4>, t: f32) -> vec3<f32> {
    let a = catmull_rom_coefficients(p);
    return 0.5 * (a[1] + t * (2.0 * a[2] + t * (3.0 * a[3])));
}

// ---- wrinkle.rs (eq. 14) ----------------------------------------------------------------------

fn wrinkle_weight(t: f32) -> f32 {
    let h = t - 0.5;
    return 0.5 - 2.0 * (h * h);
}

fn wrinkle_amplitude(d: f32, l0: f32) -> f32 {
    return (l0 - d) * 0.5;
}

fn wrinkle_frequency(d: f32, l0: f32, c: f32, c1_seam: bool) -> f32 {
    let f = c * (l0 - d) / l0;
    if c1_seam && f > 0.0 {
        return max(floor(f / PI + 0.5), 1.0) * PI;
    }
    return f;
}

fn wrinkle_offset(t: f32, d: f32, l0: f32, c: f32, c1_seam: bool) -> f32 {
    if d < l0 {
        let a = wrinkle_amplitude(d, l0);
        let f = wrinkle_frequency(d, l0, c, c1_seam);
        return wrinkle_weight(t) * a * sin(f * t);
    }
    return 0.0;
}

fn wrinkles_enabled() -> bool {
    return uniforms.mode == MODE_WRINKLED;
}

// ---- surface.rs -------------------------------------------------------------------------------

struct UnitNormal {
    valid: bool,
    n: vec3<f32>,
}

fn unit_normal(a: vec3<f32>, b: vec3<f32>) -> UnitNormal {
    let n = cross(a, b);
    let len_sq = dot(n, n);
    let scale = dot(a, a) * dot(b, b);
    if len_sq > DEGENERATE_SIN_SQ * scale && len_sq <= F32_MAX {
        return UnitNormal(true, n / sqrt(len_sq));
    }
    return UnitNormal(false, vec3<f32>(0.0));
}

struct CurvePoint {
    p: vec3<f32>,
    d: vec3<f32>,
}

fn key_row_curve(j: u32, su: SplineSample) -> CurvePoint {
    let nx = uniforms.key_count.x;
    let p = control_points(SOURCE_KEYS, j * nx, 1u, nx, su.segment);
    return CurvePoint(catmull_rom(p, su.t), catmull_rom_tangent(p, su.t));
}

// Unit dS/du x dS/dv of the un-wrinkled bicubic Catmull-Rom surface through the key nodes,
// zero where degenerate.
fn surface_normal(su: SplineSample, sv: SplineSample) -> vec3<f32> {
    let ny = uniforms.key_count.y;
    let j = sv.segment;
    let c1 = key_row_curve(j, su);
    let c2 = key_row_curve(j + 1u, su);
    var c0: CurvePoint;
    if j == 0u {
        c0 = CurvePoint(phantom_point(c1.p, c2.p), phantom_point(c1.d, c2.d));
    } else {
        c0 = key_row_curve(j - 1u, su);
    }
    var c3: CurvePoint;
    if j + 2u >= ny {
        c3 = CurvePoint(phantom_point(c2.p, c1.p), phantom_point(c2.d, c1.d));
    } else {
        c3 = key_row_curve(j + 2u, su);
    }
    let s_u = catmull_rom(array<vec3<f32>, 4>(c0.d, c1.d, c2.d, c3.d), sv.t);
    let s_v = catmull_rom_tangent(array<vec3<f32>, 4>(c0.p, c1.p, c2.p, c3.p), sv.t);
    let n = unit_normal(s_u, s_v);
    return n.n;
}

fn key_position(i: u32, j: u32) -> vec3<f32> {
    return key_positions[uniforms.key_base + j * uniforms.key_count.x + i].xyz;
}

fn key_bilinear(su: SplineSample, sv: SplineSample) -> vec3<f32> {
    let i = su.segment;
    let j = sv.segment;
    let bottom = key_position(i, j) * (1.0 - su.t) + key_position(i + 1u, j) * su.t;
    let top = key_position(i, j + 1u) * (1.0 - su.t) + key_position(i + 1u, j + 1u) * su.t;
    return bottom * (1.0 - sv.t) + top * sv.t;
}

// Eq. 14 on the spline point q; the normal is only evaluated when a wrinkle exists.
// WGSL has no closures, so the caller passes the normal's parameters.
fn wrinkled_point(q: vec3<f32>, t: f32, d: f32, l0: f32, su: SplineSample, sv: SplineSample) -> vec3<f32> {
    if wrinkles_enabled() && d < l0 {
        let offset = wrinkle_offset(t, d, l0, uniforms.wrinkle_c, uniforms.c1_seam != 0u);
        return q + offset * surface_normal(su, sv);
    }
    return q;
}

// ---- cpu.rs -----------------------------------------------------------------------------------

fn u_sample(r: u32) -> SplineSample {
    return render_sample(uniforms.key_count.x, r, uniforms.resolution.x);
}

fn v_sample(s: u32) -> SplineSample {
    return render_sample(uniforms.key_count.y, s, uniforms.resolution.y);
}

fn frame_node(r: u32, j: u32) -> vec3<f32> {
    let nx = uniforms.key_count.x;
    let su = u_sample(r);
    let p = control_points(SOURCE_KEYS, j * nx, 1u, nx, su.segment);
    let q = catmull_rom(p, su.t);
    let d = length(p[2] - p[1]);
    return wrinkled_point(q, su.t, d, uniforms.rest_length.x, su, key_sample(uniforms.key_count.y, j));
}

fn internal_node(r: u32, s: u32) -> vec3<f32> {
    let sv = v_sample(s);
    let p = control_points(SOURCE_ROW_FRAME, r, uniforms.resolution.x, uniforms.key_count.y, sv.segment);
    let q = catmull_rom(p, sv.t);
    let d = length(p[2] - p[1]);
    return wrinkled_point(q, sv.t, d, uniforms.rest_length.y, u_sample(r), sv);
}

fn column_frame_node(i: u32, s: u32) -> vec3<f32> {
    let nx = uniforms.key_count.x;
    let sv = v_sample(s);
    let p = control_points(SOURCE_KEYS, i, nx, uniforms.key_count.y, sv.segment);
    let q = catmull_rom(p, sv.t);
    let d = length(p[2] - p[1]);
    return wrinkled_point(q, sv.t, d, uniforms.rest_length.y, key_sample(nx, i), sv);
}

fn column_first_internal_node(r: u32, s: u32) -> vec3<f32> {
    let nx = uniforms.key_count.x;
    let su = u_sample(r);
    let p = control_points(SOURCE_COLUMN_FRAME, s * nx, 1u, nx, su.segment);
    let q = catmull_rom(p, su.t);
    let d = length(p[2] - p[1]);
    return wrinkled_point(q, su.t, d, uniforms.rest_length.x, su, v_sample(s));
}

fn render_position(r: u32, s: u32) -> vec3<f32> {
    if uniforms.mode == MODE_KEY_ONLY {
        return key_bilinear(u_sample(r), v_sample(s));
    }
    let row_first = internal_node(r, s);
    if uniforms.symmetric != 0u {
        let column_first = column_first_internal_node(r, s);
        return (row_first + column_first) * 0.5;
    }
    return row_first;
}

fn render_position_at(r: u32, s: u32) -> vec3<f32> {
    return render_positions[uniforms.render_base + s * uniforms.resolution.x + r].xyz;
}

fn render_normal(r: u32, s: u32) -> vec3<f32> {
    let ru = uniforms.resolution.x;
    let rv = uniforms.resolution.y;
    let du = render_position_at(min(r + 1u, ru - 1u), s) - render_position_at(max(r, 1u) - 1u, s);
    let dv = render_position_at(r, min(s + 1u, rv - 1u)) - render_position_at(r, max(s, 1u) - 1u);
    let n = unit_normal(du, dv);
    if n.valid {
        return n.n;
    }
    return FALLBACK_NORMAL;
}

// ---- kernels ----------------------------------------------------------------------------------

// One invocation per (render column r, key row j).
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y)
fn frame_nodes_pass(@builtin(global_invocation_id) id: vec3<u32>) {
    uniforms = batch[id.z];
    let r = id.x;
    let j = id.y;
    if r >= uniforms.resolution.x || j >= uniforms.key_count.y || uniforms.mode == MODE_KEY_ONLY {
        return;
    }
    row_frame_nodes[uniforms.row_frame_base + j * uniforms.resolution.x + r] = vec4<f32>(frame_node(r, j), 1.0);
}

// One invocation per (key column i, render row s).
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y)
fn column_frame_nodes_pass(@builtin(global_invocation_id) id: vec3<u32>) {
    uniforms = batch[id.z];
    let i = id.x;
    let s = id.y;
    if i >= uniforms.key_count.x || s >= uniforms.resolution.y || uniforms.symmetric == 0u {
        return;
    }
    column_frame_nodes[uniforms.column_frame_base + s * uniforms.key_count.x + i] = vec4<f32>(column_frame_node(i, s), 1.0);
}

// One invocation per render node (r, s).
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y)
fn internal_nodes_pass(@builtin(global_invocation_id) id: vec3<u32>) {
    uniforms = batch[id.z];
    let r = id.x;
    let s = id.y;
    if r >= uniforms.resolution.x || s >= uniforms.resolution.y {
        return;
    }
    render_positions[uniforms.render_base + s * uniforms.resolution.x + r] =
        vec4<f32>(render_position(r, s), 1.0);
}

// One invocation per render node (r, s).
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y)
fn normals_pass(@builtin(global_invocation_id) id: vec3<u32>) {
    uniforms = batch[id.z];
    let r = id.x;
    let s = id.y;
    if r >= uniforms.resolution.x || s >= uniforms.resolution.y {
        return;
    }
    render_normals[uniforms.render_base + s * uniforms.resolution.x + r] =
        vec4<f32>(render_normal(r, s), 0.0);
}
