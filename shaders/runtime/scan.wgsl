// scan.wgsl — exclusive prefix sum of a u32 array, reduce-then-scan across dispatches.
// Entry points:
//   scanBlocks  each workgroup scans one block of SCAN_BLOCK elements in place (exclusive) and
//               writes the block's total to sums[block]
//   scanAdd     adds sums[block] (the scanned block totals) to every element of the block
// The host scans `sums` the same way (recursively) between the two, so arrays of any length take
// 2·levels − 1 dispatches. No workgroup waits on another (WebGPU promises no forward progress
// between workgroups): each level is its own dispatch.
// Bindings (group 0): 0 params: ScanParams (uniform); 1 data: array<u32>; 2 sums: array<u32>.
// Workgroup size: override SCAN_WG; SCAN_PER_THREAD consecutive elements per thread.

// Threads per workgroup and elements per thread: set per pipeline by the host (ExclusiveScan).
override SCAN_WG: u32 = 256u;
override SCAN_PER_THREAD: u32 = 4u;
override SCAN_BLOCK: u32 = SCAN_WG * SCAN_PER_THREAD;

struct ScanParams {
  count: u32,
  blocks: u32,
}

@group(0) @binding(0) var<uniform> scanParams: ScanParams;
@group(0) @binding(1) var<storage, read_write> scanData: array<u32>;
@group(0) @binding(2) var<storage, read_write> scanSums: array<u32>;

var<workgroup> scanPart: array<u32, SCAN_WG>;

fn scanBlockIndex(wid: vec3u, nwg: vec3u) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Inclusive Hillis–Steele scan of scanPart (one value per thread). Uniform control flow.
fn scanWorkgroup(lid: u32) {
  for (var off = 1u; off < SCAN_WG; off <<= 1u) {
    var v = 0u;
    if (lid >= off) {
      v = scanPart[lid - off];
    }
    workgroupBarrier();
    scanPart[lid] += v;
    workgroupBarrier();
  }
}

@compute @workgroup_size(SCAN_WG)
fn scanBlocks(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let blk = scanBlockIndex(wid, nwg);
  if (blk >= scanParams.blocks) {
    return;
  }
  let base = blk * SCAN_BLOCK + lid * SCAN_PER_THREAD;
  // This thread's total, then the workgroup's exclusive prefix of totals, then a second pass
  // over the thread's elements (re-read: no per-thread array, its size is an override).
  var sum = 0u;
  for (var q = 0u; q < SCAN_PER_THREAD; q++) {
    if (base + q < scanParams.count) {
      sum += scanData[base + q];
    }
  }
  scanPart[lid] = sum;
  workgroupBarrier();
  scanWorkgroup(lid);
  var running = 0u;
  if (lid > 0u) {
    running = scanPart[lid - 1u];
  }
  for (var q = 0u; q < SCAN_PER_THREAD; q++) {
    if (base + q < scanParams.count) {
      let x = scanData[base + q];
      scanData[base + q] = running;
      running += x;
    }
  }
  if (lid == SCAN_WG - 1u) {
    scanSums[blk] = scanPart[lid];
  }
}

@compute @workgroup_size(SCAN_WG)
fn scanAdd(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let blk = scanBlockIndex(wid, nwg);
  if (blk >= scanParams.blocks) {
    return;
  }
  let add = scanSums[blk];
  let base = blk * SCAN_BLOCK + lid * SCAN_PER_THREAD;
  for (var q = 0u; q < SCAN_PER_THREAD; q++) {
    if (base + q < scanParams.count) {
      scanData[base + q] += add;
    }
  }
}
