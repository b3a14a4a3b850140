//! Runs a parsed command line: the viewer, or a headless command.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use crate::sim::format::scene::{PRESETS, Scene};

use super::{
    Cli, CliError, Command, Result, Shell, ViewArgs, background_image, failed, flag_images,
    load_scene_on,
};

/// Runs the command line; the error says what went wrong and which exit code it means.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Simulate(args)) => super::simulate::simulate(args),
        Some(Command::Render(args)) => super::render::render(args),
        Some(Command::Compare(args)) => super::compare::compare(args),
        Some(Command::Presets) => presets(),
        Some(Command::Params(args)) => print_stdout(&if args.markdown {
            crate::sim::format::params::spec::markdown()
        } else {
            crate::sim::format::params::spec::text()
        }),
        Some(Command::Bench(args)) => super::bench::bench(args),
        Some(Command::Completions(args)) => completions(args.shell),
        Some(Command::View(args)) => view(args),
        None => view(ViewArgs::default()),
    }
}

fn view(args: ViewArgs) -> Result<()> {
    use crate::app::settings::Store;
    let mut persisted = Store::open(Store::location(args.no_persist));
    // The last scene comes back only when none is named: a scene named is shown as its file
    // says.
    let last = args
        .scene
        .is_none()
        .then(|| persisted.settings.last_scene())
        .flatten();
    let restored = last.is_some();
    let mut scene = match last {
        Some(scene) => scene,
        None => load_scene_on(args.scene.as_deref().unwrap_or("flag"), None, args.device)?,
    };
    if let Some(device) = args.device {
        // The remembered scene too.
        scene.set_device(device);
    }
    let flag_images = match flag_images(&mut scene, args.flag_image.as_deref()) {
        // A remembered image that has gone is a warning, never a failed start.
        Err(e) if restored && args.flag_image.is_none() => {
            (persisted.warnings).push(format!(
                "the last flag image: {e}; the built-in flag instead"
            ));
            scene.render.texture = None;
            for flag in &mut scene.flags {
                flag.image = None;
            }
            Vec::new()
        }
        other => other?,
    };
    let background = match background_image(&scene) {
        Err(e) if restored => {
            (persisted.warnings).push(format!("the last scene's {e}; the sky instead"));
            scene.render.setting.background = None;
            None
        }
        other => other?,
    };
    if let Some(path) = &args.screenshot
        && !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        return Err(CliError::BadInput(format!(
            "--screenshot: {} must end in .png",
            path.display()
        )));
    }
    crate::app::viewer::run(crate::app::viewer::ViewerOptions {
        scene,
        size: args.size.unwrap_or({
            let [w, h] = persisted.settings.window;
            (w, h)
        }),
        exit_after_frames: args.exit_after_frames,
        screenshot: args.screenshot,
        render_scale: args.render_scale.or(persisted.settings.scale_mode()),
        restore_camera: restored,
        persisted,
        compare: args.compare.map(|c| c.0).unwrap_or_default(),
        reference: args.reference,
        flag_images,
        background,
        press_f12_at_frame: args.press_f12_at_frame,
        toggle_recording_at_frames: args.toggle_recording_at_frame,
        record_format: args.record_format,
    })
    .map_err(|e| failed(format!("{e:#}")))
}

/// Writes `shell`'s completion script for flagsim to stdout.
fn completions(shell: Shell) -> Result<()> {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut script = Vec::new();
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(generator, &mut command, "flagsim", &mut script);
    let mut script = String::from_utf8_lossy(&script).into_owned();
    if shell == Shell::Bash {
        script.push_str(&bash_scene_completion());
    }
    print_stdout(&script)
}

/// Bash completion of a SCENE: clap's script offers only options right after `view`,
/// `simulate`, `render` and `compare`. This wraps it: where a scene can go (a word not after
/// an option) it adds the preset names and the files.
fn bash_scene_completion() -> String {
    let presets: Vec<&str> = PRESETS.iter().map(|(name, _)| *name).collect();
    format!(
        r#"
# flagsim: presets and files where a SCENE goes
_flagsim_scenes() {{
    _flagsim "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "${{COMP_WORDS[1]}}" in
        view|simulate|render|compare)
            if [[ ${{COMP_CWORD}} -ge 2 && ${{cur}} != -* && ${{prev}} != -* ]]; then
                COMPREPLY=( $(compgen -W "{presets}" -- "${{cur}}") $(compgen -f -- "${{cur}}") )
            fi
            ;;
    esac
}}
complete -F _flagsim_scenes -o bashdefault -o default flagsim
"#,
        presets = presets.join(" ")
    )
}

fn presets() -> Result<()> {
    let mut text = String::new();
    for (name, _) in PRESETS {
        let description =
            Scene::load(name).map_or_else(|e| format!("(invalid: {e})"), |s| s.description);
        text.push_str(&format!("{name:<14} {description}\n"));
    }
    print_stdout(&text)
}

/// Writes to stdout; a closed pipe (`flagsim presets | head -1`) is not an error.
pub(super) fn print_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::write("stdout", e)),
        _ => Ok(()),
    }
}

pub(super) fn write_json(value: &impl Serialize, out: Option<&PathBuf>) -> Result<()> {
    let text =
        serde_json::to_string(value).map_err(|e| failed(format!("serialising the output: {e}")))?;
    match out {
        Some(path) => crate::files::write_atomically(path, (text + "\n").as_bytes())
            .map_err(|e| CliError::write(path.display(), e)),
        None => print_stdout(&(text + "\n")),
    }
}
