//! The drawing shaders are valid WGSL and their uniform structs match the Rust mirrors — checked
//! with naga alone, no GPU needed.

use std::mem::{offset_of, size_of};

use flagsim::render::RenderPath;
use flagsim::render::camera::globals::{GLOBALS_WGSL, GlobalUniforms};
use flagsim::render::passes::cloth_pass::{self, ClothUniforms};
use flagsim::render::passes::lines_pass;
use flagsim::render::passes::scene_pass::{self, SceneUniforms};

/// The WGSL files of the drawing side and the source each pass compiles.
fn drawing_shaders() -> Vec<(&'static str, String)> {
    vec![
        ("globals.wgsl", GLOBALS_WGSL.to_string()),
        (
            "cloth_storage.wgsl",
            cloth_pass::shader_source(RenderPath::Compute),
        ),
        (
            "cloth_vertices.wgsl",
            cloth_pass::shader_source(RenderPath::CpuUpsampling),
        ),
        ("lines.wgsl", lines_pass::shader_source()),
        ("scene.wgsl", scene_pass::shader_source()),
    ]
}

fn parse_and_validate(name: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
    module
}

/// Size and member offsets of the WGSL struct `name`.
fn wgsl_struct(module: &naga::Module, name: &str) -> (u32, Vec<(String, u32)>) {
    module
        .types
        .iter()
        .find_map(|(_, ty)| match (&ty.name, &ty.inner) {
            (Some(n), naga::TypeInner::Struct { members, span }) if n == name => Some((
                *span,
                members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect(),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("struct {name} not found"))
}

fn assert_layout(
    module: &naga::Module,
    name: &str,
    rust_size: usize,
    rust_offsets: &[(&str, usize)],
) {
    let (size, members) = wgsl_struct(module, name);
    assert_eq!(
        size as usize, rust_size,
        "size of {name}: WGSL {size}, Rust {rust_size}"
    );
    for (member, rust_offset) in rust_offsets {
        let offset = members
            .iter()
            .find(|(m, _)| m == member)
            .unwrap_or_else(|| panic!("{name}.{member} missing in WGSL"))
            .1;
        assert_eq!(offset as usize, *rust_offset, "offset of {name}.{member}");
    }
}

#[test]
fn every_drawing_pass_compiles_the_source_that_is_validated() {
    // `tests/shaders.rs` validates `render::device::shaders::ALL`; each pass must hand the GPU exactly
    // that source (its file with the shared globals in front), or the validation proves nothing.
    let registered = |path: &str| {
        flagsim::render::device::shaders::ALL
            .iter()
            .find(|s| s.path == path)
            .unwrap_or_else(|| panic!("{path} not registered"))
            .compiled()
    };
    for (file, source) in drawing_shaders() {
        assert_eq!(source, registered(&format!("shaders/{file}")), "{file}");
        parse_and_validate(file, &source);
    }
}

#[test]
fn uniform_structs_match_their_rust_mirrors() {
    let globals = parse_and_validate("globals.wgsl", GLOBALS_WGSL);
    assert_layout(
        &globals,
        "Globals",
        size_of::<GlobalUniforms>(),
        &[
            ("view_proj", offset_of!(GlobalUniforms, view_proj)),
            ("inv_view_proj", offset_of!(GlobalUniforms, inv_view_proj)),
            ("camera_pos", offset_of!(GlobalUniforms, camera_pos)),
            ("light_dir", offset_of!(GlobalUniforms, light_dir)),
            ("light_color", offset_of!(GlobalUniforms, light_color)),
            ("ambient_sky", offset_of!(GlobalUniforms, ambient_sky)),
            ("ambient_ground", offset_of!(GlobalUniforms, ambient_ground)),
            ("encode_srgb", offset_of!(GlobalUniforms, encode_srgb)),
        ],
    );

    let cloth = parse_and_validate(
        "cloth.wgsl",
        &cloth_pass::shader_source(RenderPath::Compute),
    );
    assert_layout(
        &cloth,
        "ClothUniforms",
        size_of::<ClothUniforms>(),
        &[
            ("resolution", offset_of!(ClothUniforms, resolution)),
            ("key_grid", offset_of!(ClothUniforms, key_grid)),
            ("color_mode", offset_of!(ClothUniforms, color_mode)),
            ("flip_v", offset_of!(ClothUniforms, flip_v)),
            ("strain_range", offset_of!(ClothUniforms, strain_range)),
            ("specular", offset_of!(ClothUniforms, specular)),
            ("shininess", offset_of!(ClothUniforms, shininess)),
            ("sheen", offset_of!(ClothUniforms, sheen)),
            ("translucency", offset_of!(ClothUniforms, translucency)),
            ("wire_color", offset_of!(ClothUniforms, wire_color)),
            ("node_colors", offset_of!(ClothUniforms, node_colors)),
        ],
    );

    let scene = parse_and_validate("scene.wgsl", &scene_pass::shader_source());
    assert_layout(
        &scene,
        "SceneUniforms",
        size_of::<SceneUniforms>(),
        &[
            ("sky_zenith", offset_of!(SceneUniforms, sky_zenith)),
            ("sky_horizon", offset_of!(SceneUniforms, sky_horizon)),
            ("ground_a", offset_of!(SceneUniforms, ground_a)),
            ("ground_b", offset_of!(SceneUniforms, ground_b)),
            ("ground_height", offset_of!(SceneUniforms, ground_height)),
            (
                "ground_half_size",
                offset_of!(SceneUniforms, ground_half_size),
            ),
            ("checker_size", offset_of!(SceneUniforms, checker_size)),
            ("fog_distance", offset_of!(SceneUniforms, fog_distance)),
        ],
    );
}

/// Translates `entry` (a `stage` entry point) of the cloth shader on `path` to GLSL ES 3.00, the
/// language of WebGL2, after validating it with none of naga's optional capabilities.
fn cloth_as_webgl2_glsl(
    path: RenderPath,
    stage: naga::ShaderStage,
    entry: &str,
) -> Result<String, String> {
    use naga::back::glsl;
    let source = cloth_pass::shader_source(path);
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| e.emit_to_string(&source))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(&source))?;
    let options = glsl::Options {
        version: glsl::Version::Embedded {
            version: 300,
            is_webgl: true,
        },
        ..glsl::Options::default()
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: stage,
        entry_point: entry.to_string(),
        multiview: None,
    };
    let mut out = String::new();
    let mut writer = glsl::Writer::new(
        &mut out,
        &module,
        &info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| e.to_string())?;
    writer.write().map_err(|e| e.to_string())?;
    Ok(out)
}

/// WebGL2 has GLSL ES 3.00, which has no storage buffers and no compute shaders: every entry
/// point of the CPU-upsampling path's cloth shader translates to it, the compute path's vertex
/// pulling does not (so the check can fail). Its uniform blocks stay within WebGL2's 16 KiB and
/// its 12 blocks a stage.
#[test]
fn the_cpu_upsampling_cloth_shader_translates_to_webgl2_glsl() {
    use naga::ShaderStage::{Fragment, Vertex};
    for (stage, entry) in [
        (Vertex, "vs_cloth"),
        (Vertex, "vs_wire"),
        (Fragment, "fs_cloth"),
        (Fragment, "fs_wire"),
    ] {
        let glsl = cloth_as_webgl2_glsl(RenderPath::CpuUpsampling, stage, entry)
            .unwrap_or_else(|e| panic!("{entry} is not GLSL ES 3.00: {e}"));
        assert!(glsl.starts_with("#version 300 es"), "{entry}: {glsl}");
    }
    let pulled = cloth_as_webgl2_glsl(RenderPath::Compute, Vertex, "vs_cloth");
    assert!(pulled.is_err(), "storage buffers in GLSL ES 3.00");

    let module = parse_and_validate(
        "cloth_vertices.wgsl",
        &cloth_pass::shader_source(RenderPath::CpuUpsampling),
    );
    let uniforms: Vec<u32> = module
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == naga::AddressSpace::Uniform)
        .map(|(_, g)| module.types[g.ty].inner.size(module.to_ctx()))
        .collect();
    assert!(!uniforms.is_empty() && uniforms.len() <= 12, "{uniforms:?}");
    assert!(
        uniforms.iter().all(|&size| size <= 16 * 1024),
        "{uniforms:?}"
    );
    assert!(
        !(module.global_variables.iter())
            .any(|(_, g)| matches!(g.space, naga::AddressSpace::Storage { .. })),
        "a storage buffer on the CPU-upsampling path"
    );
}
