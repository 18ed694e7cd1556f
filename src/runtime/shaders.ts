/**
 * The link manifest. WGSL has no include, so each shader module is a list of chunks (real `.wgsl` files
 * imported with `?raw`) concatenated in order, duplicates dropped, with a generated chunk of
 * constants from src/constants.ts first. The linker remembers where each chunk starts, so a
 * compile message at line N of the linked source maps back to `file:line`.
 */
import { WGSL_CONSTANTS } from '../constants.ts';
import typesWgsl from '../../shaders/common/types.wgsl?raw';
import rayObbWgsl from '../../shaders/query/ray_obb.wgsl?raw';
import obbObbSatWgsl from '../../shaders/query/obb_obb_sat.wgsl?raw';
import obbFrustumWgsl from '../../shaders/query/obb_frustum.wgsl?raw';
import raysCommonWgsl from '../../shaders/rays/common.wgsl?raw';
import raysBruteWgsl from '../../shaders/rays/brute.wgsl?raw';
import raysTreeWalkWgsl from '../../shaders/rays/tree_walk.wgsl?raw';
import raysTreeWgsl from '../../shaders/rays/tree.wgsl?raw';
import raysTreeSubgroupWgsl from '../../shaders/rays/tree_subgroup.wgsl?raw';
import lidarTreeWgsl from '../../shaders/lidar/tree.wgsl?raw';
import lidarRasterWgsl from '../../shaders/lidar/raster.wgsl?raw';
import lidarCompactWgsl from '../../shaders/lidar/compact.wgsl?raw';
import lidarReturnsCommonWgsl from '../../shaders/lidar/returns_common.wgsl?raw';
import lidarIntensityWgsl from '../../shaders/lidar/intensity.wgsl?raw';
import lidarNoiseWgsl from '../../shaders/lidar/noise.wgsl?raw';
import lidarNoiseRaysWgsl from '../../shaders/lidar/noise_rays.wgsl?raw';
import lidarReturnsWgsl from '../../shaders/lidar/returns.wgsl?raw';
import pairsCommonWgsl from '../../shaders/pairs/common.wgsl?raw';
import pairsCandidatesWgsl from '../../shaders/pairs/candidates.wgsl?raw';
import pairsListedWgsl from '../../shaders/pairs/listed.wgsl?raw';
import pairsTreeWgsl from '../../shaders/pairs/tree.wgsl?raw';
import pairsGridWgsl from '../../shaders/pairs/grid.wgsl?raw';
import pairsNarrowWgsl from '../../shaders/pairs/narrow.wgsl?raw';
import pairsStatusWgsl from '../../shaders/pairs/status.wgsl?raw';
import frustumWgsl from '../../shaders/frustum/cull.wgsl?raw';
import scanWgsl from '../../shaders/runtime/scan.wgsl?raw';
import sortWgsl from '../../shaders/runtime/sort.wgsl?raw';
import aabbWgsl from '../../shaders/tree/aabb.wgsl?raw';
import treeBuildWgsl from '../../shaders/tree/build.wgsl?raw';
import boxesScatterWgsl from '../../shaders/boxes/scatter.wgsl?raw';
import boxesDeriveWgsl from '../../shaders/boxes/derive.wgsl?raw';

/** One source file of a linked shader. */
export interface ShaderChunk {
  readonly file: string;
  readonly code: string;
}

/** A linked shader: its source and where each chunk starts (1-based lines). */
export interface LinkedShader {
  readonly label: string;
  readonly code: string;
  readonly chunks: readonly { readonly file: string; readonly firstLine: number; readonly lineCount: number }[];
}

function formatConstant(type: 'f32' | 'u32', value: number): string {
  if (type === 'u32') {
    return `${value >>> 0}u`;
  }
  // Shortest round-trip decimal of the float64; WGSL rounds it to the nearest f32.
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** The generated constants chunk (one `const` per entry of WGSL_CONSTANTS). */
export const CONSTANTS_CHUNK: ShaderChunk = {
  file: 'src/constants.ts (generated)',
  code: Object.entries(WGSL_CONSTANTS)
    .map(([name, [type, value]]) => `const ${name}: ${type} = ${formatConstant(type, value)};`)
    .join('\n'),
};

/** The WGSL chunks the modules link, by name: each file's path and code. */
export const CHUNKS = {
  types: { file: 'shaders/common/types.wgsl', code: typesWgsl },
  rayObb: { file: 'shaders/query/ray_obb.wgsl', code: rayObbWgsl },
  obbObbSat: { file: 'shaders/query/obb_obb_sat.wgsl', code: obbObbSatWgsl },
  obbFrustum: { file: 'shaders/query/obb_frustum.wgsl', code: obbFrustumWgsl },
  raysCommon: { file: 'shaders/rays/common.wgsl', code: raysCommonWgsl },
  raysBrute: { file: 'shaders/rays/brute.wgsl', code: raysBruteWgsl },
  raysTreeWalk: { file: 'shaders/rays/tree_walk.wgsl', code: raysTreeWalkWgsl },
  raysTree: { file: 'shaders/rays/tree.wgsl', code: raysTreeWgsl },
  raysTreeSubgroup: { file: 'shaders/rays/tree_subgroup.wgsl', code: raysTreeSubgroupWgsl },
  lidarTree: { file: 'shaders/lidar/tree.wgsl', code: lidarTreeWgsl },
  lidarRaster: { file: 'shaders/lidar/raster.wgsl', code: lidarRasterWgsl },
  lidarCompact: { file: 'shaders/lidar/compact.wgsl', code: lidarCompactWgsl },
  lidarReturnsCommon: { file: 'shaders/lidar/returns_common.wgsl', code: lidarReturnsCommonWgsl },
  lidarIntensity: { file: 'shaders/lidar/intensity.wgsl', code: lidarIntensityWgsl },
  lidarNoise: { file: 'shaders/lidar/noise.wgsl', code: lidarNoiseWgsl },
  lidarNoiseRays: { file: 'shaders/lidar/noise_rays.wgsl', code: lidarNoiseRaysWgsl },
  lidarReturns: { file: 'shaders/lidar/returns.wgsl', code: lidarReturnsWgsl },
  pairsCommon: { file: 'shaders/pairs/common.wgsl', code: pairsCommonWgsl },
  pairsCandidates: { file: 'shaders/pairs/candidates.wgsl', code: pairsCandidatesWgsl },
  pairsListed: { file: 'shaders/pairs/listed.wgsl', code: pairsListedWgsl },
  pairsTree: { file: 'shaders/pairs/tree.wgsl', code: pairsTreeWgsl },
  pairsGrid: { file: 'shaders/pairs/grid.wgsl', code: pairsGridWgsl },
  pairsNarrow: { file: 'shaders/pairs/narrow.wgsl', code: pairsNarrowWgsl },
  pairsStatus: { file: 'shaders/pairs/status.wgsl', code: pairsStatusWgsl },
  frustum: { file: 'shaders/frustum/cull.wgsl', code: frustumWgsl },
  scan: { file: 'shaders/runtime/scan.wgsl', code: scanWgsl },
  sort: { file: 'shaders/runtime/sort.wgsl', code: sortWgsl },
  aabb: { file: 'shaders/tree/aabb.wgsl', code: aabbWgsl },
  treeBuild: { file: 'shaders/tree/build.wgsl', code: treeBuildWgsl },
  boxesScatter: { file: 'shaders/boxes/scatter.wgsl', code: boxesScatterWgsl },
  boxesDerive: { file: 'shaders/boxes/derive.wgsl', code: boxesDeriveWgsl },
} as const satisfies Record<string, ShaderChunk>;

/** A WGSL global directive (enable, requires, diagnostic), which must come before any declaration. */
const DIRECTIVE = /^(?:enable|requires|diagnostic)\b[^\n]*$/gm;

/**
 * Concatenates chunks in order (dropping repeats of the same file) after the constants chunk.
 * A chunk's global directives (`enable subgroups;`, …) go first, once each, and leave an empty
 * line in their place, so every chunk keeps its line numbers.
 *
 * @example
 * const linked = linkShader('obb:pairs', [CHUNKS.types, CHUNKS.rayObb, CHUNKS.obbObbSat, CHUNKS.aabb, CHUNKS.pairsCommon, CHUNKS.pairsListed]);
 * device.createShaderModule({ label: linked.label, code: linked.code });
 */
export function linkShader(label: string, chunks: readonly ShaderChunk[]): LinkedShader {
  const seen = new Set<string>();
  const directives = new Set<string>();
  const parts: string[] = [];
  const map: { file: string; firstLine: number; lineCount: number }[] = [];
  let line = 1;
  for (const chunk of [CONSTANTS_CHUNK, ...chunks]) {
    if (seen.has(chunk.file)) {
      continue;
    }
    seen.add(chunk.file);
    const text = chunk.code.endsWith('\n') ? chunk.code : `${chunk.code}\n`;
    const code = text.replace(DIRECTIVE, (directive) => {
      directives.add(directive);
      return '';
    });
    const lineCount = code.split('\n').length - 1;
    map.push({ file: chunk.file, firstLine: line, lineCount });
    parts.push(code);
    line += lineCount;
  }
  const head = [...directives].map((d) => `${d}\n`).join('');
  return {
    label,
    code: head + parts.join(''),
    chunks: map.map((c) => ({ ...c, firstLine: c.firstLine + directives.size })),
  };
}

/** Maps a 1-based line of a linked shader back to its chunk's file and line. */
export function mapShaderLine(linked: LinkedShader, line: number): { file: string; line: number } {
  for (const c of linked.chunks) {
    if (line >= c.firstLine && line < c.firstLine + c.lineCount) {
      return { file: c.file, line: line - c.firstLine + 1 };
    }
  }
  return { file: linked.label, line };
}

const C = CHUNKS;
const SAT_BASE = [C.types, C.rayObb, C.obbObbSat, C.aabb, C.pairsCommon] as const;

/**
 * The shader modules of the library and the chunks each one links, in order. One module per
 * query family and method; its entry points (and the bindings each uses, by name) are in
 * kernels.generated.ts.
 */
export const MODULES = {
  /** Rays × every box (closestHit, anyHit, allHits; shaders/rays/brute.wgsl). */
  raysBrute: () => linkShader('obb:rays-brute', [C.types, C.rayObb, C.raysCommon, C.raysBrute]),
  /** Rays walking the BVH (bvhClosestHit, bvhAnyHit, bvhAllHits, the counting walk; shaders/rays/tree.wgsl). */
  raysTree: () => linkShader('obb:rays-tree', [C.types, C.rayObb, C.raysCommon, C.raysTreeWalk, C.raysTree]),
  /** Compiled only on devices with the 'subgroups' feature (RayKernelTuning.subgroupWalk). */
  raysTreeSubgroup: () => linkShader('obb:rays-tree-subgroup', [C.types, C.rayObb, C.raysCommon, C.raysTreeWalk, C.raysTreeSubgroup]),
  /** LiDAR sweeps walking the BVH (shaders/lidar/tree.wgsl). */
  lidarTree: () => linkShader('obb:lidar-tree', [C.types, C.rayObb, C.raysCommon, C.raysTreeWalk, C.lidarTree]),
  /** LiDAR sweeps by rasterising boxes into the sensor's range image, tile by tile (shaders/lidar/raster.wgsl). */
  lidarRaster: () => linkShader('obb:lidar-raster', [C.types, C.rayObb, C.lidarRaster]),
  /** A sweep's returns compacted on the GPU for drawing, with drawIndirect arguments (shaders/lidar/compact.wgsl). */
  lidarCompact: () => linkShader('obb:lidar-compact', [C.types, C.lidarCompact]),
  /** The intensity of each return of a sweep, after the sweep (shaders/lidar/intensity.wgsl). */
  lidarIntensity: () => linkShader('obb:lidar-intensity', [C.types, C.rayObb, C.lidarReturnsCommon, C.lidarIntensity]),
  /** The beams' seeded angular noise, before a sweep (shaders/lidar/noise_rays.wgsl). */
  lidarNoiseRays: () => linkShader('obb:lidar-noise-rays', [C.types, C.lidarReturnsCommon, C.lidarNoise, C.lidarNoiseRays]),
  /** Each beam's returns from its sub-ray hits, with seeded range noise and dropout, after a sweep (shaders/lidar/returns.wgsl). */
  lidarReturns: () => linkShader('obb:lidar-returns', [C.types, C.lidarReturnsCommon, C.lidarNoise, C.lidarReturns]),
  /** Box–box SAT over listed pairs, one box against many, and set against set (obbPairs, obbOneVsMany, obbCross; shaders/pairs/listed.wgsl). */
  pairsListed: () => linkShader('obb:pairs-listed', [...SAT_BASE, C.pairsListed]),
  /** All-pairs candidates from the BVH (shaders/pairs/tree.wgsl). */
  pairsTree: () => linkShader('obb:pairs-tree', [...SAT_BASE, C.pairsCandidates, C.pairsTree]),
  /** All-pairs candidates from a uniform grid (shaders/pairs/grid.wgsl). */
  pairsGrid: () => linkShader('obb:pairs-grid', [...SAT_BASE, C.pairsCandidates, C.pairsGrid]),
  /** The SAT narrow phase over all-pairs candidates (shaders/pairs/narrow.wgsl). */
  pairsNarrow: () => linkShader('obb:pairs-narrow', [...SAT_BASE, C.pairsCandidates, C.pairsNarrow]),
  /** The state of a pair list recorded into the caller's encoder: valid count, overflow bits, dispatch size (shaders/pairs/status.wgsl). */
  pairsStatus: () => linkShader('obb:pairs-status', [...SAT_BASE, C.pairsCandidates, C.pairsStatus]),
  /** Frustum culling, conservative and exact, into indirect draw arguments (shaders/frustum/cull.wgsl, shaders/query/obb_frustum.wgsl). */
  frustum: () => linkShader('obb:frustum', [C.types, C.obbFrustum, C.frustum]),
  /** Exclusive prefix sum (ExclusiveScan; shaders/runtime/scan.wgsl). */
  scan: () => linkShader('obb:scan', [C.scan]),
  /** Radix sort of keys with values (RadixSort; shaders/runtime/sort.wgsl). */
  sort: () => linkShader('obb:sort', [C.sort]),
  /** The GPU BVH build (bounds, Morton codes, root) and refit (shaders/tree/build.wgsl). */
  treeBuild: () => linkShader('obb:tree-build', [C.types, C.aabb, C.treeBuild]),
  /** Sparse updates of a set's boxes and masks (BoxSet.updateIndices, BoxSet.setMasksAt; shaders/boxes/scatter.wgsl). */
  boxesScatter: () => linkShader('obb:boxes-scatter', [C.types, C.boxesScatter]),
  /** A GPU-sourced set's boxes derived from the caller's buffer, and its effective masks (GpuSourcedBoxSet.refresh; shaders/boxes/derive.wgsl). */
  boxesDerive: () => linkShader('obb:boxes-derive', [C.types, C.boxesDerive]),
} as const;

/** The name of one of the library's shader modules ({@link MODULES}). */
export type ModuleName = keyof typeof MODULES;
