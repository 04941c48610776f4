/**
 * Which fault (fake-iac-code-faults.ts) a request to the fake iac-code (fake-iac-code.ts) gets, first match:
 * the injectFault() queue, header `x-fake-fault`, a `[fault:…]` directive in the message text (JSON-RPC only),
 * then options.fault().
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Json } from './fake-iac-code-data.js';
import { parseDirective, type Fault, type FaultName } from './fake-iac-code-faults.js';

export type FaultRoute = 'rpc' | 'card';

/** What of a request the choice reads. */
export interface FaultTarget {
  headers: IncomingHttpHeaders;
  body?: unknown;
  rpcMethod?: string;
}

export interface InjectOptions {
  times?: number;
  route?: FaultRoute;
  method?: string;
}

function messageText(body: unknown): string {
  const parts = ((body as Json | undefined)?.params as Json | undefined)?.message as Json | undefined;
  const list = Array.isArray(parts?.parts) ? (parts.parts as Json[]) : [];
  return list.map((part) => (typeof part.text === 'string' ? part.text : '')).join(' ');
}

export class FaultChoice<R extends FaultTarget> {
  private readonly injected: Array<{ fault: Fault; route: FaultRoute; times: number; method?: string }> = [];

  constructor(private readonly chosenByTest?: (request: R) => Fault | undefined) {}

  /** A fault for the next `times` requests of `route` (of JSON-RPC method `method` only, when given). */
  inject(fault: Fault | FaultName, { times = 1, route = 'rpc', method }: InjectOptions = {}): void {
    this.injected.push({ fault: typeof fault === 'string' ? { name: fault } : fault, route, times, ...(method ? { method } : {}) });
  }

  choose(request: R, route: FaultRoute): Fault | undefined {
    const slot = this.injected.find((entry) => entry.route === route && (entry.method === undefined || entry.method === request.rpcMethod));
    if (slot) {
      if (--slot.times <= 0) this.injected.splice(this.injected.indexOf(slot), 1);
      return slot.fault;
    }
    const header = request.headers['x-fake-fault'];
    return (
      (typeof header === 'string' ? parseDirective(`[fault:${header}]`) : undefined) ??
      (route === 'rpc' ? parseDirective(messageText(request.body)) : undefined) ??
      this.chosenByTest?.(request)
    );
  }
}

/** Where a turn whose stream a fault breaks off waits for a resubscription: `gap` events past the break. */
export function missedAfterBreak(fault: Fault | undefined): number | undefined {
  if (fault?.gap === undefined || (fault.name !== 'kill-mid-stream' && fault.name !== 'end-mid-stream')) return undefined;
  return (fault.after ?? 3) + fault.gap;
}
