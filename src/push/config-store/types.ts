import { withFields, A2AError, isProtocolId, PROTOCOL_ID_RULE, type TaskPushNotificationConfig } from '../../model/index.js';
import { assertConfigHeaderSafe } from '../headers.js';
import { validateCallbackUrl } from '../url-policy.js';

/** A registered callback, secrets in clear (the store seals them at rest and opens them on read). */
export interface StoredConfig {
  owner: string;
  taskId: string;
  id: string;
  config: TaskPushNotificationConfig & { id: string; taskId: string };
  createdAt: number;
}

export interface ConfigPage {
  configs: StoredConfig[];
  nextPageToken?: string;
}

export interface ListOptions {
  pageSize?: number;
  pageToken?: string;
}

export interface PushConfigStore {
  /** Stores (or replaces, same id) a config; -32602 for a bad id, URL or header value, or past the per-task cap. */
  create(owner: string, taskId: string, config: TaskPushNotificationConfig): Promise<StoredConfig>;
  get(owner: string, taskId: string, id: string): Promise<StoredConfig | undefined>;
  /** The owner's configs of a task, sorted by id; -32602 for a page token this store did not issue. */
  list(owner: string, taskId: string, options?: ListOptions): Promise<ConfigPage>;
  /** Whether a config was removed. */
  delete(owner: string, taskId: string, id: string): Promise<boolean>;
  /** Every config of a task, all owners: who gets an event. */
  forTask(taskId: string): Promise<StoredConfig[]>;
  /** Drops all configs of a task (task evicted or deleted). */
  deleteTask(taskId: string): Promise<void>;
}

export interface ConfigStoreOptions {
  /** `push-max-configs-per-task`. */
  maxConfigsPerTask: number;
  /** `push-allow-private`. */
  allowPrivate: boolean;
}

export const DEFAULT_PAGE_SIZE = 50;

/**
 * Validates a config for storage and fills in its ids. The id defaults to the task id (the A2A SDKs'
 * convention, so a task has one default callback that a later create replaces).
 */
export function prepareConfig(taskId: string, config: TaskPushNotificationConfig, options: ConfigStoreOptions): StoredConfig['config'] {
  if (!isProtocolId(taskId)) {
    throw A2AError.invalidParams(`Invalid params: taskId: ${PROTOCOL_ID_RULE}`, [{ field: 'taskId', description: PROTOCOL_ID_RULE }]);
  }
  const id = config.id ?? taskId;
  if (!isProtocolId(id)) {
    throw A2AError.invalidParams(`Invalid params: id: ${PROTOCOL_ID_RULE}`, [{ field: 'id', description: PROTOCOL_ID_RULE }]);
  }
  assertConfigContent(config, options);
  return withFields(config, { id, taskId });
}

/**
 * What a config must say to be pushed to (-32602 otherwise): a callback URL the address rules take, secrets that go
 * into a header as they are. The gateway's own configs (prepareConfig) and those the facade relays to an agent that
 * pushes itself (surfaces/v025/relay/relayed-push-configs.ts).
 */
export function assertConfigContent(config: TaskPushNotificationConfig, options: Pick<ConfigStoreOptions, 'allowPrivate'>): void {
  validateCallbackUrl(config.url, options);
  assertConfigHeaderSafe(config);
}

export function tooManyConfigs(max: number): A2AError {
  return A2AError.invalidParams(`A task can have at most ${max} push notification configs`, [
    { field: 'id', description: 'push config limit reached' },
  ]);
}

/**
 * Refuses a config the task has no room for, before it is stored: for an inline config the turn must
 * not run only for its config to be dropped afterwards. Replacing one (same owner and id) always fits.
 * The stores check again as they write (a create may land in between).
 */
export async function assertRoomForConfig(store: PushConfigStore, owner: string, taskId: string, id: string, max: number): Promise<void> {
  const configs = await store.forTask(taskId);
  if (configs.length >= max && !configs.some((entry) => entry.owner === owner && entry.id === id)) throw tooManyConfigs(max);
}

/** Page tokens are the base64url of the first id of the next page. */
export function pageOf(sorted: StoredConfig[], options: ListOptions = {}): ConfigPage {
  const size = Math.min(Math.max(1, Math.trunc(options.pageSize ?? DEFAULT_PAGE_SIZE)), 100);
  let start = 0;
  if (options.pageToken !== undefined && options.pageToken !== '') {
    const after = Buffer.from(options.pageToken, 'base64url').toString('utf8');
    if (!isProtocolId(after) || Buffer.from(after, 'utf8').toString('base64url') !== options.pageToken) {
      throw A2AError.invalidParams('Invalid page token', [{ field: 'pageToken', description: 'not a token this server issued' }]);
    }
    start = sorted.findIndex((entry) => entry.id >= after);
    if (start < 0) start = sorted.length;
  }
  const configs = sorted.slice(start, start + size);
  const next = sorted[start + size];
  return next ? { configs, nextPageToken: Buffer.from(next.id, 'utf8').toString('base64url') } : { configs };
}

export const byId = (a: StoredConfig, b: StoredConfig): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
