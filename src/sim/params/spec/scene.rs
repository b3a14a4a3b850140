//! The rest of a scene: colliders, the pole's scripted motion, the solvers' settings, the
//! wavelet interpolation, and the settings outside `params` (mass, time scale, rendering).

use super::{Choice, Group, Real, Switch, Vector, Whole};

// ---- colliders (scene files only) ----------------------------------------------------------

pub const SPHERE: Group = Group {
    path: "params.colliders[].sphere",
    unit: "m",
    help: "A sphere: center (each component within ±1e4 m), radius (1e-6 – 1e4 m), \
           friction (0 – 10, 0.4), margin (0 – 1 m, 0.01).",
};

pub const GROUND: Group = Group {
    path: "params.colliders[].ground",
    unit: "m",
    help: "The plane y = height: height (±1e4 m, 0), friction (0 – 10, 0.4), margin (0 – 1 m, \
           0.01).",
};

pub const SPHERE_CENTER: Vector = Vector {
    path: "center",
    unit: "m",
    bound: 1e4,
    default: [0.0; 3],
    help: "Centre of the sphere.",
};

pub const SPHERE_RADIUS: Real = Real {
    path: "radius",
    label: "radius",
    unit: "m",
    min: 1e-6,
    max: 1e4,
    default: 0.3,
    default_text: "required",
    log: true,
    help: "Radius of the sphere.",
};

pub const GROUND_HEIGHT: Real = Real {
    path: "height",
    label: "height",
    unit: "m",
    min: -1e4,
    max: 1e4,
    default: 0.0,
    default_text: "0",
    log: false,
    help: "Height of the plane y = height.",
};

pub const FRICTION: Real = Real {
    path: "friction",
    label: "friction",
    unit: "",
    min: 0.0,
    max: 10.0,
    default: 0.4,
    default_text: "0.4",
    log: false,
    help: "Coulomb friction coefficient.",
};

pub const MARGIN: Real = Real {
    path: "margin",
    label: "margin",
    unit: "m",
    min: 0.0,
    max: 1.0,
    default: 0.01,
    default_text: "0.01",
    log: false,
    help: "Extra thickness kept between nodes and the surface.",
};

// ---- the pole's scripted motion ------------------------------------------------------------

pub const HANDLE_PATH: Choice = Choice {
    path: "params.handle.path",
    names: &["none", "figure8"],
    default: "none",
    help: "Scripted motion of the pinned nodes: a figure 8 across the wind, like a person \
           waving the flag.",
};

pub const HANDLE_AMPLITUDE: Real = Real {
    path: "params.handle.amplitude",
    label: "wave size",
    unit: "m",
    min: 0.0,
    max: 10.0,
    default: 0.3,
    default_text: "0.3",
    log: false,
    help: "Size of the figure 8.",
};

pub const HANDLE_PERIOD: Real = Real {
    path: "params.handle.period",
    label: "wave period",
    unit: "s",
    min: 0.1,
    max: 60.0,
    default: 2.0,
    default_text: "2",
    log: true,
    help: "Time for one loop of the figure 8.",
};

// ---- solvers -----------------------------------------------------------------------------

pub const CG_TOLERANCE: Real = Real {
    path: "params.cg.tolerance",
    label: "CG tolerance",
    unit: "",
    min: 1e-14,
    max: 1.0,
    default: 1e-6,
    default_text: "1e-6",
    log: true,
    help: "Relative residual at which implicit-cg's CG and choi-ko's PCG stop.",
};

pub const CG_MAX_ITERATIONS: Whole = Whole {
    path: "params.cg.max_iterations",
    label: "CG iterations",
    unit: "",
    min: 1,
    max: 10_000,
    default: 200,
    log: true,
    help: "Iteration cap of implicit-cg's CG and choi-ko's PCG.",
};

pub const FLEXURAL_RIGIDITY: Real = Real {
    path: "params.choi_ko.flexural_rigidity",
    label: "k_b",
    unit: "N·m²",
    min: 0.0,
    max: 10.0,
    default: 2e-5,
    default_text: "2e-5",
    log: true,
    help: "Flexural rigidity k_b of choi-ko's type-2 (interlaced) links: a slightly compressed \
           link pushes back with 12 k_b / L², a folded one with 4π² k_b / L² (Choi & Ko eq. 9).",
};

pub const BUCKLING_CLAMP: Real = Real {
    path: "params.choi_ko.buckling_clamp",
    label: "c_b",
    unit: "N/m",
    min: 0.0,
    max: 1e6,
    default: 40.0,
    default_text: "40",
    log: true,
    help: "Clamp c_b of Choi & Ko's eq. 11: a type-2 link's force is max(f_b, c_b (|x| − L)), \
           so compression starts linearly.",
};

pub const WAVELET: Switch = Switch {
    path: "params.wavelet.enabled",
    label: "wavelet interpolation",
    default: false,
    help: "Chi 2007: each step a Haar transform of the key normals finds flat blocks; their \
           interior nodes are interpolated from the integrated edges instead of integrated. \
           For kang and hybrid on grid cloths (ignored otherwise). Colour 'integration' shows \
           the split.",
};

pub const WAVELET_THRESHOLD: Real = Real {
    path: "params.wavelet.threshold",
    label: "threshold",
    unit: "",
    min: 0.0,
    max: 1.0,
    default: 0.025,
    default_text: "0.025",
    log: true,
    help: "Largest Haar detail of the key normals for which a block counts as flat (the \
           thesis's value; 0 interpolates nothing, higher interpolates more).",
};

// ---- outside `params` ------------------------------------------------------------------------

pub const TOTAL_MASS: Real = Real {
    path: "cloth.grid.mass",
    label: "total mass",
    unit: "kg",
    min: 1e-6,
    max: 1e6,
    default: 0.12,
    default_text: "0.12",
    log: true,
    help: "Mass of the whole cloth, spread evenly over the key nodes.",
};

pub const TIME_SCALE: Real = Real {
    path: "time scale",
    label: "time scale",
    unit: "×",
    min: 0.01,
    max: 10.0,
    default: 1.0,
    default_text: "1",
    log: true,
    help: "Simulated seconds per wall-clock second in the viewer (slow motion below 1).",
};

pub const RESOLUTION: Whole = Whole {
    path: "render.resolution",
    label: "render nodes / side",
    unit: "nodes",
    min: 2,
    max: 1024,
    default: 50,
    log: true,
    help: "Render nodes along u and v (default 50 × 50 = 2500).",
};

pub const WRINKLE_C: Real = Real {
    path: "render.wrinkle_c",
    label: "wrinkle c",
    unit: "rad",
    min: 0.0,
    max: 500.0,
    default: 60.0,
    default_text: "60",
    log: false,
    help: "Wrinkle frequency constant c of eq. 14: f = c (l0 − d) / l0.",
};

pub const DISPLAY_MODE: Choice = Choice {
    path: "render.mode",
    names: &["key-only", "smooth", "wrinkled"],
    default: "wrinkled",
    help: "key-only: the simulated mesh (Fig. 9a). smooth: cubic splines (9b). wrinkled: \
           splines with eq. 14's wrinkles where compressed (9c).",
};

pub const WRINKLES: Switch = Switch {
    path: "render.wrinkles",
    label: "wrinkles",
    default: true,
    help: "false shows smooth even in wrinkled mode.",
};

pub const KEY_ALIGNED: Switch = Switch {
    path: "render.key_aligned",
    label: "key-aligned",
    default: false,
    help: "Round the resolution to (n − 1) s + 1 so key nodes are render nodes.",
};

pub const SYMMETRIC: Switch = Switch {
    path: "render.symmetric",
    label: "symmetric",
    default: false,
    help: "Average row-first and column-first upsampling.",
};

pub const C1_SEAM: Switch = Switch {
    path: "render.c1_seam",
    label: "C¹ seam",
    default: false,
    help: "Round f to a multiple of π so wrinkles meet the next segment smoothly.",
};
