// fxaa.wgsl — anti-aliasing of the viewer's 3-D view after it is drawn: FXAA (Lottes 2009, the
// variant without the edge-end search), for adapters where multisampling costs too much (a
// software rasteriser shades every sample).
//
// The target has the image's size; target pixel p reads image texel p. The image holds the
// colours as the target stores them (sRGB-encoded), which is the space FXAA's luma is meant for.
// Per pixel:
//   1. luma of the pixel (M) and of the four bilinear samples half a texel away diagonally
//      (NW, NE, SW, SE: each the mean of a 2 × 2 block around a corner of the pixel);
//   2. where their range is below max(EDGE_MIN, EDGE_RELATIVE · brightest), the pixel is kept;
//   3. otherwise the edge's direction (along the edge, across the luma gradient) is
//      dir = (−((NW + NE) − (SW + SE)), (NW + SW) − (NE + SE)), scaled so its shorter component
//      is about one texel (1 / (min(|x|, |y|) + reduce), reduce = max(mean · REDUCE_MUL,
//      REDUCE_MIN)) and clamped to ±SPAN_MAX texels: long along a nearly straight edge;
//   4. A = mean of the image at ±dir/6 (two samples close to the pixel), B = ½ A + ¼ (image at
//      ±dir/2); B where its luma stays within the five lumas' range, else A (B reached past the
//      edge's far side).
// `fxaa_cpu` in src/render/passes/upscale_pass.rs is the CPU twin; tests/upscale.rs compares them.

@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var image_sampler: sampler;

// Keep in sync with `Fxaa` in src/render/passes/upscale_pass.rs.
const EDGE_RELATIVE: f32 = 0.125;   // local contrast, as a share of the brightest luma, that is an edge
const EDGE_MIN: f32 = 0.03125;      // ... and at least this (dark areas are left alone)
const REDUCE_MUL: f32 = 0.125;
const REDUCE_MIN: f32 = 0.0078125;
const SPAN_MAX: f32 = 8.0;          // texels

struct Fullscreen {
    @builtin(position) clip: vec4<f32>,
    // Position in the target, (0, 0) top-left to (1, 1) bottom-right.
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> Fullscreen {
    // (-1, -1), (3, -1), (-1, 3): one triangle that covers the whole target.
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    var out: Fullscreen;
    out.clip = vec4<f32>(x, y, 0.0, 1.0);
    out.uv = vec2<f32>(0.5 * (x + 1.0), 0.5 * (1.0 - y));
    return out;
}

fn luma(c: vec3<f32>) -> f32 {
    return dot(c, vec3<f32>(0.299, 0.587, 0.114));
}

fn at(uv: vec2<f32>) -> vec3<f32> {
    return textureSampleLevel(image, image_sampler, uv, 0.0).rgb;
}

@fragment
fn fs_main(in: Fullscreen) -> @location(0) vec4<f32> {
    let texel = 1.0 / vec2<f32>(textureDimensions(image));
    let uv = in.uv;
    let rgb_m = at(uv);
    let nw = luma(at(uv + vec2<f32>(-0.5, -0.5) * texel));
    let ne = luma(at(uv + vec2<f32>(0.5, -0.5) * texel));
    let sw = luma(at(uv + vec2<f32>(-0.5, 0.5) * texel));
    let se = luma(at(uv + vec2<f32>(0.5, 0.5) * texel));
    let m = luma(rgb_m);
    let lo = min(m, min(min(nw, ne), min(sw, se)));
    let hi = max(m, max(max(nw, ne), max(sw, se)));
    var dir = vec2<f32>(-((nw + ne) - (sw + se)), (nw + sw) - (ne + se));
    let reduce = max((nw + ne + sw + se) * 0.25 * REDUCE_MUL, REDUCE_MIN);
    let stretch = 1.0 / (min(abs(dir.x), abs(dir.y)) + reduce);
    dir = clamp(dir * stretch, vec2<f32>(-SPAN_MAX), vec2<f32>(SPAN_MAX)) * texel;
    let a = 0.5 * (at(uv - dir / 6.0) + at(uv + dir / 6.0));
    let b = 0.5 * a + 0.25 * (at(uv - dir * 0.5) + at(uv + dir * 0.5));
    let lb = luma(b);
    var out = select(b, a, lb < lo || lb > hi);
    out = select(out, rgb_m, hi - lo < max(EDGE_MIN, hi * EDGE_RELATIVE));
    return vec4<f32>(out, 1.0);
}
