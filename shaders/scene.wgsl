// scene.wgsl — everything around the cloth: sky gradient (or a background image), checkered
// ground plane, and lit meshes (the flag pole, its finial and sphere colliders, instanced unit
// shapes).
//
// Appended to globals.wgsl. Units: metres; colours linear RGB.

// Keep in sync with `SceneUniforms` in src/render/passes/scene_pass.rs (size 96 bytes).
struct SceneUniforms {
    sky_zenith: vec4<f32>,   // rgb straight up, w unused
    sky_horizon: vec4<f32>,  // rgb at the horizon (also the ground's fog colour), w unused
    ground_a: vec4<f32>,     // rgb checker colour 1, w unused
    ground_b: vec4<f32>,     // rgb checker colour 2, w unused
    ground_height: f32,      // y of the ground plane (m)
    ground_half_size: f32,   // the plane spans ± this around the eye in x and z (m)
    checker_size: f32,       // side of one checker square (m)
    fog_distance: f32,       // distance at which the ground has faded into the horizon (m)
    background: vec4<f32>,   // x: 1 draws background_image instead of the sky; y, z, w unused
}

@group(1) @binding(0) var<uniform> scene: SceneUniforms;
// The background image (sRGB texture, sampled as linear colour); a 1 × 1 placeholder when none.
@group(2) @binding(0) var background_image: texture_2d<f32>;
@group(2) @binding(1) var background_sampler: sampler;

// ---------------------------------------------------------------------------------------------
// Sky: one full-screen triangle behind everything.

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let ndc = vec2<f32>(f32(i == 1u) * 4.0 - 1.0, f32(i == 2u) * 4.0 - 1.0);
    var out: SkyOut;
    out.clip = vec4<f32>(ndc, 1.0, 1.0);
    out.ndc = ndc;
    return out;
}

fn sky_color(dir: vec3<f32>) -> vec3<f32> {
    let up = clamp(dir.y, 0.0, 1.0);
    var c = mix(scene.sky_horizon.rgb, scene.sky_zenith.rgb, sqrt(up));
    // Below the horizon (seen past the end of the ground): a slightly darker haze.
    c = mix(c, scene.sky_horizon.rgb * 0.85, clamp(-dir.y * 4.0, 0.0, 1.0));
    // A soft glow around the sun: sun^32 and sun^1024 by squaring (no pow on every sky pixel,
    // which costs on software rasterisers).
    let sun = max(dot(dir, globals.light_dir.xyz), 0.0);
    var s = sun * sun;  // ^2
    s = s * s;          // ^4
    s = s * s;          // ^8
    s = s * s;          // ^16
    s = s * s;          // ^32
    let glow = s;
    s = s * s;          // ^64
    s = s * s;          // ^128
    s = s * s;          // ^256
    s = s * s;          // ^512
    s = s * s;          // ^1024
    return c + globals.light_color.rgb * (0.25 * glow + 0.6 * s);
}

// The background image at this pixel, scaled to cover the view and centred (the image is
// cropped, never stretched). The view's width / height comes from how fast `ndc` changes from
// pixel to pixel: 2 / width across, 2 / height down.
fn background_color(ndc: vec2<f32>) -> vec3<f32> {
    let view_aspect = abs(dpdy(ndc.y) / dpdx(ndc.x));
    let size = vec2<f32>(textureDimensions(background_image));
    let image_aspect = size.x / size.y;
    let shrink = select(
        vec2<f32>(view_aspect / image_aspect, 1.0),
        vec2<f32>(1.0, image_aspect / view_aspect),
        view_aspect > image_aspect,
    );
    let uv = vec2<f32>(0.5 * ndc.x, -0.5 * ndc.y) * shrink + 0.5;
    return textureSample(background_image, background_sampler, uv).rgb;
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    if scene.background.x > 0.5 {
        return encode_output(background_color(in.ndc), 1.0);
    }
    let far = globals.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let dir = normalize(far.xyz / far.w - globals.camera_pos.xyz);
    return encode_output(sky_color(dir), 1.0);
}

// ---------------------------------------------------------------------------------------------
// Ground: a large square centred under the eye, checkered in world coordinates.

struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
}

@vertex
fn vs_ground(@builtin(vertex_index) i: u32) -> GroundOut {
    // Two triangles covering the square (the pipeline does not cull).
    let corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, 1.0), vec2<f32>(1.0, -1.0),
        vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), vec2<f32>(-1.0, -1.0),
    );
    let c = corners[i] * scene.ground_half_size;
    let world = vec3<f32>(globals.camera_pos.x + c.x, scene.ground_height, globals.camera_pos.z + c.y);
    var out: GroundOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    return out;
}

// Box-filtered checkerboard (0 or 1, blended over the pixel footprint), so it does not alias
// towards the horizon.
fn checker(p: vec2<f32>) -> f32 {
    let w = max(fwidth(p), vec2<f32>(1e-4));
    let i = 2.0 * (abs(fract((p - 0.5 * w) * 0.5) - 0.5) - abs(fract((p + 0.5 * w) * 0.5) - 0.5)) / w;
    return 0.5 - 0.5 * i.x * i.y;
}

@fragment
fn fs_ground(in: GroundOut) -> @location(0) vec4<f32> {
    let albedo = mix(scene.ground_a.rgb, scene.ground_b.rgb, checker(in.world.xz / scene.checker_size));
    let n = vec3<f32>(0.0, 1.0, 0.0);
    let lit = albedo * (ambient_light(n) + globals.light_color.rgb * max(globals.light_dir.y, 0.0));
    let distance = length(in.world - globals.camera_pos.xyz);
    let fog = smoothstep(0.0, scene.fog_distance, distance);
    return encode_output(mix(lit, scene.sky_horizon.rgb, fog), 1.0);
}

// ---------------------------------------------------------------------------------------------
// Meshes: instanced unit cylinder (pole) and unit sphere (colliders, pole finial).

// Keep in sync with `MeshVertex` in src/render/passes/scene_pass.rs (stride 24 bytes).
struct MeshIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

// Keep in sync with `MeshInstance` in src/render/passes/scene_pass.rs (stride 128 bytes).
struct InstanceIn {
    @location(2) model_0: vec4<f32>,
    @location(3) model_1: vec4<f32>,
    @location(4) model_2: vec4<f32>,
    @location(5) model_3: vec4<f32>,
    @location(6) normal_0: vec4<f32>,
    @location(7) normal_1: vec4<f32>,
    @location(8) normal_2: vec4<f32>,
    @location(9) color: vec4<f32>,     // linear rgb, w = specular strength
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

@vertex
fn vs_mesh(v: MeshIn, inst: InstanceIn) -> MeshOut {
    let model = mat4x4<f32>(inst.model_0, inst.model_1, inst.model_2, inst.model_3);
    let normal_matrix = mat3x3<f32>(inst.normal_0.xyz, inst.normal_1.xyz, inst.normal_2.xyz);
    let world = model * vec4<f32>(v.position, 1.0);
    var out: MeshOut;
    out.clip = globals.view_proj * world;
    out.world = world.xyz;
    out.normal = normal_matrix * v.normal;
    out.color = inst.color;
    return out;
}

@fragment
fn fs_mesh(in: MeshOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let l = globals.light_dir.xyz;
    let v = normalize(globals.camera_pos.xyz - in.world);
    let h = normalize(l + v);
    let n_dot_l = max(dot(n, l), 0.0);
    let highlight = in.color.w * pow(max(dot(n, h), 0.0), 48.0) * step(0.0, dot(n, l));
    let rim = 0.15 * pow(1.0 - clamp(dot(n, v), 0.0, 1.0), 3.0) * globals.ambient_sky.rgb;
    let lit = in.color.rgb * (ambient_light(n) + globals.light_color.rgb * n_dot_l)
        + globals.light_color.rgb * highlight + rim;
    return encode_output(lit, 1.0);
}
