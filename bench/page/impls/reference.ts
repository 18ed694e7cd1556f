/**
 * The float64 CPU reference (src/reference): the oracle every other row is checked against, and a
 * usable single-threaded CPU backend. Brute force: every ray against every box.
 */
import { type BoxArray, type RayArray } from '../../../src/index.ts';
import { allPairs, closestHit, obbPairs } from '../../../src/reference/index.ts';
import type { Implementation } from './types.ts';

const ORIGIN = [0, 0, 0] as const;

export const reference: Implementation = {
  name: 'reference',
  kind: 'reference',
  bruteForce: true,
  device: 'cpu',

  version: () => Promise.resolve('float64 JS'),

  buildRays(boxes: BoxArray) {
    return Promise.resolve({
      origin: ORIGIN,
      closestHit: (rays: RayArray) => Promise.resolve(closestHit(boxes, rays)),
      destroy: () => {},
    });
  },

  pairs(boxes: BoxArray, pairs: Uint32Array) {
    return Promise.resolve({
      origin: ORIGIN,
      run: () => Promise.resolve(obbPairs(boxes, pairs)),
      destroy: () => {},
    });
  },

  moving() {
    return Promise.resolve({
      origin: ORIGIN,
      frame: (boxes: BoxArray) => Promise.resolve(allPairs(boxes)),
      destroy: () => {},
    });
  },
};
