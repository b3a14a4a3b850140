//! Settings that stay: the window's size, the camera, the panels' values, the last scene with
//! its flag image and the recent files, kept between runs in `settings.json` in the platform's
//! config folder (`$XDG_CONFIG_HOME/flagsim/` on Linux; `FLAGSIM_CONFIG_DIR` overrides it, so
//! tests never touch a real home).
//!
//! The file is read once at start and written (atomically, through [`crate::files`]) when a
//! value has stayed changed for [`SAVE_DELAY`] and on exit, never every frame. Reading never
//! fails a start: each field is read on its own and checked with the same rules as a scene file
//! or the panels (`Params::validate`, the parameter table's ranges); a field that is missing,
//! of the wrong type or out of range takes its default, with one warning naming it. A file that
//! is not JSON at all is ignored with a warning. `--no-persist` neither reads nor writes it.
//!
//! Which values come back: the last scene (its parameters, detail settings and flag image as
//! the panels had them) and the camera only when no scene is named on the command line; the
//! window size unless `--size` is given; the render scale unless `--render-scale` is given;
//! the rest (display and overlays, anti-aliasing, time scale, record rate, live plots, the
//! lab's choice, the path fields, the recent files) always.

mod camera;
mod store;
#[cfg(test)]
mod tests;
mod values;

pub(crate) use camera::*;
pub(crate) use store::*;
pub(crate) use values::*;
