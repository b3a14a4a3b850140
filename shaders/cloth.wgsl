// cloth.wgsl — the render mesh of the flag: lit, two-sided, textured (docs/method.md §7 output).
//
// Appended to globals.wgsl, and followed by the vertex entry points of one render path, which
// read render node (r, s) as node `s * R_u + r` (r along u = the flag's width, s along v =
// height): cloth_storage.wgsl pulls it from the upsample pass's storage buffers, cloth_vertices.wgsl
// takes it from a vertex buffer the CPU upsampler filled (WebGL2). Positions are in metres,
// normals unit length and oriented as ∂S/∂u × ∂S/∂v. The index buffer winds every triangle
// counter-clockwise seen from that normal's side, so `front_facing` says which side of the cloth
// a fragment shows. Texture coordinates are (r / (R_u − 1), s / (R_v − 1)).

// Keep in sync with `ClothUniforms` in src/render/passes/cloth_pass.rs (size 128 bytes).
struct ClothUniforms {
    resolution: vec2<u32>,   // R_u, R_v render nodes
    key_grid: vec2<u32>,     // nx, ny key nodes (for node-type colouring)
    color_mode: u32,         // COLOR_MODE_* below
    flip_v: u32,             // 1: sample the texture at v' = 1 − v
    outline: u32,            // OUTLINE_* below: the flag's shape, drawn only inside it
    _pad1: u32,
    strain_range: vec2<f32>, // strain mapped to blue (x) … white … red (y)
    specular: f32,           // Blinn-Phong highlight strength, 0..1
    shininess: f32,          // Blinn-Phong exponent
    sheen: f32,              // grazing-angle brightening of the fibres, 0..1
    translucency: f32,       // fraction of the sun seen through the cloth from the unlit side
    notch: f32,              // the outline's notch depth, a share of the width
    _pad3: f32,
    wire_color: vec4<f32>,             // render-mesh wireframe, linear rgb + alpha
    node_colors: array<vec4<f32>, 3>,  // key, frame, internal nodes (paper Fig. 2), linear rgb
}

const COLOR_MODE_TEXTURE: u32 = 0u;
const COLOR_MODE_NODE_TYPE: u32 = 1u;
const COLOR_MODE_STRAIN: u32 = 2u;
const COLOR_MODE_INTEGRATION: u32 = 3u;

const OUTLINE_RECTANGLE: u32 = 0u;
const OUTLINE_SWALLOWTAIL: u32 = 1u;
const OUTLINE_PENNANT: u32 = 2u;
const OUTLINE_BURGEE: u32 = 3u;
const OUTLINE_IMAGE: u32 = 4u;
const BURGEE_FLY: f32 = 0.4;

// Whether a point `into` the notch (u − (1 − depth)) and `off` the middle line is cut away by a
// notch `depth` deep and `half` high at the fly. CPU twin: `sim::format::outline::in_notch`.
fn in_notch(into: f32, off: f32, depth: f32, half: f32) -> bool {
    return into > 0.0 && off < half * into / depth;
}

// Whether render-grid point `uv` (u from the hoist, v from the bottom) is cloth.
// CPU twin: `sim::format::outline::FlagShape::inside`.
fn outline_inside(uv: vec2<f32>) -> bool {
    let off = abs(uv.y - 0.5);
    let into = uv.x - (1.0 - cloth.notch);
    switch cloth.outline {
        case OUTLINE_SWALLOWTAIL: { return !in_notch(into, off, cloth.notch, 0.5); }
        case OUTLINE_PENNANT: { return off <= 0.5 * (1.0 - uv.x); }
        case OUTLINE_BURGEE: {
            return off <= 0.5 * (1.0 - (1.0 - BURGEE_FLY) * uv.x)
                && !in_notch(into, off, cloth.notch, 0.5 * BURGEE_FLY);
        }
        // The image's own outline: cloth where it is at least half opaque.
        case OUTLINE_IMAGE: {
            let v = select(uv.y, 1.0 - uv.y, cloth.flip_v != 0u);
            return textureSample(flag_texture, flag_sampler, vec2<f32>(uv.x, v)).a >= 0.5;
        }
        default: { return true; }
    }
}

const NODE_KEY: u32 = 0u;
const NODE_FRAME: u32 = 1u;
const NODE_INTERNAL: u32 = 2u;

// Moves wireframe vertices this fraction of the way towards the eye so the lines win the depth
// test against the surface they lie on.
const WIRE_DEPTH_NUDGE: f32 = 0.002;

// Bindings 1 to 3 are the storage path's node buffers (cloth_storage.wgsl).
@group(1) @binding(0) var<uniform> cloth: ClothUniforms;
@group(1) @binding(4) var flag_texture: texture_2d<f32>;
@group(1) @binding(5) var flag_sampler: sampler;

struct ClothVertex {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) strain: f32,
}

// Texture coordinates of render node `node`.
fn node_uv(node: u32) -> vec2<f32> {
    let r = node % cloth.resolution.x;
    let s = node / cloth.resolution.x;
    return vec2<f32>(f32(r), f32(s)) / vec2<f32>(cloth.resolution - vec2<u32>(1u));
}

// The surface's vertex of render node `node` at `world` with `normal` and `strain`, however the
// render path read them.
fn cloth_vertex(node: u32, world: vec3<f32>, normal: vec3<f32>, strain: f32) -> ClothVertex {
    var out: ClothVertex;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = normal;
    out.uv = node_uv(node);
    out.strain = strain;
    return out;
}

// A render index lies on a key line when its spline parameter (n − 1) i / (R − 1) is a whole
// number (docs/method.md §7 sampling). Exact in integers for any resolution, key-aligned or not.
fn on_key_line(index: u32, render_count: u32, key_count: u32) -> bool {
    return ((key_count - 1u) * index) % (render_count - 1u) == 0u;
}

// Paper Fig. 2: key nodes coincide with a key node, frame nodes lie on a key row (pass 1 of the
// upsampling), every other render node is internal (pass 2).
fn node_type(r: u32, s: u32) -> u32 {
    let on_key_row = on_key_line(s, cloth.resolution.y, cloth.key_grid.y);
    let on_key_column = on_key_line(r, cloth.resolution.x, cloth.key_grid.x);
    if on_key_row && on_key_column {
        return NODE_KEY;
    }
    if on_key_row {
        return NODE_FRAME;
    }
    return NODE_INTERNAL;
}

// Node-type view (paper Fig. 2): every fragment takes the type colour of its nearest render
// node, as a pale tint over the node's cell and a solid dot at the node itself.
fn node_type_albedo(uv: vec2<f32>) -> vec3<f32> {
    let grid = uv * vec2<f32>(cloth.resolution - vec2<u32>(1u));
    let nearest = round(grid);
    let kind = node_type(u32(nearest.x), u32(nearest.y));
    let colour = cloth.node_colors[kind].rgb;
    let d = length(grid - nearest);
    let aa = max(fwidth(d), 1e-4);
    var radii = array<f32, 3>(0.40, 0.32, 0.22);  // key, frame, internal (cell units)
    let radius = radii[kind];
    let dot_cover = 1.0 - smoothstep(radius - aa, radius + aa, d);
    let cell = mix(colour, vec3<f32>(0.80), 0.55);
    return mix(cell, colour, dot_cover);
}

// Diverging blue → white → red map of strain over `strain_range`.
fn strain_albedo(strain: f32) -> vec3<f32> {
    let range = cloth.strain_range;
    let t = clamp((strain - range.x) / max(range.y - range.x, 1e-12), 0.0, 1.0);
    let blue = vec3<f32>(0.05, 0.18, 0.85);
    let white = vec3<f32>(0.86, 0.86, 0.86);
    let red = vec3<f32>(0.80, 0.05, 0.04);
    if t < 0.5 {
        return mix(blue, white, t * 2.0);
    }
    return mix(white, red, t * 2.0 - 1.0);
}

fn texture_albedo(uv: vec2<f32>) -> vec3<f32> {
    let v = select(uv.y, 1.0 - uv.y, cloth.flip_v != 0u);
    return textureSample(flag_texture, flag_sampler, vec2<f32>(uv.x, v)).rgb;
}

// Thin-cloth lighting: Lambert from the sun plus some of it shining through from behind,
// hemisphere ambient, a soft Blinn-Phong highlight and a grazing-angle sheen.
fn shade_cloth(albedo: vec3<f32>, n: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let l = globals.light_dir.xyz;
    let v = normalize(globals.camera_pos.xyz - world);
    let n_dot_l = dot(n, l);
    let direct = max(n_dot_l, 0.0) + cloth.translucency * max(-n_dot_l, 0.0);
    let h = normalize(l + v);
    let highlight = cloth.specular * pow(max(dot(n, h), 0.0), cloth.shininess) * step(0.0, n_dot_l);
    let grazing = pow(1.0 - clamp(dot(n, v), 0.0, 1.0), 4.0);
    let sheen = cloth.sheen * grazing * (globals.ambient_sky.rgb + 0.5 * globals.light_color.rgb);
    return albedo * (ambient_light(n) + globals.light_color.rgb * direct)
        + globals.light_color.rgb * highlight + sheen;
}

@fragment
fn fs_cloth(in: ClothVertex, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    // Geometric normal facing the viewer, the fallback for a degenerate node normal.
    let geometric = -cross(dpdx(in.world), dpdy(in.world));
    var albedo: vec3<f32>;
    switch cloth.color_mode {
        case COLOR_MODE_NODE_TYPE: { albedo = node_type_albedo(in.uv); }
        case COLOR_MODE_STRAIN: { albedo = strain_albedo(in.strain); }
        // The node buffer holds 1 where the nearest key node was interpolated (Chi 2007 Fig. 6.5).
        case COLOR_MODE_INTEGRATION: {
            albedo = select(vec3<f32>(0.80, 0.06, 0.04), vec3<f32>(0.95, 0.80, 0.10), in.strain > 0.5);
        }
        default: { albedo = texture_albedo(in.uv); }
    }
    // A shaped flag: nothing outside its outline (after the texture's derivatives are taken).
    if !outline_inside(in.uv) {
        discard;
    }
    var n: vec3<f32>;
    if dot(in.normal, in.normal) > 1e-12 {
        // The back face shows the same texture, mirrored as on a real flag, and is lit from its
        // own side.
        n = select(-1.0, 1.0, front) * normalize(in.normal);
    } else {
        n = normalize(geometric);
    }
    return encode_output(shade_cloth(albedo, n, in.world), 1.0);
}

// Render-mesh wireframe, drawn with a LineList index buffer over the same nodes.
struct WireVertex {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

// The wireframe's vertex of render node `node` at `world`.
fn wire_vertex(node: u32, world: vec3<f32>) -> WireVertex {
    let nudged = world + (globals.camera_pos.xyz - world) * WIRE_DEPTH_NUDGE;
    var out: WireVertex;
    out.clip = globals.view_proj * vec4<f32>(nudged, 1.0);
    out.uv = node_uv(node);
    return out;
}

@fragment
fn fs_wire(in: WireVertex) -> @location(0) vec4<f32> {
    if !outline_inside(in.uv) {
        discard;
    }
    return encode_output(cloth.wire_color.rgb, cloth.wire_color.a);
}
