/**
 * The all-pairs grid on the GPU (host side of shaders/pairs/grid.wgsl's gridCount and
 * gridScatter): each box binned by its centre into the cells of gridOf's layout, the counts
 * scanned into cell starts, each box's index and AABB written cell by cell. Built per query from
 * pooled buffers; the scan is kept (grown with the largest grid) until `trim()`.
 */
import type { BoxSet } from '../boxes/BoxSet.ts';
import { GRID_PARAMS } from '../layout/index.ts';
import { dispatch } from '../runtime/bind.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { getKernel } from '../runtime/pipelines.ts';
import type { BufferPool } from '../runtime/pool.ts';
import { ExclusiveScan } from '../runtime/scan.ts';
import { gridOf } from './gridLayout.ts';
import { pairParams } from './params.ts';

/** A grid built on the GPU for one allPairs query (buffers from the pool). */
export interface GridBuild {
  readonly params: GPUBuffer;
  readonly cellOf: GPUBuffer;
  readonly counters: GPUBuffer;
  readonly items: GPUBuffer;
}

/** Bytes of a GridItem (shaders/pairs/grid.wgsl): AABB min, box index, AABB max, padding. */
const GRID_ITEM_SIZE = 32;

const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/**
 * @example
 * const grids = new GridBuilder(ctx, pool, 64);
 * const grid = await grids.build(set, GRID_MAX_CROWDING); // inside the query's turn
 * // … gridPairs over grid.items …
 * grids.release(grid);
 */
export class GridBuilder {
  /** The scan of cell counts (grown with the largest grid). */
  private scan: ExclusiveScan | undefined;

  constructor(private readonly ctx: GpuContext, private readonly pool: BufferPool, private readonly workgroupSize: number) {
    // The scan's buffers lived on the old device.
    ctx.onRecover(() => {
      this.scan = undefined;
    });
  }

  /**
   * Bins `set` into its grid on the GPU (counts, scan, scatter) and submits; undefined when it has
   * no sane grid or one more crowded than `maxCrowding`. Call inside the query's turn.
   */
  async build(set: BoxSet, maxCrowding: number): Promise<GridBuild | undefined> {
    const g = gridOf(set.boxes, set.origin);
    if (!g || g.crowding > maxCrowding) {
      return undefined;
    }
    const cells = g.dims[0] * g.dims[1] * g.dims[2];
    if (!this.scan || this.scan.capacity < cells) {
      this.scan?.destroy();
      this.scan = await ExclusiveScan.create(this.ctx, Math.max(cells, 2 * (this.scan?.capacity ?? 0)));
    }
    const bytes = new ArrayBuffer(GRID_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    f.set(g.lo, GRID_PARAMS.LO / 4);
    f[GRID_PARAMS.INV_CELL / 4] = 1 / g.cell;
    u.set(g.dims, GRID_PARAMS.DIMS / 4);
    u[GRID_PARAMS.CELLS / 4] = cells;
    f[GRID_PARAMS.REACH / 4] = g.reach;
    const device = this.ctx.device;
    const build: GridBuild = {
      params: this.pool.acquire(GRID_PARAMS.SIZE, UNIFORM, 'grid-params'),
      cellOf: this.pool.acquire(set.count * 4, STORAGE_OUT, 'grid-cell-of'),
      counters: this.pool.acquire(cells * 8, STORAGE_OUT, 'grid-counters'),
      items: this.pool.acquire(set.count * GRID_ITEM_SIZE, STORAGE_OUT, 'grid-items'),
    };
    device.queue.writeBuffer(build.params, 0, bytes);
    const params = pairParams(this.pool, device, { tolerance: 0, countA: set.count, countB: set.count, pairCount: 0, flags: 0, capacity: 0 });
    try {
      const [count, scatter] = await Promise.all([getKernel(device, 'gridCount', this.workgroupSize), getKernel(device, 'gridScatter', this.workgroupSize)]);
      const enc = device.createCommandEncoder({ label: `${this.ctx.label}:grid` });
      enc.clearBuffer(build.counters, 0, cells * 8);
      const pass = enc.beginComputePass({ label: `${this.ctx.label}:grid` });
      const bins = { params, boxesA: set.buffer, grid: build.params, cellOf: build.cellOf, cellCounters: build.counters };
      dispatch(device, pass, count, bins, Math.ceil(set.count / count.workgroupSize), 'obb:grid-count');
      await this.scan.encode(pass, build.counters, cells);
      dispatch(device, pass, scatter, { ...bins, cellItems: build.items }, Math.ceil(set.count / scatter.workgroupSize), 'obb:grid-scatter');
      pass.end();
      await this.ctx.scoped(`grid of ${set.count} boxes (${cells} cells)`, () => device.queue.submit([enc.finish()]));
    } catch (error) {
      this.release(build);
      throw error;
    } finally {
      this.pool.release(params);
    }
    return build;
  }

  /** Gives a grid's buffers back to the pool (once its queries were submitted). */
  release(g: GridBuild | undefined): void {
    if (g) {
      for (const b of [g.params, g.cellOf, g.counters, g.items]) {
        this.pool.release(b);
      }
    }
  }

  /** Frees the scan (made again, at the size needed, by the next grid). */
  trim(): void {
    this.scan?.destroy();
    this.scan = undefined;
  }
}
