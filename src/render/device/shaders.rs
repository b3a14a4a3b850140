//! Every WGSL file of the crate, loaded in this one place.
//!
//! Shaders are compiled into the binary with `include_str!`, so the viewer needs no asset path at
//! run time; [`ALL`] lists them for `tests/shaders.rs`, which validates each with naga and also
//! checks that no file under `shaders/` is missing from the list.

/// A WGSL source and the path it came from (relative to the crate root).
#[derive(Debug, Clone, Copy)]
pub struct ShaderFile {
    pub path: &'static str,
    pub source: &'static str,
    /// WGSL put in front of `source` when compiling (the drawing passes share `globals.wgsl`).
    pub prelude: &'static str,
}

impl ShaderFile {
    /// The source as handed to `create_shader_module`.
    pub fn compiled(&self) -> String {
        if self.prelude.is_empty() {
            self.source.to_string()
        } else {
            format!("{}\n{}", self.prelude, self.source)
        }
    }
}

/// The upsampler's compute kernels (`UpsamplePass`).
pub(crate) const UPSAMPLE_WGSL: &str = include_str!("../../../shaders/upsample.wgsl");
/// A shaped flag's cut key nodes continued on the device (`CutFillPass`).
pub(crate) const FILL_CUT_WGSL: &str = include_str!("../../../shaders/fill_cut.wgsl");
/// WGSL shared by all drawing passes (struct `Globals`, sRGB and ambient helpers).
pub const GLOBALS_WGSL: &str = include_str!("../../../shaders/globals.wgsl");
/// The cloth surface's shared part (`ClothPass`): uniforms, the vertex helpers and the fragment
/// shaders, compiled after [`GLOBALS_WGSL`] and before one render path's vertex entry points.
pub(crate) const CLOTH_WGSL: &str = include_str!("../../../shaders/cloth.wgsl");
/// [`GLOBALS_WGSL`] and [`CLOTH_WGSL`], what each render path's cloth vertices follow.
pub(crate) const CLOTH_PRELUDE: &str = concat!(
    include_str!("../../../shaders/globals.wgsl"),
    "\n",
    include_str!("../../../shaders/cloth.wgsl")
);
/// The cloth's vertices on the compute path: pulled from storage buffers.
pub(crate) const CLOTH_STORAGE_WGSL: &str = include_str!("../../../shaders/cloth_storage.wgsl");
/// The cloth's vertices on the CPU-upsampling path (WebGL2): from a vertex buffer.
pub(crate) const CLOTH_VERTICES_WGSL: &str = include_str!("../../../shaders/cloth_vertices.wgsl");
/// Line overlays (`LinesPass`), compiled after [`GLOBALS_WGSL`].
pub(crate) const LINES_WGSL: &str = include_str!("../../../shaders/lines.wgsl");
/// Sky, ground, pole and colliders (`ScenePass`), compiled after [`GLOBALS_WGSL`].
pub(crate) const SCENE_WGSL: &str = include_str!("../../../shaders/scene.wgsl");

/// The viewer's cached egui layer over the frame (`app::egui_glue::EguiPainter`).
pub(crate) const COMPOSITE_WGSL: &str = include_str!("../../../shaders/composite.wgsl");
/// The 3-D view drawn at a lower render scale, stretched over the frame (`UpscalePass`).
pub(crate) const UPSCALE_WGSL: &str = include_str!("../../../shaders/upscale.wgsl");
/// Post-process anti-aliasing of the 3-D view (`UpscalePass::record_fxaa`).
pub(crate) const FXAA_WGSL: &str = include_str!("../../../shaders/fxaa.wgsl");

/// A pass's WGSL with [`GLOBALS_WGSL`] in front, as handed to `create_shader_module`.
pub(crate) fn with_globals(pass_wgsl: &str) -> String {
    format!("{GLOBALS_WGSL}\n{pass_wgsl}")
}

/// Every shader file, for validation.
pub const ALL: &[ShaderFile] = &[
    ShaderFile {
        path: "shaders/fill_cut.wgsl",
        source: FILL_CUT_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_air.wgsl",
        source: crate::gpu_sim::SIM_AIR_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_guard.wgsl",
        source: crate::gpu_sim::SIM_GUARD_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_collide.wgsl",
        source: crate::gpu_sim::SIM_COLLIDE_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_forces.wgsl",
        source: crate::gpu_sim::SIM_FORCES_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_held.wgsl",
        source: crate::gpu_sim::SIM_HELD_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_implicit.wgsl",
        source: crate::gpu_sim::SIM_IMPLICIT_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_rhs.wgsl",
        source: crate::gpu_sim::SIM_RHS_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_solve.wgsl",
        source: crate::gpu_sim::SIM_SOLVE_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_step_end.wgsl",
        source: crate::gpu_sim::SIM_STEP_END_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_strain.wgsl",
        source: crate::gpu_sim::SIM_STRAIN_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/sim_transfer.wgsl",
        source: crate::gpu_sim::SIM_TRANSFER_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/upsample.wgsl",
        source: UPSAMPLE_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/globals.wgsl",
        source: GLOBALS_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/cloth.wgsl",
        source: CLOTH_WGSL,
        prelude: GLOBALS_WGSL,
    },
    ShaderFile {
        path: "shaders/cloth_storage.wgsl",
        source: CLOTH_STORAGE_WGSL,
        prelude: CLOTH_PRELUDE,
    },
    ShaderFile {
        path: "shaders/cloth_vertices.wgsl",
        source: CLOTH_VERTICES_WGSL,
        prelude: CLOTH_PRELUDE,
    },
    ShaderFile {
        path: "shaders/lines.wgsl",
        source: LINES_WGSL,
        prelude: GLOBALS_WGSL,
    },
    ShaderFile {
        path: "shaders/scene.wgsl",
        source: SCENE_WGSL,
        prelude: GLOBALS_WGSL,
    },
    ShaderFile {
        path: "shaders/composite.wgsl",
        source: COMPOSITE_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/upscale.wgsl",
        source: UPSCALE_WGSL,
        prelude: "",
    },
    ShaderFile {
        path: "shaders/fxaa.wgsl",
        source: FXAA_WGSL,
        prelude: "",
    },
];
