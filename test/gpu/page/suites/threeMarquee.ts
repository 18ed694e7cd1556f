/**
 * Suite `threeMarquee`: ThreeBoxes.select in 'intersect' mode is exact (the exact frustum cull):
 * a box 1.27 units outside the marquee's frustum, beside one of its side edges, which the plane
 * test keeps, is not selected; random scenes and rectangles equal the exact float64 twin through
 * the comparator, in both clip spaces; 'inside' keeps its behaviour.
 */
import {
  BoxGeometry, Frustum, Group, Matrix4, Mesh, MeshBasicMaterial, PerspectiveCamera, Quaternion, Vector3,
  WebGLCoordinateSystem, WebGPUCoordinateSystem, type CoordinateSystem,
} from 'three';
import { compareFrustum, mulberry32 } from '../../../../src/judge/index.ts';
import type { Plane } from '../../../../src/index.ts';
import { frustumCull } from '../../../../src/reference/index.ts';
import { ThreeBoxes } from '../../../../src/three/index.ts';
import { scoped, summarize } from '../shared.ts';

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a: V, s: number): V => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: V, b: V): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a: V): V => scale(a, 1 / Math.hypot(...a));

function camera(coordinateSystem: CoordinateSystem): PerspectiveCamera {
  const c = new PerspectiveCamera(55, 1.3, 0.5, 400);
  c.coordinateSystem = coordinateSystem;
  c.position.set(60, 45, 70);
  c.lookAt(0, 0, 0);
  c.updateMatrixWorld();
  c.updateProjectionMatrix();
  return c;
}

interface Rect { x0: number; y0: number; x1: number; y1: number }

/** three's planes of the marquee rectangle's frustum (as ThreeBoxes builds its own). */
function marqueePlanes(rect: Rect, cam: PerspectiveCamera): Plane[] {
  const m = new Matrix4().set(
    2 / (rect.x1 - rect.x0), 0, 0, -(rect.x0 + rect.x1) / (rect.x1 - rect.x0),
    0, 2 / (rect.y1 - rect.y0), 0, -(rect.y0 + rect.y1) / (rect.y1 - rect.y0),
    0, 0, 1, 0, 0, 0, 0, 1,
  ).multiply(cam.projectionMatrix).multiply(cam.matrixWorldInverse);
  return new Frustum().setFromProjectionMatrix(m, cam.coordinateSystem).planes.map((p) => [p.normal.x, p.normal.y, p.normal.z, p.constant] as const);
}

/** Where three planes meet. */
function meet(a: Plane, b: Plane, c: Plane): V {
  const bc = cross([b[0], b[1], b[2]], [c[0], c[1], c[2]]);
  const ca = cross([c[0], c[1], c[2]], [a[0], a[1], a[2]]);
  const ab = cross([a[0], a[1], a[2]], [b[0], b[1], b[2]]);
  const det = dot([a[0], a[1], a[2]], bc);
  return scale(add(add(scale(bc, a[3]), scale(ca, b[3])), scale(ab, c[3])), -1 / det);
}

/**
 * A marquee with two meshes: one in the middle of its frustum, and a thin wide plate (half
 * extents 0.5 along the outward bisector o of the left and bottom planes, 3 across it, 1 along
 * the edge) 1.27 units outside the left-bottom side edge along o — its radius on each plane's
 * normal reaches back inside, so the plane test keeps it. Answers what select and the plane test
 * return, and the plate's margins on the two planes.
 */
export async function outsideEdge(clip: 'webgpu' | 'webgl') {
  return scoped(async (gpu) => {
    const cam = camera(clip === 'webgl' ? WebGLCoordinateSystem : WebGPUCoordinateSystem);
    const rect = { x0: -0.3, y0: -0.2, x1: 0.25, y1: 0.3 };
    const planes = marqueePlanes(rect, cam);
    const n = planes.map((p) => [p[0], p[1], p[2]] as V);
    // The left-bottom side edge, a point a third of the way from near to far, the outward bisector.
    const nearCorner = meet(planes[0]!, planes[2]!, planes[4]!);
    const farCorner = meet(planes[0]!, planes[2]!, planes[5]!);
    const e = unit(sub(farCorner, nearCorner));
    const p = add(nearCorner, scale(sub(farCorner, nearCorner), 0.1));
    const o = unit(scale(add(n[0]!, n[2]!), -1));
    const across = cross(o, e);
    const gap = 1.27;
    const h: V = [0.5, 3, 1];
    const centre = add(p, scale(o, h[0] + gap));
    const root = new Group();
    const plate = new Mesh(new BoxGeometry(2 * h[0], 2 * h[1], 2 * h[2]), new MeshBasicMaterial());
    plate.name = 'outside';
    plate.position.set(...centre);
    // A right-handed frame: x along o, y across, z = x × y = −e.
    plate.quaternion.setFromRotationMatrix(new Matrix4().makeBasis(new Vector3(...o), new Vector3(...across), new Vector3(...scale(e, -1))));
    // A unit cube at the frustum's centroid.
    const inside = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    inside.name = 'inside';
    let centroid: V = [0, 0, 0];
    for (let j = 0; j < 8; j++) {
      centroid = add(centroid, scale(meet(planes[j & 1]!, planes[2 + ((j >> 1) & 1)]!, planes[4 + ((j >> 2) & 1)]!), 1 / 8));
    }
    inside.position.set(...centroid);
    root.add(plate, inside);
    root.updateMatrixWorld(true);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    try {
      const names = (list: { object: { name: string } }[]): string[] => list.map((s) => s.object.name).sort();
      const selected = names(await boxes.select(rect, cam));
      const inMode = names(await boxes.select(rect, cam, { mode: 'inside' }));
      const culler = await gpu.createFrustumCuller(boxes.count);
      const plane = Array.from((await gpu.frustumCull(culler, boxes.set, planes)).visible, (b) => (boxes.objectOf(b).object as Mesh).name).sort();
      culler.destroy();
      const d = boxes.set.boxes.data;
      const b = boxes.objectOf(0).object === plate ? 0 : 1;
      const margins = [0, 2].map((k) => {
        const pl = planes[k]!;
        const o15 = 15 * b;
        const r = [0, 1, 2].reduce((s, a) => s + d[o15 + 3 + a]! * Math.abs(pl[0] * d[o15 + 6 + 3 * a]! + pl[1] * d[o15 + 7 + 3 * a]! + pl[2] * d[o15 + 8 + 3 * a]!), 0);
        return pl[0] * d[o15]! + pl[1] * d[o15 + 1]! + pl[2] * d[o15 + 2]! + pl[3] + r;
      });
      // The plate's distance from the frustum along o (the frustum lies behind the plane across o through the edge).
      const support = h[0];
      const distance = dot(sub(centre, p), o) - support;
      return { selected, inside: inMode, planeTest: plane, margins, distance, twinExact: Array.from(frustumCull(boxes.set.boxes, planes, { exact: true })).length };
    } finally {
      boxes.destroy();
    }
  });
}

/**
 * `rects` marquees over a random scene of rotated, scaled meshes, both clip spaces: select's
 * 'intersect' list against the exact twin (compareFrustum with `exact`, three's planes of the
 * same rectangle), and how many boxes the plane test alone would have added.
 */
export async function randomMarquees(seed: number, count: number, rects: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const root = new Group();
    const material = new MeshBasicMaterial();
    for (let i = 0; i < count; i++) {
      const mesh = new Mesh(new BoxGeometry(0.4 + rnd() * 3, 0.4 + rnd() * 3, 0.4 + rnd() * 3), material);
      mesh.position.set((rnd() - 0.5) * 60, (rnd() - 0.5) * 60, (rnd() - 0.5) * 60);
      mesh.quaternion.copy(new Quaternion(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize());
      mesh.scale.set(0.5 + rnd(), 0.5 + rnd(), 0.5 + rnd());
      root.add(mesh);
    }
    root.updateMatrixWorld(true);
    const boxes = await ThreeBoxes.create(gpu, [root]);
    const culler = await gpu.createFrustumCuller(boxes.count);
    try {
      const reports: { selected: number; planeOnly: number; summary: ReturnType<typeof summarize> }[] = [];
      for (let k = 0; k < rects; k++) {
        const cam = camera(k % 2 === 0 ? WebGPUCoordinateSystem : WebGLCoordinateSystem);
        const x = rnd() * 1.6 - 0.9, y = rnd() * 1.6 - 0.9;
        const rect = { x0: x, y0: y, x1: x + 0.05 + rnd() * 0.6, y1: y + 0.05 + rnd() * 0.6 };
        const selected = await boxes.select(rect, cam);
        const planes = marqueePlanes(rect, cam);
        const list = Uint32Array.from(selected.map((s) => s.box));
        const plane = await gpu.frustumCull(culler, boxes.set, planes);
        reports.push({
          selected: list.length,
          planeOnly: plane.visible.length - list.length,
          summary: summarize(compareFrustum({ boxes: boxes.set.boxes, planes, origin: boxes.set.origin, exact: true }, list), 3),
        });
      }
      return { reports, boxes: boxes.count };
    } finally {
      culler.destroy();
      boxes.destroy();
    }
  });
}
