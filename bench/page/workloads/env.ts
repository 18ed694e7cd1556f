/**
 * What the report records about where it ran: adapter (name, fallback or not, features, limits
 * that bound the workloads), browser, and each implementation's version as it reports it at run
 * time.
 */
import { sharedGpu } from '../gpu.ts';
import { IMPLEMENTATIONS } from '../impls/index.ts';

export interface PageEnvironment {
  adapter: {
    name: string;
    isFallbackAdapter: boolean;
    vendor: string;
    architecture: string;
    description: string;
    features: string[];
    limits: Record<string, number>;
  };
  userAgent: string;
  hardwareConcurrency: number;
  implementations: Record<string, string>;
}

export async function environment(): Promise<PageEnvironment> {
  const g = await sharedGpu();
  const adapter = g.ctx.adapter;
  const limits: Record<string, number> = {};
  for (const k of ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupsPerDimension', 'maxComputeInvocationsPerWorkgroup'] as const) {
    limits[k] = g.ctx.device.limits[k];
  }
  const implementations: Record<string, string> = {};
  for (const impl of IMPLEMENTATIONS) {
    implementations[impl.name] = await impl.version();
  }
  return {
    adapter: {
      name: g.adapterName,
      isFallbackAdapter: adapter.isFallbackAdapter,
      vendor: adapter.vendor, architecture: adapter.architecture, description: adapter.description,
      features: [...g.ctx.device.features],
      limits,
    },
    userAgent: navigator.userAgent,
    hardwareConcurrency: navigator.hardwareConcurrency,
    implementations,
  };
}
