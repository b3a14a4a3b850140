//! The viewer's keyboard, as one table: what each key does and the `h` overlay's text both come
//! from [`BINDINGS`], so they cannot disagree. [`action_for`] maps a winit key to what it asks
//! for, without a window; the viewer then carries it out.

use winit::keyboard::{Key, NamedKey};

use super::controls::ViewKey;
use crate::sim::IntegratorKind;
use crate::sim::format::params::Hoist;

/// What a key asks the viewer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    TogglePause,
    /// One step while paused.
    Step,
    Reset,
    ToggleWireframe,
    ToggleDvOverlay,
    SetIntegrator(IntegratorKind),
    Screenshot,
    TogglePanels,
    ToggleHelp,
    View(ViewKey),
    /// Send the flag to the top of its pole, half-mast or the bottom
    /// ([`crate::ui::UiState::set_hoist`]).
    Hoist(HoistTo),
    /// Close the viewer (Ctrl+Q; Esc when nothing in the panels has focus).
    Quit,
}

/// Where a hoist key sends the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoistTo {
    Top,
    HalfMast,
    Bottom,
}

impl HoistTo {
    /// The hoist height (`params.hoist.height`) it asks for.
    pub fn height(self) -> f64 {
        match self {
            Self::Top => Hoist::TOP,
            Self::HalfMast => Hoist::HALF_MAST,
            Self::Bottom => Hoist::BOTTOM,
        }
    }
}

/// What has the keyboard in the panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// Nothing: every key is the viewer's.
    None,
    /// A widget that is not a text field (a slider, a button, after a click).
    Widget,
    /// A text field: keys type into it.
    Text,
}

/// Which keys a binding answers to.
#[derive(Debug, Clone, Copy)]
enum Keys {
    Named(&'static [NamedKey]),
    /// Characters, either case.
    Chars(&'static [&'static str]),
    /// `1` … `9`, `0`: the integrators in [`IntegratorKind::ALL`]'s order (`0` the tenth).
    Digits,
}

/// One row of the key table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys as the help shows them.
    pub label: &'static str,
    /// What they do, for the help.
    pub help: &'static str,
    keys: Keys,
    action: Option<KeyAction>,
}

const fn named(
    label: &'static str,
    help: &'static str,
    keys: &'static [NamedKey],
    action: KeyAction,
) -> Binding {
    Binding {
        label,
        help,
        keys: Keys::Named(keys),
        action: Some(action),
    }
}

const fn chars(
    label: &'static str,
    help: &'static str,
    keys: &'static [&'static str],
    action: KeyAction,
) -> Binding {
    Binding {
        label,
        help,
        keys: Keys::Chars(keys),
        action: Some(action),
    }
}

/// Every key binding, in the order the help lists them. One line per binding: a table.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    named("Space", "pause / run", &[NamedKey::Space], KeyAction::TogglePause),
    chars(".", "one step (while paused)", &["."], KeyAction::Step),
    chars("r", "reset the scene", &["r"], KeyAction::Reset),
    chars("w", "key-mesh wireframe", &["w"], KeyAction::ToggleWireframe),
    chars("v", "velocity-change overlay", &["v"], KeyAction::ToggleDvOverlay),
    chars("+ -", "raise / lower the flag", &["+", "="], KeyAction::Hoist(HoistTo::Top)),
    chars("", "", &["-"], KeyAction::Hoist(HoistTo::Bottom)),
    chars("m", "half-mast", &["m"], KeyAction::Hoist(HoistTo::HalfMast)),
    Binding {
        label: "1 … 9, 0",
        help: "integrator (kang, explicit, symplectic, verlet, implicit-cg, desbrun, hybrid, \
               xpbd, choi-ko, kang-mg)",
        keys: Keys::Digits,
        action: None,
    },
    named("F12", "screenshot", &[NamedKey::F12], KeyAction::Screenshot),
    named("Tab", "hide / show the panels", &[NamedKey::Tab], KeyAction::TogglePanels),
    chars("h, ?", "this help", &["h", "?"], KeyAction::ToggleHelp),
    named("Esc, Ctrl+Q", "quit (Esc leaves a panel's field first)", &[NamedKey::Escape], KeyAction::Quit),
    named("Left Right", "orbit left / right", &[NamedKey::ArrowLeft], KeyAction::View(ViewKey::Left)),
    named("", "", &[NamedKey::ArrowRight], KeyAction::View(ViewKey::Right)),
    named("Up Down", "orbit up / down", &[NamedKey::ArrowUp], KeyAction::View(ViewKey::Up)),
    named("", "", &[NamedKey::ArrowDown], KeyAction::View(ViewKey::Down)),
    named("PgUp PgDn", "zoom in / out", &[NamedKey::PageUp], KeyAction::View(ViewKey::ZoomIn)),
    named("", "", &[NamedKey::PageDown], KeyAction::View(ViewKey::ZoomOut)),
    named("Home", "reset the view", &[NamedKey::Home], KeyAction::View(ViewKey::Home)),
];

/// The mouse, for the help (the mapping itself is [`super::controls::Controls`]).
pub const MOUSE: &[(&str, &str)] = &[
    ("Left-drag on the cloth", "grab a key node and pull it"),
    (
        "Left-drag on a pinned node",
        "move the pole (so does Shift + left-drag)",
    ),
    ("Left-drag elsewhere", "orbit the camera"),
    ("Right- or middle-drag", "pan"),
    ("Wheel", "zoom"),
];

/// Whether holding `key` repeats its action: the camera keys do (hold an arrow to keep
/// orbiting), the switches do not (a held Space would toggle pause on and off).
pub fn repeats(key: &Key) -> bool {
    matches!(action_for(key), Some(KeyAction::View(_)))
}

/// What `key` asks for with Ctrl held (`ctrl`) or not: the table's keys without it, and
/// Ctrl+Q (quit) with it. Other Ctrl chords (copy, paste) are the panels'.
pub fn action_with(key: &Key, ctrl: bool) -> Option<KeyAction> {
    if ctrl {
        return matches!(key, Key::Character(c) if c.eq_ignore_ascii_case("q"))
            .then_some(KeyAction::Quit);
    }
    action_for(key)
}

/// Whether the viewer takes a key instead of the panels; the panels (egui) then never see it.
/// Tab (hide the panels) and Ctrl+Q always; while a text field has focus nothing else, so keys
/// type; Esc while any widget has focus goes to the panels, which let go of it; every other
/// key of the table is the viewer's even after a click on a slider or a button (egui would
/// otherwise keep it, and Tab would move its focus: then no key worked until Esc).
pub fn viewer_takes(key: &Key, ctrl: bool, focus: Focus) -> bool {
    let Some(action) = action_with(key, ctrl) else {
        return false;
    };
    match (action, focus) {
        (KeyAction::TogglePanels, _) => true,
        (KeyAction::Quit, _) if ctrl => true,
        (_, Focus::Text) | (KeyAction::Quit, Focus::Widget) => false,
        _ => true,
    }
}

/// What `key` asks for, if anything.
pub fn action_for(key: &Key) -> Option<KeyAction> {
    let digit = |c: &str| {
        if c.len() != 1 {
            return None;
        }
        let d: usize = c.parse().ok()?;
        let index = if d == 0 { 9 } else { d - 1 };
        IntegratorKind::ALL.get(index).copied()
    };
    BINDINGS.iter().find_map(|b| match (b.keys, key) {
        (Keys::Named(list), Key::Named(k)) if list.contains(k) => b.action,
        (Keys::Chars(list), Key::Character(c))
            if list.iter().any(|l| l.eq_ignore_ascii_case(c.as_str())) =>
        {
            b.action
        }
        (Keys::Digits, Key::Character(c)) => digit(c.as_str()).map(KeyAction::SetIntegrator),
        _ => None,
    })
}

/// The `h` overlay: one line per binding that has a label, then the mouse, each block in two
/// aligned columns.
pub fn help_text() -> String {
    fn block<'a>(rows: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Vec<String> {
        let width = rows
            .clone()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        rows.map(|(label, help)| {
            let pad = width - label.chars().count();
            format!("{label}{}  {help}", " ".repeat(pad))
        })
        .collect()
    }
    let keys = BINDINGS
        .iter()
        .filter(|b| !b.label.is_empty())
        .map(|b| (b.label, b.help));
    let mut lines = block(keys);
    lines.push(String::new());
    lines.extend(block(MOUSE.iter().copied()));
    lines.join("\n")
}
