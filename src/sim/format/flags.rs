//! Several flags in one scene: the scene's list `flags`, each entry a flag on its own pole.
//!
//! A scene without `flags` is one flag, its `cloth`, as it always was. A scene with them flies
//! one flag per entry; the scene's `cloth.grid`, `render.texture`, `render.setting` and
//! `params.hoist` are what every entry starts from, and an entry changes what it names: its
//! image, its size, its shape, its pole (where it stands, how tall, its colour and finial)
//! and its hoist. Each flag is simulated as a scene of its own ([`Scene::flag_scene`]), all of
//! them with the scene's parameters (wind, time step, integrator, stiffness: shared), side by
//! side on the simulation thread.
//!
//! Where a flag is: its pole stands at `pole.position` (its foot) and is `pole.height` tall;
//! the top of the flag's hoist edge is at the top of the pole. Left out, the `k`-th flag's pole
//! stands where the scene's own flag's does, `k` spacings along x ([`Scene::flag_spacing`]),
//! as tall as the scene's own flag makes it.

use std::sync::Arc;

use glam::DVec3;

use crate::sim::format::error::SimError;
use crate::sim::format::flag_spec::{FlagSpec, PoleSpec};
use crate::sim::format::outline::AlphaMask;
use crate::sim::format::params::Collider;
use crate::sim::format::scene::{GridSpec, Plane, Scene};

/// The most flags a scene may fly.
pub(crate) const MAX_FLAGS: usize = 64;

/// Where the top of a grid's hoist edge (node `i = 0`, `j = ny − 1`) is.
fn hoist_top(g: &GridSpec) -> DVec3 {
    if let Some(p) = &g.positions
        && let Some(x) = p.get((g.ny - 1) * g.nx)
    {
        return DVec3::from_array(*x);
    }
    let up = match g.plane {
        Plane::Xy => DVec3::Y,
        Plane::Xz => DVec3::NEG_Z,
    };
    DVec3::from_array(g.origin) + up * g.height
}

/// The ground collider's height, 0 without one.
pub(crate) fn ground_of(scene: &Scene) -> f64 {
    scene
        .params
        .colliders
        .iter()
        .find_map(|c| match c {
            Collider::Ground(g) => Some(g.height),
            Collider::Sphere(_) => None,
        })
        .unwrap_or(0.0)
}

impl Scene {
    /// How many flags the scene flies: its `flags`, or its one cloth.
    pub fn flag_count(&self) -> usize {
        self.flags.len().max(1)
    }

    /// The distance between two poles placed along x when the scene does not place them: the
    /// widest flag and half again.
    pub(crate) fn flag_spacing(&self) -> f64 {
        let base = self.cloth.grid.as_ref().map_or(1.0, |g| g.width);
        let widest = self
            .flags
            .iter()
            .filter_map(|f| f.size.map(|s| s[0]))
            .fold(base, f64::max);
        1.5 * widest
    }

    /// Where flag `index`'s pole stands and how tall it is when its entry does not say: the
    /// scene's own flag's pole, `index` spacings along x.
    pub fn default_pole(&self, index: usize) -> ([f64; 3], f64) {
        let Some(grid) = &self.cloth.grid else {
            return ([0.0; 3], 1.0);
        };
        let top = hoist_top(grid);
        let ground = ground_of(self);
        let foot = [top.x + index as f64 * self.flag_spacing(), ground, top.z];
        (foot, (top.y - ground).max(1e-3))
    }

    /// The scene of flag `index` alone: the scene's cloth, image, setting and hoist as that
    /// entry changes them, without `flags`. A scene without `flags` is its own flag 0.
    /// `index` must be below [`Scene::flag_count`].
    #[must_use]
    pub fn flag_scene(&self, index: usize) -> Scene {
        let mut scene = self.clone();
        scene.flags = Vec::new();
        let Some(flag) = self.flags.get(index) else {
            return scene;
        };
        if let Some(image) = &flag.image {
            scene.render.texture = Some(image.clone());
        }
        if let Some(hoist) = flag.hoist {
            scene.params.hoist = hoist;
        }
        let setting = &mut scene.render.setting;
        if let Some(c) = flag.pole.color {
            setting.pole_color = c;
        }
        if let Some(f) = flag.pole.finial {
            setting.finial = f;
        }
        if let Some(c) = flag.pole.finial_color {
            setting.finial_color = c;
        }
        let (default_foot, default_height) = self.default_pole(index);
        if let Some(grid) = scene.cloth.grid.as_mut() {
            if let Some([w, h]) = flag.size {
                grid.width = w;
                grid.height = h;
                grid.size_written = [true, true];
            }
            if let Some(shape) = flag.shape {
                grid.shape = shape;
            }
            if flag.alpha.is_some() || flag.image.is_some() {
                grid.alpha.clone_from(&flag.alpha);
            }
            // The hoist edge's top goes to the top of the pole; the whole grid moves with it.
            let foot = DVec3::from_array(flag.pole.position.unwrap_or(default_foot));
            let top = foot + DVec3::Y * flag.pole.height.unwrap_or(default_height);
            let shift = top - hoist_top(grid);
            grid.origin = (DVec3::from_array(grid.origin) + shift).to_array();
            for x in grid.positions.iter_mut().flatten() {
                *x = (DVec3::from_array(*x) + shift).to_array();
            }
        }
        scene
    }

    /// Every flag's scene, flag 0 first.
    pub fn flag_scenes(&self) -> Vec<Scene> {
        (0..self.flag_count()).map(|k| self.flag_scene(k)).collect()
    }

    /// The scene's flags as a list: its `flags`, or one entry standing for its own cloth.
    pub fn flag_list(&self) -> Vec<FlagSpec> {
        if self.flags.is_empty() {
            vec![FlagSpec::default()]
        } else {
            self.flags.clone()
        }
    }

    /// Checks `flags`: the count, each entry's fields, and that each flag makes a cloth.
    pub(crate) fn validate_flags(&self) -> Result<(), SimError> {
        if self.flags.is_empty() {
            return Ok(());
        }
        if self.flags.len() > MAX_FLAGS {
            return Err(SimError::CountOutOfRange {
                field: "flags".into(),
                value: self.flags.len() as u64,
                min: 0,
                max: MAX_FLAGS as u64,
            });
        }
        if self.cloth.grid.is_none() {
            return Err(SimError::Structure {
                field: "flags",
                problem: "several flags need a grid cloth (`cloth.grid`), not explicit nodes",
            });
        }
        for (k, flag) in self.flags.iter().enumerate() {
            flag.validate(k)?;
            self.flag_scene(k)
                .validate_one()
                .map_err(|e| SimError::InFlag {
                    flag: k,
                    error: Box::new(e),
                })?;
        }
        Ok(())
    }

    /// Flag `index`'s image's transparency (see [`Scene::set_flag_alpha`]).
    pub fn set_alpha_of_flag(&mut self, index: usize, width: usize, height: usize, alpha: &[u8]) {
        if self.flags.is_empty() {
            self.set_flag_alpha(width, height, alpha);
        } else if let Some(flag) = self.flags.get_mut(index) {
            flag.alpha = AlphaMask::from_alpha(width, height, alpha)
                .filter(|_| alpha.iter().any(|&a| a < 128))
                .map(Arc::new);
        }
    }

    /// Gives flag `index` its image's proportions as [`Scene::fit_to_image`] does for the
    /// scene's own flag (a flag whose entry gives its size keeps it). Returns whether its size
    /// changed.
    pub fn fit_flag_to_image(&mut self, index: usize, width: u32, height: u32) -> bool {
        if self.flags.is_empty() {
            return self.fit_to_image(width, height);
        }
        if self.flags.get(index).is_none_or(|f| f.size.is_some()) {
            return false;
        }
        let mut alone = self.flag_scene(index);
        if !alone.fit_to_image(width, height) {
            return false;
        }
        if let Some(g) = alone.cloth.grid {
            self.flags[index].size = Some([g.width, g.height]);
        }
        true
    }

    /// Makes the scene a list of flags (its own cloth becomes the first entry), so flags can
    /// be added to it.
    pub(crate) fn make_flag_list(&mut self) {
        if self.flags.is_empty() {
            self.flags.push(FlagSpec::default());
        }
    }

    /// Makes the scene a list of flags whose every pole says where it stands and how tall it
    /// is (where it stands now), so that adding or removing a flag moves none of the others.
    pub fn place_flags(&mut self) {
        self.make_flag_list();
        for k in 0..self.flags.len() {
            let (foot, height) = self.default_pole(k);
            let pole = &mut self.flags[k].pole;
            pole.position.get_or_insert(foot);
            pole.height.get_or_insert(height);
        }
    }

    /// A new flag for the end of the list: a pole a spacing ([`Scene::flag_spacing`]) past the
    /// farthest along +x, in the row of the scene's own flag, as tall as its pole.
    pub(crate) fn next_flag(&self) -> FlagSpec {
        let (mut foot, height) = self.default_pole(0);
        let farthest = (0..self.flag_count())
            .map(|k| {
                self.flags
                    .get(k)
                    .and_then(|f| f.pole.position)
                    .unwrap_or_else(|| self.default_pole(k).0)[0]
            })
            .fold(f64::NEG_INFINITY, f64::max);
        foot[0] = farthest + self.flag_spacing();
        FlagSpec {
            pole: PoleSpec {
                position: Some(foot),
                height: Some(height),
                ..PoleSpec::default()
            },
            ..FlagSpec::default()
        }
    }
}
