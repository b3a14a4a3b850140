//! Long-range attachments ("tethers", Kim, Chentanez & Müller 2012): every free node is kept
//! within `(1 + τ)` times its rest distance *along the cloth* from the kinematic nodes, the method
//! games ship for inextensible clothing.
//!
//! Provot's sweeps fix one spring at a time, so a correction needs as many sweeps to cross the
//! cloth as the cloth has nodes across; a hanging 64 × 64 sheet sags through them. A tether
//! bounds the distance to the pin directly, in one pass that costs one node each.
//!
//! The kinematic nodes (pins, the pole, the grabbed node) fall into *regions*: sets connected by
//! springs between two kinematic nodes (the pole's hoist is one region, each pinned corner
//! another, the mouse grab another). Each free node gets one tether per region, to the region's
//! node nearest to it along the cloth (a multi-source Dijkstra over the springs' rest lengths).
//! Its length is the rest distance to that node: on a grid the straight line in the cloth's
//! rest plane (the true geodesic of a flat rectangle), on an explicit cloth the shortest spring
//! path. With more than [`MAX_REGIONS`] regions every node takes one tether to its nearest
//! kinematic node overall. Tethers are rebuilt whenever the kinematic set changes (a grab, a
//! release, another scene); moving a pin or the grab only moves the tethers' anchors.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::DVec3;

use crate::sim::model::cloth::Cloth;
use crate::sim::model::par::for_each_node2;

/// Above this many kinematic regions, one tether per node to the nearest kinematic node.
pub(crate) const MAX_REGIONS: usize = 8;

/// Most rounds over one node's tethers in a projection. A node between two nearly opposite
/// tethers (a large sheet hung by its corners) is pulled back and forth between them, and each
/// round brings it closer to both; every round costs a pass over the tethers, and past three
/// the stretch gained is small for that cost.
const ROUNDS: usize = 3;

/// The tethers of one kinematic set, as compressed rows per node.
#[derive(Debug, Clone, Default)]
pub struct Tethers {
    /// The kinematic set they were built for (empty: never built).
    built_for: Vec<bool>,
    /// `start[i]..start[i + 1]` index `anchor` and `rest`: node `i`'s tethers.
    start: Vec<u32>,
    /// Per tether, its anchor as an index into `anchors`.
    anchor: Vec<u32>,
    /// Per tether, the rest distance along the cloth, m.
    rest: Vec<f64>,
    /// The kinematic nodes some tether is anchored at.
    anchors: Vec<u32>,
    /// Their positions at the last projection, m.
    anchor_x: Vec<DVec3>,
    /// How many times they were built (a statistic, and what the tests watch).
    pub builds: u64,

    search: Search,
}

/// Work arrays of the Dijkstra searches, kept between rebuilds.
#[derive(Debug, Clone, Default)]
struct Search {
    region: Vec<u32>,
    dist: Vec<f64>,
    source: Vec<u32>,
    heap: BinaryHeap<Entry>,
    stack: Vec<u32>,
    per_node: Vec<Vec<(u32, f64)>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    dist: f64,
    node: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // A min-heap on distance; ties broken by node index, so the search is deterministic.
        other
            .dist
            .total_cmp(&self.dist)
            .then_with(|| other.node.cmp(&self.node))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

const NONE: u32 = u32::MAX;

/// The rest distance along the cloth from node `i` to node `p`: on a grid the straight line in
/// the rest plane (the geodesic of a flat rectangle), otherwise the shortest spring path
/// `path` the search found.
fn geodesic(cloth: &Cloth, i: usize, p: usize, path: f64) -> f64 {
    match cloth.grid() {
        Some(g) => {
            let di = (i % g.nx) as f64 - (p % g.nx) as f64;
            let dj = (i / g.nx) as f64 - (p / g.nx) as f64;
            ((di * g.l0_u).powi(2) + (dj * g.l0_v).powi(2)).sqrt()
        }
        None => path,
    }
}

impl Search {
    /// Adds the tether of the last search to every free node it reached, unless the node
    /// already has one to that anchor.
    fn record(&mut self, cloth: &Cloth, kinematic: &[bool]) {
        let nodes = self.per_node.iter_mut().zip(&self.source).zip(&self.dist);
        for (i, ((list, &p), &path)) in nodes.enumerate() {
            if kinematic[i] || p == NONE || list.iter().any(|(q, _)| *q == p) {
                continue;
            }
            list.push((p, geodesic(cloth, i, p as usize, path)));
        }
    }

    /// Dijkstra over the springs' rest lengths from `sources` at once: `dist` and `source` (the
    /// nearest source) per node, `NONE` where none is reachable.
    fn search(&mut self, cloth: &Cloth, sources: impl Iterator<Item = usize>) {
        let n = cloth.node_count();
        self.dist.clear();
        self.dist.resize(n, f64::INFINITY);
        self.source.clear();
        self.source.resize(n, NONE);
        self.heap.clear();
        for i in sources {
            self.dist[i] = 0.0;
            self.source[i] = i as u32;
            self.heap.push(Entry {
                dist: 0.0,
                node: i as u32,
            });
        }
        while let Some(Entry { dist, node }) = self.heap.pop() {
            let i = node as usize;
            if dist > self.dist[i] {
                continue;
            }
            for l in cloth.links(i) {
                let j = l.node as usize;
                let d = dist + cloth.topology.rest[l.spring as usize];
                if d < self.dist[j] {
                    self.dist[j] = d;
                    self.source[j] = self.source[i];
                    self.heap.push(Entry {
                        dist: d,
                        node: j as u32,
                    });
                }
            }
        }
    }
}

impl Tethers {
    /// Rebuilds the tethers if `kinematic` is not the set they were built for. Returns whether
    /// it rebuilt.
    pub(crate) fn update(&mut self, cloth: &Cloth, kinematic: &[bool]) -> bool {
        if !self.built_for.is_empty() && self.built_for == kinematic {
            return false;
        }
        self.build(cloth, kinematic);
        true
    }

    /// Number of tethers.
    pub(crate) fn len(&self) -> usize {
        self.rest.len()
    }

    /// Node `i`'s tethers as `(anchor node, rest distance in m)`.
    pub fn of_node(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.start[i] as usize..self.start[i + 1] as usize;
        self.anchor[range.clone()]
            .iter()
            .zip(&self.rest[range])
            .map(|(&a, &r)| (self.anchors[a as usize] as usize, r))
    }

    fn build(&mut self, cloth: &Cloth, kinematic: &[bool]) {
        let n = cloth.node_count();
        self.builds += 1;
        self.built_for.clear();
        self.built_for.extend_from_slice(kinematic);
        let regions = self.find_regions(cloth, kinematic);
        let s = &mut self.search;
        let region = std::mem::take(&mut s.region);
        s.per_node.resize(n, Vec::new());
        for list in &mut s.per_node {
            list.clear();
        }
        let one_region = regions > MAX_REGIONS;
        let searches = if one_region { 1 } else { regions };
        for r in 0..searches as u32 {
            let in_region = |i: usize| kinematic[i] && (one_region || region[i] == r);
            // The nearest node of the region, from every node of it at once.
            s.search(cloth, (0..n).filter(|&i| in_region(i)));
            s.record(cloth, kinematic);
            // The region's two ends (its farthest-apart nodes at rest), so a hoist also holds
            // the cloth against swinging about it. A one-node region has no other.
            let Some(first) = (0..n).find(|&i| in_region(i)) else {
                continue;
            };
            let farthest = |from: usize| {
                (0..n)
                    .filter(|&i| in_region(i))
                    .max_by(|&a, &b| {
                        let da =
                            cloth.topology.anchor[a].distance_squared(cloth.topology.anchor[from]);
                        let db =
                            cloth.topology.anchor[b].distance_squared(cloth.topology.anchor[from]);
                        da.total_cmp(&db).then(b.cmp(&a))
                    })
                    .unwrap_or(from)
            };
            let e1 = farthest(first);
            let e2 = farthest(e1);
            if e1 == first && e2 == first {
                continue;
            }
            for end in [Some(e1), (e2 != e1).then_some(e2)].into_iter().flatten() {
                s.search(cloth, std::iter::once(end));
                s.record(cloth, kinematic);
            }
        }
        s.region = region;
        // Compress: rows per node, anchors numbered in node order.
        let mut slot = vec![NONE; n];
        self.anchors.clear();
        for i in 0..n {
            if kinematic[i] {
                slot[i] = self.anchors.len() as u32;
                self.anchors.push(i as u32);
            }
        }
        self.start.clear();
        self.anchor.clear();
        self.rest.clear();
        self.start.push(0);
        for list in &s.per_node {
            for &(p, rest) in list {
                self.anchor.push(slot[p as usize]);
                self.rest.push(rest);
            }
            self.start.push(self.rest.len() as u32);
        }
        self.anchor_x.resize(self.anchors.len(), DVec3::ZERO);
    }

    /// Labels the kinematic nodes by region (connected through springs between two kinematic
    /// nodes) into `search.region`; returns how many regions there are.
    fn find_regions(&mut self, cloth: &Cloth, kinematic: &[bool]) -> usize {
        let n = cloth.node_count();
        let s = &mut self.search;
        s.region.clear();
        s.region.resize(n, NONE);
        let mut count = 0u32;
        for seed in 0..n {
            if !kinematic[seed] || s.region[seed] != NONE {
                continue;
            }
            s.region[seed] = count;
            s.stack.clear();
            s.stack.push(seed as u32);
            while let Some(i) = s.stack.pop() {
                for l in cloth.links(i as usize) {
                    let j = l.node as usize;
                    if kinematic[j] && s.region[j] == NONE {
                        s.region[j] = count;
                        s.stack.push(j as u32);
                    }
                }
            }
            count += 1;
        }
        count as usize
    }

    /// Moves every free node that is farther than `limit` times a tether's rest length from its
    /// anchor back onto that sphere (tethers of one node in order), and marks it in `moved`.
    /// Kinematic nodes are never moved. Returns the number of corrections. Each node reads only
    /// the anchors, which no node writes, so the parallel path gives the serial answer.
    pub(crate) fn project(
        &mut self,
        x: &mut [DVec3],
        moved: &mut [bool],
        limit: f64,
        parallel: bool,
    ) -> usize {
        if self.rest.is_empty() {
            return 0;
        }
        for (ax, &a) in self.anchor_x.iter_mut().zip(&self.anchors) {
            *ax = x[a as usize];
        }
        let (start, anchor, rest, anchor_x) =
            (&self.start, &self.anchor, &self.rest, &self.anchor_x);
        let count = std::sync::atomic::AtomicUsize::new(0);
        for_each_node2(parallel, x, moved, |i, xi, mv| {
            let range = start[i] as usize..start[i + 1] as usize;
            if range.is_empty() {
                return;
            }
            let mut fixed = 0;
            // A node with several tethers is pulled onto each sphere in turn; where the spheres
            // barely overlap (a sheet pulled taut between two pins) one round leaves the first
            // ones violated, so repeat while a round corrects anything, a few times at most.
            for _ in 0..ROUNDS {
                let mut this_round = 0;
                for (&a, &r) in anchor[range.clone()].iter().zip(&rest[range.clone()]) {
                    let p = anchor_x[a as usize];
                    let d = *xi - p;
                    let len2 = d.length_squared();
                    let max = limit * r;
                    if len2 > max * max {
                        *xi = p + d * (max / len2.sqrt());
                        this_round += 1;
                    }
                }
                fixed += this_round;
                if this_round == 0 || range.len() == 1 {
                    break;
                }
            }
            if fixed > 0 {
                *mv = true;
                count.fetch_add(fixed, std::sync::atomic::Ordering::Relaxed);
            }
        });
        count.into_inner()
    }
}
