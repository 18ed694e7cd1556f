/**
 * The page's one ObbGpu (one device for every workload), created on first use.
 */
import { ObbGpu } from '../../src/index.ts';

let shared: Promise<ObbGpu> | undefined;

/** The shared ObbGpu; the page asks for SwiftShader or a real GPU through the browser's flags. */
export function sharedGpu(): Promise<ObbGpu> {
  return (shared ??= ObbGpu.create());
}
