import { z } from 'zod';
import { V03_EXTENDED_CARD_METHOD } from '../v03/jsonrpc.js';

/** A2A 0.2.5 task states (types.ts `enum TaskState`). */
export const V025_TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
] as const;
export const V025TaskState = z.enum(V025_TASK_STATES);
export type V025TaskState = z.infer<typeof V025TaskState>;

/** 0.2.5 states after which a task never changes again ('unknown' counts as terminal in 0.2.5). */
const TERMINAL: ReadonlySet<V025TaskState> = new Set(['completed', 'canceled', 'failed', 'rejected', 'unknown']);
export const isV025TerminalState = (state: V025TaskState): boolean => TERMINAL.has(state);
/** A 0.2.5 server sets `final: true` on terminal states and on input-required (0.2.5 streaming docs). */
export const isV025FinalState = (state: V025TaskState): boolean => TERMINAL.has(state) || state === 'input-required';

export const V025_ROLES = ['user', 'agent'] as const;
export const V025Role = z.enum(V025_ROLES);
export type V025Role = z.infer<typeof V025Role>;

/**
 * JSON-RPC methods a 0.2.5 endpoint answers, and 0.3's extended-card method: 0.2.6/0.3 clients call
 * 0.2.5 facades with it (docs/version-mapping.md, "0.3 clients").
 */
export const V025_METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  V03_EXTENDED_CARD_METHOD,
] as const;
export const V025Method = z.enum(V025_METHODS);
export type V025Method = z.infer<typeof V025Method>;

/** Error codes the 0.2.5 specification defines (§8). */
export const V025_ERROR_CODES = [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006] as const;

/** A code a 0.2.5 peer may legally receive: a defined one or the implementation range -32000..-32099. */
export function isV025ErrorCode(code: number): boolean {
  return (V025_ERROR_CODES as readonly number[]).includes(code) || (Number.isInteger(code) && code <= -32000 && code >= -32099);
}
