//! The report as text tables.

use super::frame::{FrameSplit, GpuShare};
use super::{RUNAWAY_STRAIN, Report, Stat};
use crate::sim::IntegratorKind;

fn us(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn stat(s: &Stat) -> String {
    format!("{} ({} … {})", us(s.median), us(s.min), us(s.max))
}

/// The report as text tables.
pub(crate) fn table(r: &Report) -> String {
    let mut o = String::new();
    costs(r, &mut o);
    stability(r, &mut o);
    accuracy_and_upsampling(r, &mut o);
    wavelet(r, &mut o);
    frame(r, &mut o);
    o
}

/// The cost per step, the 10 × 10 figure, the ratios, the scaling and the parallel speed-up.
fn costs(r: &Report, o: &mut String) {
    let mut line = |s: String| {
        o.push_str(&s);
        o.push('\n');
    };
    line(format!(
        "flagsim bench on {}{}",
        r.machine,
        if r.quick { " (quick)" } else { "" }
    ));
    line(String::new());
    line("Cost per published step (median, min … max), all forces, Provot on".into());
    line(format!(
        "{:<18} {:>9}  {}",
        "integrator", "grid", "time per step"
    ));
    for c in &r.step_cost {
        let mut extra = String::new();
        if let Some(p) = c.precompute_seconds {
            extra += &format!("  [inverse built in {}]", us(p));
        }
        if let Some(i) = c.cg_iterations {
            extra += &format!("  [{i:.1} CG iterations]");
        }
        if !c.finite {
            extra += "  [state went non-finite]";
        }
        line(format!(
            "{:<18} {:>4}×{:<4}  {}{extra}",
            c.integrator,
            c.n,
            c.n,
            stat(&c.seconds_per_step)
        ));
    }
    line(String::new());
    line(
        "Cost per publish (a snapshot of the state; the key mesh is shared), default integrator"
            .into(),
    );
    for c in &r.publish_cost {
        line(format!("{:>4}×{:<4}  {}", c.n, c.n, stat(&c.seconds)));
    }
    line(String::new());
    line(format!(
        "kang, full step at 10 × 10: {} (target ≤ 10 µs)",
        stat(&r.kang_10x10_seconds)
    ));
    for x in &r.ratios {
        line(format!(
            "{} at {}×{}: {:.2} (target {}) {}",
            x.name,
            x.n,
            x.n,
            x.value,
            x.target,
            if x.met { "met" } else { "MISSED" }
        ));
    }
    line(format!(
        "kang scaling slope, {} → {} nodes: {:.3} (target {}) {}",
        r.scaling.from_nodes,
        r.scaling.to_nodes,
        r.scaling.slope,
        r.scaling.target,
        if r.scaling.met { "met" } else { "MISSED" }
    ));
    let p = &r.parallel;
    line(format!(
        "parallel kang at {}×{} on {} threads: serial {}, parallel {}, speed-up {:.2}×, bit-identical: {} (used from {} nodes)",
        p.n,
        p.n,
        p.threads,
        us(p.serial.median),
        us(p.parallel.median),
        p.speedup,
        p.bit_identical,
        p.threshold_nodes
    ));
}

/// The largest stable `dt` of every integrator on each preset, and kang's lead.
fn stability(r: &Report, o: &mut String) {
    let mut line = |s: String| {
        o.push_str(&s);
        o.push('\n');
    };
    line(String::new());
    line(format!(
        "Largest stable dt, s (guard never fires, strain below {RUNAWAY_STRAIN}, {} simulated s)",
        r.stability.first().map_or(0.0, |s| s.simulated_seconds)
    ));
    let header: Vec<String> = IntegratorKind::ALL
        .iter()
        .map(|k| format!("{:>17}", k.name()))
        .collect();
    line(format!("  {:<20}{}", "", header.join("")));
    let configs = [
        ("flag", true),
        ("hanging", true),
        ("flag", false),
        ("hanging", false),
    ];
    let find = |preset: &str, limiting: bool, kind: &str| {
        r.stability
            .iter()
            .find(|s| s.preset == preset && s.strain_limiting == limiting && s.integrator == kind)
            .map(|s| s.largest_stable_dt)
    };
    for (preset, limiting) in configs {
        let row: Vec<String> = IntegratorKind::ALL
            .iter()
            .map(|k| match find(preset, limiting, k.name()) {
                Some(dt) => format!("{dt:>17.4}"),
                None => format!("{:>17}", "—"),
            })
            .collect();
        let label = format!("{preset}, Provot {}", if limiting { "on" } else { "off" });
        line(format!("  {label:<20}{}", row.join("")));
    }
    for limiting in [true, false] {
        if let (Some(k), Some(s)) = (
            find("flag", limiting, "kang"),
            find("flag", limiting, "symplectic-euler"),
        ) {
            let ratio = k / s;
            line(format!(
                "  kang / symplectic-euler on flag, Provot {}: {ratio:.1}× (target ≥ 10) {}",
                if limiting { "on" } else { "off" },
                if ratio >= 10.0 { "met" } else { "MISSED" }
            ));
        }
    }
}

/// kang against the precomputed filter, and the upsampling's cost.
fn accuracy_and_upsampling(r: &Report, o: &mut String) {
    let mut line = |s: String| {
        o.push_str(&s);
        o.push('\n');
    };
    line(String::new());
    line("kang's Δv against the precomputed filter (Fig. 8)".into());
    for a in r
        .accuracy_vs_h2k_over_m
        .iter()
        .chain(&r.accuracy_vs_resolution)
    {
        line(format!(
            "  {:>3}×{:<3} h²k/m = {:>10.4}: cosine {:.5}, relative error {:.4}",
            a.n, a.n, a.h2k_over_m, a.cosine, a.relative_error
        ));
    }
    line(String::new());
    line("Upsampling".into());
    for u in &r.upsampling {
        line(format!(
            "  {}×{} render nodes: CPU {}, GPU {}",
            u.resolution,
            u.resolution,
            stat(&u.cpu_seconds),
            u.gpu_seconds.as_ref().map_or("—".into(), stat)
        ));
    }
}

/// The wavelet interpolation's saving.
fn wavelet(r: &Report, o: &mut String) {
    let mut line = |s: String| {
        o.push_str(&s);
        o.push('\n');
    };
    line(String::new());
    line(
        "Wavelet interpolation (Chi 2007 §6: hung by two corners, k = 2000 N/m, dt = 0.01 s / 4)"
            .into(),
    );
    for w in &r.wavelet {
        if w.plain_diverged || w.wavelet_diverged {
            line(format!(
                "  {:<7}{:>4}×{:<4} diverged (plain: {}, wavelet: {}): no timing",
                w.integrator, w.n, w.n, w.plain_diverged, w.wavelet_diverged
            ));
            continue;
        }
        line(format!(
            "  {:<7}{:>4}×{:<4} threshold {}: plain {}, wavelet {}: {:+.0} % time saved, {:.0} % of nodes interpolated, strain {:.3} / {:.3}",
            w.integrator,
            w.n,
            w.n,
            w.threshold,
            us(w.plain.median),
            us(w.wavelet.median),
            w.time_saved * 100.0,
            w.interpolated_fraction * 100.0,
            w.plain_max_strain,
            w.wavelet_max_strain
        ));
    }
}

/// The viewer's frame split, and why GPU sections were skipped.
fn frame(r: &Report, o: &mut String) {
    if let Some(f) = &r.frame {
        o.push('\n');
        o.push_str(&frame_table(f));
    }
    if let Some(n) = &r.gpu_note {
        o.push_str(&format!("GPU sections skipped: {n}\n"));
    }
}

/// A real-time factor: two decimals below 10 (a slow step's 0.20 is not 0), whole above.
fn real_time(factor: f64) -> String {
    if factor < 10.0 {
        format!("{factor:.2}")
    } else {
        format!("{factor:.0}")
    }
}

/// The viewer's frame split as a table: wall clock per part and, where the adapter has
/// timestamp queries, the GPU's own time beside it; then the live plots' refresh.
pub(crate) fn frame_table(f: &FrameSplit) -> String {
    let mut o = String::new();
    let mut line = |s: String| {
        o.push_str(&s);
        o.push('\n');
    };
    let gpu = |pick: fn(&GpuShare) -> &Stat| f.gpu.as_ref().map(|g| stat(pick(g)));
    line(format!(
        "Viewer frame at {}×{} on {}",
        f.width, f.height, f.adapter
    ));
    line(format!(
        "  scene {}: {} flag{}, every flag's step {:.2} ms of the {:.2} ms dt ({} × real time)",
        f.scene,
        f.flags,
        if f.flags == 1 { "" } else { "s" },
        f.simulation.median * 1e3,
        f.dt * 1e3,
        real_time(f.dt / f.simulation.median.max(1e-12))
    ));
    if let Some(r) = &f.read_backs {
        line(format!(
            "  stepped on the GPU in f32, drawn from its node buffer: {} snapshots read back ({} bytes) and {} waited read-backs over the measured frames",
            r.snapshots, r.bytes, r.waited
        ));
    }
    line(format!(
        "  {:<12} {:<36} {}",
        "part", "wall clock (median, min … max)", "GPU time (timestamps)"
    ));
    let rows: [(&str, &Stat, Option<String>); 5] = [
        ("simulation", &f.simulation, None),
        ("upload", &f.upload, None),
        ("upsampling", &f.upsampling, gpu(|g| &g.upsampling)),
        ("drawing", &f.drawing, gpu(|g| &g.drawing)),
        ("UI (egui)", &f.ui, gpu(|g| &g.ui)),
    ];
    for (name, wall, gpu) in rows {
        line(format!(
            "  {name:<12} {:<36} {}",
            stat(wall),
            gpu.unwrap_or_default()
        ));
    }
    line(format!(
        "    of which {} frames repainted the panels: {}",
        f.ui_repaint.runs,
        stat(&f.ui_repaint)
    ));
    line(format!(
        "  {:<12} {:<36} {:.1} fps (the median), before presenting",
        "whole frame",
        stat(&f.frame),
        1.0 / f.frame.median
    ));
    if let Some(c) = &f.flag_changes {
        line(format!(
            "  a flag added, from the command to its snapshot: {}; another shape: {}",
            stat(&c.add),
            stat(&c.shape)
        ));
    }
    let p = &f.plots;
    line(format!(
        "  live plots of a 4-copy lab, 20 s window, in {} × {} pixels ({} vertices, {} indices):",
        p.strip[0], p.strip[1], p.vertices, p.indices
    ));
    line(format!(
        "    {:<26} {:<30} {:<30} {}",
        "frame", "CPU", "GPU (timestamps)", "whole (CPU, submit, wait)"
    ));
    for (name, frame) in [
        ("refreshing them (4 a s)", &p.refresh),
        ("between refreshes", &p.between),
    ] {
        line(format!(
            "    {name:<26} {:<30} {:<30} {}",
            stat(&frame.cpu),
            frame.gpu.as_ref().map_or_else(|| "not timed".into(), stat),
            stat(&frame.whole)
        ));
    }
    o
}
