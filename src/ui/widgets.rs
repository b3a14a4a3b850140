//! The controls every panel draws its parameters with. Each reads the parameter's label, unit,
//! range, slider scale, default and meaning from its [`spec`](crate::sim::format::params::spec)
//! constant, so a panel cannot offer a value the scene validation would refuse.

use egui::Ui;

use crate::sim::format::params::spec::{Real, Switch, Whole};

/// A parameter group that draws its own controls; `ui` returns whether anything changed.
pub(crate) trait Edit {
    fn ui(&mut self, ui: &mut Ui) -> bool;
}

fn suffix(unit: &str) -> String {
    match unit {
        "" => String::new(),
        "×" => "×".into(),
        u => format!(" {u}"),
    }
}

/// A number as the panels show it: 0 as 0, very small or large values in scientific notation.
fn format_real(v: f64, decimals: std::ops::RangeInclusive<usize>) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() < 1e-3 || v.abs() >= 1e5 {
        format!("{v:.2e}")
    } else {
        egui::emath::format_with_decimals_in_range(v, decimals)
    }
}

/// The key under which the panels leave the scene's own values for the tooltips
/// ([`set_scene_values`]).
fn scene_values_id() -> egui::Id {
    egui::Id::unique("flagsim scene values")
}

/// Leaves the scene's values (as its file gave them, before any change in the panels) where
/// this frame's tooltips find them: each names the parameter table's default and, where the
/// scene gives another value, the scene's apart.
pub(crate) fn set_scene_values(ctx: &egui::Context, scene: &crate::sim::Scene) {
    let values = serde_json::json!({ "params": scene.params });
    ctx.data_mut(|d| d.insert_temp(scene_values_id(), std::sync::Arc::new(values)));
}

/// The scene's value at `path` (`params.stiffness.structural`), if the panels left one.
fn scene_value(ui: &Ui, path: &str) -> Option<serde_json::Value> {
    let values: std::sync::Arc<serde_json::Value> =
        ui.ctx().data(|d| d.get_temp(scene_values_id()))?;
    path.split('.')
        .try_fold(&*values, |v, key| v.get(key))
        .cloned()
}

/// A tooltip: the parameter's meaning, the table's default and, where it differs, the
/// scene's value (`scene`, as the panels write it).
fn help_text(help: &str, default: &str, scene: Option<String>) -> String {
    match scene {
        Some(scene) if scene != default => {
            format!("{help} Default {default} (the parameter table's); this scene's {scene}.")
        }
        _ => format!("{help} Default {default}."),
    }
}

/// A real value as the tooltips write it beside its unit.
fn with_unit(v: f64, unit: &str) -> String {
    format!("{}{}", format_real(v, 0..=6), suffix(unit))
}

/// A slider over the whole valid range of a real parameter.
pub(crate) fn real(ui: &mut Ui, spec: &Real, value: &mut f64) -> bool {
    record(spec.path, spec.min, spec.max);
    // A logarithmic slider that starts at 0 needs a smallest positive value to start its
    // decades from: three decades below the default, or six below the top.
    let smallest = if spec.default > 0.0 {
        spec.default * 1e-3
    } else {
        spec.max * 1e-6
    };
    ui.add(
        egui::Slider::new(value, spec.range())
            .logarithmic(spec.log)
            .smallest_positive(smallest)
            .custom_formatter(format_real)
            .text(spec.label)
            .suffix(suffix(spec.unit)),
    )
    .on_hover_text(help_text(
        spec.help,
        &format!("{}{}", spec.default_text, suffix(spec.unit)),
        scene_value(ui, spec.path)
            .and_then(|v| v.as_f64())
            .filter(|&v| v != spec.default)
            .map(|v| with_unit(v, spec.unit)),
    ))
    .changed()
}

/// A slider over the whole valid range of a whole-number parameter.
pub(crate) fn whole(ui: &mut Ui, spec: &Whole, value: &mut u32) -> bool {
    record(spec.path, f64::from(spec.min), f64::from(spec.max));
    ui.add(
        egui::Slider::new(value, spec.range())
            .logarithmic(spec.log)
            .text(spec.label)
            .suffix(suffix(spec.unit)),
    )
    .on_hover_text(help_text(
        spec.help,
        &spec.default.to_string(),
        scene_value(ui, spec.path)
            .and_then(|v| v.as_u64())
            .map(|v| v.to_string()),
    ))
    .changed()
}

/// A checkbox for an on/off parameter.
pub(crate) fn switch(ui: &mut Ui, spec: &Switch, value: &mut bool) -> bool {
    ui.checkbox(value, spec.label)
        .on_hover_text({
            let word = |on: bool| if on { "on" } else { "off" };
            help_text(
                spec.help,
                word(spec.default),
                scene_value(ui, spec.path)
                    .and_then(|v| v.as_bool())
                    .map(|v| word(v).to_owned()),
            )
        })
        .changed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Scene;
    use crate::sim::format::params::spec;

    #[test]
    fn a_tooltip_names_the_tables_default_and_the_scenes_value_apart() {
        // The flag preset's springs are 100 N/m; the parameter table's default is 40.
        let scene = Scene::load("flag").unwrap();
        assert_eq!(spec::STRUCTURAL.default, 40.0);
        let ctx = egui::Context::default();
        let mut found = Vec::new();
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            set_scene_values(ui.ctx(), &scene);
            found.push(scene_value(ui, spec::STRUCTURAL.path));
            found.push(scene_value(ui, spec::SUBSTEPS.path));
            found.push(scene_value(ui, "params.no.such"));
        });
        out.textures_delta.clear();
        assert_eq!(found[0], Some(serde_json::json!(100.0)));
        assert_eq!(found[1], Some(serde_json::json!(1)));
        assert_eq!(found[2], None);
        assert_eq!(
            help_text("Stiffness.", "40 N/m", Some(with_unit(100.0, "N/m"))),
            "Stiffness. Default 40 N/m (the parameter table's); this scene's 100 N/m."
        );
        // The same value, or none: the default alone.
        assert_eq!(
            help_text("Steps.", "1", Some("1".into())),
            "Steps. Default 1."
        );
        assert_eq!(help_text("Steps.", "1", None), "Steps. Default 1.");
    }
}

#[cfg(test)]
thread_local! {
    /// Every slider drawn on this thread: `(path, low end, high end)`, for the test that walks
    /// the panels.
    pub(crate) static DRAWN: std::cell::RefCell<Vec<(&'static str, f64, f64)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
fn record(path: &'static str, min: f64, max: f64) {
    DRAWN.with(|d| d.borrow_mut().push((path, min, max)));
}

#[cfg(not(test))]
fn record(_: &'static str, _: f64, _: f64) {}
