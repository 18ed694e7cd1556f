// scan.wgsl — exclusive prefix sum of a u32 array, reduce-then-scan across dispatches.
// Entry points:
//   scanBlocks  each workgroup scans one block of SCAN_BLOCK elements in place (exclusive) and
//               writes the block's total to sums[block]
//   scanAdd     adds sums[block] (the scanned block totals) to every element of the block
// The host scans `sums` the same way (recursively) between the two, so arrays of any length take
// 2·levels − 1 dispatches. No workgroup waits on another (WebGPU promises no forward progress
// between workgroups): each level is its own dispatch.
// Bindings (group 0): 0 params: ScanParams (uniform); 1 data: array<u32>; 2 sums: array<u32>.
// Workgroup size SCAN_WG; SCAN_PER_THREAD consecutive elements per thread.

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
  let block = scanBlockIndex(wid, nwg);
  if (block >= scanParams.blocks) {
    return;
  }
  let base = block * SCAN_BLOCK + lid * SCAN_PER_THREAD;
  var v: array<u32, SCAN_PER_THREAD>;
  var sum = 0u;
  for (var q = 0u; q < SCAN_PER_THREAD; q++) {
    var x = 0u;
    if (base + q < scanParams.count) {
      x = scanData[base + q];
    }
    v[q] = sum;
    sum += x;
  }
  scanPart[lid] = sum;
  workgroupBarrier();
  scanWorkgroup(lid);
  var prefix = 0u;
  if (lid > 0u) {
    prefix = scanPart[lid - 1u];
  }
  for (var q = 0u; q < SCAN_PER_THREAD; q++) {
    if (base + q < scanParams.count) {
      scanData[base + q] = v[q] + prefix;
    }
  }
  if (lid == SCAN_WG - 1u) {
    scanSums[block] = scanPart[lid];
  }
}

@compute @workgroup_size(SCAN_WG)
fn scanAdd(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let block = scanBlockIndex(wid, nwg);
  if (block >= scanParams.blocks) {
    return;
  }
  let add = scanSums[block];
  let base = block * SCAN_BLOCK + lid * SCAN_PER_THREAD;
  for (var q = 0u; q < SCAN_PER_THREAD; q++) {
    if (base + q < scanParams.count) {
      scanData[base + q] += add;
    }
  }
}
