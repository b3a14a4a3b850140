//! Every WGSL file is checked by naga without a GPU, and the uniform block and workgroup sizes
//! shared between Rust and WGSL agree on both sides.

use std::path::{Path, PathBuf};

use flagsim::render::device::shaders::{self, ShaderFile};
use flagsim::render::passes::upsample_pass::{UpsampleUniforms, WORKGROUP_SIZE};

fn parse_and_validate(path: &str, source: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(source).unwrap_or_else(|e| {
        panic!(
            "{path} does not parse:\n{}",
            e.emit_to_string_with_path(source, path)
        )
    });
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| {
        panic!(
            "{path} does not validate:\n{}",
            e.emit_to_string_with_path(source, path)
        )
    });
    (module, info)
}

fn wgsl_files_on_disk() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("shaders/ is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    files
}

fn upsample_shader() -> &'static ShaderFile {
    shaders::ALL
        .iter()
        .find(|s| s.path == "shaders/upsample.wgsl")
        .expect("upsample.wgsl is registered")
}

#[test]
fn every_wgsl_file_under_shaders_parses_and_validates() {
    let files = wgsl_files_on_disk();
    assert!(!files.is_empty(), "no .wgsl files found");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in files {
        let relative = file.strip_prefix(root).expect("under the crate");
        let relative = relative.to_string_lossy().replace('\\', "/");
        let registered = shaders::ALL.iter().find(|s| s.path == relative);
        // A drawing shader is compiled with the shared globals in front.
        let source = match registered {
            Some(s) => s.compiled(),
            None => std::fs::read_to_string(&file).expect("readable shader"),
        };
        parse_and_validate(&relative, &source);
    }
}

#[test]
fn every_wgsl_file_is_registered_in_render_shaders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in wgsl_files_on_disk() {
        let relative = file
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        // (Its embedded source is the file itself: `include_str!` cannot be stale.)
        assert!(
            shaders::ALL.iter().any(|s| s.path == relative),
            "{relative} is not listed in render::device::shaders::ALL"
        );
    }
}

#[test]
fn wgsl_upsample_uniforms_have_the_size_of_the_rust_mirror() {
    let shader = upsample_shader();
    let (module, _) = parse_and_validate(shader.path, shader.source);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout computable");
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, ty)| ty.name.as_deref() == Some("UpsampleUniforms"))
        .expect("struct UpsampleUniforms in upsample.wgsl");
    let naga::TypeInner::Struct { span, .. } = ty.inner else {
        panic!("UpsampleUniforms is not a struct");
    };
    let rust_size = std::mem::size_of::<UpsampleUniforms>() as u32;
    assert_eq!(
        layouter[handle].size, rust_size,
        "layouter size vs Rust size_of"
    );
    assert_eq!(span, rust_size, "struct span vs Rust size_of");
}

#[test]
fn wgsl_upsample_uniform_field_offsets_match_the_rust_mirror() {
    let shader = upsample_shader();
    let (module, _) = parse_and_validate(shader.path, shader.source);
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, ty)| ty.name.as_deref() == Some("UpsampleUniforms"))
        .expect("struct UpsampleUniforms");
    let naga::TypeInner::Struct { members, .. } = &ty.inner else {
        panic!("UpsampleUniforms is not a struct");
    };
    let wgsl: Vec<(String, u32)> = members
        .iter()
        .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
        .collect();
    let rust = vec![
        (
            "key_count".to_string(),
            std::mem::offset_of!(UpsampleUniforms, key_count) as u32,
        ),
        (
            "resolution".to_string(),
            std::mem::offset_of!(UpsampleUniforms, resolution) as u32,
        ),
        (
            "rest_length".to_string(),
            std::mem::offset_of!(UpsampleUniforms, rest_length) as u32,
        ),
        (
            "wrinkle_c".to_string(),
            std::mem::offset_of!(UpsampleUniforms, wrinkle_c) as u32,
        ),
        (
            "mode".to_string(),
            std::mem::offset_of!(UpsampleUniforms, mode) as u32,
        ),
        (
            "symmetric".to_string(),
            std::mem::offset_of!(UpsampleUniforms, symmetric) as u32,
        ),
        (
            "c1_seam".to_string(),
            std::mem::offset_of!(UpsampleUniforms, c1_seam) as u32,
        ),
        (
            "key_base".to_string(),
            std::mem::offset_of!(UpsampleUniforms, key_base) as u32,
        ),
        (
            "row_frame_base".to_string(),
            std::mem::offset_of!(UpsampleUniforms, row_frame_base) as u32,
        ),
        (
            "column_frame_base".to_string(),
            std::mem::offset_of!(UpsampleUniforms, column_frame_base) as u32,
        ),
        (
            "render_base".to_string(),
            std::mem::offset_of!(UpsampleUniforms, render_base) as u32,
        ),
        (
            "_padding".to_string(),
            std::mem::offset_of!(UpsampleUniforms, _padding) as u32,
        ),
    ];
    assert_eq!(wgsl, rust);
}

#[test]
fn upsample_kernels_use_the_rust_workgroup_size() {
    let shader = upsample_shader();
    let (module, _) = parse_and_validate(shader.path, shader.source);
    let kernels = [
        "frame_nodes_pass",
        "column_frame_nodes_pass",
        "internal_nodes_pass",
        "normals_pass",
    ];
    for name in kernels {
        let entry = module
            .entry_points
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("entry point {name} missing"));
        assert_eq!(entry.stage, naga::ShaderStage::Compute);
        assert_eq!(
            entry.workgroup_size,
            [WORKGROUP_SIZE[0], WORKGROUP_SIZE[1], 1],
            "{name}"
        );
    }
}
