//! The step's parameters: integrator, time step, stiffness, damping, the air and strain
//! limiting.

use super::{Choice, Real, Switch, Vector, Whole};

// ---- the step ----------------------------------------------------------------------------

pub const INTEGRATOR: Choice = Choice {
    path: "params.integrator",
    names: &[
        "kang",
        "explicit-euler",
        "symplectic-euler",
        "verlet",
        "implicit-cg",
        "desbrun",
        "hybrid",
        "xpbd",
        "choi-ko",
    ],
    default: "kang",
    help: "The time integrator. kang: the paper's O(n) approximate implicit update (eq. 10). \
           desbrun: the precomputed filter it approximates. implicit-cg: full backward Euler. \
           hybrid: the thesis's combined integrator. xpbd: position-based constraints. \
           choi-ko: buckling model with BDF2, stable at very large dt. The explicit schemes \
           blow up at large dt; the guard catches it.",
};

pub const DT: Real = Real {
    path: "params.dt",
    label: "dt",
    unit: "s",
    min: 1e-5,
    max: 0.5,
    default: 1.0 / 60.0,
    default_text: "1/60",
    log: true,
    help: "Published step: simulated seconds per step. choi-ko and implicit-cg stay stable up \
           to 0.5 s; the others give up between 0.01 and 0.3 s (README, Performance).",
};

pub const SUBSTEPS: Whole = Whole {
    path: "params.substeps",
    label: "substeps",
    unit: "",
    min: 1,
    max: 100,
    default: 1,
    log: true,
    help: "Physics steps per dt; each advances h = dt / substeps.",
};

pub const JACOBI_ITERATIONS: Whole = Whole {
    path: "params.jacobi_iterations",
    label: "Jacobi iterations",
    unit: "",
    min: 1,
    max: 50,
    default: 2,
    log: false,
    help: "kang's and hybrid's Jacobi sweeps: 1 = eq. 9, 2 = eq. 10 (the paper), more converge \
           to the filter.",
};

pub const XPBD_SUBSTEPS: Whole = Whole {
    path: "params.xpbd_substeps",
    label: "XPBD substeps",
    unit: "",
    min: 1,
    max: 100,
    default: 10,
    log: true,
    help: "xpbd's substeps per physics step, one constraint pass each (compliance = 1/k).",
};

pub const STRUCTURAL: Real = Real {
    path: "params.stiffness.structural",
    label: "structural k",
    unit: "N/m",
    min: 0.0,
    max: 1e6,
    default: 40.0,
    default_text: "40",
    log: true,
    help: "Stiffness of the 4-neighbour springs.",
};

pub const SHEAR: Real = Real {
    path: "params.stiffness.shear",
    label: "shear k",
    unit: "N/m",
    min: 0.0,
    max: 1e6,
    default: 10.0,
    default_text: "10",
    log: true,
    help: "Stiffness of the diagonal springs.",
};

pub const BEND: Real = Real {
    path: "params.stiffness.bend",
    label: "bend k",
    unit: "N/m",
    min: 0.0,
    max: 1e6,
    default: 1.0,
    default_text: "1",
    log: true,
    help: "Stiffness of the springs two nodes apart along rows and columns (resists bending).",
};

pub const DAMPING: Real = Real {
    path: "params.damping",
    label: "spring damping",
    unit: "N·s/m",
    min: 0.0,
    max: 1e3,
    default: 0.0,
    default_text: "0",
    log: true,
    help: "Damping along each spring, for every integrator.",
};

pub const VISCOSITY: Switch = Switch {
    path: "params.viscosity",
    label: "viscosity term (eq. 4)",
    default: true,
    help: "The h Σ k (v_j − v_i) term of eq. 4 in F̃, for kang, desbrun and hybrid.",
};

pub const FILTER_EXTERNAL: Switch = Switch {
    path: "params.filter_external",
    label: "filter external forces",
    default: false,
    help: "Feed gravity and air through the filter of eq. 10 too (for comparison). Off: they \
           are added after, since filtering them makes the cloth fall too slowly.",
};

pub const GRAVITY: Vector = Vector {
    path: "params.gravity",
    unit: "m/s²",
    bound: 1e3,
    default: [0.0, -9.81, 0.0],
    help: "Gravity.",
};

// ---- the air -----------------------------------------------------------------------------

/// The wind's speed on the panel (its direction is two angles there); the scene gives the
/// vector [`WIND_VELOCITY`], whose components share this bound.
pub const WIND_SPEED: Real = Real {
    path: "params.wind.velocity",
    label: "speed",
    unit: "m/s",
    min: 0.0,
    max: 200.0,
    default: 6.0,
    default_text: "6",
    log: true,
    help: "Base wind speed (the paper's Fig. 7 uses 40 m/s).",
};

pub const WIND_VELOCITY: Vector = Vector {
    path: "params.wind.velocity",
    unit: "m/s",
    bound: WIND_SPEED.max,
    default: [WIND_SPEED.default, 0.0, 0.0],
    help: "Base wind.",
};

pub const DRAG: Real = Real {
    path: "params.wind.drag",
    label: "K_D",
    unit: "kg/m",
    min: 0.0,
    max: 10.0,
    default: 0.004,
    default_text: "0.004",
    log: true,
    help: "Drag constant K_D of eq. 17.",
};

pub const LIFT: Real = Real {
    path: "params.wind.lift",
    label: "K_L",
    unit: "kg/m",
    min: 0.0,
    max: 10.0,
    default: 0.002,
    default_text: "0.002",
    log: true,
    help: "Lift constant K_L of eq. 19.",
};

pub const LIFT_MODEL: Choice = Choice {
    path: "params.wind.lift_model",
    names: &["paper", "smooth"],
    default: "paper",
    help: "paper: eqs. 18–19 literally, which flip sign when the cloth is edge-on (makes flags \
           buzz). smooth: a lift that vanishes edge-on.",
};

pub const DRAG_MODEL: Choice = Choice {
    path: "params.wind.drag_model",
    names: &["semi-implicit", "explicit"],
    default: "semi-implicit",
    help: "semi-implicit: Δv_D = −(c h/(m + c h)) v_rel, never reverses the relative velocity. \
           explicit: eq. 17 as a force, which overshoots for light nodes in strong wind.",
};

pub const LINEAR: Real = Real {
    path: "params.wind.linear",
    label: "linear wind k_w",
    unit: "kg/s",
    min: 0.0,
    max: 10.0,
    default: 0.004,
    default_text: "0.004",
    log: true,
    help: "huang-2014's linear wind F = k_w (v_wind − v): the paper's drag and lift vanish on \
           cloth edge-on to the wind, so without this pull a flag in steady wind hangs.",
};

pub const GUST_STRENGTH: Real = Real {
    path: "params.wind.gust.strength",
    label: "gusts",
    unit: "",
    min: 0.0,
    max: 2.0,
    default: 0.6,
    default_text: "0.6",
    log: false,
    help: "Relative fluctuation of the wind speed (0 = steady).",
};

pub const GUST_PERIOD: Real = Real {
    path: "params.wind.gust.period",
    label: "gust period",
    unit: "s",
    min: 0.05,
    max: 60.0,
    default: 1.0,
    default_text: "1",
    log: true,
    help: "Typical time between gusts.",
};

/// The seed is any `u64`; the panel edits it as a `u32`.
pub const GUST_SEED_DEFAULT: u64 = 1;

pub const RESPONSE: Real = Real {
    path: "params.wind.response",
    label: "air response",
    unit: "s",
    min: 0.0,
    max: 10.0,
    default: 0.5,
    default_text: "0.5",
    log: false,
    help: "Time constant with which the air follows a change of the wind (0 = at once), so \
           turning the wind up does not hit the cloth as a step.",
};

// ---- strain limiting ---------------------------------------------------------------------

pub const PROVOT: Switch = Switch {
    path: "params.provot.enabled",
    label: "strain limiting (Provot)",
    default: true,
    help: "Shorten springs stretched beyond (1 + τ) L after every step.",
};

pub const MAX_STRETCH: Real = Real {
    path: "params.provot.max_stretch",
    label: "τ",
    unit: "",
    min: 0.0,
    max: 10.0,
    default: 0.1,
    default_text: "0.1",
    log: true,
    help: "Largest allowed stretch τ (0.1 = 10 %): springs longer than (1 + τ) L are shortened.",
};

pub const PROVOT_ITERATIONS: Whole = Whole {
    path: "params.provot.iterations",
    label: "sweeps",
    unit: "",
    min: 0,
    max: 100,
    default: 4,
    log: false,
    help: "Most Gauss–Seidel sweeps of the strain limiter per step; they stop at the first \
           sweep that corrects nothing.",
};

pub const TETHERS: Switch = Switch {
    path: "params.provot.tethers",
    label: "tethers",
    default: true,
    help: "Long-range attachments before the sweeps: every free node kept within its rest \
           distance along the cloth from the pole, the pins and the grabbed node. One cheap \
           pass holds a cloth of any resolution, which the sweeps alone cannot.",
};

pub const TETHER_STRETCH: Real = Real {
    path: "params.provot.tether_stretch",
    label: "tether slack",
    unit: "",
    min: 0.0,
    max: 10.0,
    default: 0.0,
    default_text: "0",
    log: true,
    help: "How far a tether may stretch beyond its rest distance (0.05 = 5 %). Slack lets the \
           cloth sag until every tether is taut: a cloth held at two separate places needs \
           some, or it hangs flat and taut between them.",
};
