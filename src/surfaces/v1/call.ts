import type { Context } from 'hono';
import type { CallContext } from '../../core/agent-port.js';
import type { GatewayEnv } from '../shared/env.js';

/** Extension URIs from `A2A-Extensions` (comma-separated, possibly repeated), else the 0.x `X-A2A-Extensions`. */
export function requestedExtensions(headers: Headers): string[] | undefined {
  const raw = headers.get('a2a-extensions') ?? headers.get('x-a2a-extensions');
  if (raw === null) return undefined;
  const uris = raw
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri.length > 0);
  return uris.length > 0 ? uris : undefined;
}

export interface PortCall {
  ctx: CallContext;
  /** Aborts ctx.signal; for a stream whose client went away. */
  abort(): void;
  /**
   * Detaches ctx.signal from the shutdown signal; call it when the handler returns (a stream's SSE
   * writer follows the shutdown from then on). The shutdown signal lives as long as the gateway: a
   * listener left on it would keep every finished call alive.
   */
  release(): void;
}

/**
 * The CallContext of one request. Its signal follows the request's (aborted by @hono/node-server when
 * the client disconnects) and the gateway's `shutdown` signal (with its reason, so a call cut short by
 * a shutdown fails with that error), and can also be aborted by the surface, e.g. when an SSE reader
 * cancels.
 */
export function portCall(c: Context<GatewayEnv>, surface: 'jsonrpc' | 'rest', shutdown?: AbortSignal): PortCall {
  const controller = new AbortController();
  const requestSignal = c.req.raw.signal;
  if (requestSignal.aborted) controller.abort(requestSignal.reason);
  else requestSignal.addEventListener('abort', () => controller.abort(requestSignal.reason), { once: true });
  const onShutdown = (): void => controller.abort(shutdown?.reason);
  if (shutdown?.aborted) onShutdown();
  else shutdown?.addEventListener('abort', onShutdown, { once: true });
  const extensions = requestedExtensions(c.req.raw.headers);
  const ctx: CallContext = {
    principal: (c.get('principal') as string | undefined) ?? '',
    signal: controller.signal,
    surface,
    ...(extensions ? { extensions } : {}),
  };
  return {
    ctx,
    abort: () => controller.abort(new DOMException('The client went away', 'AbortError')),
    release: () => shutdown?.removeEventListener('abort', onShutdown),
  };
}
