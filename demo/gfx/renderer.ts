/**
 * The demo's WebGPU renderer: a handful of pipelines (solid boxes, box wireframes, wide line
 * segments, the pick overlay, LiDAR points and beams), each fed directly by the library's GPU
 * buffers (BoxSet.buffer, the closest-hit buffers, LidarSensor.pointsBuffer) so nothing is read
 * back to draw a frame. One `Drawable` per draw call holds its uniform and bind group.
 */
import common from '../shaders/common.wgsl?raw';
import boxesWgsl from '../shaders/boxes.wgsl?raw';
import wireWgsl from '../shaders/wire.wgsl?raw';
import segmentsWgsl from '../shaders/segments.wgsl?raw';
import pickWgsl from '../shaders/pick.wgsl?raw';
import pointsWgsl from '../shaders/points.wgsl?raw';
import type { Mat4, V3 } from './mat4.ts';

export type PipelineName = 'boxes' | 'boxesCulled' | 'wire' | 'wireCulled' | 'segments' | 'segmentsOnTop' | 'pick' | 'points' | 'beam';

/** What the `Draw` uniform of common.wgsl holds. */
export interface DrawParams {
  readonly mvp: Mat4;
  /** Camera position in the draw's frame (world minus the draw's origin). */
  readonly eye: V3;
  readonly fog?: number;
  readonly color?: readonly [number, number, number, number];
  readonly color2?: readonly [number, number, number, number];
  readonly width?: number;
  readonly scale?: number;
  readonly sel?: readonly [number, number, number, number];
  readonly p0?: V3;
}

const DRAW_SIZE = 160;
const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus';
export const CLEAR_COLOR = { r: 0.055, g: 0.065, b: 0.085, a: 1 };

const BLEND: GPUBlendState = {
  color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha', operation: 'add' },
  alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
};

export class Renderer {
  readonly device: GPUDevice;
  readonly context: GPUCanvasContext;
  readonly format: GPUTextureFormat;
  readonly pipelines: Record<PipelineName, GPURenderPipeline>;
  private depth: GPUTexture | undefined;
  private indices: GPUBuffer | undefined;
  /** Drawing-buffer size in device pixels. */
  width = 1;
  height = 1;

  private constructor(device: GPUDevice, context: GPUCanvasContext, format: GPUTextureFormat, pipelines: Record<PipelineName, GPURenderPipeline>, readonly canvas: HTMLCanvasElement) {
    this.device = device;
    this.context = context;
    this.format = format;
    this.pipelines = pipelines;
  }

  static async create(device: GPUDevice, canvas: HTMLCanvasElement): Promise<Renderer> {
    const context = canvas.getContext('webgpu');
    if (!context) {
      throw new Error('This canvas has no WebGPU context (canvas.getContext("webgpu") returned null).');
    }
    const format = navigator.gpu.getPreferredCanvasFormat();
    context.configure({ device, format, alphaMode: 'opaque' });
    const module = (label: string, code: string): GPUShaderModule => device.createShaderModule({ label: `demo:${label}`, code: `${common}\n${code}` });
    const boxes = module('boxes', boxesWgsl);
    const wire = module('wire', wireWgsl);
    const segments = module('segments', segmentsWgsl);
    const pick = module('pick', pickWgsl);
    const points = module('points', pointsWgsl);
    const depth = (write: boolean, compare: GPUCompareFunction): GPUDepthStencilState => ({ format: DEPTH_FORMAT, depthWriteEnabled: write, depthCompare: compare });
    const target = (blend: boolean): GPUColorTargetState[] => [blend ? { format, blend: BLEND } : { format }];
    const segmentBuffers: GPUVertexBufferLayout[] = [{
      arrayStride: 32, stepMode: 'instance',
      attributes: [
        { shaderLocation: 0, offset: 0, format: 'float32x3' },
        { shaderLocation: 1, offset: 12, format: 'float32x3' },
        { shaderLocation: 2, offset: 24, format: 'unorm8x4' },
        { shaderLocation: 3, offset: 28, format: 'float32' },
      ],
    }];
    const descriptors: Record<PipelineName, GPURenderPipelineDescriptor> = {
      boxes: {
        label: 'demo:boxes', layout: 'auto',
        vertex: { module: boxes, entryPoint: 'vs' },
        fragment: { module: boxes, entryPoint: 'fs', targets: target(false) },
        primitive: { topology: 'triangle-list', cullMode: 'back', frontFace: 'ccw' },
        depthStencil: depth(true, 'less'),
      },
      boxesCulled: {
        label: 'demo:boxes-culled', layout: 'auto',
        vertex: { module: boxes, entryPoint: 'vsCulled' },
        fragment: { module: boxes, entryPoint: 'fs', targets: target(false) },
        primitive: { topology: 'triangle-list', cullMode: 'back', frontFace: 'ccw' },
        depthStencil: depth(true, 'less'),
      },
      wire: {
        label: 'demo:wire', layout: 'auto',
        vertex: { module: wire, entryPoint: 'vs' },
        fragment: { module: wire, entryPoint: 'fs', targets: target(true) },
        primitive: { topology: 'line-list' },
        depthStencil: depth(false, 'less-equal'),
      },
      wireCulled: {
        label: 'demo:wire-culled', layout: 'auto',
        vertex: { module: wire, entryPoint: 'vsCulled' },
        fragment: { module: wire, entryPoint: 'fs', targets: target(true) },
        primitive: { topology: 'line-list' },
        depthStencil: depth(false, 'less-equal'),
      },
      segments: {
        label: 'demo:segments', layout: 'auto',
        vertex: { module: segments, entryPoint: 'vs', buffers: segmentBuffers },
        fragment: { module: segments, entryPoint: 'fs', targets: target(true) },
        primitive: { topology: 'triangle-list' },
        depthStencil: depth(false, 'less-equal'),
      },
      segmentsOnTop: {
        label: 'demo:segments-on-top', layout: 'auto',
        vertex: { module: segments, entryPoint: 'vs', buffers: segmentBuffers },
        fragment: { module: segments, entryPoint: 'fs', targets: target(true) },
        primitive: { topology: 'triangle-list' },
        depthStencil: depth(false, 'always'),
      },
      pick: {
        label: 'demo:pick', layout: 'auto',
        vertex: { module: pick, entryPoint: 'vs' },
        fragment: { module: pick, entryPoint: 'fs', targets: target(true) },
        primitive: { topology: 'triangle-list' },
        depthStencil: depth(false, 'always'),
      },
      points: {
        label: 'demo:points', layout: 'auto',
        vertex: {
          module: points, entryPoint: 'vs',
          buffers: [{ arrayStride: 16, stepMode: 'instance', attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x4' }] }],
        },
        fragment: { module: points, entryPoint: 'fs', targets: target(false) },
        primitive: { topology: 'triangle-list' },
        depthStencil: depth(true, 'less'),
      },
      beam: {
        label: 'demo:beam', layout: 'auto',
        vertex: { module: points, entryPoint: 'beam' },
        fragment: { module: points, entryPoint: 'fs', targets: target(true) },
        primitive: { topology: 'triangle-list' },
        depthStencil: depth(false, 'always'),
      },
    };
    const names = Object.keys(descriptors) as PipelineName[];
    const built = await Promise.all(names.map((n) => device.createRenderPipelineAsync(descriptors[n])));
    const pipelines = Object.fromEntries(names.map((n, i) => [n, built[i]!])) as Record<PipelineName, GPURenderPipeline>;
    return new Renderer(device, context, format, pipelines, canvas);
  }

  /** Matches the drawing buffer to the canvas's CSS size × devicePixelRatio. */
  resize(): void {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, Math.round(this.canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    if (w !== this.width || h !== this.height || !this.depth) {
      this.width = w;
      this.height = h;
      this.canvas.width = w;
      this.canvas.height = h;
      this.depth?.destroy();
      this.depth = this.device.createTexture({ label: 'demo:depth', size: [w, h], format: DEPTH_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
  }

  /** Device pixels per CSS pixel of the current drawing buffer. */
  get pixelRatio(): number {
    return this.width / Math.max(1, this.canvas.clientWidth);
  }

  /** Starts the frame's render pass (cleared colour and depth). */
  beginPass(encoder: GPUCommandEncoder, timestampWrites?: GPURenderPassTimestampWrites): GPURenderPassEncoder {
    if (!this.depth) {
      this.resize();
    }
    return encoder.beginRenderPass({
      label: 'demo:frame',
      ...(timestampWrites ? { timestampWrites } : {}),
      colorAttachments: [{ view: this.context.getCurrentTexture().createView(), clearValue: CLEAR_COLOR, loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: this.depth!.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store' },
    });
  }

  drawable(pipeline: PipelineName): Drawable {
    return new Drawable(this, pipeline);
  }

  /** Indices 0..35: the box pipelines make their vertices from vertex_index. */
  get boxIndices(): GPUBuffer {
    if (!this.indices) {
      this.indices = this.device.createBuffer({ label: 'demo:box-indices', size: 72, usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST });
      this.device.queue.writeBuffer(this.indices, 0, Uint16Array.from({ length: 36 }, (_, i) => i));
    }
    return this.indices;
  }

  destroy(): void {
    this.depth?.destroy();
    this.indices?.destroy();
  }
}

/** One draw call: its pipeline, a uniform buffer, and a bind group rebuilt when its buffers change. */
export class Drawable {
  private readonly uniform: GPUBuffer;
  private readonly data = new ArrayBuffer(DRAW_SIZE);
  private bindGroup: GPUBindGroup | undefined;
  private bound: readonly GPUBuffer[] = [];

  constructor(private readonly renderer: Renderer, readonly pipeline: PipelineName) {
    this.uniform = renderer.device.createBuffer({ label: `demo:${pipeline}:draw`, size: DRAW_SIZE, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  }

  /** Writes the uniform (float64 matrices rounded to float32 here). */
  set(p: DrawParams): this {
    const f = new Float32Array(this.data);
    const u = new Uint32Array(this.data);
    f.set(p.mvp, 0);
    f.set([p.eye[0], p.eye[1], p.eye[2], p.fog ?? 1e9], 16);
    f.set(p.color ?? [1, 1, 1, 1], 20);
    f.set(p.color2 ?? [1, 0.85, 0.1, 1], 24);
    f.set([this.renderer.width, this.renderer.height, (p.width ?? 2) * this.renderer.pixelRatio, p.scale ?? 1], 28);
    u.set((p.sel ?? [0xffffffff, 0xffffffff, 0, 0]).map((x) => x >>> 0), 32);
    f.set([...(p.p0 ?? [0, 0, 0]), 0], 36);
    this.renderer.device.queue.writeBuffer(this.uniform, 0, this.data);
    return this;
  }

  /** Storage buffers at bindings 1, 2, … (the uniform is binding 0). */
  bind(buffers: readonly GPUBuffer[]): this {
    if (this.bindGroup && buffers.length === this.bound.length && buffers.every((b, i) => b === this.bound[i])) {
      return this;
    }
    const pipeline = this.renderer.pipelines[this.pipeline];
    this.bindGroup = this.renderer.device.createBindGroup({
      label: `demo:${this.pipeline}:bind-group`,
      layout: pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: this.uniform } }, ...buffers.map((buffer, i) => ({ binding: i + 1, resource: { buffer } }))],
    });
    this.bound = [...buffers];
    return this;
  }

  draw(pass: GPURenderPassEncoder, vertices: number, instances = 1, firstInstance = 0, vertexBuffer?: GPUBuffer): void {
    if (instances <= 0) {
      return;
    }
    if (!this.bindGroup) {
      this.bind([]);
    }
    pass.setPipeline(this.renderer.pipelines[this.pipeline]);
    pass.setBindGroup(0, this.bindGroup!);
    if (vertexBuffer) {
      pass.setVertexBuffer(0, vertexBuffer);
    }
    pass.draw(vertices, instances, 0, firstInstance);
  }

  /** drawIndexedIndirect with `args` (e.g. a FrustumCuller's drawArgsBuffer) over `indices`. */
  drawIndirect(pass: GPURenderPassEncoder, indices: GPUBuffer, args: GPUBuffer): void {
    pass.setPipeline(this.renderer.pipelines[this.pipeline]);
    pass.setBindGroup(0, this.bindGroup!);
    pass.setIndexBuffer(indices, 'uint16');
    pass.drawIndexedIndirect(args, 0);
  }

  destroy(): void {
    this.uniform.destroy();
  }
}

/** Host-built wide segments (32 bytes each: a, b, RGBA8, width), uploaded once per frame. */
export class Segments {
  private buffer: GPUBuffer | undefined;
  private data = new ArrayBuffer(32 * 64);
  count = 0;

  constructor(private readonly device: GPUDevice) {}

  clear(): void {
    this.count = 0;
  }

  push(a: V3, b: V3, color: number, width: number): void {
    if ((this.count + 1) * 32 > this.data.byteLength) {
      const grown = new ArrayBuffer(this.data.byteLength * 2);
      new Uint8Array(grown).set(new Uint8Array(this.data));
      this.data = grown;
    }
    const f = new Float32Array(this.data, this.count * 32, 8);
    f.set([a[0], a[1], a[2], b[0], b[1], b[2]]);
    new Uint32Array(this.data, this.count * 32 + 24, 1)[0] = color;
    f[7] = width;
    this.count++;
  }

  /** Uploads and draws every segment with `drawable` (a segments pipeline). */
  draw(pass: GPURenderPassEncoder, drawable: Drawable): void {
    if (this.count === 0) {
      return;
    }
    if (!this.buffer || this.buffer.size < this.count * 32) {
      this.buffer?.destroy();
      this.buffer = this.device.createBuffer({ label: 'demo:segments', size: this.data.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
    }
    this.device.queue.writeBuffer(this.buffer, 0, this.data, 0, this.count * 32);
    drawable.draw(pass, 6, this.count, 0, this.buffer);
  }

  destroy(): void {
    this.buffer?.destroy();
  }
}
