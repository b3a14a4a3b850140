//! SIGINT (Ctrl+C), SIGTERM and SIGHUP: the temporary files being written are removed
//! ([`crate::files::remove_live_temporaries`]), then the process ends as the signal ends it (a
//! shell sees "killed by SIGINT", exit status 130), so that an interrupted `render --video`
//! leaves neither a half-written file nor its hidden temporary behind.
//!
//! The handler only writes the signal's number to a pipe (what a handler may do); a thread
//! reading the pipe does the rest.
#![allow(unsafe_code)] // reason: `sigaction`, `pipe2`, `read`, `write` and `raise` are C calls

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signals handled.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The pipe's writing end, for the handler (−1 until [`install`]).
static PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(signal: libc::c_int) {
    let byte = signal as u8;
    // SAFETY: write(2) is async-signal-safe; `byte` outlives the call. A full pipe drops the
    // byte, which is fine: one is enough to end the process.
    unsafe {
        libc::write(PIPE.load(Ordering::Relaxed), (&raw const byte).cast(), 1);
    }
}

/// Installs the handlers, once, at the start of `main`. A signal the process was started
/// ignoring (`nohup`, a background job of a non-interactive shell) stays ignored.
pub fn install() -> io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let [read_end, write_end] = fds;
    PIPE.store(write_end, Ordering::Relaxed);
    std::thread::Builder::new()
        .name("flagsim-signals".into())
        .spawn(move || {
            if let Some(signal) = wait(read_end) {
                crate::files::remove_live_temporaries();
                end_as(signal);
            }
        })?;
    for signal in SIGNALS {
        // SAFETY: zeroed is a valid `sigaction` (no flags, empty handler) that is filled in
        // before use; the pointers passed live across each call.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &raw mut old) != 0 {
                return Err(io::Error::last_os_error());
            }
            if old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&raw mut action.sa_mask);
            if libc::sigaction(signal, &raw const action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// The first signal's number from the pipe (`None` if the pipe fails).
fn wait(read_end: libc::c_int) -> Option<libc::c_int> {
    let mut byte = 0u8;
    loop {
        // SAFETY: one byte into `byte`, which outlives the call.
        let n = unsafe { libc::read(read_end, (&raw mut byte).cast(), 1) };
        match n {
            1 => return Some(libc::c_int::from(byte)),
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
}

/// Ends the process the way `signal` ends it by default.
fn end_as(signal: libc::c_int) -> ! {
    // SAFETY: the default disposition back, then the signal to this process.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::kill(libc::getpid(), signal);
    }
    // Should the signal not end it (it always does for these three): the shell's number.
    std::thread::sleep(std::time::Duration::from_millis(200));
    std::process::exit(128 + signal);
}
