import type { AgentPort, CallContext } from '../core/agent-port.js';

/** The AgentPort methods that answer once, and those that stream, for decorators that wrap them all. */
export const UNARY_METHODS = [
  'sendMessage',
  'getTask',
  'listTasks',
  'cancelTask',
  'createTaskPushNotificationConfig',
  'getTaskPushNotificationConfig',
  'listTaskPushNotificationConfigs',
  'deleteTaskPushNotificationConfig',
  'getExtendedAgentCard',
] as const satisfies ReadonlyArray<keyof AgentPort>;
export const STREAM_METHODS = ['sendStreamingMessage', 'subscribeToTask'] as const satisfies ReadonlyArray<keyof AgentPort>;

/** The CallContext of a unary port call's arguments: every unary method takes it last (getExtendedAgentCard only it). */
export const callContextOf = (args: readonly unknown[]): CallContext => args[args.length - 1] as CallContext;

/** `sendMessage` → `SendMessage`, the 1.0 method name. */
export const methodName = (name: string): string => name[0]!.toUpperCase() + name.slice(1);

/** `port` with `methods` in front; every other property stays reachable through the prototype. */
export function overlay<P extends object>(port: P, methods: Partial<AgentPort>): P {
  return Object.assign(Object.create(port) as P, methods);
}
