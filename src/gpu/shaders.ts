/**
 * The link manifest. WGSL has no include, so each kernel is a list of chunks (real `.wgsl` files
 * imported with `?raw`) concatenated in order, duplicates dropped, with a generated chunk of
 * constants from src/constants.ts first. The linker remembers where each chunk starts, so a
 * compile message at line N of the linked source maps back to `file:line`.
 */
import { WGSL_CONSTANTS } from '../constants.ts';
import typesWgsl from '../../shaders/common/types.wgsl?raw';
import rayObbWgsl from '../../shaders/query/ray_obb.wgsl?raw';
import obbObbSatWgsl from '../../shaders/query/obb_obb_sat.wgsl?raw';
import frustumWgsl from '../../shaders/kernels/frustum_cull.wgsl?raw';
import rayObbBatchWgsl from '../../shaders/kernels/ray_obb_batch.wgsl?raw';
import obbPairsWgsl from '../../shaders/kernels/obb_pairs.wgsl?raw';
import lidarRasterWgsl from '../../shaders/kernels/lidar_raster.wgsl?raw';
import scanWgsl from '../../shaders/bvh/scan.wgsl?raw';
import sortWgsl from '../../shaders/bvh/sort.wgsl?raw';
import aabbWgsl from '../../shaders/bvh/aabb.wgsl?raw';
import bvhBuildWgsl from '../../shaders/bvh/build.wgsl?raw';

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

export const CHUNKS = {
  types: { file: 'shaders/common/types.wgsl', code: typesWgsl },
  rayObb: { file: 'shaders/query/ray_obb.wgsl', code: rayObbWgsl },
  obbObbSat: { file: 'shaders/query/obb_obb_sat.wgsl', code: obbObbSatWgsl },
  rayObbBatch: { file: 'shaders/kernels/ray_obb_batch.wgsl', code: rayObbBatchWgsl },
  obbPairs: { file: 'shaders/kernels/obb_pairs.wgsl', code: obbPairsWgsl },
  frustum: { file: 'shaders/kernels/frustum_cull.wgsl', code: frustumWgsl },
  lidarRaster: { file: 'shaders/kernels/lidar_raster.wgsl', code: lidarRasterWgsl },
  scan: { file: 'shaders/bvh/scan.wgsl', code: scanWgsl },
  sort: { file: 'shaders/bvh/sort.wgsl', code: sortWgsl },
  aabb: { file: 'shaders/bvh/aabb.wgsl', code: aabbWgsl },
  bvhBuild: { file: 'shaders/bvh/build.wgsl', code: bvhBuildWgsl },
} as const satisfies Record<string, ShaderChunk>;

/**
 * Concatenates chunks in order (dropping repeats of the same file) after the constants chunk.
 *
 * @example
 * const linked = linkShader('obb:pairs', [CHUNKS.types, CHUNKS.rayObb, CHUNKS.obbObbSat, CHUNKS.obbPairs]);
 * device.createShaderModule({ label: linked.label, code: linked.code });
 */
export function linkShader(label: string, chunks: readonly ShaderChunk[]): LinkedShader {
  const seen = new Set<string>();
  const parts: string[] = [];
  const map: { file: string; firstLine: number; lineCount: number }[] = [];
  let line = 1;
  for (const chunk of [CONSTANTS_CHUNK, ...chunks]) {
    if (seen.has(chunk.file)) {
      continue;
    }
    seen.add(chunk.file);
    const code = chunk.code.endsWith('\n') ? chunk.code : `${chunk.code}\n`;
    const lineCount = code.split('\n').length - 1;
    map.push({ file: chunk.file, firstLine: line, lineCount });
    parts.push(code);
    line += lineCount;
  }
  return { label, code: parts.join(''), chunks: map };
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

/** The kernels of the library and the chunks each one links. */
export const KERNEL_SOURCES = {
  rayObbBatch: () => linkShader('obb:rays', [CHUNKS.types, CHUNKS.rayObb, CHUNKS.rayObbBatch]),
  obbPairs: () => linkShader('obb:pairs', [CHUNKS.types, CHUNKS.rayObb, CHUNKS.obbObbSat, CHUNKS.aabb, CHUNKS.obbPairs]),
  frustum: () => linkShader('obb:frustum', [CHUNKS.types, CHUNKS.frustum]),
  lidarRaster: () => linkShader('obb:lidar-raster', [CHUNKS.types, CHUNKS.rayObb, CHUNKS.lidarRaster]),
  scan: () => linkShader('obb:scan', [CHUNKS.scan]),
  sort: () => linkShader('obb:sort', [CHUNKS.sort]),
  bvhBuild: () => linkShader('obb:bvh-build', [CHUNKS.types, CHUNKS.aabb, CHUNKS.bvhBuild]),
} as const;
