/**
 * What the test hook of the example checks a marquee against: the float64 reference cull
 * (webgpu-obb/reference) of the very boxes on the GPU, with three.js's own Frustum of the
 * sub-rectangle as the planes. Not needed by an app; test/gpu/threeExample.test.ts calls it
 * through `window.__example.referenceSelect`.
 */
import { Frustum, Matrix4, type Camera } from 'three/webgpu';
import { frustumCull } from 'webgpu-obb/reference';
import type { NdcRect, ThreeBoxes } from 'webgpu-obb/three';

export function referenceSelect(boxes: ThreeBoxes, rect: NdcRect, camera: Camera): number[] {
  const { x0, y0, x1, y1 } = rect;
  const sub = new Matrix4().set(
    2 / (x1 - x0), 0, 0, -(x0 + x1) / (x1 - x0),
    0, 2 / (y1 - y0), 0, -(y0 + y1) / (y1 - y0),
    0, 0, 1, 0,
    0, 0, 0, 1,
  ).multiply(camera.projectionMatrix).multiply(camera.matrixWorldInverse);
  const frustum = new Frustum().setFromProjectionMatrix(sub, camera.coordinateSystem);
  const planes = frustum.planes.map((p) => [p.normal.x, p.normal.y, p.normal.z, p.constant] as const);
  return [...frustumCull(boxes.set.boxes, planes, { exact: true })].map((b) => boxes.objectOf(b).instanceId ?? -1);
}
