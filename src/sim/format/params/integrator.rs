//! The integrator registry: the integrators' enum, their names and their order.

use serde::{Deserialize, Serialize};

/// The integrator registry: each integrator is one line here (its variant, with its doc and
/// attributes, and its name on the command line and in scene files), from which the enum,
/// [`IntegratorKind::ALL`] (in this order) and [`IntegratorKind::name`] are generated, so none
/// of them can be out of step with another. What else a new integrator needs, the compiler
/// asks for: its constructor in `integrators::make` (an exhaustive match), its style in
/// `bench::plot::STYLES` (an array as long as `ALL`), and `parameters.toml`'s `INTEGRATOR`
/// names (a test compares them with `ALL`). ARCHITECTURE.md walks through it.
macro_rules! integrator_registry {
    ($($(#[$attr:meta])* $variant:ident => $name:literal,)+) => {
        /// The integrators of docs/method.md §3.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
        #[serde(rename_all = "kebab-case")]
        pub enum IntegratorKind {
            $($(#[$attr])* $variant,)+
        }

        impl IntegratorKind {
            /// Every integrator, in the registry's order: `ALL[k.index()] == k`.
            pub const ALL: [IntegratorKind; [$($name),+].len()] = [$(IntegratorKind::$variant),+];

            /// The name used on the command line and in scene files.
            pub fn name(self) -> &'static str {
                match self {
                    $(IntegratorKind::$variant => $name,)+
                }
            }
        }
    };
}

integrator_registry! {
    /// Kang et al.'s approximate implicit update: Jacobi iterations on the filter system (eq. 10).
    Kang => "kang",
    /// Forward Euler: `v' = v + h F/m`, `x' = x + h v`.
    ExplicitEuler => "explicit-euler",
    /// Semi-implicit Euler: `v' = v + h F/m`, `x' = x + h v'`.
    SymplecticEuler => "symplectic-euler",
    /// Position Verlet: `x' = 2x - x_prev + h² F/m`.
    Verlet => "verlet",
    /// Linearised backward Euler (Baraff–Witkin) solved by conjugate gradients.
    ImplicitCg => "implicit-cg",
    /// Desbrun et al.'s precomputed filter (eq. 5), a dense inverse.
    Desbrun => "desbrun",
    /// Chi 2007 §4.3: `Δv` from `kang`, position advanced with the old velocity.
    Hybrid => "hybrid",
    /// Extended position-based dynamics: substeps of distance constraints with compliance `1/k`.
    Xpbd => "xpbd",
    /// Choi & Ko 2002: the immediate buckling model, BDF2 solved by block-preconditioned CG.
    ChoiKo => "choi-ko",
    /// Kang's system with the external forces inside, solved by multigrid V-cycles: it keeps
    /// a stiff, fine cloth's shape at the cost of a few Jacobi sweeps, but Desbrun's Hessian
    /// damps bending and flapping.
    KangMg => "kang-mg",
    /// Backward Euler with the full spring Jacobian (`implicit-cg`'s system) by
    /// multigrid-preconditioned CG (the default: the accurate solve at one substep, the
    /// flapping `kang-mg` damps kept).
    #[default]
    ImplicitMg => "implicit-mg",
}

impl IntegratorKind {
    /// Its place in [`IntegratorKind::ALL`] (per-integrator tables index by it).
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the GPU steps it (`gpu_sim`: `kang-mg`, and `implicit-mg`'s solve in colours);
    /// a cloth moved to the GPU with another integrator steps `kang-mg` there.
    pub(crate) fn steps_on_gpu(self) -> bool {
        matches!(self, IntegratorKind::KangMg | IntegratorKind::ImplicitMg)
    }

    /// Whether the step runs an iterative solver whose iterations it reports (`stats.solver`).
    pub(crate) fn has_solver(self) -> bool {
        matches!(
            self,
            IntegratorKind::ImplicitCg
                | IntegratorKind::ChoiKo
                | IntegratorKind::KangMg
                | IntegratorKind::ImplicitMg
        )
    }

    /// Members of the implicit family see the viscosity term of eq. 4 in `F̃`.
    pub(crate) fn uses_filter_system(self) -> bool {
        matches!(
            self,
            IntegratorKind::Kang
                | IntegratorKind::Desbrun
                | IntegratorKind::Hybrid
                | IntegratorKind::KangMg
        )
    }
}

#[cfg(test)]
mod registry_tests {
    use crate::sim::format::params::{IntegratorKind, spec};

    #[test]
    fn every_integrator_has_its_own_slot_name_and_scene_spelling() {
        let all = IntegratorKind::ALL;
        for (i, kind) in all.iter().enumerate() {
            assert_eq!(kind.index(), i, "{kind:?}");
            assert_eq!(IntegratorKind::from_name(kind.name()), Some(*kind));
            // The scene file's spelling (serde) is the name the command line takes.
            let json = serde_json::to_string(kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(
                serde_json::from_str::<IntegratorKind>(&json).unwrap(),
                *kind
            );
            for other in &all[i + 1..] {
                assert_ne!(kind.name(), other.name());
            }
        }
    }

    #[test]
    fn the_parameter_table_lists_the_registry_in_its_order() {
        let names: Vec<&str> = IntegratorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(spec::INTEGRATOR.names, names.as_slice());
        assert_eq!(spec::INTEGRATOR.default, IntegratorKind::default().name());
    }
}
