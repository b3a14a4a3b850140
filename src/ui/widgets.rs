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
    .on_hover_text(format!("{} Default {}.", spec.help, spec.default_text))
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
    .on_hover_text(format!("{} Default {}.", spec.help, spec.default))
    .changed()
}

/// A checkbox for an on/off parameter.
pub(crate) fn switch(ui: &mut Ui, spec: &Switch, value: &mut bool) -> bool {
    ui.checkbox(value, spec.label)
        .on_hover_text(format!(
            "{} Default {}.",
            spec.help,
            if spec.default { "on" } else { "off" }
        ))
        .changed()
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
