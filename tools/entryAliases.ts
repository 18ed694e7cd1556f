/**
 * The package's entries resolved to their sources, for the Vite configs of the demo and the
 * examples (they import `webgpu-obb`, `webgpu-obb/advanced`, … as a user would; in this
 * repository those names resolve to src/, the same map as tsconfig.json's `paths`, so the dev
 * servers and the tests run from source with the WGSL through `?raw`).
 */

/** Each package entry and its source (package.json `exports`). */
export const ENTRIES: Readonly<Record<string, string>> = {
  'webgpu-obb': 'src/index.ts',
  'webgpu-obb/advanced': 'src/advanced.ts',
  'webgpu-obb/reference': 'src/reference/index.ts',
  'webgpu-obb/judge': 'src/judge/index.ts',
  'webgpu-obb/lidar': 'src/lidar/index.ts',
  'webgpu-obb/three': 'src/three/index.ts',
};

/**
 * Vite `resolve.alias` entries mapping each package entry to its source under `repo` (a path
 * ending in `/`).
 *
 * @example
 * defineConfig({ resolve: { alias: entryAliases(repo) } })
 */
export function entryAliases(repo: string): { find: RegExp; replacement: string }[] {
  return Object.entries(ENTRIES).map(([entry, file]) => ({ find: new RegExp(`^${entry}$`), replacement: `${repo}${file}` }));
}
