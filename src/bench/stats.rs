//! Median and spread of repeated timings.

use serde::Serialize;

/// Median and spread (smallest and largest) of repeated measurements.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stat {
    /// The middle value; for an even count, the mean of the two middle values.
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Stat {
    /// The statistics of `xs`; all NaN when it is empty.
    pub(crate) fn of(mut xs: Vec<f64>) -> Self {
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let median = match n {
            0 => f64::NAN,
            _ if n % 2 == 1 => xs[n / 2],
            _ => 0.5 * (xs[n / 2 - 1] + xs[n / 2]),
        };
        Stat {
            median,
            min: xs.first().copied().unwrap_or(f64::NAN),
            max: xs.last().copied().unwrap_or(f64::NAN),
            runs: n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Stat;

    #[test]
    fn the_median_is_the_middle_value_or_the_mean_of_the_two_middle_ones() {
        let s = Stat::of(vec![5.0, 1.0, 3.0]);
        assert_eq!((s.median, s.min, s.max, s.runs), (3.0, 1.0, 5.0, 3));
        // Two runs (the quick mode): their mean, not the larger one.
        let s = Stat::of(vec![4.0, 2.0]);
        assert_eq!((s.median, s.min, s.max, s.runs), (3.0, 2.0, 4.0, 2));
        let s = Stat::of(vec![7.0, 1.0, 2.0, 100.0]);
        assert_eq!(s.median, 4.5);
        let s = Stat::of(vec![]);
        assert!(s.median.is_nan() && s.min.is_nan() && s.max.is_nan() && s.runs == 0);
    }
}
