//! The long-lived passes: the upsampler, the cloth, lines and scene passes, the full-screen
//! passes (FXAA and the stretch), the cut-node fill, the flag's image.

pub mod cloth_pass;
pub(crate) mod cut_fill;
pub mod flag_texture;
pub mod fullscreen;
pub mod lines_pass;
pub mod scene_pass;
pub mod upsample_pass;
pub mod upscale_pass;
