/**
 * An orbit camera (z up): drag to turn, right-drag or shift-drag to pan, wheel to zoom. Its
 * matrices are float64, so the picking ray (`rayFromScreen`) and the test that recomputes it
 * in Node get exactly the same numbers.
 */
import { invert, lookAt, multiply, perspective, translated, type Mat4, type V3 } from './mat4.ts';

export interface CameraMatrices {
  readonly view: Mat4;
  readonly proj: Mat4;
  readonly viewProj: Mat4;
  readonly invViewProj: Mat4;
  readonly eye: V3;
  /** Canvas size in CSS pixels (what mouse coordinates and rayFromScreen use). */
  readonly width: number;
  readonly height: number;
}

export interface CameraPose {
  target: [number, number, number];
  distance: number;
  /** Radians around +z, 0 = looking from +x. */
  yaw: number;
  /** Radians above the horizon. */
  pitch: number;
}

export class OrbitCamera {
  pose: CameraPose;
  fovy = (50 * Math.PI) / 180;
  near: number;
  far: number;
  /** When set, the far plane follows the orbit distance (views that fog out the distance). */
  farFor: ((distance: number) => number) | undefined;

  constructor(pose: CameraPose, near = 0.5, far = 8000) {
    this.pose = { ...pose, target: [...pose.target] };
    this.near = near;
    this.far = far;
  }

  eye(): V3 {
    const { target, distance, yaw, pitch } = this.pose;
    const c = Math.cos(pitch);
    return [target[0] + distance * c * Math.cos(yaw), target[1] + distance * c * Math.sin(yaw), target[2] + distance * Math.sin(pitch)];
  }

  matrices(width: number, height: number): CameraMatrices {
    const eye = this.eye();
    const view = lookAt(eye, this.pose.target, [0, 0, 1]);
    if (this.farFor) {
      this.far = this.farFor(this.pose.distance);
    }
    const proj = perspective(this.fovy, width / height, this.near, this.far);
    const viewProj = multiply(proj, view);
    return { view, proj, viewProj, invViewProj: invert(viewProj), eye, width, height };
  }
}

/**
 * Mouse and wheel handling on `element` for whichever camera `current()` returns (each view has
 * its own); `onMove` sees hover positions (no button held), `onClick` a press without a drag.
 */
export function attachOrbitControls(
  element: HTMLElement, current: () => OrbitCamera,
  onMove: (x: number, y: number) => void, onLeave: () => void, onClick?: (x: number, y: number) => void,
): () => void {
  let drag: { x: number; y: number; button: number; shift: boolean; moved: number } | undefined;
  const down = (e: PointerEvent): void => {
    drag = { x: e.clientX, y: e.clientY, button: e.button, shift: e.shiftKey, moved: 0 };
    element.setPointerCapture(e.pointerId);
  };
  const move = (e: PointerEvent): void => {
    if (!drag) {
      onMove(e.offsetX, e.offsetY);
      return;
    }
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    drag.x = e.clientX;
    drag.y = e.clientY;
    drag.moved += Math.abs(dx) + Math.abs(dy);
    if (drag.button === 2 || drag.shift) {
      // Pan in the ground plane, scaled so the point under the cursor roughly follows it.
      const s = (current().pose.distance * 1.2) / Math.max(200, element.clientHeight);
      const { yaw } = current().pose;
      const right: V3 = [-Math.sin(yaw), Math.cos(yaw), 0];
      const fwd: V3 = [-Math.cos(yaw), -Math.sin(yaw), 0];
      for (let k = 0; k < 3; k++) {
        current().pose.target[k]! += (-dx * right[k]! + dy * fwd[k]!) * s;
      }
    } else {
      current().pose.yaw -= dx * 0.005;
      current().pose.pitch = Math.min(1.5, Math.max(0.03, current().pose.pitch + dy * 0.005));
    }
  };
  const up = (e: PointerEvent): void => {
    if (drag && drag.moved < 4 && drag.button === 0 && onClick) {
      onClick(e.offsetX, e.offsetY);
    }
    drag = undefined;
  };
  const wheel = (e: WheelEvent): void => {
    e.preventDefault();
    current().pose.distance = Math.min(20_000, Math.max(2, current().pose.distance * Math.exp(e.deltaY * 0.001)));
  };
  const leave = (): void => {
    if (!drag) {
      onLeave();
    }
  };
  const menu = (e: Event): void => e.preventDefault();
  element.addEventListener('pointerdown', down);
  element.addEventListener('pointermove', move);
  element.addEventListener('pointerup', up);
  element.addEventListener('pointerleave', leave);
  element.addEventListener('wheel', wheel, { passive: false });
  element.addEventListener('contextmenu', menu);
  return () => {
    element.removeEventListener('pointerdown', down);
    element.removeEventListener('pointermove', move);
    element.removeEventListener('pointerup', up);
    element.removeEventListener('pointerleave', leave);
    element.removeEventListener('wheel', wheel);
    element.removeEventListener('contextmenu', menu);
  };
}

/**
 * What the box shaders need for a set whose GPU copy is relative to `origin` (a BoxSet's floating
 * origin): the view-projection with the origin added back, the eye in the same frame, and the
 * fog distance (a fraction of the far plane).
 */
export function relativeTo(cam: CameraMatrices, origin: V3, far: number): { mvp: Mat4; eye: [number, number, number]; fog: number } {
  return {
    mvp: translated(cam.viewProj, origin),
    eye: [cam.eye[0] - origin[0], cam.eye[1] - origin[1], cam.eye[2] - origin[2]],
    fog: far / 2.2,
  };
}
