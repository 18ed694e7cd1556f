/**
 * The demo's default scenes: sizes chosen to stay interactive on a CPU WebGPU adapter
 * (SwiftShader); the sliders (or URL parameters, see main.ts) go up to 1M boxes on a real GPU.
 * Shared with test/gpu/demo.test.ts, which regenerates the same scenes for the reference.
 */
export const PICKING_SEED = 7;
export const PICKING_DEFAULT_SIZE = 100_000;

export const LIDAR_SEED = 7;
export const LIDAR_DEFAULTS = { boxes: 20_000, channels: 32, azimuths: 512, maxRange: 120, lowDeg: -25, highDeg: 15 } as const;

export const OVERLAP_SEED = 3;
export const OVERLAP_DEFAULT_SIZE = 2000;

/** GPU-animated instances: the default fits SwiftShader; the slider (or `?instances=`) goes to 1M. */
export const INSTANCES_SEED = 11;
export const INSTANCES_DEFAULT_SIZE = 10_000;
export const INSTANCES_MAX_SIZE = 1_000_000;
