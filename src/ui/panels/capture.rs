//! The *Capture* panel: screenshots, and recordings (PNG sequence, GIF or MP4; in a page a GIF)
//! taken in lock-step with the simulation.

use egui::Ui;

use crate::ui::{RecordFormat, UiAction, UiState};

pub(crate) fn capture_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<UiAction>) {
    ui.checkbox(&mut state.capture.screenshot_panels, "include the panels");
    if ui
        .button("screenshot (F12)")
        .on_hover_text(if cfg!(target_arch = "wasm32") {
            "Downloads the frame as a PNG"
        } else {
            "Saves a PNG in screenshots/"
        })
        .clicked()
    {
        actions.push(UiAction::Screenshot);
    }
    ui.separator();
    // A page has no folder to write frames into, nor ffmpeg to encode them: it records a GIF.
    let in_page = cfg!(target_arch = "wasm32");
    if in_page {
        state.capture.record_format = RecordFormat::Gif;
    }
    ui.add_enabled_ui(state.capture.recording.is_none(), |ui| {
        ui.horizontal(|ui| {
            ui.label("record");
            if in_page {
                ui.label(RecordFormat::Gif.label()).on_hover_text(
                    "A looping GIF, downloaded when the recording stops (at most 50 frames per \
                     second)",
                );
            }
            for format in RecordFormat::ALL.into_iter().filter(|_| !in_page) {
                ui.radio_value(&mut state.capture.record_format, format, format.label())
                    .on_hover_text(match format {
                        RecordFormat::PngSequence => {
                            "One PNG per frame in a new folder in screenshots/"
                        }
                        RecordFormat::Gif => {
                            "A looping GIF in screenshots/ (at most 50 frames per second)"
                        }
                        RecordFormat::Mp4 => "An H.264 MP4 in screenshots/; needs ffmpeg on PATH",
                    });
            }
        });
        let range = state.capture.record_format.fps_range();
        state.capture.record_fps = state.capture.record_fps.clamp(*range.start(), *range.end());
        ui.add(
            egui::Slider::new(&mut state.capture.record_fps, range)
                .text("record rate")
                .suffix(" frames per simulated s"),
        )
        .on_hover_text(
            "Frames are taken at this simulated rate, whatever the display does: the simulation \
             is paused and stepped by the recorder, and the clip plays at the simulation's speed.",
        );
    });
    let label = match (&state.capture.recording, state.capture.record_format) {
        (Some(_), _) => "stop recording".to_string(),
        (None, format) => format!("record {}", format.label()),
    };
    if ui.button(label).clicked() {
        actions.push(UiAction::ToggleRecording);
    }
    if let Some(r) = &state.capture.recording {
        ui.label(format!(
            "{} frames ({:.1} s) so far, {} {}",
            r.frames,
            f64::from(r.frames) / r.fps,
            if in_page { "for" } else { "to" },
            r.path.display()
        ));
    }
}
