// sort.wgsl — stable LSD radix sort of (key, value) u32 pairs, SORT_BITS bits per pass.
// Entry points (per pass, with an exclusive scan of `hist` between them, see scan.wgsl):
//   sortCount    each block of SORT_BLOCK keys counts its digits: hist[digit · blocks + block]
//   sortScatter  after the scan, hist holds each (digit, block)'s global start; each block ranks
//                its keys stably in workgroup memory and writes them there
// Reduce-then-scan across dispatches: no decoupled look-back, no spin-waits, no workgroup ever
// waits on another (WebGPU promises no forward progress between workgroups).
// Stability: within a block, keys of equal digit keep their order (the digit-major exclusive
// scan of per-thread counts ranks thread t's keys after threads < t, and each thread ranks its
// own consecutive keys in order); across blocks, the digit-major global scan puts block b's keys
// after those of blocks < b. Equal Morton codes therefore stay in index order.
// Bindings (group 0): 0 params: SortParams (uniform); 1 keysIn, 2 valsIn: array<u32> (read);
//   3 keysOut, 4 valsOut: array<u32>; 5 hist: array<u32>. Workgroup size: override SORT_WG.
// Merrill & Grimshaw, "High Performance and Scalable Radix Sorting" (2011) for reduce-then-scan.

// Bits per pass, threads per workgroup and keys per thread: set per pipeline by the host
// (RadixSort, from its BlockTuning). Any SORT_WG works with any SORT_BUCKETS (the per-digit loops
// stride by SORT_WG); workgroup memory takes (SORT_WG + 2) · SORT_BUCKETS + SORT_WG words.
override SORT_BITS: u32 = 4u;
override SORT_BUCKETS: u32 = 1u << SORT_BITS;
override SORT_WG: u32 = 128u;
override SORT_PER_THREAD: u32 = 8u;
override SORT_BLOCK: u32 = SORT_WG * SORT_PER_THREAD;

struct SortParams {
  count: u32,
  shift: u32,
  blocks: u32,
}

@group(0) @binding(0) var<uniform> sortParams: SortParams;
@group(0) @binding(1) var<storage, read> keysIn: array<u32>;
@group(0) @binding(2) var<storage, read> valsIn: array<u32>;
@group(0) @binding(3) var<storage, read_write> keysOut: array<u32>;
@group(0) @binding(4) var<storage, read_write> valsOut: array<u32>;
@group(0) @binding(5) var<storage, read_write> hist: array<u32>;

var<workgroup> digitCounts: array<atomic<u32>, SORT_BUCKETS>;
// Per-thread digit counts, digit-major: ranks[d · SORT_WG + t].
var<workgroup> ranks: array<u32, SORT_BUCKETS * SORT_WG>;
var<workgroup> rankPart: array<u32, SORT_WG>;
var<workgroup> digitBase: array<u32, SORT_BUCKETS>;

fn sortBlockIndex(wid: vec3u, nwg: vec3u) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// The digit of a pass; 0 for every key in a pass past the 32nd bit (the extra pass that makes the
// pass count even: WGSL takes a shift modulo 32, which would sort by low bits again).
fn digitOf(key: u32) -> u32 {
  return select((key >> sortParams.shift) & (SORT_BUCKETS - 1u), 0u, sortParams.shift >= 32u);
}

@compute @workgroup_size(SORT_WG)
fn sortCount(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let blk = sortBlockIndex(wid, nwg);
  if (blk >= sortParams.blocks) {
    return;
  }
  for (var d = lid; d < SORT_BUCKETS; d += SORT_WG) {
    atomicStore(&digitCounts[d], 0u);
  }
  workgroupBarrier();
  let base = blk * SORT_BLOCK + lid * SORT_PER_THREAD;
  for (var q = 0u; q < SORT_PER_THREAD; q++) {
    if (base + q < sortParams.count) {
      atomicAdd(&digitCounts[digitOf(keysIn[base + q])], 1u);
    }
  }
  workgroupBarrier();
  for (var d = lid; d < SORT_BUCKETS; d += SORT_WG) {
    hist[d * sortParams.blocks + blk] = atomicLoad(&digitCounts[d]);
  }
}

@compute @workgroup_size(SORT_WG)
fn sortScatter(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let blk = sortBlockIndex(wid, nwg);
  if (blk >= sortParams.blocks) {
    return;
  }
  for (var d = 0u; d < SORT_BUCKETS; d++) {
    ranks[d * SORT_WG + lid] = 0u;
  }
  // Count this thread's keys (consecutive) per digit. No per-thread arrays: the keys are read
  // again below (private arrays indexed by a loop variable are slow on some backends).
  let base = blk * SORT_BLOCK + lid * SORT_PER_THREAD;
  for (var q = 0u; q < SORT_PER_THREAD; q++) {
    if (base + q < sortParams.count) {
      ranks[digitOf(keysIn[base + q]) * SORT_WG + lid] += 1u;
    }
  }
  workgroupBarrier();
  // Exclusive scan of ranks in digit-major order: thread t scans its SORT_BUCKETS consecutive
  // entries, then the workgroup scans the per-thread totals.
  var sum = 0u;
  for (var k = 0u; k < SORT_BUCKETS; k++) {
    let i = lid * SORT_BUCKETS + k;
    let x = ranks[i];
    ranks[i] = sum;
    sum += x;
  }
  rankPart[lid] = sum;
  workgroupBarrier();
  for (var off = 1u; off < SORT_WG; off <<= 1u) {
    var v = 0u;
    if (lid >= off) {
      v = rankPart[lid - off];
    }
    workgroupBarrier();
    rankPart[lid] += v;
    workgroupBarrier();
  }
  var prefix = 0u;
  if (lid > 0u) {
    prefix = rankPart[lid - 1u];
  }
  for (var k = 0u; k < SORT_BUCKETS; k++) {
    ranks[lid * SORT_BUCKETS + k] += prefix;
  }
  workgroupBarrier();
  // ranks[d · SORT_WG + t] is now the block-local position of thread t's first key of digit d,
  // and ranks[d · SORT_WG] the block-local start of digit d.
  // Global destination of block-local position 0 of each digit: (digit, block) start minus the
  // digit's block-local start. Staged once per block: a gather from storage per key is slow on
  // CPU implementations.
  for (var d = lid; d < SORT_BUCKETS; d += SORT_WG) {
    digitBase[d] = hist[d * sortParams.blocks + blk] - ranks[d * SORT_WG];
  }
  workgroupBarrier();
  for (var q = 0u; q < SORT_PER_THREAD; q++) {
    let i = base + q;
    if (i < sortParams.count) {
      let key = keysIn[i];
      let d = digitOf(key);
      let local = ranks[d * SORT_WG + lid];
      ranks[d * SORT_WG + lid] = local + 1u;
      let dest = digitBase[d] + local;
      keysOut[dest] = key;
      valsOut[dest] = valsIn[i];
    }
  }
}
