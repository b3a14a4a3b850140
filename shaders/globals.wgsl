// globals.wgsl — per-frame values shared by every drawing pass (camera, light, output encoding).
//
// Not a standalone shader: `src/render/device/shaders.rs` prepends this file to cloth.wgsl,
// lines.wgsl and scene.wgsl, so the struct and the helpers below exist exactly once.
// Units: metres, world space right-handed with Y up; colours are linear RGB unless named srgb.

// Keep in sync with `GlobalUniforms` in src/render/camera/globals.rs (size 224 bytes).
struct Globals {
    view_proj: mat4x4<f32>,      // world → clip (depth 0..1)
    inv_view_proj: mat4x4<f32>,  // clip → world, for the sky's view rays
    camera_pos: vec4<f32>,       // xyz eye position (m), w unused
    light_dir: vec4<f32>,        // xyz unit vector from the scene towards the sun, w unused
    light_color: vec4<f32>,      // rgb direct light (linear), w unused
    ambient_sky: vec4<f32>,      // rgb ambient from above (linear), w unused
    ambient_ground: vec4<f32>,   // rgb ambient from below (linear), w unused
    encode_srgb: u32,            // 1: the target is not an *Srgb format, encode in the shader
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> globals: Globals;

// Exact sRGB transfer functions (IEC 61966-2-1), per channel.
fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    let lo = x * 12.92;
    let hi = 1.055 * pow(x, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, x <= vec3<f32>(0.0031308));
}

// The last step of every fragment shader: linear colour → what the target expects.
fn encode_output(linear: vec3<f32>, alpha: f32) -> vec4<f32> {
    if globals.encode_srgb != 0u {
        return vec4<f32>(linear_to_srgb(linear), alpha);
    }
    return vec4<f32>(linear, alpha);
}

// Hemisphere ambient: sky colour for normals pointing up, ground bounce for normals pointing down.
fn ambient_light(n: vec3<f32>) -> vec3<f32> {
    let t = 0.5 + 0.5 * n.y;
    return mix(globals.ambient_ground.rgb, globals.ambient_sky.rgb, t);
}
