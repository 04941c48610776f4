import type { PushConfigStore } from './config-store/types.js';

/** The configs its owner set on the task `taskId` that a turn's task takes on too (CallContext.pushConfigsOf). */
export interface CarriedConfigs {
  owner: string;
  taskId: string;
}

/**
 * Stores the owner's configs of `from.taskId` for `taskId` as they are stored (secrets and payload version whole, which
 * a caller's list would mask); a config named after its task (the default id) is named after `taskId` there.
 */
export async function copyCarriedConfigs(store: Pick<PushConfigStore, 'list' | 'create'>, from: CarriedConfigs, taskId: string): Promise<void> {
  let pageToken: string | undefined;
  do {
    const page = await store.list(from.owner, from.taskId, pageToken === undefined ? {} : { pageToken });
    for (const { config } of page.configs) {
      const { id, ...rest } = config;
      await store.create(from.owner, taskId, id === from.taskId ? rest : config);
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
}
