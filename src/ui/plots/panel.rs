//! The plots drawn under the 3-D view, one line per cloth in its colour.

use web_time::Instant;

use egui::{Color32, Ui};
use egui_plot::{Line, Plot, PlotPoints};

use crate::lab_report::COPY_COLOURS;

use super::live::{PLOT_HEIGHT, PlotSample, WINDOW_MAX, WINDOW_MIN};

/// The colour of cloth `copy`'s line (the lab's copy colours).
pub(crate) fn colour(copy: usize) -> Color32 {
    let [r, g, b] = COPY_COLOURS[copy % COPY_COLOURS.len()];
    Color32::from_rgb(r, g, b)
}

/// One plotted quantity: its title and how to read it from a point.
pub(super) struct Quantity {
    pub(super) title: &'static str,
    pub(super) value: fn(&PlotSample) -> Option<f64>,
    /// Whether its axis starts at 0 (a cost or an energy, never negative).
    pub(super) from_zero: bool,
}

pub(super) const QUANTITIES: [Quantity; 5] = [
    Quantity {
        title: "kinetic energy, J",
        value: |s| Some(s.kinetic_energy),
        from_zero: true,
    },
    Quantity {
        title: "max strain |x|/L",
        value: |s| Some(s.max_strain),
        from_zero: false,
    },
    Quantity {
        title: "step time, µs",
        value: |s| Some(s.step_us),
        from_zero: true,
    },
    Quantity {
        title: "Δv cosine to the filter",
        value: |s| s.dv_cosine,
        from_zero: false,
    },
    Quantity {
        title: "distance from reference (RMS), cm",
        value: |s| s.rms_distance.map(|d| 100.0 * d),
        from_zero: true,
    },
];

/// The narrowest a plot is laid out, points: below it the plots wrap into rows.
const PLOT_MIN_WIDTH: f32 = 170.0;

/// The plots panel: the window, *save CSV*, and one plot per quantity (the cosine only when
/// some point has it), side by side where the strip is wide enough and in rows of as many as
/// fit where it is not, the whole strip scrolling when it is taller than the panel; as of
/// `now` (the last refresh is kept until [`REFRESH`] after it unless `paused`).
pub(crate) fn plots_ui(ui: &mut Ui, state: &mut crate::ui::UiState, paused: bool, now: Instant) {
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| strip(ui, state, paused, now));
}

fn strip(ui: &mut Ui, state: &mut crate::ui::UiState, paused: bool, now: Instant) {
    let plots = &mut state.plots;
    // Wrapped: in a narrow window the path field and *save CSV* go to a second line rather
    // than past the window's edge.
    ui.horizontal_wrapped(|ui| {
        ui.label("window");
        if ui
            .add(
                egui::Slider::new(&mut plots.window, WINDOW_MIN..=WINDOW_MAX)
                    .suffix(" s")
                    .fixed_decimals(0),
            )
            .on_hover_text("Simulated seconds shown (and kept for the CSV)")
            .changed()
        {
            plots.trim();
            plots.drawn = None;
        }
        ui.separator();
        ui.add(egui::TextEdit::singleline(&mut plots.csv_path).desired_width(160.0))
            .on_hover_text("Where save CSV writes (relative to the folder flagsim started from)");
        if ui
            .button("save CSV")
            .on_hover_text("Every point in the window, one row per point and cloth")
            .clicked()
        {
            let path = crate::files::full_path(std::path::Path::new(&plots.csv_path));
            match crate::files::write_atomically(&path, plots.csv().as_bytes()) {
                Ok(()) => (state.notices).info(format!("saved the plots to {}", path.display())),
                Err(e) => (state.notices).error(format!("cannot save {}: {e}", path.display())),
            }
        }
    });
    let shown = plots.quantities_with_points().len().max(1);
    let width = ui.available_width();
    let per_row = ((width / PLOT_MIN_WIDTH).floor() as usize).clamp(1, shown);
    // Columns of the decimation no wider than a pixel of a plot (a plot is narrower than its
    // share of the row by its axis labels).
    let plot_px = (width * ui.pixels_per_point() / per_row as f32).ceil();
    plots.fit_columns(f64::from(plot_px.max(1.0)));
    let drawn = plots.refreshed(paused, now);
    if drawn.shown.is_empty() {
        ui.label("No steps yet: the plots fill as the cloth runs.");
        return;
    }
    let plots: Vec<usize> = (0..drawn.shown.len()).collect();
    for row in plots.chunks(per_row) {
        ui.columns(per_row, |columns| {
            for (ui, &k) in columns.iter_mut().zip(row) {
                let (title, series) = (QUANTITIES[drawn.shown[k]].title, &drawn.series[k]);
                ui.label(title);
                Plot::new(title)
                    .height(PLOT_HEIGHT)
                    .allow_zoom(false)
                    .allow_drag(false)
                    .allow_scroll(false)
                    .allow_boxed_zoom(false)
                    .show(ui, |p| {
                        // The lab's clock and the window, whatever each trace spans.
                        p.set_plot_bounds_x(drawn.x[0]..=drawn.x[1]);
                        p.set_plot_bounds_y(drawn.y[k][0]..=drawn.y[k][1]);
                        for (i, (label, points)) in drawn.labels.iter().zip(series).enumerate() {
                            let line = Line::new(label.as_str(), PlotPoints::Borrowed(points));
                            p.line(line.color(colour(i)));
                        }
                    });
            }
        });
    }
}
