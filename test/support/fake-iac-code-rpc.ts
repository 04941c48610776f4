/**
 * The JSON-RPC side of the fake iac-code's task book (fake-iac-code-tasks.ts): its errors, shaped as
 * the SDK shapes them, and the queue a stream's subscriber reads its turn's events from.
 */
import type { Json } from './fake-iac-code-data.js';

/** A JSON-RPC error the fake answers with; `reason` adds google.rpc.ErrorInfo data like the SDK does. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason?: string,
    readonly extraData?: unknown[],
  ) {
    super(message);
  }
  toJson(): Json {
    const data: unknown[] = [];
    if (this.reason)
      data.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: this.reason, domain: 'a2a-protocol.org', metadata: {} });
    if (this.extraData) data.push(...this.extraData);
    return data.length > 0 ? { code: this.code, message: this.message, data } : { code: this.code, message: this.message };
  }
}

export const taskNotFound = (message = 'Task not found'): RpcError => new RpcError(-32001, message, 'TASK_NOT_FOUND');
export const invalidParams = (message: string): RpcError => new RpcError(-32602, message, 'INVALID_PARAMS');

export function requireFields(params: Json, fields: string[]): void {
  const missing = fields.filter((field) => params[field] === undefined || params[field] === '');
  if (missing.length === 0) return;
  throw new RpcError(-32602, 'Validation failed', 'INVALID_PARAMS', [
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: missing.map((field) => ({ field, description: 'Field is required.' })) },
  ]);
}

const ENDS_A_SUBSCRIPTION = new Set([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

/**
 * Waits for the events of one task's turns; a subscriber ends with the turn. `endsAtInterrupt`: a
 * SubscribeToTask stream, which iac-code ends after the first interrupted or terminal status (captured).
 */
export class EventQueue {
  private readonly items: Json[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  constructor(private readonly endsAtInterrupt = false) {}
  push(event: Json): void {
    if (this.ended) return;
    this.items.push(event);
    const state = ((event.statusUpdate as Json | undefined)?.status as Json | undefined)?.state;
    if (this.endsAtInterrupt && typeof state === 'string' && ENDS_A_SUBSCRIPTION.has(state)) this.ended = true;
    this.wake?.();
  }
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  async next(): Promise<Json | undefined> {
    while (this.items.length === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.items.shift();
  }
}
