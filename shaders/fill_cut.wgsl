// A shaped flag's cut key nodes, given positions that continue the cloth, on the device: the
// renderer runs it over the key nodes the GPU simulation's buffer was copied into (the
// snapshot's keys get the same on the CPU). CPU twin: `render::view::fill_cut_keys`.
//
// `fill_rows`, one invocation a row: a row with at least two kept nodes fills each run of cut
//   nodes linearly between the nearest kept node on each side; a run past the row's last kept
//   node continues the line through its last two, one before the first through its first two.
// `fill_other_rows`, one invocation a row, after `fill_rows`: a row with fewer than two kept
//   nodes takes the nearest filled row's positions (the lower of two as near), shifted by the
//   step between that row and the next one towards this row (if it is filled), times the rows
//   between them. It reads only filled rows, which it never writes.

struct FillParams {
    nx: u32,
    ny: u32,
    // The cloth's first key node in `keys`.
    base: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: FillParams;
// Per key node of the cloth, in grid order: 1 where the shape cut it away.
@group(0) @binding(1) var<storage, read> cut: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<vec4<f32>>;

const NONE: u32 = 0xFFFFFFFFu;

fn kept(j: u32, i: u32) -> bool {
    return cut[j * params.nx + i] == 0u;
}

fn key(j: u32, i: u32) -> vec3<f32> {
    return keys[params.base + j * params.nx + i].xyz;
}

fn set_key(j: u32, i: u32, p: vec3<f32>) {
    let k = params.base + j * params.nx + i;
    keys[k] = vec4<f32>(p, keys[k].w);
}

// Whether row `j` has the two kept nodes its cut ones are drawn from.
fn filled(j: u32) -> bool {
    var count = 0u;
    for (var i = 0u; i < params.nx; i += 1u) {
        if kept(j, i) {
            count += 1u;
        }
    }
    return count >= 2u;
}

// The first kept node of row `j` from `start` on, NONE: none.
fn next_kept(j: u32, start: u32) -> u32 {
    for (var k = start; k < params.nx; k += 1u) {
        if kept(j, k) {
            return k;
        }
    }
    return NONE;
}

@compute @workgroup_size(64)
fn fill_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if j >= params.ny || !filled(j) {
        return;
    }
    var last = NONE;
    var before_last = NONE;
    var i = 0u;
    while i < params.nx {
        if kept(j, i) {
            before_last = last;
            last = i;
            i += 1u;
            continue;
        }
        let s = i;
        while i < params.nx && !kept(j, i) {
            i += 1u;
        }
        let first_after = next_kept(j, i);
        var a = 0u;
        var b = 0u;
        if last != NONE && first_after != NONE {
            a = last;
            b = first_after;
        } else if last != NONE {
            a = select(before_last, last, before_last == NONE);
            b = last;
        } else if first_after != NONE {
            a = first_after;
            let second = next_kept(j, first_after + 1u);
            b = select(second, first_after, second == NONE);
        } else {
            continue;
        }
        if a == b {
            continue;
        }
        let pa = key(j, a);
        let pb = key(j, b);
        for (var k = s; k < i; k += 1u) {
            let t = (f32(k) - f32(a)) / (f32(b) - f32(a));
            set_key(j, k, pa + (pb - pa) * t);
        }
    }
}

@compute @workgroup_size(64)
fn fill_other_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if j >= params.ny || filled(j) {
        return;
    }
    // The nearest filled row, the lower of two as near.
    var r = NONE;
    var gap = NONE;
    for (var q = 0u; q < params.ny; q += 1u) {
        let d = max(q, j) - min(q, j);
        if d < gap && filled(q) {
            r = q;
            gap = d;
        }
    }
    if r == NONE {
        return;
    }
    // The next row from `r` towards `j`, where it is filled.
    var toward = NONE;
    if r < j {
        if r > 0u {
            toward = r - 1u;
        }
    } else {
        toward = r + 1u;
    }
    if toward != NONE && (toward >= params.ny || !filled(toward)) {
        toward = NONE;
    }
    for (var i = 0u; i < params.nx; i += 1u) {
        if kept(j, i) {
            continue;
        }
        let base = key(r, i);
        var step = vec3<f32>(0.0);
        if toward != NONE {
            step = base - key(toward, i);
        }
        set_key(j, i, base + step * f32(gap));
    }
}
