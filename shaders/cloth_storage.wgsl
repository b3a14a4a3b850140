// cloth_storage.wgsl — the cloth's vertices on the compute path: appended to globals.wgsl and
// cloth.wgsl, it pulls render node `node` from the upsample pass's storage buffers (one
// `vec4<f32>` a node, w unused) and the optional per-node strain.

@group(1) @binding(1) var<storage, read> render_positions: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> render_normals: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> render_strain: array<f32>;

@vertex
fn vs_cloth(@builtin(vertex_index) node: u32) -> ClothVertex {
    // Without a strain buffer a 4-byte placeholder is bound; read it as zero strain.
    let strain = select(0.0, render_strain[node], node < arrayLength(&render_strain));
    return cloth_vertex(node, render_positions[node].xyz, render_normals[node].xyz, strain);
}

@vertex
fn vs_wire(@builtin(vertex_index) node: u32) -> WireVertex {
    return wire_vertex(node, render_positions[node].xyz);
}
