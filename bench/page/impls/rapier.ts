/**
 * Peers: Rapier 0.21 (`@dimforge/rapier3d-compat`, float32 WASM with the module inlined; row
 * `rapier`) and its SIMD build (`@dimforge/rapier3d-simd-compat`, the same with WASM SIMD128; row
 * `rapier-simd`), used the way their documentation shows, by the same code. The SIMD build is
 * 0.20.0: the npm registry has no 0.21 of it (its latest, 2026-08), and 0.20's query API is the
 * one used here. What 0.21 requires, found while writing this:
 * - there is no QueryPipeline any more: `world.castRay` goes through the broad phase's BVH, and
 *   sees nothing until `world.step()` has run once after the colliders were added (that step is
 *   part of the build time here);
 * - collider handles are float64 bit patterns (arena index and generation), not integers: map
 *   them back to box indices through a Map, never by arithmetic;
 * - static colliders never pair with each other, so overlaps need one kinematic body per box with a
 *   sensor collider and `ActiveCollisionTypes.ALL`, a `step()` per frame, and
 *   `narrowPhase.intersectionPairsWith` per collider (each pair is reported from both sides);
 *   bodies move with `setTranslation/setRotation(…, true)`.
 */
import RAPIER from '@dimforge/rapier3d-compat';
import RAPIER_SIMD from '@dimforge/rapier3d-simd-compat';
import { BOX_F64, RAY_F64, type BoxArray, type BoxMotion, type RayArray } from '../../../src/index.ts';
import { boxAtTime, motionOf } from '../../../src/core/lidar.ts';
import { quaternionOf } from '../scenes.ts';
import type { BenchHits, Implementation } from './types.ts';

/** What the peer uses of a Rapier module (typed by the compat build's declarations). */
type Rapier = Pick<typeof RAPIER, 'init' | 'version' | 'World' | 'Ray' | 'ColliderDesc' | 'Cuboid' | 'RigidBodyDesc' | 'ActiveCollisionTypes'>;

const ORIGIN = [0, 0, 0] as const;
/** castRay's maxToi for rays without a max distance (float32 inside Rapier). */
const FAR = 1e30;

/** Casts every ray (from `first`, `count` of them) against the world; box −1 for a miss. */
function castAll(R: Rapier, world: RAPIER.World, index: ReadonlyMap<number, number>, rays: RayArray, out: { box: Int32Array; t: Float32Array }, pick: (k: number) => number, count: number): void {
  const ray = new R.Ray({ x: 0, y: 0, z: 0 }, { x: 1, y: 0, z: 0 });
  const d = rays.data;
  for (let k = 0; k < count; k++) {
    const r = pick(k);
    const o = r * RAY_F64.STRIDE;
    ray.origin = { x: d[o]!, y: d[o + 1]!, z: d[o + 2]! };
    ray.dir = { x: d[o + 3]!, y: d[o + 4]!, z: d[o + 5]! };
    const max = d[o + RAY_F64.MAX]!;
    const hit = world.castRay(ray, Number.isFinite(max) ? max : FAR, true);
    if (hit) {
      out.box[r] = index.get(hit.collider.handle) ?? -2;
      out.t[r] = hit.timeOfImpact;
    }
  }
}

function boxPose(d: Float64Array, i: number): { t: RAPIER.Vector; q: RAPIER.Rotation; h: [number, number, number] } {
  const o = i * BOX_F64.STRIDE;
  const [x, y, z, w] = quaternionOf(d, o);
  return {
    t: { x: d[o]!, y: d[o + 1]!, z: d[o + 2]! },
    q: { x, y, z, w },
    h: [d[o + BOX_F64.HALF]!, d[o + BOX_F64.HALF + 1]!, d[o + BOX_F64.HALF + 2]!],
  };
}

/** The peer on one Rapier module (`pkg`, the npm package it comes from). */
function rapierPeer(name: string, pkg: string, R: Rapier): Implementation {
  let ready: Promise<void> | undefined;
  const init = (): Promise<void> => (ready ??= R.init());
  return {
    name,
    kind: 'peer',
    bruteForce: false,
    device: 'cpu',

    async version() {
      await init();
      return `${pkg} ${R.version()}`;
    },

    async buildRays(boxes: BoxArray) {
      await init();
      const world = new R.World({ x: 0, y: 0, z: 0 });
      const index = new Map<number, number>();
      for (let i = 0; i < boxes.count; i++) {
        const p = boxPose(boxes.data, i);
        const desc = R.ColliderDesc.cuboid(p.h[0], p.h[1], p.h[2])
          .setTranslation(p.t.x, p.t.y, p.t.z)
          .setRotation(p.q);
        index.set(world.createCollider(desc).handle, i);
      }
      // Without this step the broad phase is empty and castRay hits nothing.
      world.step();
      return {
        origin: ORIGIN,
        closestHit(rays: RayArray): Promise<BenchHits> {
          const out = { box: new Int32Array(rays.count).fill(-1), t: new Float32Array(rays.count).fill(Infinity) };
          castAll(R, world, index, rays, out, (k) => k, rays.count);
          return Promise.resolve(out);
        },
        destroy: () => world.free(),
      };
    },

    async pairs(boxes: BoxArray, pairs: Uint32Array) {
      await init();
      const poses = Array.from({ length: boxes.count }, (_, i) => boxPose(boxes.data, i));
      const shapes = poses.map((p) => new R.Cuboid(p.h[0], p.h[1], p.h[2]));
      return {
        origin: ORIGIN,
        run() {
          const n = pairs.length / 2;
          const overlap = new Uint8Array(n);
          for (let k = 0; k < n; k++) {
            const a = pairs[2 * k]!, b = pairs[2 * k + 1]!;
            const pa = poses[a]!, pb = poses[b]!;
            overlap[k] = shapes[a]!.intersectsShape(pa.t, pa.q, shapes[b]!, pb.t, pb.q) ? 1 : 0;
          }
          return Promise.resolve({ overlap });
        },
        destroy: () => {},
      };
    },

    async moving(boxes: BoxArray) {
      await init();
      const world = new R.World({ x: 0, y: 0, z: 0 });
      const bodies: RAPIER.RigidBody[] = [];
      const handles: number[] = [];
      const index = new Map<number, number>();
      for (let i = 0; i < boxes.count; i++) {
        const p = boxPose(boxes.data, i);
        const body = world.createRigidBody(R.RigidBodyDesc.kinematicPositionBased()
          .setTranslation(p.t.x, p.t.y, p.t.z).setRotation(p.q));
        const collider = world.createCollider(R.ColliderDesc.cuboid(p.h[0], p.h[1], p.h[2])
          .setSensor(true)
          .setActiveCollisionTypes(R.ActiveCollisionTypes.ALL), body);
        bodies.push(body);
        handles.push(collider.handle);
        index.set(collider.handle, i);
      }
      world.step();
      return {
        origin: ORIGIN,
        frame(next: BoxArray): Promise<Uint32Array> {
          for (let i = 0; i < next.count; i++) {
            const o = i * BOX_F64.STRIDE;
            const d = next.data;
            const [x, y, z, w] = quaternionOf(d, o);
            const body = bodies[i]!;
            body.setTranslation({ x: d[o]!, y: d[o + 1]!, z: d[o + 2]! }, true);
            body.setRotation({ x, y, z, w }, true);
          }
          world.step();
          const out: number[] = [];
          const partners: number[] = [];
          for (let i = 0; i < handles.length; i++) {
            partners.length = 0;
            world.narrowPhase.intersectionPairsWith(handles[i]!, (other) => {
              const j = index.get(other) ?? -1;
              if (j > i) {
                partners.push(j);
              }
            });
            partners.sort((a, b) => a - b);
            for (const j of partners) {
              out.push(i, j);
            }
          }
          return Promise.resolve(Uint32Array.from(out));
        },
        destroy: () => world.free(),
      };
    },

    /**
     * A sweep with moving boxes, the way Rapier does it: static colliders, one kinematic body per
     * moving box; before each column's rays the bodies are moved to the column's time and the world
     * stepped (castRay sees a body's new place only after a step).
     */
    async timedRays(boxes: BoxArray, motion: BoxMotion) {
      await init();
      const world = new R.World({ x: 0, y: 0, z: 0 });
      const index = new Map<number, number>();
      const moving = new Set(Array.from(motion.boxes));
      const bodies: { body: RAPIER.RigidBody; i: number; k: number }[] = [];
      for (let i = 0; i < boxes.count; i++) {
        const p = boxPose(boxes.data, i);
        let desc = R.ColliderDesc.cuboid(p.h[0], p.h[1], p.h[2]);
        let body: RAPIER.RigidBody | undefined;
        if (moving.has(i)) {
          body = world.createRigidBody(R.RigidBodyDesc.kinematicPositionBased().setTranslation(p.t.x, p.t.y, p.t.z).setRotation(p.q));
        } else {
          desc = desc.setTranslation(p.t.x, p.t.y, p.t.z).setRotation(p.q);
        }
        index.set(world.createCollider(desc, body).handle, i);
        if (body) {
          bodies.push({ body, i, k: bodies.length });
        }
      }
      world.step();
      const motions = bodies.map(({ k }) => motionOf(motion, k));
      const at = new Float64Array(BOX_F64.STRIDE);
      return {
        origin: ORIGIN,
        sweep(rays: RayArray, channels: number, columns: number, times: Float64Array): Promise<BenchHits> {
          const out = { box: new Int32Array(rays.count).fill(-1), t: new Float32Array(rays.count).fill(Infinity) };
          for (let a = 0; a < columns; a++) {
            for (const { body, i, k } of bodies) {
              boxAtTime(boxes, i, motions[k]!.v, motions[k]!.w, times[a]!, at, 0);
              const p = boxPose(at, 0);
              body.setTranslation(p.t, true);
              body.setRotation(p.q, true);
            }
            world.step();
            castAll(R, world, index, rays, out, (c) => c * columns + a, channels);
          }
          return Promise.resolve(out);
        },
        destroy: () => world.free(),
      };
    },
  };
}

export const rapier: Implementation = rapierPeer('rapier', '@dimforge/rapier3d-compat', RAPIER);
/**
 * The SIMD build, 0.20: the calls made here (World, castRay, colliders, bodies, intersectsShape,
 * intersectionPairsWith) are declared alike in 0.20 and 0.21; only the WASM bindings' raw
 * signatures underneath differ (0.21 added soft bodies), which is why TypeScript needs the cast.
 */
export const rapierSimd: Implementation = rapierPeer('rapier-simd', '@dimforge/rapier3d-simd-compat', RAPIER_SIMD as unknown as Rapier);
