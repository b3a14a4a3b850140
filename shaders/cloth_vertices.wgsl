// cloth_vertices.wgsl — the cloth's vertices where there is no compute shader and no storage
// buffer (WebGL2): appended to globals.wgsl and cloth.wgsl, it takes render node `node` from a
// vertex buffer the CPU upsampler filled, 32 bytes a node: the position (m) with the node's
// strain in w, then the unit normal (w unused). The index buffer is the storage path's, so
// `vertex_index` is the node as there.
// Keep in sync with `NodeVertex` in src/render/passes/cloth_pass.rs.

struct NodeVertex {
    @location(0) position_strain: vec4<f32>,
    @location(1) normal: vec4<f32>,
}

@vertex
fn vs_cloth(@builtin(vertex_index) node: u32, in: NodeVertex) -> ClothVertex {
    return cloth_vertex(node, in.position_strain.xyz, in.normal.xyz, in.position_strain.w);
}

@vertex
fn vs_wire(@builtin(vertex_index) node: u32, in: NodeVertex) -> WireVertex {
    return wire_vertex(node, in.position_strain.xyz);
}
