// composite.wgsl — lays the viewer's cached egui layer over the 3-D frame.
//
// The layer holds egui's last painted panels over a transparent background, premultiplied as
// egui paints them; the pipeline blends it with `One, OneMinusSrcAlpha` (premultiplied "over"),
// which gives the frame egui would have painted straight onto it. One full-screen triangle; the
// caller limits it with a scissor rectangle to where egui drew. Pixels are read one to one
// (`textureLoad`), so the layer and the target have the same size. `fs_clear` empties the
// part of the layer where the panels changed (the caller's scissor) before egui paints it anew.

@group(0) @binding(0) var layer: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    // (-1, -1), (3, -1), (-1, 3): one triangle that covers the whole target.
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(layer, vec2<i32>(pos.xy), 0);
}

@fragment
fn fs_clear() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0);
}
