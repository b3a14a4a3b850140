//! The samples kept for the plot, memory flat for any length.

use crate::sim::lab::copies::{Lab, Sample};

/// The samples kept for the plot: every copy's, at most about `capacity` per copy (when full,
/// every other one is dropped and the spacing doubles, so memory stays flat for any length).
#[derive(Debug, Clone)]
pub(crate) struct Series {
    pub labels: Vec<String>,
    pub samples: Vec<Vec<Sample>>,
    capacity: usize,
    /// Keep one lab step in `stride`.
    stride: u64,
}

impl Series {
    pub(crate) fn new(lab: &Lab, capacity: usize) -> Self {
        Self {
            labels: lab.copies.iter().map(|c| c.spec.to_string()).collect(),
            samples: vec![Vec::new(); lab.copies.len()],
            capacity: capacity.max(2),
            stride: 1,
        }
    }

    /// Takes in the lab's latest samples, if this lab step is one kept.
    pub(crate) fn add(&mut self, lab: &Lab) {
        if !lab.ticks.is_multiple_of(self.stride) {
            return;
        }
        for (series, copy) in self.samples.iter_mut().zip(&lab.copies) {
            series.push(copy.sample);
        }
        if self
            .samples
            .first()
            .is_some_and(|s| s.len() >= self.capacity)
        {
            // Keep the samples at multiples of the doubled stride (the 2nd, 4th, …).
            for series in &mut self.samples {
                let mut keep = true;
                series.retain(|_| {
                    keep = !keep;
                    keep
                });
            }
            self.stride *= 2;
        }
    }
}
