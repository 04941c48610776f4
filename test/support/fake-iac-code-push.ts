/**
 * The push notification config methods of the fake iac-code's task book (fake-iac-code-tasks.ts), as
 * the real server answers them: -32003 unless the card offers push, and only public http(s) callbacks.
 */
import type { Json } from './fake-iac-code-data.js';
import { invalidParams, requireFields, RpcError, taskNotFound } from './fake-iac-code-rpc.js';

export interface PushConfigOptions {
  pushNotifications: boolean;
  deleteResult: 'null' | 'empty';
}

export class PushConfigs {
  private readonly byTask = new Map<string, Map<string, Json>>();

  constructor(private readonly options: PushConfigOptions) {}

  /** One of the four push config methods on the stored tasks. */
  answer(method: string, params: Json, tasks: Map<string, Json>): unknown {
    if (!this.options.pushNotifications) {
      throw new RpcError(-32003, 'Push notifications are not supported by the agent', 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
    requireFields(params, ['taskId']);
    const taskId = params.taskId as string;
    if (!tasks.has(taskId)) throw taskNotFound();
    const configs = this.byTask.get(taskId) ?? new Map<string, Json>();
    this.byTask.set(taskId, configs);
    switch (method) {
      case 'CreateTaskPushNotificationConfig': {
        requireFields(params, ['url']);
        let url: URL;
        try {
          url = new URL(params.url as string);
        } catch {
          throw invalidParams('A2A push callback URL must be http or https');
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidParams('A2A push callback URL must be http or https');
        if (/^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.0\.0\.0|\[::1\])/.test(url.host)) {
          throw invalidParams('A2A push callback URL must not target private or local hosts');
        }
        const config = { ...params, id: (params.id as string | undefined) ?? taskId };
        configs.set(config.id, config);
        return config;
      }
      case 'GetTaskPushNotificationConfig': {
        const config = configs.get(params.id as string);
        if (!config) throw taskNotFound();
        return config;
      }
      case 'ListTaskPushNotificationConfigs':
        return { configs: [...configs.values()] };
      case 'DeleteTaskPushNotificationConfig':
        if (!configs.delete(params.id as string)) throw taskNotFound();
        return this.options.deleteResult === 'empty' ? {} : null;
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }
}
