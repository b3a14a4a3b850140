//! The *Detail* panel: rendering quality and the wrinkled-spline upsampling settings.

use egui::Ui;

use crate::render::{RenderQuality, ScaleMode};
use crate::sim::format::params::spec;
use crate::ui::widgets::{self, Edit};
use crate::ui::{FrameInfo, UiAction, UiState};
use crate::upsample::{DisplayMode, RenderSettings};

impl Edit for RenderSettings {
    fn ui(&mut self, ui: &mut Ui) -> bool {
        let before = self.clone();
        egui::ComboBox::from_label("display")
            .selected_text(self.mode.name())
            .show_ui(ui, |ui| {
                for mode in DisplayMode::ALL {
                    ui.selectable_value(&mut self.mode, mode, mode.name());
                }
            })
            .response
            .on_hover_text(spec::DISPLAY_MODE.help);
        if self.mode == DisplayMode::Wrinkled {
            self.wrinkles = true;
        }
        widgets::real(ui, &spec::WRINKLE_C, &mut self.wrinkle_c);
        let mut res = self.resolution[0];
        if widgets::whole(ui, &spec::RESOLUTION, &mut res) {
            self.resolution = [res, res];
        }
        widgets::switch(ui, &spec::KEY_ALIGNED, &mut self.key_aligned);
        widgets::switch(ui, &spec::SYMMETRIC, &mut self.symmetric);
        widgets::switch(ui, &spec::C1_SEAM, &mut self.c1_seam);
        *self != before
    }
}

pub(crate) fn detail_ui(
    ui: &mut Ui,
    state: &mut UiState,
    info: &FrameInfo<'_>,
    actions: &mut Vec<UiAction>,
) {
    let mut aa = Antialiasing::of(state.quality);
    let mut aniso = state.quality.anisotropy > 1;
    let before = aa;
    egui::ComboBox::from_label("anti-aliasing")
        .selected_text(aa.name())
        .show_ui(ui, |ui| {
            for a in Antialiasing::ALL {
                ui.selectable_value(&mut aa, a, a.name());
            }
        })
        .response
        .on_hover_text(
            "Smooth edges. FXAA smooths the drawn image (one full-screen pass); 4× MSAA \
             shades every pixel four times over on a software rasteriser (little cost on a real \
             GPU).",
        );
    let b = ui
        .checkbox(&mut aniso, "anisotropic filtering (8×)")
        .on_hover_text("Sharper texture at grazing angles. Costly on a software rasteriser.");
    if aa != before || b.changed() {
        state.quality = RenderQuality {
            msaa_samples: if aa == Antialiasing::Msaa4 { 4 } else { 1 },
            anisotropy: if aniso { 8 } else { 1 },
            fxaa: aa == Antialiasing::Fxaa,
        };
        actions.push(UiAction::SetQuality(state.quality));
    }
    if render_scale_ui(ui, &mut state.render_scale, info.render_scale) {
        actions.push(UiAction::SetRenderScale(state.render_scale));
    }
    state.view.render.ui(ui);
}

/// The anti-aliasing choices of the *Detail* panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Antialiasing {
    Off,
    Fxaa,
    Msaa4,
}

impl Antialiasing {
    pub(crate) const ALL: [Self; 3] = [Self::Off, Self::Fxaa, Self::Msaa4];

    /// What `quality` applies: 4× MSAA when it multisamples (FXAA is then not applied), else
    /// FXAA or nothing.
    pub(crate) fn of(quality: RenderQuality) -> Self {
        if quality.msaa_samples > 1 {
            Self::Msaa4
        } else if quality.fxaa {
            Self::Fxaa
        } else {
            Self::Off
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Fxaa => "FXAA",
            Self::Msaa4 => "4× MSAA",
        }
    }
}

/// The fixed scales offered besides *auto*.
const FIXED_SCALES: [f32; 4] = [1.0, 0.9, 0.75, 0.5];

/// The render scale: *auto* (showing the scale it chose) or a fixed one. Whether it changed.
fn render_scale_ui(ui: &mut Ui, mode: &mut ScaleMode, now: f32) -> bool {
    let name = |m: ScaleMode| match m {
        ScaleMode::Auto => format!("auto (now {:.0} %)", now * 100.0),
        ScaleMode::Fixed(s) => format!("{:.0} %", s * 100.0),
    };
    let before = *mode;
    egui::ComboBox::from_label("render scale")
        .selected_text(name(*mode))
        .show_ui(ui, |ui| {
            ui.selectable_value(mode, ScaleMode::Auto, name(ScaleMode::Auto));
            for s in FIXED_SCALES {
                ui.selectable_value(mode, ScaleMode::Fixed(s), name(ScaleMode::Fixed(s)));
            }
        })
        .response
        .on_hover_text(
            "The share of the window's width and height the 3-D view is drawn at, then \
             stretched to the window. Auto draws fewer pixels while frames take longer than \
             1/45 s (a software rasteriser) and every pixel when they are quick. Screenshots \
             and recordings are always drawn at full size.",
        );
    *mode != before
}

#[cfg(test)]
mod tests {
    use super::Antialiasing;
    use crate::render::RenderQuality;

    /// The panel shows what the quality applies: MSAA wins over the FXAA flag, as in
    /// `RenderQuality::post_aa`; every choice has its own name.
    #[test]
    fn the_anti_aliasing_shown_is_the_one_applied() {
        let q = |msaa_samples, fxaa| RenderQuality {
            msaa_samples,
            anisotropy: 1,
            fxaa,
        };
        assert_eq!(Antialiasing::of(q(1, false)), Antialiasing::Off);
        assert_eq!(Antialiasing::of(q(1, true)), Antialiasing::Fxaa);
        assert_eq!(Antialiasing::of(q(4, true)), Antialiasing::Msaa4);
        assert_eq!(Antialiasing::of(q(4, false)), Antialiasing::Msaa4);
        let names: Vec<_> = Antialiasing::ALL.iter().map(|a| a.name()).collect();
        assert_eq!(names, ["off", "FXAA", "4× MSAA"]);
    }
}
