//! The GPU as a [`DeviceProvider`] for the simulation thread (the viewer's GPU mode): the
//! thread steps its cloth with a [`GpuStepper`] on the viewer's own device, and the node buffer
//! it writes is shared with the renderer ([`SharedNodes`]), which copies it into the
//! upsampler's key nodes on the device each frame: nothing goes through the CPU between the
//! step and the drawing but the small asynchronous snapshots for the panels.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use web_time::Instant;

use super::{GpuSimError, GpuStepper, unsupported};
use crate::sim::runtime::device::{DeviceProvider, DeviceStepper, ReadBacks};
use crate::sim::{SimError, Simulation};

/// The shortest time between two snapshots read back for the panels (at most 30 a second,
/// whatever the frame rate: the drawing never waits for one).
pub(crate) const SNAPSHOT_INTERVAL: Duration = Duration::from_millis(33);

/// The node positions the GPU step writes (`vec4<f32>` a node), cloth by cloth (a scene's
/// flags, the lab's copies, by their index), while they step on the GPU: what the renderer
/// reads instead of the snapshot's positions. `None` for a cloth stepping on the CPU.
#[derive(Debug, Clone, Default)]
pub struct SharedNodes(Arc<Mutex<Vec<Option<NodeBuffer>>>>);

/// A cloth's node buffer on the device and its node count.
pub(crate) type NodeBuffer = (wgpu::Buffer, u32);

impl SharedNodes {
    /// Cloth `k`'s buffer and its node count, while it steps on the GPU.
    pub fn get(&self, k: usize) -> Option<NodeBuffer> {
        let get = |slots: &Vec<Option<NodeBuffer>>| slots.get(k).cloned().flatten();
        match self.0.lock() {
            Ok(g) => get(&g),
            Err(poisoned) => get(&poisoned.into_inner()),
        }
    }

    fn set(&self, k: usize, value: Option<NodeBuffer>) {
        let set = |slots: &mut Vec<Option<NodeBuffer>>| {
            if slots.len() <= k {
                slots.resize(k + 1, None);
            }
            slots[k] = value;
        };
        match self.0.lock() {
            Ok(mut g) => set(&mut g),
            Err(poisoned) => set(&mut poisoned.into_inner()),
        }
    }
}

/// A device and queue (the viewer's) lent to the simulation thread.
#[derive(Debug, Clone)]
pub struct GpuProvider {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    nodes: SharedNodes,
    /// Whether its steppers may wait for the device: not in a page, whose frame the browser
    /// answers only after it returns.
    waits: bool,
}

impl GpuProvider {
    /// The simulation's access to `device` (of the adapter `info` describes); the renderer
    /// reads the nodes through [`Self::nodes`].
    pub fn new(device: wgpu::Device, queue: wgpu::Queue, info: wgpu::AdapterInfo) -> Self {
        Self {
            device,
            queue,
            info,
            nodes: SharedNodes::default(),
            waits: !cfg!(target_arch = "wasm32"),
        }
    }

    /// The provider as a page has it (its steppers never wait), on the desktop's device: the
    /// page's way through the simulation, tested where a test can open a device.
    #[cfg(test)]
    pub(crate) fn never_waiting(self) -> Self {
        Self {
            waits: false,
            ..self
        }
    }

    /// The node buffer of the cloth stepping on the GPU, for the renderer.
    pub fn nodes(&self) -> SharedNodes {
        self.nodes.clone()
    }

    /// Waits until the device has finished the work submitted to it (a measurement's end of
    /// the steps; the simulation thread never waits so).
    pub(crate) fn wait(&self) {
        // A lost device shows in the next step's error; there is nothing to wait for then.
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }
}

/// A validation error the device reported after the kernels were made (a page learns of
/// them only between frames, [`super::kernel::validated`]), as the simulation's error.
fn late_error() -> Result<(), SimError> {
    super::kernel::late_error().map_or(Ok(()), |e| Err(gpu_error(e)))
}

fn gpu_error(e: GpuSimError) -> SimError {
    SimError::Gpu {
        reason: match e {
            GpuSimError::Unsupported(reason) => reason,
            e => e.to_string(),
        },
    }
}

impl DeviceProvider for GpuProvider {
    fn adapter(&self) -> String {
        if self.info.name.is_empty() {
            // A browser's WebGPU adapter may keep its name to itself.
            "the browser's adapter".to_owned()
        } else {
            self.info.name.clone()
        }
    }

    fn hardware(&self) -> bool {
        self.info.device_type != wgpu::DeviceType::Cpu
    }

    fn refusal(&self, sim: &Simulation) -> Option<String> {
        unsupported(sim)
    }

    fn waits(&self) -> bool {
        self.waits
    }

    fn stepper(
        &self,
        sim: &mut Simulation,
        slot: usize,
    ) -> Result<Box<dyn DeviceStepper>, SimError> {
        let mut stepper = GpuStepper::new(&self.device, &self.queue, sim).map_err(gpu_error)?;
        stepper.waits = self.waits;
        let on = ThreadStepper {
            device: self.device.clone(),
            queue: self.queue.clone(),
            stepper,
            nodes: self.nodes.clone(),
            slot,
            requested: None,
        };
        on.share();
        Ok(Box::new(on))
    }
}

/// The simulation thread's [`GpuStepper`], sharing its node buffer while it lives.
#[derive(Debug)]
struct ThreadStepper {
    device: wgpu::Device,
    queue: wgpu::Queue,
    stepper: GpuStepper,
    nodes: SharedNodes,
    /// Which cloth it is in [`SharedNodes`].
    slot: usize,
    /// When the last snapshot was asked for, after which published step.
    requested: Option<(Instant, u64)>,
}

impl ThreadStepper {
    /// Shares the present node buffer (a new one after the step was built again).
    fn share(&self) {
        let buffer = self.stepper.positions().clone();
        self.nodes
            .set(self.slot, Some((buffer, self.stepper.nodes())));
    }
}

impl DeviceStepper for ThreadStepper {
    fn step_n(&mut self, sim: &mut Simulation, steps: u32) -> Result<(), SimError> {
        late_error()?;
        self.stepper
            .step_n(&self.device, &self.queue, sim, steps)
            .map_err(gpu_error)?;
        // Built again after a grab or new parameters, it has new buffers.
        self.share();
        Ok(())
    }

    fn poll(&mut self, sim: &mut Simulation) -> Result<bool, SimError> {
        late_error()?;
        let arrived = self
            .stepper
            .take_snapshot(&self.device, sim)
            .map_err(gpu_error)?;
        let due = self
            .requested
            .is_none_or(|(at, step)| step != sim.step_index && at.elapsed() >= SNAPSHOT_INTERVAL);
        // `request_snapshot` asks for none while one is in flight.
        if due
            && self
                .stepper
                .request_snapshot(&self.device, &self.queue, sim)
        {
            self.requested = Some((Instant::now(), sim.step_index));
        }
        Ok(arrived)
    }

    fn sync(&mut self, sim: &mut Simulation) -> Result<(), SimError> {
        late_error()?;
        if self.stepper.waits {
            self.stepper
                .read_back(&self.device, &self.queue, sim)
                .map_err(gpu_error)
        } else {
            // What `settle` brought: the simulation settles a cloth before it takes it back.
            Ok(())
        }
    }

    fn settle(&mut self, sim: &mut Simulation) -> Result<bool, SimError> {
        late_error()?;
        self.stepper
            .settle(&self.device, &self.queue, sim)
            .map_err(gpu_error)
    }

    fn read_backs(&self) -> ReadBacks {
        self.stepper.read_backs()
    }
}

impl Drop for ThreadStepper {
    fn drop(&mut self) {
        self.nodes.set(self.slot, None);
    }
}
