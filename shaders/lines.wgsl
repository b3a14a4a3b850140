// lines.wgsl — coloured line segments (LineList): key-mesh wireframe, Δv arrows, comparisons.
//
// Appended to globals.wgsl. One vertex buffer of `LineVertex` (keep in sync with
// `LineVertex` in src/render/passes/lines_pass.rs: position vec3<f32> at 0, color vec4<f32> at 12,
// stride 28 bytes). Colours arrive sRGB-encoded with straight alpha.

// Moves each vertex this fraction of the way towards the eye so lines drawn on the cloth win the
// depth test against it.
const LINE_DEPTH_NUDGE: f32 = 0.002;

struct LineIn {
    @location(0) position: vec3<f32>,  // metres
    @location(1) color: vec4<f32>,     // sRGB rgb + alpha
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,     // linear rgb + alpha
}

@vertex
fn vs_line(in: LineIn) -> LineOut {
    let nudged = in.position + (globals.camera_pos.xyz - in.position) * LINE_DEPTH_NUDGE;
    var out: LineOut;
    out.clip = globals.view_proj * vec4<f32>(nudged, 1.0);
    out.color = vec4<f32>(srgb_to_linear(in.color.rgb), in.color.a);
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return encode_output(in.color.rgb, in.color.a);
}
