//! GPU time between two points of a command stream, from timestamp queries.
//!
//! Wall-clock time around `submit` and a wait measures the GPU's work plus the round trip of
//! submitting and waiting for it, which on a hardware GPU is often larger than the work itself
//! (a few thousand vertices draw in microseconds). [`GpuTimer`] writes a timestamp before and
//! after the commands to be timed and reads the difference back: the time the GPU itself spent.
//! It needs [`wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS`], which
//! [`crate::render::GpuContext::new_headless`] asks for wherever the adapter has it (Vulkan drivers
//! with timestamps, lavapipe included).

use crate::render::GpuError;

/// The features a [`GpuTimer`] needs (the device asks for them where the adapter has them).
pub(crate) use crate::render::device::gpu::TIMESTAMP_FEATURES as FEATURES;

/// Bytes of the two resolved timestamps.
const SIZE: wgpu::BufferAddress = 2 * std::mem::size_of::<u64>() as wgpu::BufferAddress;

/// Two timestamps, where they are resolved, and where they are read back.
pub struct GpuTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per timestamp tick ([`wgpu::Queue::get_timestamp_period`]).
    period_ns: f64,
}

impl GpuTimer {
    /// A timer on `device`, or `None` where the device was opened without [`FEATURES`].
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(FEATURES) {
            return None;
        }
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpu timer"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: SIZE,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(Self {
            queries,
            resolved: buffer(
                "gpu timer resolved",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "gpu timer readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            period_ns: f64::from(queue.get_timestamp_period()),
        })
    }

    /// Marks the start: the GPU writes its clock when it reaches this point of `encoder`.
    pub fn start(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.write_timestamp(&self.queries, 0);
    }

    /// Marks the end, and records the copy of both timestamps to where [`Self::read`] finds
    /// them. The encoder must be submitted (with everything between the marks) before reading.
    pub fn stop(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.write_timestamp(&self.queries, 1);
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolved, 0);
        encoder.copy_buffer_to_buffer(&self.resolved, 0, &self.readback, 0, SIZE);
    }

    /// Waits for the submitted work and returns the seconds between the marks.
    pub fn read(&self, device: &wgpu::Device) -> Result<f64, GpuError> {
        crate::render::device::gpu::map_for_reading(device, &self.readback)
            .map_err(GpuError::ReadBack)?;
        let ticks = {
            let view = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| GpuError::ReadBack(e.to_string()))?;
            bytemuck::pod_read_unaligned::<[u64; 2]>(&view)
        };
        self.readback.unmap();
        elapsed_seconds(ticks, self.period_ns).ok_or_else(|| {
            GpuError::ReadBack(format!(
                "the GPU's clock went backwards ({} then {} ticks)",
                ticks[0], ticks[1]
            ))
        })
    }
}

/// Seconds between timestamps `[start, end]` of `period_ns` nanoseconds a tick; `None` when
/// the end is before the start (a clock that wrapped or was reset between the marks).
pub(crate) fn elapsed_seconds([start, end]: [u64; 2], period_ns: f64) -> Option<f64> {
    let ticks = end.checked_sub(start)?;
    Some(ticks as f64 * period_ns * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::elapsed_seconds;

    #[test]
    fn ticks_become_seconds_through_the_period() {
        // 2500 ticks of 2.5 ns are 6250 ns.
        assert_eq!(elapsed_seconds([1000, 3500], 2.5), Some(6.25e-6));
        // One tick of 1 ns; no ticks are no time.
        assert_eq!(elapsed_seconds([7, 8], 1.0), Some(1e-9));
        assert_eq!(elapsed_seconds([9, 9], 40.0), Some(0.0));
        assert_eq!(elapsed_seconds([10, 9], 1.0), None);
    }
}
