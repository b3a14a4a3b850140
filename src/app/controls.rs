//! Mouse and keyboard for the 3-D view: orbit, pan, zoom, grab a key node, move the pole.
//!
//! egui sees every event first; [`Controls::handle`] is only given what egui did not consume
//! (`egui_consumed = true` events are dropped here unless a drag that started in the 3-D view is
//! still running, so a release over a panel still ends it). Grabbing picks against what is drawn:
//! the CPU twin of the upsampler rebuilds the render mesh of the latest snapshot at the press.

use glam::{DVec3, Vec2, Vec3};

use crate::render::OrbitCamera;
use crate::render::camera::picking::{
    nearest_kept_node, nearest_node_to_ray, pick_render_mesh, ray_plane,
};
use crate::render::drawing::view::{self, ViewSettings};
use crate::sim::format::outline::Outline;
use crate::sim::runtime::snapshot::Snapshot;
use crate::sim_thread::Command;
use crate::upsample::upsample_cpu;

/// Radians of orbit per pixel of drag.
pub(crate) const ORBIT_PER_PIXEL: f32 = 0.008;
/// Zoom factor per wheel line.
pub(crate) const ZOOM_PER_LINE: f32 = 1.12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Left,
    Right,
    Middle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKey {
    Left,
    Right,
    Up,
    Down,
    ZoomIn,
    ZoomOut,
    Home,
}

/// The input the 3-D view understands, in physical pixels (top-left origin, y down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input {
    CursorMoved(Vec2),
    Button {
        button: Button,
        pressed: bool,
    },
    /// Wheel lines, positive away from the user (zoom in).
    Wheel(f32),
    Key(ViewKey),
    Shift(bool),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Drag {
    None,
    Orbit,
    Pan,
    /// A key node follows the cursor in the plane through the picked point facing the camera,
    /// keeping its offset from that point (so it does not jump when grabbed).
    Grab {
        /// The flag whose node it is (0 is the first).
        flag: usize,
        node: usize,
        plane_point: Vec3,
        plane_normal: Vec3,
        node_start: Vec3,
    },
    /// The pole (all pinned nodes) follows the cursor.
    Pole {
        start_hit: Vec3,
        plane_normal: Vec3,
        start_offset: DVec3,
    },
}

/// Camera plus the state of the current drag.
#[derive(Debug, Clone)]
pub struct Controls {
    pub camera: OrbitCamera,
    /// Where Home puts the camera.
    pub home: OrbitCamera,
    drag: Drag,
    cursor: Option<Vec2>,
    shift: bool,
    /// Viewport size, physical pixels.
    pub size: Vec2,
    /// The selected flag of several (0 is the first): a shift-drag moves its pole, and a click
    /// on another flag's cloth selects that one.
    pub flag: usize,
}

impl Controls {
    pub fn new(camera: OrbitCamera, size: Vec2) -> Self {
        Self {
            home: camera,
            camera,
            drag: Drag::None,
            cursor: None,
            shift: false,
            size,
            flag: 0,
        }
    }

    /// True while a drag that began in the 3-D view is running.
    pub fn dragging(&self) -> bool {
        self.drag != Drag::None
    }

    /// The grabbed node, if any.
    pub fn grabbed(&self) -> Option<usize> {
        match self.drag {
            Drag::Grab { node, .. } => Some(node),
            _ => None,
        }
    }

    fn ray(&self, p: Vec2) -> (Vec3, Vec3) {
        self.camera
            .ray_through_pixel(p.x, p.y, self.size.x.max(1.0), self.size.y.max(1.0))
    }

    /// Handles one event; returns the simulation commands it causes (for one of several
    /// flags wrapped in [`Command::Flag`]). `snap` and `view` are what is on screen (for
    /// picking).
    pub fn handle(
        &mut self,
        input: Input,
        egui_consumed: bool,
        snap: &Snapshot,
        view: &ViewSettings,
    ) -> Vec<Command> {
        let mut out = Vec::new();
        let before = self.drag;
        self.handle_flag(input, egui_consumed, snap, view, &mut out);
        let flag = match (self.drag, before) {
            (Drag::Grab { flag, .. }, _) | (_, Drag::Grab { flag, .. }) => flag,
            _ => self.flag,
        };
        if !snap.flags.is_empty() {
            for cmd in &mut out {
                let inner = std::mem::replace(cmd, Command::Step);
                *cmd = Command::Flag(flag, Box::new(inner));
            }
        }
        out
    }

    fn handle_flag(
        &mut self,
        input: Input,
        egui_consumed: bool,
        snap: &Snapshot,
        view: &ViewSettings,
        out: &mut Vec<Command>,
    ) {
        if let Input::Shift(s) = input {
            self.shift = s;
            return;
        }
        let releasing = matches!(input, Input::Button { pressed: false, .. });
        let moving = matches!(input, Input::CursorMoved(_));
        if egui_consumed && !(self.dragging() && (releasing || moving)) {
            // egui's event; still track the cursor so a later drag starts from the right place.
            if let Input::CursorMoved(p) = input {
                self.cursor = Some(p);
            }
            return;
        }
        match input {
            Input::CursorMoved(p) => self.cursor_moved(p, out),
            Input::Button {
                button,
                pressed: true,
            } => self.press(button, snap, view, out),
            Input::Button { pressed: false, .. } => self.release(out),
            Input::Wheel(lines) => self.camera.zoom(ZOOM_PER_LINE.powf(-lines)),
            Input::Key(k) => self.view_key(k),
            Input::Shift(_) => {}
        }
    }

    /// The cursor moved to `p`: the running drag follows it (orbit, pan, the grabbed node,
    /// the pole).
    fn cursor_moved(&mut self, p: Vec2, out: &mut Vec<Command>) {
        let delta = self.cursor.map_or(Vec2::ZERO, |c| p - c);
        self.cursor = Some(p);
        match self.drag {
            Drag::None => {}
            Drag::Orbit => self
                .camera
                .orbit(-delta.x * ORBIT_PER_PIXEL, delta.y * ORBIT_PER_PIXEL),
            Drag::Pan => self.pan(delta),
            Drag::Grab {
                plane_point,
                plane_normal,
                node_start,
                ..
            } => {
                let (o, d) = self.ray(p);
                if let Some(hit) = ray_plane(o, d, plane_point, plane_normal) {
                    let target = node_start + (hit - plane_point);
                    out.push(Command::MoveGrab(target.as_dvec3()));
                }
            }
            Drag::Pole {
                start_hit,
                plane_normal,
                start_offset,
            } => {
                let (o, d) = self.ray(p);
                if let Some(hit) = ray_plane(o, d, start_hit, plane_normal) {
                    let offset = start_offset + (hit - start_hit).as_dvec3();
                    out.push(Command::SetPoleOffset(offset));
                }
            }
        }
    }

    /// A button went down at the cursor: starts a drag (pole with Shift or on a pinned node,
    /// grab on the cloth, orbit elsewhere, pan with the other buttons) unless one is running.
    fn press(
        &mut self,
        button: Button,
        snap: &Snapshot,
        view: &ViewSettings,
        out: &mut Vec<Command>,
    ) {
        if self.dragging() {
            return;
        }
        let Some(p) = self.cursor else {
            return;
        };
        self.drag = match button {
            Button::Left if self.shift => self.start_pole_drag(p, snap),
            Button::Left => match self.pick(p, snap, view) {
                // A click on a flag selects it; dragging a pinned node, tied to the
                // pole, moves its pole.
                Some((flag, node, _)) if snap.flag(flag).is_some_and(|f| f.pinned[node]) => {
                    self.flag = flag;
                    self.start_pole_drag(p, snap)
                }
                Some((flag, node, point)) => {
                    self.flag = flag;
                    let x = snap.flag(flag).map_or(glam::DVec3::ZERO, |f| f.x[node]);
                    out.push(Command::Grab { node, target: x });
                    Drag::Grab {
                        flag,
                        node,
                        plane_point: point,
                        plane_normal: self.camera.forward(),
                        node_start: x.as_vec3(),
                    }
                }
                None => Drag::Orbit,
            },
            Button::Right | Button::Middle => Drag::Pan,
        };
    }

    /// A button came up: ends the drag (letting go of a grabbed node).
    fn release(&mut self, out: &mut Vec<Command>) {
        if let Drag::Grab { .. } = self.drag {
            out.push(Command::Release);
        }
        self.drag = Drag::None;
    }

    /// A view key: orbits, zooms or puts the camera back home.
    fn view_key(&mut self, k: ViewKey) {
        match k {
            ViewKey::Left => self.camera.orbit(0.05, 0.0),
            ViewKey::Right => self.camera.orbit(-0.05, 0.0),
            ViewKey::Up => self.camera.orbit(0.0, 0.05),
            ViewKey::Down => self.camera.orbit(0.0, -0.05),
            ViewKey::ZoomIn => self.camera.zoom(1.0 / ZOOM_PER_LINE),
            ViewKey::ZoomOut => self.camera.zoom(ZOOM_PER_LINE),
            ViewKey::Home => self.camera = self.home,
        }
    }

    /// Moves the camera target in the view plane by a cursor delta (pixels).
    fn pan(&mut self, delta: Vec2) {
        let forward = self.camera.forward();
        let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
        let up = right.cross(forward);
        let scale =
            2.0 * self.camera.distance * (0.5 * self.camera.fov_y).tan() / self.size.y.max(1.0);
        self.camera.target += (-delta.x * right + delta.y * up) * scale;
    }

    /// The flag (0 is the first), its key node under pixel `p` (picked on the drawn surface)
    /// and the surface point hit: the nearest of the flags the ray meets.
    pub fn pick(
        &self,
        p: Vec2,
        snap: &Snapshot,
        view: &ViewSettings,
    ) -> Option<(usize, usize, Vec3)> {
        snap.all_flags()
            .enumerate()
            .filter_map(|(k, flag)| {
                let (node, point) = self.pick_flag(p, flag, view)?;
                let distance = (point - self.ray(p).0).length();
                Some((distance, (k, node, point)))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, hit)| hit)
    }

    /// The key node of one flag under pixel `p`, and the surface point hit.
    fn pick_flag(&self, p: Vec2, snap: &Snapshot, view: &ViewSettings) -> Option<(usize, Vec3)> {
        let (origin, dir) = self.ray(p);
        let mut keys = view::key_positions(&snap.x);
        if let Some(g) = snap.grid {
            // The surface as drawn: a shaped flag's cut nodes continue it, its outline cuts it.
            let cut = &snap.mesh.cut;
            view::fill_cut_keys(&mut keys, cut, g.nx, g.ny);
            let grid = view::key_grid(&g, &keys);
            let mesh = upsample_cpu(&grid, &view.render);
            let outline = Outline {
                shape: g.shape,
                mask: snap.mesh.alpha.as_deref(),
            };
            let hit = pick_render_mesh(origin, dir, &mesh, |u, v| outline.inside(u, v))?;
            let node = nearest_kept_node((g.nx, g.ny), mesh.resolution, (hit.r, hit.s), cut)?;
            Some((node, hit.point))
        } else {
            let radius = 0.03 * self.camera.distance;
            let node = nearest_node_to_ray(origin, dir, &keys, radius)?;
            Some((node, keys[node]))
        }
    }

    fn start_pole_drag(&self, p: Vec2, snap: &Snapshot) -> Drag {
        let Some(snap) = snap.flag(self.flag) else {
            return Drag::Orbit;
        };
        let Some(pole) = view::pole(snap) else {
            return Drag::Orbit;
        };
        let (o, d) = self.ray(p);
        let normal = self.camera.forward();
        match ray_plane(o, d, pole.top, normal) {
            Some(hit) => Drag::Pole {
                start_hit: hit,
                plane_normal: normal,
                start_offset: snap.pole_offset,
            },
            None => Drag::Orbit,
        }
    }
}
