/**
 * Every compute entry point of the library: its shader module (src/runtime/shaders.ts) and the
 * bindings it uses, by WGSL name → [binding number, kind]. Generated from the linked WGSL by
 * tools/gen-kernels.ts (`npm run gen:kernels`); do not edit. test/cpu/kernels.test.ts
 * regenerates it and fails on any difference.
 */
export const KERNELS = {
  closestHit: { module: 'raysBrute', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], rays: [3, 'read-only-storage'], hits: [4, 'storage'], geometry: [5, 'storage'] } },
  anyHit: { module: 'raysBrute', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], rays: [3, 'read-only-storage'], anyFlags: [6, 'storage'] } },
  allHits: { module: 'raysBrute', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], rays: [3, 'read-only-storage'], records: [7, 'storage'], counter: [8, 'storage'] } },
  bvhClosestHit: { module: 'raysTree', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], rays: [3, 'read-only-storage'], hits: [4, 'storage'], geometry: [5, 'storage'], nodes: [9, 'read-only-storage'], overflowCount: [10, 'storage'] } },
  bvhAnyHit: { module: 'raysTree', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], rays: [3, 'read-only-storage'], anyFlags: [6, 'storage'], nodes: [9, 'read-only-storage'], overflowCount: [10, 'storage'] } },
  bvhAllHits: { module: 'raysTree', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], rays: [3, 'read-only-storage'], anyFlags: [6, 'storage'], records: [7, 'storage'], counter: [8, 'storage'], nodes: [9, 'read-only-storage'], overflowCount: [10, 'storage'] } },
  bvhLidar: { module: 'lidarTree', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], nodes: [9, 'read-only-storage'], overflowCount: [10, 'storage'], lidarRange: [13, 'storage'], lidarBox: [14, 'storage'], lidarPoints: [15, 'storage'], sweep: [20, 'uniform'], lidarSetup: [21, 'read-only-storage'] } },
  lidarFootprint: { module: 'lidarRaster', bindings: { params: [0, 'uniform'], boxes: [1, 'read-only-storage'], boxMasks: [2, 'read-only-storage'], lidar: [11, 'uniform'], lidarTables: [12, 'read-only-storage'], boxData: [16, 'storage'], tileCounters: [17, 'storage'], tileLists: [19, 'storage'] } },
  lidarBin: { module: 'lidarRaster', bindings: { params: [0, 'uniform'], lidar: [11, 'uniform'], boxData: [16, 'storage'], tileCounters: [17, 'storage'], tileLists: [19, 'storage'] } },
  lidarSortTiles: { module: 'lidarRaster', bindings: { lidar: [11, 'uniform'], boxData: [16, 'storage'], tileCounters: [17, 'storage'], tileLists: [19, 'storage'] } },
  lidarTiles: { module: 'lidarRaster', bindings: { params: [0, 'uniform'], overflowCount: [10, 'storage'], lidar: [11, 'uniform'], lidarTables: [12, 'read-only-storage'], lidarRange: [13, 'storage'], lidarBox: [14, 'storage'], lidarPoints: [15, 'storage'], boxData: [16, 'storage'], tileCounters: [17, 'storage'], tileLists: [19, 'storage'] } },
  obbPairs: { module: 'pairsListed', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], boxesB: [2, 'read-only-storage'], pairs: [3, 'read-only-storage'], results: [4, 'storage'] } },
  obbOneVsMany: { module: 'pairsListed', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], boxesB: [2, 'read-only-storage'], results: [4, 'storage'] } },
  obbCross: { module: 'pairsListed', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], boxesB: [2, 'read-only-storage'], pairsOut: [5, 'storage'], counter: [6, 'storage'] } },
  bvhPairs: { module: 'pairsTree', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], boxesB: [2, 'read-only-storage'], nodes: [7, 'read-only-storage'], overflowCount: [8, 'storage'], leafOrder: [10, 'read-only-storage'], candidates: [15, 'storage'], candidateCount: [16, 'storage'] } },
  gridCount: { module: 'pairsGrid', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], grid: [11, 'uniform'], cellOf: [12, 'storage'], cellCounters: [13, 'storage'] } },
  gridScatter: { module: 'pairsGrid', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], grid: [11, 'uniform'], cellOf: [12, 'storage'], cellCounters: [13, 'storage'], cellItems: [14, 'storage'] } },
  gridPairs: { module: 'pairsGrid', bindings: { params: [0, 'uniform'], grid: [11, 'uniform'], cellCounters: [13, 'storage'], cellItems: [14, 'storage'], candidates: [15, 'storage'], candidateCount: [16, 'storage'] } },
  pairsNarrowArgs: { module: 'pairsNarrow', bindings: { params: [0, 'uniform'], candidateCount: [16, 'storage'], narrowArgs: [17, 'storage'] } },
  pairsNarrow: { module: 'pairsNarrow', bindings: { params: [0, 'uniform'], boxesA: [1, 'read-only-storage'], boxesB: [2, 'read-only-storage'], pairsOut: [5, 'storage'], counter: [6, 'storage'], contacts: [9, 'storage'], candidates: [15, 'storage'], candidateCount: [16, 'storage'] } },
  frustumCull: { module: 'frustum', bindings: { frustum: [0, 'uniform'], boxes: [1, 'read-only-storage'], visible: [2, 'storage'], visibleCount: [3, 'storage'] } },
  frustumArgs: { module: 'frustum', bindings: { frustum: [0, 'uniform'], visibleCount: [3, 'storage'], drawArgs: [4, 'storage'] } },
  scanBlocks: { module: 'scan', bindings: { scanParams: [0, 'uniform'], scanData: [1, 'storage'], scanSums: [2, 'storage'] } },
  scanAdd: { module: 'scan', bindings: { scanParams: [0, 'uniform'], scanData: [1, 'storage'], scanSums: [2, 'storage'] } },
  sortCount: { module: 'sort', bindings: { sortParams: [0, 'uniform'], keysIn: [1, 'read-only-storage'], hist: [5, 'storage'] } },
  sortScatter: { module: 'sort', bindings: { sortParams: [0, 'uniform'], keysIn: [1, 'read-only-storage'], valsIn: [2, 'read-only-storage'], keysOut: [3, 'storage'], valsOut: [4, 'storage'], hist: [5, 'storage'] } },
  bvhBoundsPartial: { module: 'treeBuild', bindings: { bvhParams: [0, 'uniform'], boxes: [1, 'read-only-storage'], bounds: [2, 'storage'] } },
  bvhBoundsFinal: { module: 'treeBuild', bindings: { bvhParams: [0, 'uniform'], bounds: [2, 'storage'] } },
  bvhMorton: { module: 'treeBuild', bindings: { bvhParams: [0, 'uniform'], boxes: [1, 'read-only-storage'], bounds: [2, 'storage'], keys: [3, 'storage'], vals: [4, 'storage'] } },
  bvhHierarchy: { module: 'treeBuild', bindings: { bvhParams: [0, 'uniform'], keys: [3, 'storage'], vals: [4, 'storage'], nodes: [5, 'storage'], parents: [6, 'storage'] } },
  bvhRefitLeaves: { module: 'treeBuild', bindings: { bvhParams: [0, 'uniform'], parents: [6, 'storage'], refitCount: [7, 'storage'], listOut: [8, 'storage'] } },
  bvhRefitArgs: { module: 'treeBuild', bindings: { listOut: [8, 'storage'], listIn: [9, 'read-only-storage'], args: [10, 'storage'] } },
  bvhRefitNodes: { module: 'treeBuild', bindings: { boxes: [1, 'read-only-storage'], nodes: [5, 'storage'], parents: [6, 'storage'], refitCount: [7, 'storage'], listOut: [8, 'storage'], listIn: [9, 'read-only-storage'], status: [11, 'storage'] } },
  scatterBoxes: { module: 'boxesScatter', bindings: { scatter: [0, 'uniform'], indices: [1, 'read-only-storage'], sourceBoxes: [2, 'read-only-storage'], boxes: [3, 'storage'] } },
  scatterMasks: { module: 'boxesScatter', bindings: { scatter: [0, 'uniform'], indices: [1, 'read-only-storage'], sourceMasks: [4, 'read-only-storage'], masks: [5, 'storage'] } },
} as const;
