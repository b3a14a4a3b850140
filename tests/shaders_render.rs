//! The drawing shaders are valid WGSL and their uniform structs match the Rust mirrors — checked
//! with naga alone, no GPU needed.

use std::mem::{offset_of, size_of};

use flagsim::render::camera::globals::{GLOBALS_WGSL, GlobalUniforms};
use flagsim::render::passes::cloth_pass::{self, ClothUniforms};
use flagsim::render::passes::lines_pass;
use flagsim::render::passes::scene_pass::{self, SceneUniforms};

/// The WGSL files of the drawing side and the source each pass compiles.
fn drawing_shaders() -> Vec<(&'static str, String)> {
    vec![
        ("globals.wgsl", GLOBALS_WGSL.to_string()),
        ("cloth.wgsl", cloth_pass::shader_source()),
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

    let cloth = parse_and_validate("cloth.wgsl", &cloth_pass::shader_source());
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
