//! Where each cloth steps: on the GPU lent to the thread (its stepper made, its snapshots
//! collected, its state taken back before a command that changes the cloth) or on the CPU.

use crate::sim::format::device_choice::DeviceChoice;
use crate::sim::format::error::SimError;
use crate::sim::runtime::device::ReadBacks;
use crate::sim::runtime::snapshot::DeviceStatus;

use super::worker::Worker;

impl Worker {
    /// The device cloth `k` is asked to step on: the panel's choice outside the lab, the
    /// copy's own in it.
    pub(super) fn choice_of(&self, k: usize) -> DeviceChoice {
        self.lab
            .copies
            .get(k)
            .map_or(self.gpu.choice, |spec| spec.device)
    }

    /// Cloth `k` back to the CPU for good (after a refusal or a failure, reported).
    pub(super) fn fall_back(&mut self, k: usize, e: SimError) {
        if let Some(announced) = self.gpu.announced.get_mut(k) {
            *announced = false;
        }
        self.error = Some(match self.lab.copies.get(k) {
            Some(spec) => e.in_copy(spec),
            None => e,
        });
        match self.lab.copies.get_mut(k) {
            Some(spec) => spec.device = DeviceChoice::Cpu,
            None => self.gpu.choice = DeviceChoice::Cpu,
        }
    }

    /// Makes cloth `k` step where its choice says: on the GPU (its stepper made, `true`), or
    /// on the CPU (the GPU's state taken back first, if it had it). A GPU that refuses the
    /// cloth is reported and the choice falls back to `cpu`.
    pub(super) fn ready_on_device(&mut self, k: usize) -> bool {
        self.gpu.steppers.resize_with(self.cloths.len(), || None);
        self.gpu
            .read_backs
            .resize(self.cloths.len(), ReadBacks::default());
        let choice = self.choice_of(k);
        let wants =
            if choice == DeviceChoice::Cpu || (self.gpu.awaiting && self.gpu.provider.is_none()) {
                Ok(false)
            } else {
                choice.wants_gpu(self.gpu.provider.as_deref(), &self.cloths[k])
            };
        let wants = wants.unwrap_or_else(|e| {
            self.fall_back(k, e);
            false
        });
        if !wants {
            self.take_back(k);
            self.announce(k, None);
            return false;
        }
        if self.gpu.steppers[k].is_none() {
            let Some(provider) = self.gpu.provider.clone() else {
                return false;
            };
            match provider.stepper(&mut self.cloths[k], k) {
                Ok(stepper) => self.gpu.steppers[k] = Some(stepper),
                Err(e) => {
                    self.fall_back(k, e);
                    return false;
                }
            }
            self.announce(k, Some(provider.adapter()));
        }
        true
    }

    /// Logs where cloth `k` steps when that changes (on the GPU named `adapter`, or back on
    /// the CPU); a stepper made again after a command that took the state back is not news.
    fn announce(&mut self, k: usize, adapter: Option<String>) {
        self.gpu.announced.resize(self.cloths.len(), false);
        if self.gpu.announced[k] == adapter.is_some() {
            return;
        }
        self.gpu.announced[k] = adapter.is_some();
        let cloth = if self.lab.copies.is_empty() {
            format!("flag {}", k + 1)
        } else {
            format!("the lab's copy {}", k + 1)
        };
        match adapter {
            Some(name) => log::info!("{cloth} steps on the GPU ({name})"),
            None => log::info!("{cloth} steps on the CPU"),
        }
    }

    /// `n` steps of flag `k` on the GPU (outside the lab). A failure drops the device's state
    /// (not trusted): the CPU goes on from the last snapshot taken.
    pub(super) fn step_on_device(&mut self, k: usize, n: u32) -> u32 {
        let Some(Some(stepper)) = self.gpu.steppers.get_mut(k) else {
            return 0;
        };
        match stepper.step_n(&mut self.cloths[k], n) {
            Ok(()) => n,
            Err(e) => {
                self.drop_device(k);
                self.fall_back(k, e);
                0
            }
        }
    }

    /// Takes cloth `k`'s state back from the GPU (a waited read-back) and ends its GPU
    /// stepping; nothing when it steps on the CPU.
    pub(super) fn take_back(&mut self, k: usize) {
        if let Some(Some(stepper)) = self.gpu.steppers.get_mut(k)
            && let Err(e) = stepper.sync(&mut self.cloths[k])
        {
            self.error = Some(e);
        }
        self.drop_device(k);
    }

    /// [`Self::take_back`] for every cloth (before a command that changes them).
    pub(super) fn take_all_back(&mut self) {
        for k in 0..self.gpu.steppers.len().min(self.cloths.len()) {
            self.take_back(k);
        }
        self.gpu.steppers.clear();
    }

    pub(super) fn drop_device(&mut self, k: usize) {
        if let Some(stepper) = self.gpu.steppers.get_mut(k).and_then(Option::take) {
            let r = stepper.read_backs();
            if let Some(total) = self.gpu.read_backs.get_mut(k) {
                *total += r;
            }
        }
    }

    /// Whether every cloth's state is on the CPU for a command that needs it: at once where
    /// the provider may wait (the state is then taken back waiting); in a page, each cloth on
    /// the GPU whose state the CPU does not hold yet is asked for it (never waited for), and
    /// the answer is false until all came. A cloth whose GPU failed goes back to the CPU.
    pub(super) fn settled(&mut self) -> bool {
        if self.gpu.provider.as_ref().is_none_or(|p| p.waits()) {
            return true;
        }
        let mut all = true;
        for k in 0..self.gpu.steppers.len().min(self.cloths.len()) {
            let Some(stepper) = &mut self.gpu.steppers[k] else {
                continue;
            };
            match stepper.settle(&mut self.cloths[k]) {
                Ok(done) => all &= done,
                Err(e) => {
                    self.drop_device(k);
                    self.fall_back(k, e);
                }
            }
        }
        all
    }

    /// Collects the GPU's snapshots that arrived (and asks for the next ones): whether a cloth
    /// changed.
    pub(super) fn poll_device(&mut self) -> bool {
        let mut changed = false;
        for k in 0..self.gpu.steppers.len().min(self.cloths.len()) {
            let Some(stepper) = &mut self.gpu.steppers[k] else {
                continue;
            };
            match stepper.poll(&mut self.cloths[k]) {
                Ok(arrived) => changed |= arrived,
                Err(e) => {
                    self.drop_device(k);
                    self.fall_back(k, e);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Where cloth `k` steps, for the panel.
    pub(super) fn device_status(&self, k: usize) -> DeviceStatus {
        let mut read_backs = self.gpu.read_backs.get(k).copied().unwrap_or_default();
        let stepper = self.gpu.steppers.get(k).and_then(Option::as_ref);
        if let Some(stepper) = stepper {
            read_backs += stepper.read_backs();
        }
        DeviceStatus {
            choice: self.choice_of(k),
            on_gpu: stepper.is_some(),
            adapter: self.gpu.provider.as_ref().map(|p| p.adapter()),
            read_backs,
        }
    }
}
