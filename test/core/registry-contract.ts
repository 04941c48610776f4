/**
 * The TaskRegistry contract, run against every store (task-registry.test.ts). A factory gives a
 * fresh, empty registry; `replica()` gives a second registry on the same storage (for Redis, a
 * second client: two gateway replicas), or the same instance where storage is process-local.
 * Its tests are in four parts: registry-contract-writes.ts, -reads.ts, -replicas-ttls.ts and -tenants.ts.
 */
import { afterEach, describe } from 'vitest';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { readsContract } from './registry-contract-reads.js';
import { replicasAndTtlsContract } from './registry-contract-replicas-ttls.js';
import { tenantsContract } from './registry-contract-tenants.js';
import { writesContract } from './registry-contract-writes.js';

export { agentMessage, taskOf } from './registry-fixtures.js';

export interface RegistryHandle {
  registry: TaskRegistry;
  replica(): TaskRegistry;
  cleanup(): Promise<void>;
}
export interface RegistryOptions {
  historyLimit: number;
  idleTtlMs: number;
  contextOwnerTtlMs?: number;
}
export type RegistryFactory = (options: RegistryOptions) => Promise<RegistryHandle>;

/** What each part of the contract gets: a fresh registry with the given options, and its replica. */
export interface ContractScope {
  open(options?: Partial<RegistryOptions>): Promise<TaskRegistry>;
  replica(): TaskRegistry;
}

export function registryContract(name: string, factory: RegistryFactory): void {
  describe(`TaskRegistry contract: ${name}`, () => {
    let handle: RegistryHandle | undefined;
    const open = async (options: Partial<RegistryOptions> = {}) => {
      handle = await factory({ historyLimit: 200, idleTtlMs: 60_000, ...options });
      return handle.registry;
    };
    afterEach(async () => {
      await handle?.cleanup();
      handle = undefined;
    });

    const scope: ContractScope = { open, replica: () => handle!.replica() };
    writesContract(scope);
    readsContract(scope);
    replicasAndTtlsContract(scope);
    tenantsContract(scope);
  });
}
