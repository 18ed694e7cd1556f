/**
 * Suite `three`: webgpu-obb/three against three.js itself (r187, from npm) in the page.
 * Each pick is checked twice: three's Raycaster against the float64 reference on the same boxes
 * (the scene → boxes mapping: same object and instance, distance to 1e-7 relative, for box
 * geometry the triangles and the box are the same surface), and the GPU against the reference
 * through the comparator (the error model). Sparse updates: the GPU buffer read back equals the
 * packed float64 host copy, box for box.
 */
import {
  BatchedMesh, Bone, BoxGeometry, Float32BufferAttribute, Frustum, Skeleton, SkinnedMesh, Uint16BufferAttribute, Group, InstancedMesh, Matrix4, Mesh, MeshBasicMaterial, Object3D, PerspectiveCamera, Quaternion, Raycaster,
  Vector2, Vector3, WebGLCoordinateSystem, WebGPUCoordinateSystem, type CoordinateSystem, type Intersection,
} from 'three';
import { rayArrayFrom, ValidationError, type Ray } from '../../../../src/index.ts';
import { compareClosestHits, mulberry32 } from '../../../../src/judge/index.ts';
import { closestHit, frustumCull } from '../../../../src/reference/index.ts';
import { OBB, packBoxes } from '../../../../src/advanced.ts';
import { ThreeBoxes } from '../../../../src/three/index.ts';
import { scoped, summarize } from '../shared.ts';

type Rnd = () => number;

function randomQuaternion(rnd: Rnd): Quaternion {
  return new Quaternion(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
}

/** Meshes of box geometry in nested rotated, uniformly scaled groups (meshes scaled non-uniformly: no shear). */
function meshScene(seed: number, count: number, layered = 0): { root: Group; meshes: Mesh[] } {
  const rnd = mulberry32(seed);
  const root = new Group();
  root.quaternion.copy(randomQuaternion(rnd));
  root.scale.setScalar(1.3);
  const material = new MeshBasicMaterial();
  const meshes: Mesh[] = [];
  const groups: Group[] = [];
  for (let g = 0; g < 25; g++) {
    const group = new Group();
    group.position.set((rnd() - 0.5) * 40, (rnd() - 0.5) * 40, (rnd() - 0.5) * 40);
    group.quaternion.copy(randomQuaternion(rnd));
    group.scale.setScalar(0.5 + rnd());
    (g < 12 ? root : groups[g - 12]!).add(group);
    groups.push(group);
  }
  for (let i = 0; i < count; i++) {
    const mesh = new Mesh(new BoxGeometry(0.4 + rnd() * 2, 0.4 + rnd() * 2, 0.4 + rnd() * 2), material);
    mesh.name = `mesh ${i}`;
    mesh.position.set((rnd() - 0.5) * 20, (rnd() - 0.5) * 20, (rnd() - 0.5) * 20);
    mesh.quaternion.copy(randomQuaternion(rnd));
    mesh.scale.set(0.5 + rnd(), 0.5 + rnd(), 0.5 + rnd());
    if (rnd() < layered) {
      mesh.layers.set(1);
    }
    groups[Math.floor(rnd() * groups.length)]!.add(mesh);
    meshes.push(mesh);
  }
  root.updateMatrixWorld(true);
  return { root, meshes };
}

/** One InstancedMesh of `count` rotated, non-uniformly scaled boxes, in a rotated group. */
function instanceScene(seed: number, count: number): { root: Group; mesh: InstancedMesh } {
  const rnd = mulberry32(seed);
  const root = new Group();
  root.quaternion.copy(randomQuaternion(rnd));
  root.position.set(3, -2, 1);
  const mesh = new InstancedMesh(new BoxGeometry(1, 1.5, 0.7), new MeshBasicMaterial(), count);
  const m = new Matrix4();
  for (let i = 0; i < count; i++) {
    m.compose(new Vector3((rnd() - 0.5) * 30, (rnd() - 0.5) * 30, (rnd() - 0.5) * 30), randomQuaternion(rnd), new Vector3(0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd()));
    mesh.setMatrixAt(i, m);
  }
  root.add(mesh);
  root.updateMatrixWorld(true);
  return { root, mesh };
}

function camera(coordinateSystem: CoordinateSystem, distance = 1): PerspectiveCamera {
  const c = new PerspectiveCamera(55, 1.3, 0.5, 400);
  c.coordinateSystem = coordinateSystem;
  c.position.set(60 * distance, 45 * distance, 70 * distance);
  c.lookAt(0, 0, 0);
  c.updateMatrixWorld();
  c.updateProjectionMatrix();
  return c;
}

interface PickReport {
  points: number;
  threeHits: number;
  /** three's first hit differs from the float64 reference's on the same boxes. */
  threeVsReference: number;
  worstDistance: number;
  gpu: ReturnType<typeof summarize>;
}

/**
 * `points` random screen points: three's Raycaster.intersectObject(root) against the float64
 * reference on the library's boxes (same object and instance; distance to 1e-9 relative), and
 * the GPU's picks (ThreeBoxes.pickEach) against the reference through the comparator.
 */
async function comparePicks(boxes: ThreeBoxes, root: Object3D, cam: PerspectiveCamera, rnd: Rnd, points: number): Promise<PickReport> {
  const raycasters: Raycaster[] = [];
  const threeFirst: (Intersection | undefined)[] = [];
  for (let k = 0; k < points; k++) {
    const r = new Raycaster();
    r.near = cam.near;
    r.far = cam.far;
    r.setFromCamera(new Vector2(rnd() * 2 - 1, rnd() * 2 - 1), cam);
    raycasters.push(r);
    threeFirst.push(r.intersectObject(root, true)[0]);
  }
  const rays: Ray[] = raycasters.map((r) => {
    const o = r.ray.origin.clone().addScaledVector(r.ray.direction, r.near);
    return { origin: [o.x, o.y, o.z], direction: [r.ray.direction.x, r.ray.direction.y, r.ray.direction.z], maxDistance: r.far - r.near };
  });
  const rayArray = rayArrayFrom(rays);
  const set = boxes.set;
  const rayMasks = Uint32Array.from(raycasters, (r) => r.layers.mask >>> 0);
  const ref = closestHit(set.boxes, rayArray, { boxMasks: set.masks ?? new Uint32Array(set.count).fill(0xffffffff), rayMasks });
  let threeVsReference = 0;
  let worstDistance = 0;
  threeFirst.forEach((hit, k) => {
    const b = ref.box[k]!;
    const mine = b >= 0 ? boxes.objectOf(b) : undefined;
    const same = hit === undefined ? mine === undefined
      : mine !== undefined && mine.object === hit.object && mine.instanceId === hit.instanceId;
    if (!same) {
      threeVsReference++;
      return;
    }
    if (hit) {
      worstDistance = Math.max(worstDistance, Math.abs(ref.t[k]! + raycasters[k]!.near - hit.distance) / hit.distance);
    }
  });
  const gpuHits = await boxes.gpu.closestHit(set, rayArray, { rayMasks, geometry: true });
  const cmp = compareClosestHits({ boxes: set.boxes, rays: rayArray, origin: set.origin, options: { ...(set.masks ? { boxMasks: set.masks } : {}), rayMasks } }, gpuHits);
  // pickEach is what users call: its first hits are the same query's.
  const picked = await boxes.pickEach(raycasters);
  picked.forEach((p, k) => {
    const b = gpuHits.box[k]!;
    if ((p === undefined) !== (b < 0)) {
      throw new Error(`pickEach and closestHit disagree on ray ${k}`);
    }
  });
  return { points, threeHits: threeFirst.filter(Boolean).length, threeVsReference, worstDistance, gpu: summarize(cmp) };
}

/** Meshes in nested groups, both clip spaces: three vs reference vs GPU on 1,000 screen points. */
export async function meshPicks(seed: number, count: number, points: number) {
  return scoped(async (gpu) => {
    const { root } = meshScene(seed, count, 0.3);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    try {
      const webgpu = await comparePicks(boxes, root, camera(WebGPUCoordinateSystem), mulberry32(seed + 1), points);
      const webgl = await comparePicks(boxes, root, camera(WebGLCoordinateSystem), mulberry32(seed + 1), points);
      // pickAt through a camera gives what three's own setFromCamera + intersect gives.
      const cam = camera(WebGLCoordinateSystem);
      const [hit] = await boxes.pickAt(0.01, -0.02, cam);
      const r = new Raycaster();
      r.setFromCamera(new Vector2(0.01, -0.02), cam);
      const three = r.intersectObject(root, true)[0];
      return { webgpu, webgl, boxes: boxes.count, pickAt: { same: hit?.object === three?.object, distance: hit?.distance, threeDistance: three?.distance, normalLength: hit?.face?.normal.length() } };
    } finally {
      boxes.destroy();
    }
  });
}

/** An InstancedMesh: picks with instance ids; then 1% of the instances move, sync, picks again. */
export async function instancePicks(seed: number, count: number, points: number) {
  return scoped(async (gpu) => {
    const { root, mesh } = instanceScene(seed, count);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    try {
      const cam = camera(WebGPUCoordinateSystem, 0.45);
      const before = await comparePicks(boxes, root, cam, mulberry32(seed + 2), points);
      const rnd = mulberry32(seed + 3);
      const m = new Matrix4();
      const movedIds = new Set<number>();
      while (movedIds.size < Math.ceil(count / 100)) {
        movedIds.add(Math.floor(rnd() * count));
      }
      for (const i of movedIds) {
        m.compose(new Vector3((rnd() - 0.5) * 30, (rnd() - 0.5) * 30, (rnd() - 0.5) * 30), randomQuaternion(rnd), new Vector3(0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd()));
        mesh.setMatrixAt(i, m);
      }
      mesh.instanceMatrix.needsUpdate = true;
      const sync = await boxes.sync();
      const after = await comparePicks(boxes, root, cam, mulberry32(seed + 4), points);
      const resync = await boxes.sync();
      // The GPU buffer equals the packed host copy, box for box (scatter kernel vs its CPU twin).
      const set = boxes.set;
      const gpuBoxes = new Float32Array(await gpu.ctx.readback(set.buffer, set.count * OBB.SIZE));
      const host = packBoxes(set.boxes, set.origin);
      let bufferDiffers = 0;
      for (let k = 0; k < host.length; k++) {
        if (gpuBoxes[k] !== host[k]) {
          bufferDiffers++;
        }
      }
      return { before, after, moved: movedIds.size, sync, resync, bufferDiffers, boxes: boxes.count };
    } finally {
      boxes.destroy();
    }
  });
}

/** Meshes move (1%): sync finds exactly them; picks still equal three's; the buffer equals the host copy. */
export async function meshSync(seed: number, count: number, points: number) {
  return scoped(async (gpu) => {
    const { root, meshes } = meshScene(seed, count);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    try {
      const rnd = mulberry32(seed + 5);
      const moved = new Set<Mesh>();
      while (moved.size < Math.ceil(count / 100)) {
        moved.add(meshes[Math.floor(rnd() * count)]!);
      }
      for (const mesh of moved) {
        mesh.position.x += 3 * (rnd() - 0.5);
        mesh.rotateY(rnd());
      }
      // One layer change.
      meshes[0]!.layers.set(2);
      root.updateMatrixWorld(true);
      const sync = await boxes.sync();
      const cam = camera(WebGPUCoordinateSystem);
      const after = await comparePicks(boxes, root, cam, mulberry32(seed + 6), points);
      // Adding and removing objects replaces the set.
      const extra = new Mesh(new BoxGeometry(), new MeshBasicMaterial());
      root.add(extra);
      root.updateMatrixWorld(true);
      const added = await boxes.sync();
      root.remove(extra);
      const removed = await boxes.sync();
      const set = boxes.set;
      const gpuBoxes = new Float32Array(await gpu.ctx.readback(set.buffer, set.count * OBB.SIZE));
      const host = packBoxes(set.boxes, set.origin);
      const bufferDiffers = host.reduce((n, x, k) => n + (gpuBoxes[k] === x ? 0 : 1), 0);
      return { moved: moved.size, sync, after, added, removed, count: boxes.count, bufferDiffers };
    } finally {
      boxes.destroy();
    }
  });
}

/**
 * What sync() sees besides moved matrices: a geometry whose bounding box changed moves all its
 * object's boxes; the root of an InstancedMesh moving moves every instance; an instance moved
 * while a sync's upload is in flight is the next sync's (not lost); a sync refused (a sheared
 * matrix under shear: 'error') changes nothing and the next one after the fix takes it all.
 */
export async function syncEdges(seed: number) {
  return scoped(async (gpu) => {
    const { root, mesh } = instanceScene(seed, 2000);
    const single = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    root.add(single);
    root.updateMatrixWorld(true);
    const boxes = await ThreeBoxes.create(gpu, [root], { shear: 'error' });
    const m = new Matrix4();
    try {
      // Bounding box change: the single mesh's geometry grows.
      single.geometry.scale(2, 1, 1);
      single.geometry.computeBoundingBox();
      const grown = await boxes.sync();
      const singleBox = boxes.set.count - 1;
      const half = boxes.set.boxes.data[singleBox * 15 + 3]!;
      // The InstancedMesh itself moves: every instance.
      mesh.position.x += 1;
      root.updateMatrixWorld(true);
      const all = await boxes.sync();
      // Instance 7 moves, sync starts; instance 9 moves before the upload finishes.
      mesh.setMatrixAt(7, m.makeTranslation(100, 0, 0));
      const first = boxes.sync();
      mesh.setMatrixAt(9, m.makeTranslation(0, 100, 0));
      const during = await first;
      const after = await boxes.sync();
      // A refused sync: instance 3 moves, instance 4 is sheared; nothing changes; fix 4, sync again.
      mesh.setMatrixAt(3, m.makeTranslation(0, 0, 100));
      mesh.setMatrixAt(4, new Matrix4().set(1, 0.5, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1));
      let refused = '';
      const before = Float64Array.from(boxes.set.boxes.data);
      try {
        await boxes.sync();
      } catch (e) {
        refused = (e as Error).name;
      }
      const untouched = boxes.set.boxes.data.every((x, k) => x === before[k]);
      mesh.setMatrixAt(4, m.makeTranslation(0, 0, -100));
      const retried = await boxes.sync();
      const set = boxes.set;
      const gpuBoxes = new Float32Array(await gpu.ctx.readback(set.buffer, set.count * OBB.SIZE));
      const host = packBoxes(set.boxes, set.origin);
      const bufferDiffers = host.reduce((n, x, k) => n + (gpuBoxes[k] === x ? 0 : 1), 0);
      return { grown: grown.moved, half, all: all.moved, during: during.moved, after: after.moved, refused, untouched, retried: retried.moved, bufferDiffers };
    } finally {
      boxes.destroy();
    }
  });
}

/**
 * The filter option (an editor's gizmo left out, read again at each sync), a BatchedMesh refused
 * unless filtered out, and a SkinnedMesh boxed by its posed bounding box (three's Raycaster hits
 * the posed geometry there too).
 */
export async function objectKinds() {
  return scoped(async (gpu) => {
    const root = new Group();
    const material = new MeshBasicMaterial();
    const a = new Mesh(new BoxGeometry(1, 1, 1), material);
    const gizmo = new Mesh(new BoxGeometry(1, 1, 1), material);
    gizmo.name = 'gizmo';
    gizmo.position.set(0, 0, 5);
    root.add(a, gizmo);
    root.updateMatrixWorld(true);
    const hidden = new Set<Object3D>([gizmo]);
    const boxes = await ThreeBoxes.create(gpu, [root], { filter: (o) => !hidden.has(o) });
    const down = new Raycaster(new Vector3(0, 0, 20), new Vector3(0, 0, -1));
    try {
      const filtered = { count: boxes.count, first: (await boxes.pick(down))[0]?.object === a };
      hidden.clear();
      const sync = await boxes.sync();
      const unfiltered = { count: boxes.count, first: (await boxes.pick(down))[0]?.object.name ?? '', rebuilt: sync.rebuilt };

      // BatchedMesh: refused, named; accepted when filtered out.
      const batched = new BatchedMesh(4, 100, 200, material);
      batched.name = 'batch';
      batched.addInstance(batched.addGeometry(new BoxGeometry(1, 1, 1)));
      const withBatch = new Group();
      withBatch.add(batched, new Mesh(new BoxGeometry(1, 1, 1), material));
      withBatch.updateMatrixWorld(true);
      let batchError = '';
      try {
        await ThreeBoxes.create(gpu, [withBatch]);
      } catch (e) {
        batchError = `${(e as Error).name}: ${(e as Error).message}`;
      }
      const without = await ThreeBoxes.create(gpu, [withBatch], { filter: (o) => !(o as { isBatchedMesh?: boolean }).isBatchedMesh });
      const withoutCount = without.count;
      without.destroy();

      // SkinnedMesh: one bone moved 6 along x; the box follows the posed vertices.
      const geometry = new BoxGeometry(1, 1, 1);
      const vertices = geometry.getAttribute('position').count;
      geometry.setAttribute('skinIndex', new Uint16BufferAttribute(new Uint16Array(4 * vertices), 4));
      geometry.setAttribute('skinWeight', new Float32BufferAttribute(Float32Array.from({ length: 4 * vertices }, (_, i) => (i % 4 === 0 ? 1 : 0)), 4));
      const skinned = new SkinnedMesh(geometry, material);
      const bone = new Bone();
      skinned.add(bone);
      skinned.bind(new Skeleton([bone]));
      bone.position.x = 6;
      skinned.updateMatrixWorld(true);
      skinned.skeleton.update();
      skinned.computeBoundingBox();
      const skin = await ThreeBoxes.create(gpu, [skinned]);
      const atPose = new Raycaster(new Vector3(6, 0, 20), new Vector3(0, 0, -1));
      const ours = (await skin.pick(atPose))[0];
      const theirs = atPose.intersectObject(skinned)[0];
      const centreX = skin.set.boxes.data[0]!;
      skin.destroy();
      return { filtered, unfiltered, batchError, withoutCount, skinned: { centreX, ours: ours?.distance ?? -1, theirs: theirs?.distance ?? -1 } };
    } finally {
      boxes.destroy();
    }
  });
}

/** Sheared world matrices (a rotated child of a non-uniformly scaled parent): 'error' and 'fit'. */
export async function sheared() {
  return scoped(async (gpu) => {
    const parent = new Group();
    parent.scale.set(3, 1, 0.5);
    const child = new Mesh(new BoxGeometry(1, 2, 1), new MeshBasicMaterial());
    child.name = 'crooked';
    child.rotation.set(0.7, 0.3, 0.2);
    parent.add(child);
    parent.updateMatrixWorld(true);
    let error = '';
    try {
      await ThreeBoxes.create(gpu, [parent], { shear: 'error' });
    } catch (e) {
      error = `${(e as Error).name}: ${(e as Error).message}`;
    }
    const boxes = await ThreeBoxes.create(gpu, [parent], { shear: 'fit' });
    try {
      // Every corner of the sheared geometry lies in the fitted box.
      const d = boxes.set.boxes.data;
      const c = new Vector3(d[0], d[1], d[2]);
      const axes = [new Vector3(d[6], d[7], d[8]), new Vector3(d[9], d[10], d[11]), new Vector3(d[12], d[13], d[14])];
      const half = [d[3]!, d[4]!, d[5]!];
      let outside = 0;
      for (let k = 0; k < 8; k++) {
        const p = new Vector3(k & 1 ? 0.5 : -0.5, k & 2 ? 1 : -1, k & 4 ? 0.5 : -0.5).applyMatrix4(child.matrixWorld).sub(c);
        if (axes.some((a, i) => Math.abs(p.dot(a)) > half[i]! + 1e-9)) {
          outside++;
        }
      }
      return { error, isValidationError: error.startsWith('ValidationError'), outside, count: boxes.count };
    } finally {
      boxes.destroy();
    }
  });
}

/** Marquee rectangles (both clip spaces, both modes) against three's own Frustum on the same boxes. */
export async function marquee(seed: number, rects: number) {
  return scoped(async (gpu) => {
    const { root } = meshScene(seed, 3000);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const rnd = mulberry32(seed + 7);
    try {
      const reports: { intersect: number; inside: number; missing: number; extra: number; insideDiffers: number; summary: ReturnType<typeof summarize> | undefined }[] = [];
      for (let k = 0; k < rects; k++) {
        const cam = camera(k % 2 === 0 ? WebGPUCoordinateSystem : WebGLCoordinateSystem);
        const x = rnd() * 1.6 - 0.9, y = rnd() * 1.6 - 0.9;
        const rect = { x0: x, y0: y, x1: x + 0.1 + rnd() * 0.6, y1: y + 0.1 + rnd() * 0.6 };
        const got = await boxes.select(rect, cam);
        const inside = await boxes.select(rect, cam, { mode: 'inside' });
        // three's frustum of the same sub-rectangle.
        const sub = new Matrix4().set(
          2 / (rect.x1 - rect.x0), 0, 0, -(rect.x0 + rect.x1) / (rect.x1 - rect.x0),
          0, 2 / (rect.y1 - rect.y0), 0, -(rect.y0 + rect.y1) / (rect.y1 - rect.y0),
          0, 0, 1, 0, 0, 0, 0, 1,
        ).multiply(cam.projectionMatrix).multiply(cam.matrixWorldInverse);
        const frustum = new Frustum().setFromProjectionMatrix(sub, cam.coordinateSystem);
        const planes = frustum.planes.map((p) => [p.normal.x, p.normal.y, p.normal.z, p.constant] as const);
        const ref = new Set(frustumCull(boxes.set.boxes, planes));
        const mine = new Set(got.map((s) => s.box));
        const missing = [...ref].filter((b) => !mine.has(b)).length;
        const extra = [...mine].filter((b) => !ref.has(b)).length;
        // 'inside': every corner of the box in three's frustum.
        const d = boxes.set.boxes.data;
        let insideDiffers = 0;
        const insideSet = new Set(inside.map((s) => s.box));
        for (const b of ref) {
          const o = b * 15;
          let all = true;
          for (let c = 0; c < 8 && all; c++) {
            const p = new Vector3(d[o]!, d[o + 1]!, d[o + 2]!);
            for (let a = 0; a < 3; a++) {
              const s = (c >> a) & 1 ? 1 : -1;
              p.x += s * d[o + 3 + a]! * d[o + 6 + 3 * a]!;
              p.y += s * d[o + 3 + a]! * d[o + 7 + 3 * a]!;
              p.z += s * d[o + 3 + a]! * d[o + 8 + 3 * a]!;
            }
            all = frustum.containsPoint(p);
          }
          if (all !== insideSet.has(b)) {
            insideDiffers++;
          }
        }
        reports.push({ intersect: got.length, inside: inside.length, missing, extra, insideDiffers, summary: undefined });
      }
      return { reports, boxes: boxes.count };
    } finally {
      boxes.destroy();
    }
  });
}

/** updateIndices: scattered updates match the host copy; bad calls are refused whole. */
export async function sparseUpdates(seed: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const { root } = meshScene(seed, 500);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const set = boxes.set;
    try {
      const snapshot = async (): Promise<Float32Array> => new Float32Array(await gpu.ctx.readback(set.buffer, set.count * OBB.SIZE));
      const before = await snapshot();
      const errors: string[] = [];
      const box = { center: [1, 2, 3] as const, halfExtents: [1, 1, 1] as const, rotation: [0, 0, 0, 1] as const };
      for (const [indices, list] of [
        [[3, 3], [box, box]], [[1, 500], [box, box]], [[1, 2, 3], [box, box]], [[-1], [box]], [[0.5], [box]],
      ] as const) {
        try {
          await set.updateIndices(indices, list);
          errors.push('accepted');
        } catch (e) {
          errors.push(`${(e as Error).name}: ${e instanceof ValidationError ? e.field : ''}`);
        }
      }
      const untouched = (await snapshot()).every((x, k) => x === before[k]);
      // 100 scattered boxes in one call.
      const indices = new Set<number>();
      while (indices.size < 100) {
        indices.add(Math.floor(rnd() * set.count));
      }
      const list = [...indices];
      await set.updateIndices(list, list.map((i) => ({ center: [i, -i, 0.5 * i] as const, halfExtents: [0.5, 1, 1.5] as const, rotation: [0, 0, Math.sin(i), Math.cos(i)] as const })));
      const after = await snapshot();
      const host = packBoxes(set.boxes, set.origin);
      const differs = host.reduce((n, x, k) => n + (after[k] === x ? 0 : 1), 0);
      const changed = list.every((i) => set.boxes.data[i * 15] === i);
      // Masks at indices.
      await set.setMasksAt([5, 9], new Uint32Array([2, 4]));
      const masks = set.masks ? [set.masks[5], set.masks[9], set.masks[6]] : [];
      return { errors, untouched, differs, changed, masks, strideFloats: OBB.SIZE / 4 };
    } finally {
      boxes.destroy();
    }
  });
}
