/**
 * Peer: three.js without a BVH, the way its users do it: per box a world matrix and its inverse
 * (computed once, at build time: three's own Mesh.raycast inverts per call), the ray moved into
 * each box's frame and `Ray.intersectBox` against the local box; for box pairs the OBB addon's
 * `intersectsOBB` (Ericson's 15-axis SAT). Float64 JS, brute force.
 *
 * Semantics differ in one place: for a ray starting inside a box, `intersectBox` returns the exit
 * point (ours and Rapier's return t = 0). The benchmark scenes never start a ray inside a box.
 */
import { Box3, Matrix4, Ray, REVISION, Vector3 } from 'three';
import { OBB } from 'three/addons/math/OBB.js';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../../../src/index.ts';
import type { BenchHits, Implementation } from './types.ts';

const ORIGIN = [0, 0, 0] as const;

function axes(d: Float64Array, o: number): [Vector3, Vector3, Vector3] {
  return [
    new Vector3(d[o + BOX_F64.U]!, d[o + BOX_F64.U + 1]!, d[o + BOX_F64.U + 2]!),
    new Vector3(d[o + BOX_F64.V]!, d[o + BOX_F64.V + 1]!, d[o + BOX_F64.V + 2]!),
    new Vector3(d[o + BOX_F64.W]!, d[o + BOX_F64.W + 1]!, d[o + BOX_F64.W + 2]!),
  ];
}

function toObb(d: Float64Array, i: number, target = new OBB()): OBB {
  const o = i * BOX_F64.STRIDE;
  const [u, v, w] = axes(d, o);
  target.center.set(d[o]!, d[o + 1]!, d[o + 2]!);
  target.halfSize.set(d[o + BOX_F64.HALF]!, d[o + BOX_F64.HALF + 1]!, d[o + BOX_F64.HALF + 2]!);
  // Matrix3.set takes rows; the columns are the box axes.
  target.rotation.set(u.x, v.x, w.x, u.y, v.y, w.y, u.z, v.z, w.z);
  return target;
}

export const three: Implementation = {
  name: 'three',
  kind: 'peer',
  bruteForce: true,
  device: 'cpu',

  version: () => Promise.resolve(`three r${REVISION}`),

  buildRays(boxes: BoxArray) {
    const d = boxes.data;
    const inverses: Matrix4[] = [];
    const locals: Box3[] = [];
    for (let i = 0; i < boxes.count; i++) {
      const o = i * BOX_F64.STRIDE;
      const [u, v, w] = axes(d, o);
      const world = new Matrix4().makeBasis(u, v, w).setPosition(d[o]!, d[o + 1]!, d[o + 2]!);
      inverses.push(world.invert());
      const h = new Vector3(d[o + BOX_F64.HALF]!, d[o + BOX_F64.HALF + 1]!, d[o + BOX_F64.HALF + 2]!);
      locals.push(new Box3(h.clone().negate(), h));
    }
    return Promise.resolve({
      origin: ORIGIN,
      closestHit(rays: RayArray): Promise<BenchHits> {
        const box = new Int32Array(rays.count).fill(-1);
        const t = new Float64Array(rays.count).fill(Infinity);
        const ray = new Ray();
        const local = new Ray();
        const point = new Vector3();
        const r64 = rays.data;
        for (let r = 0; r < rays.count; r++) {
          const o = r * RAY_F64.STRIDE;
          ray.origin.set(r64[o]!, r64[o + 1]!, r64[o + 2]!);
          ray.direction.set(r64[o + 3]!, r64[o + 4]!, r64[o + 5]!);
          const max = r64[o + RAY_F64.MAX]!;
          let best = Infinity;
          for (let b = 0; b < inverses.length; b++) {
            local.copy(ray).applyMatrix4(inverses[b]!);
            if (local.intersectBox(locals[b]!, point)) {
              // The inverse is rigid, so local distances are world distances.
              const dist = point.distanceTo(local.origin);
              if (dist < best && dist <= max) {
                best = dist;
                box[r] = b;
              }
            }
          }
          t[r] = best;
        }
        return Promise.resolve({ box, t });
      },
      destroy: () => {},
    });
  },

  pairs(boxes: BoxArray, pairs: Uint32Array) {
    const obbs = Array.from({ length: boxes.count }, (_, i) => toObb(boxes.data, i));
    return Promise.resolve({
      origin: ORIGIN,
      run() {
        const n = pairs.length / 2;
        const overlap = new Uint8Array(n);
        for (let k = 0; k < n; k++) {
          overlap[k] = obbs[pairs[2 * k]!]!.intersectsOBB(obbs[pairs[2 * k + 1]!]!) ? 1 : 0;
        }
        return Promise.resolve({ overlap });
      },
      destroy: () => {},
    });
  },

  moving(boxes: BoxArray) {
    const obbs = Array.from({ length: boxes.count }, (_, i) => toObb(boxes.data, i));
    return Promise.resolve({
      origin: ORIGIN,
      frame(next: BoxArray): Promise<Uint32Array> {
        for (let i = 0; i < next.count; i++) {
          toObb(next.data, i, obbs[i]);
        }
        const out: number[] = [];
        for (let i = 0; i < obbs.length; i++) {
          for (let j = i + 1; j < obbs.length; j++) {
            if (obbs[i]!.intersectsOBB(obbs[j]!)) {
              out.push(i, j);
            }
          }
        }
        return Promise.resolve(Uint32Array.from(out));
      },
      destroy: () => {},
    });
  },
};
