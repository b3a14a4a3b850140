// upscale.wgsl — the viewer's 3-D view drawn at a lower render scale, stretched over the frame.
//
// The scene is drawn into a smaller image of the same view (same camera and aspect); this pass
// covers the target with one full-screen triangle and reads that image bilinearly at the same
// relative position: target pixel centre p (pixels) reads the image at uv = p / target size,
// which the sampler maps to image texels (clamped at the edges). The caller limits the pass with
// a scissor to the pixels the panels leave uncovered. Colours are copied as stored (the image
// and the target share a format), so the filter works on the encoded values.

@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var image_sampler: sampler;

struct Stretch {
    @builtin(position) clip: vec4<f32>,
    // Position in the target, (0, 0) top-left to (1, 1) bottom-right.
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> Stretch {
    // (-1, -1), (3, -1), (-1, 3): one triangle that covers the whole target.
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    var out: Stretch;
    out.clip = vec4<f32>(x, y, 0.0, 1.0);
    out.uv = vec2<f32>(0.5 * (x + 1.0), 0.5 * (1.0 - y));
    return out;
}

@fragment
fn fs_main(in: Stretch) -> @location(0) vec4<f32> {
    return textureSampleLevel(image, image_sampler, in.uv, 0.0);
}
