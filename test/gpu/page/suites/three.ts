/**
 * Suite `three`: webgpu-obb/three against three.js itself (r187, from npm) in the page.
 * Each pick is checked twice: three's Raycaster against the float64 reference on the same boxes
 * (the scene → boxes mapping: same object and instance, distance to 1e-7 relative, for box
 * geometry the triangles and the box are the same surface), and the GPU against the reference
 * through the comparator (the error model). Sparse updates: the GPU buffer read back equals the
 * packed float64 host copy, box for box.
 */
import {
  BatchedMesh, Bone, BoxGeometry, Float32BufferAttribute, Frustum, Skeleton, SkinnedMesh, Uint16BufferAttribute, Group, InstancedMesh, Layers, Matrix4, Mesh, MeshBasicMaterial, Object3D, PerspectiveCamera, Quaternion, Raycaster,
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
        const ref = new Set(frustumCull(boxes.set.boxes, planes, { exact: true }));
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

/** The point of a hit on the ray of `r` at `distance` (three's Ray.at), as numbers. */
function pointOn(r: Raycaster, distance: number): [number, number, number] {
  const p = r.ray.at(distance, new Vector3());
  return [p.x, p.y, p.z];
}

/**
 * Picks in flight together: `points` pickAt calls awaited together, picks of one raycaster
 * re-aimed before the first answer came back, and pickEach batches in flight with them. Every
 * value of each answer must belong to its own ray: the point is on that ray at the reported
 * distance, and object, instance, distance and normal equal the same pick made alone.
 */
export async function concurrentPicks(seed: number, count: number, points: number) {
  return scoped(async (gpu) => {
    const { root } = instanceScene(seed, count);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const cam = camera(WebGPUCoordinateSystem, 0.45);
    const rnd = mulberry32(seed + 1);
    type Seen = { id?: number | undefined; distance?: number | undefined; point?: number[] | undefined; normal?: number[] | undefined };
    const seen = (hit: Intersection | undefined): Seen => (hit
      ? { id: hit.instanceId, distance: hit.distance, point: hit.point.toArray(), normal: hit.face?.normal.toArray() }
      : {});
    // Worst distance of a reported point from where its own ray is at the reported distance.
    const offRay = (r: Raycaster, hit: Intersection | undefined): number => {
      if (!hit) {
        return 0;
      }
      const [x, y, z] = pointOn(r, hit.distance);
      return Math.hypot(hit.point.x - x, hit.point.y - y, hit.point.z - z);
    };
    const differs = (a: Seen, b: Seen): boolean => JSON.stringify(a) !== JSON.stringify(b);
    try {
      const ndc = Array.from({ length: points }, () => [rnd() - 0.5, rnd() - 0.5] as const);
      const own = ndc.map(([x, y]) => {
        const r = new Raycaster();
        r.setFromCamera(new Vector2(x, y), cam);
        return r;
      });
      // Alone, one at a time: what each pick must be.
      const alone: Seen[] = [];
      for (const [x, y] of ndc) {
        alone.push(seen((await boxes.pickAt(x, y, cam))[0]));
      }
      // pickAt: all in flight at once.
      const together = await Promise.all(ndc.map(([x, y]) => boxes.pickAt(x, y, cam)));
      let pickAtWrongPoints = 0, pickAtDiffer = 0, worstOffRay = 0;
      together.forEach(([hit], k) => {
        const off = offRay(own[k]!, hit);
        worstOffRay = Math.max(worstOffRay, off);
        if (off > 1e-6 * (1 + (hit?.distance ?? 0))) {
          pickAtWrongPoints++;
        }
        if (differs(seen(hit), alone[k]!)) {
          pickAtDiffer++;
        }
      });
      // pick(raycaster): one raycaster of the caller's, re-aimed for the next pick before the
      // first answer came back (the caller may reuse its raycaster at once).
      const shared = new Raycaster();
      const reused: Promise<Intersection[]>[] = [];
      for (let k = 0; k < points; k++) {
        shared.ray.copy(own[k]!.ray);
        reused.push(boxes.pick(shared));
      }
      shared.ray.origin.set(1e3, 1e3, 1e3);
      let pickWrongPoints = 0, pickDiffer = 0;
      (await Promise.all(reused)).forEach(([hit], k) => {
        if (offRay(own[k]!, hit) > 1e-6 * (1 + (hit?.distance ?? 0))) {
          pickWrongPoints++;
        }
        if (differs(seen(hit), alone[k]!)) {
          pickDiffer++;
        }
      });
      // pickEach batches and single pickAt calls in flight together.
      const half = Math.floor(points / 2);
      const [each, ...singles] = await Promise.all([boxes.pickEach(own.slice(0, half)), ...ndc.slice(half).map(([x, y]) => boxes.pickAt(x, y, cam).then((h) => [h[0]]))]);
      let mixedDiffer = 0;
      [...each, ...singles.map((s) => s[0])].forEach((hit, k) => {
        if (differs(seen(hit), alone[k]!) || offRay(own[k]!, hit) > 1e-6 * (1 + (hit?.distance ?? 0))) {
          mixedDiffer++;
        }
      });
      return { points, hits: alone.filter((a) => a.id !== undefined).length, pickAtWrongPoints, pickAtDiffer, worstOffRay, pickWrongPoints, pickDiffer, mixedDiffer };
    } finally {
      boxes.destroy();
    }
  });
}

/** The name and message of what `run` rejects with (or throws), or 'resolved'. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'resolved';
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

/**
 * Everything after destroy(): sync() with nothing changed, and with something moved, and each
 * pick; each must reject with StaleObjectError (docs/guarantees.md, "Errors").
 */
export async function afterDestroy(seed: number) {
  return scoped(async (gpu) => {
    const { root, mesh } = instanceScene(seed, 200);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const cam = camera(WebGPUCoordinateSystem, 0.45);
    boxes.destroy();
    const unchanged = await outcome(() => boxes.sync());
    mesh.setMatrixAt(0, new Matrix4().makeTranslation(5, 0, 0));
    const moved = await outcome(() => boxes.sync());
    const pickAt = await outcome(() => boxes.pickAt(0, 0, cam));
    const pick = await outcome(() => boxes.pick(new Raycaster(new Vector3(0, 0, 100), new Vector3(0, 0, -1))));
    const pickEach = await outcome(() => boxes.pickEach([new Raycaster(new Vector3(0, 0, 100), new Vector3(0, 0, -1))]));
    // Syncs in flight (one running, one waiting for it) when destroy() is called.
    const other = await ThreeBoxes.create(gpu, [root]);
    mesh.setMatrixAt(1, new Matrix4().makeTranslation(1, 2, 3));
    const running = outcome(() => other.sync());
    mesh.setMatrixAt(2, new Matrix4().makeTranslation(3, 2, 1));
    const waiting = outcome(() => other.sync());
    other.destroy();
    return { unchanged, moved, pickAt, pick, pickEach, running: await running, waiting: await waiting };
  });
}

/** Bad arguments of pickAt, pick and pickEach: each error names the call and the argument. */
export async function pickArguments() {
  return scoped(async (gpu) => {
    const { root } = instanceScene(78, 100);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const cam = camera(WebGPUCoordinateSystem, 0.45);
    const bad = new Raycaster(new Vector3(0, Number.NaN, 0), new Vector3(0, 0, -1));
    const good = new Raycaster(new Vector3(0, 0, 100), new Vector3(0, 0, -1));
    const farNaN = new Raycaster(new Vector3(0, 0, 100), new Vector3(0, 0, -1));
    farNaN.far = Number.NaN;
    // Deliberately wrong types, as JavaScript callers may pass them.
    const loose = boxes as unknown as { pickAt(...args: unknown[]): Promise<unknown>; pick(...args: unknown[]): Promise<unknown>; pickEach(...args: unknown[]): Promise<unknown> };
    try {
      return {
        xNaN: await outcome(() => boxes.pickAt(Number.NaN, 0, cam)),
        yNaN: await outcome(() => boxes.pickAt(0, Number.NaN, cam)),
        xInfinite: await outcome(() => boxes.pickAt(Number.POSITIVE_INFINITY, 0, cam)),
        yString: await outcome(() => loose.pickAt(0, '0.5', cam)),
        camera: await outcome(() => loose.pickAt(0, 0, undefined)),
        layersFraction: await outcome(() => boxes.pickAt(0, 0, cam, { layers: 1.5 })),
        layersString: await outcome(() => loose.pickAt(0, 0, cam, { layers: 'all' })),
        all: await outcome(() => loose.pickAt(0, 0, cam, { all: 'yes' })),
        raycaster: await outcome(() => loose.pick(undefined)),
        rayNaN: await outcome(() => boxes.pick(bad)),
        far: await outcome(() => boxes.pick(farNaN)),
        eachNaN: await outcome(() => boxes.pickEach([good, bad])),
        each: await outcome(() => loose.pickEach(good)),
      };
    } finally {
      boxes.destroy();
    }
  });
}

/**
 * pickAt's `layers`: a mask (as Layers.mask), or a three.js Layers object. Two boxes on one ray:
 * the near one on layer 1 (and once on layer 31, whose mask three stores as a negative int32 or
 * an unsigned one), the far one on layer 0. Each case: our pick's object and three's Raycaster
 * with the same layers.
 */
export async function layerOption() {
  return scoped(async (gpu) => {
    const root = new Group();
    const material = new MeshBasicMaterial();
    const near = new Mesh(new BoxGeometry(1, 1, 1), material);
    near.name = 'near';
    near.layers.set(1);
    const far = new Mesh(new BoxGeometry(1, 1, 1), material);
    far.name = 'far';
    far.position.z = -5;
    root.add(near, far);
    root.updateMatrixWorld(true);
    const cam = new PerspectiveCamera(50, 1, 0.1, 100);
    cam.position.set(0, 0, 10);
    cam.lookAt(0, 0, 0);
    cam.updateMatrixWorld();
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const one = new Layers();
    one.set(1);
    const all = new Layers();
    all.enableAll();
    const zero = new Layers();
    const cases: [string, number | Layers | undefined][] = [
      ['default', undefined], ['mask 1 (layer 0)', 1], ['mask 2 (layer 1)', 2], ['mask 3', 3], ['mask 0', 0],
      ['Layers set(1)', one], ['Layers enableAll', all], ['new Layers()', zero], ['mask 0xffffffff', 0xffffffff], ['mask -1', -1],
    ];
    try {
      const report: { name: string; ours: string; three: string }[] = [];
      const run = async (name: string, layers: number | Layers | undefined): Promise<void> => {
        const [hit] = await boxes.pickAt(0, 0, cam, layers === undefined ? {} : { layers });
        const r = new Raycaster();
        r.setFromCamera(new Vector2(0, 0), cam);
        if (layers !== undefined) {
          r.layers.mask = typeof layers === 'number' ? layers : layers.mask;
        }
        report.push({ name, ours: hit?.object.name ?? 'nothing', three: r.intersectObject(root, true)[0]?.object.name ?? 'nothing' });
      };
      for (const [name, layers] of cases) {
        await run(name, layers);
      }
      // Layer 31: three's Layers.set gives 2147483648, enable gives -2147483648; both select it.
      near.layers.set(31);
      await boxes.sync();
      const top = new Layers();
      top.set(31);
      const topSigned = new Layers();
      topSigned.disableAll();
      topSigned.enable(31);
      await run('layer 31: Layers set(31)', top);
      await run('layer 31: Layers enable(31)', topSigned);
      await run('layer 31: its mask', top.mask);
      return { report, topMasks: [top.mask, topSigned.mask] };
    } finally {
      boxes.destroy();
    }
  });
}

/**
 * sync() called while another is in flight: it shares the next sync instead of queuing one of
 * its own. Instance 1 moves, sync A starts; instance 2 moves, sync B; instance 3 moves, sync C;
 * B and C must be one sync (one upload) that takes both moves, A its own; and nothing is lost:
 * the GPU buffer equals the host copy and the scene.
 */
export async function coalescedSyncs(seed: number) {
  return scoped(async (gpu) => {
    const { root, mesh } = instanceScene(seed, 1000);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const set = boxes.set;
    let uploads = 0;
    const original = set.updateIndices.bind(set);
    set.updateIndices = (indices, list) => {
      uploads++;
      return original(indices, list);
    };
    const m = new Matrix4();
    try {
      mesh.setMatrixAt(1, m.makeTranslation(40, 0, 0));
      const a = boxes.sync();
      mesh.setMatrixAt(2, m.makeTranslation(0, 40, 0));
      const b = boxes.sync();
      mesh.setMatrixAt(3, m.makeTranslation(0, 0, 40));
      const c = boxes.sync();
      const reports = await Promise.all([a, b, c]);
      // A burst of 20 calls while one is in flight: at most two uploads.
      const before = uploads;
      const burst: Promise<unknown>[] = [];
      for (let k = 0; k < 20; k++) {
        mesh.setMatrixAt(10 + k, m.makeTranslation(k, k, 50));
        burst.push(boxes.sync());
      }
      await Promise.all(burst);
      const burstUploads = uploads - before;
      const last = await boxes.sync();
      const gpuBoxes = new Float32Array(await gpu.ctx.readback(set.buffer, set.count * OBB.SIZE));
      const host = packBoxes(set.boxes, set.origin);
      const bufferDiffers = host.reduce((n, x, k) => n + (gpuBoxes[k] === x ? 0 : 1), 0);
      // The host copy follows the scene: box 29 (the burst's last move) is centred where it was put.
      const centre29 = Array.from(set.boxes.data.subarray(29 * 15, 29 * 15 + 3));
      const world = new Vector3(19, 19, 50).applyMatrix4(mesh.matrixWorld).toArray();
      return { reports, sameBC: b === c, uploads: before, burstUploads, last, bufferDiffers, centre29, world };
    } finally {
      boxes.destroy();
    }
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

/**
 * Where a small scene's pickAt and sync() spend their time (docs/three.md, "Small scenes"):
 * `count` meshes in nested groups (or instances of one InstancedMesh), medians over `reps`.
 * - pickAt end to end, its synchronous JS part (until the promise is returned), the library's
 *   own closestHit of the same ray, a bare GPU round trip (an empty submit's
 *   onSubmittedWorkDone, and a 16-byte readback), and three's Raycaster on the same point;
 * - sync() after 1% moved: end to end, its JS part until the upload is issued, the upload's turn,
 *   the GPU finishing it, and the first pickAt after it (which refits the tree).
 */
export async function smallSceneCosts(seed: number, count: number, kind: 'meshes' | 'instances', reps: number) {
  return scoped(async (gpu) => {
    const scene = kind === 'meshes' ? meshScene(seed, count) : instanceScene(seed, count);
    const { root } = scene;
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const cam = camera(WebGPUCoordinateSystem, kind === 'meshes' ? 1 : 0.45);
    const device = gpu.ctx.device;
    const rnd = mulberry32(seed + 9);
    const set = boxes.set;
    try {
      const pickAt: number[] = [], pickJs: number[] = [], direct: number[] = [], raycaster: number[] = [], idle: number[] = [], tiny: number[] = [];
      const r = new Raycaster();
      let hits = 0;
      for (let k = 0; k < reps + 5; k++) {
        const x = rnd() - 0.5, y = rnd() - 0.5;
        let t0 = performance.now();
        const promise = boxes.pickAt(x, y, cam);
        const t1 = performance.now();
        const [hit] = await promise;
        const t2 = performance.now();
        r.setFromCamera(new Vector2(x, y), cam);
        const ray = { origin: r.ray.origin.toArray(), direction: r.ray.direction.toArray() };
        const t3 = performance.now();
        await gpu.closestHit(set, [ray]);
        const t4 = performance.now();
        const three = r.intersectObject(root, true)[0];
        const t5 = performance.now();
        device.queue.submit([]);
        await device.queue.onSubmittedWorkDone();
        const t6 = performance.now();
        await gpu.ctx.readback(set.buffer, 16);
        const t7 = performance.now();
        if (three?.object !== hit?.object || three?.instanceId !== hit?.instanceId) {
          throw new Error(`pick ${k} differs from three's`);
        }
        if (k >= 5) {
          hits += hit ? 1 : 0;
          pickAt.push(t2 - t0);
          pickJs.push(t1 - t0);
          direct.push(t4 - t3);
          raycaster.push(t5 - t4);
          idle.push(t6 - t5);
          tiny.push(t7 - t6);
        }
        t0 = 0;
      }
      // sync after 1% moved.
      const total: number[] = [], js: number[] = [], turn: number[] = [], gpuDone: number[] = [], firstPick: number[] = [];
      let issued = 0, resolvedAt = 0, uploads = 0;
      const original = set.updateIndices.bind(set);
      set.updateIndices = (indices, list) => {
        issued = performance.now();
        uploads++;
        return original(indices, list).then(() => {
          resolvedAt = performance.now();
        });
      };
      const m = new Matrix4();
      let moved = 0;
      const bruteAfter: number[] = [];
      let coldSync = 0;
      for (let k = 0; k < reps + 3; k++) {
        const n = Math.ceil(count / 100);
        if (kind === 'meshes') {
          const meshes = (scene as { meshes: Mesh[] }).meshes;
          for (let j = 0; j < n; j++) {
            meshes[Math.floor(rnd() * count)]!.position.x += 0.5 * (rnd() - 0.5);
          }
          root.updateMatrixWorld(true);
        } else {
          const mesh = (scene as { mesh: InstancedMesh }).mesh;
          for (let j = 0; j < n; j++) {
            const i = Math.floor(rnd() * count);
            mesh.getMatrixAt(i, m);
            m.elements[12] += 0.5 * (rnd() - 0.5);
            mesh.setMatrixAt(i, m);
          }
        }
        const t0 = performance.now();
        const report = await boxes.sync();
        const t1 = performance.now();
        await device.queue.onSubmittedWorkDone();
        const t2 = performance.now();
        // Every other round: the first pick after the sync by brute force (no refit), else pickAt.
        if (k % 2 === 1) {
          r.setFromCamera(new Vector2(rnd() - 0.5, rnd() - 0.5), cam);
          await gpu.closestHit(set, [{ origin: r.ray.origin.toArray(), direction: r.ray.direction.toArray() }], { accel: 'brute' });
        } else {
          await boxes.pickAt(rnd() - 0.5, rnd() - 0.5, cam);
        }
        const t3 = performance.now();
        if (k === 0) {
          coldSync = t1 - t0;
        }
        if (k >= 3 && k % 2 === 1) {
          bruteAfter.push(t3 - t2);
        }
        if (k >= 3 && k % 2 === 0) {
          firstPick.push(t3 - t2);
        }
        if (k >= 3) {
          moved += report.moved;
          total.push(t1 - t0);
          js.push(issued - t0);
          turn.push(resolvedAt - issued);
          gpuDone.push(t2 - t1);
        }
      }
      const idleSync: number[] = [];
      for (let k = 0; k < reps; k++) {
        const t0 = performance.now();
        await boxes.sync();
        idleSync.push(performance.now() - t0);
      }
      const f = (xs: number[]): number => Math.round(median(xs) * 1000) / 1000;
      return {
        kind, count: boxes.count, reps, hits,
        pick: { pickAt: f(pickAt), js: f(pickJs), closestHit: f(direct), raycaster: f(raycaster), idleRoundTrip: f(idle), readback16: f(tiny) },
        sync: { total: f(total), js: f(js), uploadTurn: f(turn), gpuAfter: f(gpuDone), firstPickAfter: f(firstPick), bruteAfter: f(bruteAfter), unchanged: f(idleSync), cold: Math.round(coldSync * 10) / 10, movedPerSync: moved / reps, uploads },
      };
    } finally {
      boxes.destroy();
    }
  });
}


/**
 * Face normals against three's own: meshes and instances turned, scaled and mirrored (a
 * negative scale: the box's canonical w axis then points against the object's z), hit from the
 * six sides and from random directions; our face.normal must equal the normal three reports
 * for the triangle it hits (object space), to 1e-12.
 */
export async function faceNormals(seed: number, rays: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const root = new Group();
    root.quaternion.copy(randomQuaternion(rnd));
    const material = new MeshBasicMaterial();
    const scales: [number, number, number][] = [[1, 1, 1], [-1, 1, 1], [1, -2, 0.5], [-1, -1, -1], [2, 1, -3]];
    scales.forEach((s, k) => {
      const mesh = new Mesh(new BoxGeometry(1, 2, 3), material);
      mesh.position.set(k * 12 - 24, 0, 0);
      mesh.quaternion.copy(randomQuaternion(rnd));
      mesh.scale.set(...s);
      root.add(mesh);
    });
    const instanced = new InstancedMesh(new BoxGeometry(2, 1, 1), material, scales.length);
    scales.forEach((s, k) => instanced.setMatrixAt(k, new Matrix4().compose(new Vector3(k * 12 - 24, 20, 0), randomQuaternion(rnd), new Vector3(...s))));
    root.add(instanced);
    root.updateMatrixWorld(true);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    try {
      let compared = 0, differs = 0, worst = 0;
      const raycasters: Raycaster[] = [];
      for (let k = 0; k < rays; k++) {
        const target = new Vector3(Math.floor(rnd() * scales.length) * 12 - 24, rnd() < 0.5 ? 0 : 20, 0).applyMatrix4(root.matrixWorld);
        const dir = new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
        raycasters.push(new Raycaster(target.clone().addScaledVector(dir, -40), dir));
      }
      const ours = await boxes.pickEach(raycasters);
      raycasters.forEach((r, k) => {
        const three = r.intersectObject(root, true)[0];
        const mine = ours[k];
        if (!three || !mine || three.object !== mine.object || three.instanceId !== mine.instanceId || !three.face) {
          return;
        }
        compared++;
        const d = three.face.normal.distanceTo(mine.face!.normal);
        worst = Math.max(worst, d);
        if (d > 1e-12) {
          differs++;
        }
      });
      return { compared, differs, worst };
    } finally {
      boxes.destroy();
    }
  });
}
