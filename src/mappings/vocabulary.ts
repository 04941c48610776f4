import { z } from 'zod';
import { ErrorCode, Role, TASK_STATES, TaskState, type PartKind } from '../model/index.js';
import {
  V025_ERROR_CODES,
  V025_METHODS,
  V025_ROLES,
  V025_TASK_STATES,
  V025Method,
  V025Role,
  V025TaskState,
  isV025ErrorCode,
} from '../protocol/v025/enums.js';

/** Every A2A 1.0 JSON-RPC method (gRPC names; a2a.proto `service A2AService`). */
export const V1_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;
export const V1Method = z.enum(V1_METHODS);
export type V1Method = z.infer<typeof V1Method>;
/** 1.0 methods with no 0.2.5 counterpart: they cannot appear in the to-0.2.5 method table. */
export const V1_ONLY_METHODS: readonly V1Method[] = ['ListTasks'];

export const V1_ROLES = Role.options;
export const V1_ERROR_CODES: readonly number[] = Object.values(ErrorCode);
export const V1_PART_KINDS: readonly PartKind[] = ['text', 'raw', 'url', 'data'];
export const V025_PART_SOURCES = ['text', 'file-bytes', 'file-uri', 'data'] as const;
export type V025PartSource = (typeof V025_PART_SOURCES)[number];
export type V025PartKind = 'text' | 'file' | 'data';

/** Table values may be written as numbers or numeric strings (YAML/env configs often stringify). */
const IntegerValue = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);

export const V025ErrorCodeValue = IntegerValue.refine(isV025ErrorCode, {
  message: 'not a code a 0.2.5 peer accepts (a defined code or -32000..-32099)',
});
export const V1ErrorCodeValue = IntegerValue.refine((code) => V1_ERROR_CODES.includes(code), {
  message: `not an A2A 1.0 error code (${V1_ERROR_CODES.join(', ')})`,
});

export { TASK_STATES, TaskState, Role, V025_TASK_STATES, V025TaskState, V025_METHODS, V025Method, V025_ROLES, V025Role, V025_ERROR_CODES };
