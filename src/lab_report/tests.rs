use crate::sim::lab::copies::Sample;

use super::*;

fn sample(time: f64, kinetic_energy: f64, max_strain: f64) -> Sample {
    Sample {
        time,
        kinetic_energy,
        max_strain,
        step_seconds: 1e-5,
        diverged: false,
        shortest_edge: 1.0,
        short_edges: 0.0,
        distance: None,
    }
}

#[test]
fn the_drift_is_the_slope_of_a_straight_line_through_the_energies() {
    // E = 3 + 2 t exactly: the least-squares slope is 2 J/s, the mean the value at the
    // mean time.
    let mut s = Summary::default();
    for t in [0.5, 1.0, 1.5, 2.0] {
        s.add(&sample(t, 3.0 + 2.0 * t, 1.0 + t / 10.0));
    }
    assert!((s.energy_drift - 2.0).abs() < 1e-12, "{}", s.energy_drift);
    assert!((s.mean_energy - (3.0 + 2.0 * 1.25)).abs() < 1e-12);
    assert!((s.mean_strain - 1.125).abs() < 1e-12);
    assert!((s.max_strain - 1.2).abs() < 1e-12);
    assert!((s.mean_step_seconds - 1e-5).abs() < 1e-18);
    assert_eq!(s.samples, 4);
}

#[test]
fn the_plot_series_halves_itself_and_keeps_an_even_spacing() {
    use crate::sim::lab::copies::{CopySpec, Lab};
    use crate::sim::{IntegratorKind, Scene};
    let spec = CopySpec {
        integrator: IntegratorKind::Kang,
        dt: None,
        grid: None,
        device: crate::sim::DeviceChoice::Cpu,
    };
    let mut lab = Lab::new(&Scene::load("flag").unwrap(), &[spec, spec]).unwrap();
    let mut series = Series::new(&lab, 4);
    for _ in 0..21 {
        lab.tick();
        series.add(&lab);
    }
    // Capacity 4: after ticks 1..4 the 2nd and 4th stay (stride 2), after 2, 4, 6, 8 the 4th
    // and 8th (stride 4), then 4, 8, 12, 16 -> 8, 16 (stride 8); tick 21 is not a multiple.
    let ticks: Vec<u64> = series.samples[0]
        .iter()
        .map(|s| (s.time / lab.dt).round() as u64)
        .collect();
    assert_eq!(ticks, [8, 16]);
    assert_eq!(series.samples[1].len(), 2);
    assert_eq!(series.labels, ["kang", "kang"]);
}

#[test]
fn one_sample_has_no_drift() {
    let mut s = Summary::default();
    s.add(&sample(1.0, 5.0, 1.0));
    assert_eq!(s.energy_drift, 0.0);
}
