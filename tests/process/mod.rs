//! Running flagsim from a test with a time limit: a process that hangs fails its test in bounded
//! time (and is killed), it never hangs the suite.

#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Like `Command::output`, but kills the process and fails after `limit`.
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start flagsim");
    // The pipes are drained on their own threads, so a chatty process never blocks on a full
    // pipe while this one waits for it.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let status = wait_within(&mut child, limit, &format!("{cmd:?}"));
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// Waits for `child`, killing it and failing after `limit`.
pub fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let end = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait for flagsim") {
            return status;
        }
        if Instant::now() >= end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
