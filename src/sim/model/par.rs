//! The loops over nodes every stage shares: serial or on the rayon pool, with the same result
//! either way (each call writes only its own element). A leaf module: it imports nothing from
//! the simulation, so every other module may use it.

use rayon::prelude::*;

/// Smallest piece of a per-node or per-spring loop handed to one rayon task: smaller pieces
/// cost more in scheduling than they save, and larger ones balance worse between the threads.
pub(crate) const MIN_PARALLEL_CHUNK: usize = 256;

/// Runs `f(i, &mut out[i])` for every node, on the rayon pool when `parallel`.
/// Each call only writes its own element, so both paths give identical results.
pub(crate) fn for_each_node<T: Send>(
    parallel: bool,
    out: &mut [T],
    f: impl Fn(usize, &mut T) + Sync,
) {
    if parallel {
        out.par_iter_mut()
            .with_min_len(MIN_PARALLEL_CHUNK)
            .enumerate()
            .for_each(|(i, o)| f(i, o));
    } else {
        out.iter_mut().enumerate().for_each(|(i, o)| f(i, o));
    }
}

/// Like [`for_each_node`] for two per-node arrays written together.
pub(crate) fn for_each_node2<A: Send, B: Send>(
    parallel: bool,
    a: &mut [A],
    b: &mut [B],
    f: impl Fn(usize, &mut A, &mut B) + Sync,
) {
    if parallel {
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .with_min_len(MIN_PARALLEL_CHUNK)
            .enumerate()
            .for_each(|(i, (x, y))| f(i, x, y));
    } else {
        a.iter_mut()
            .zip(b.iter_mut())
            .enumerate()
            .for_each(|(i, (x, y))| f(i, x, y));
    }
}

/// Like [`for_each_node`] for three per-node arrays written together.
pub(crate) fn for_each_node3<A: Send, B: Send, C: Send>(
    parallel: bool,
    a: &mut [A],
    b: &mut [B],
    c: &mut [C],
    f: impl Fn(usize, &mut A, &mut B, &mut C) + Sync,
) {
    if parallel {
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .zip(c.par_iter_mut())
            .with_min_len(MIN_PARALLEL_CHUNK)
            .enumerate()
            .for_each(|(i, ((x, y), z))| f(i, x, y, z));
    } else {
        a.iter_mut()
            .zip(b.iter_mut())
            .zip(c.iter_mut())
            .enumerate()
            .for_each(|(i, ((x, y), z))| f(i, x, y, z));
    }
}
