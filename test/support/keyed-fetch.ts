import { A2AClient } from 'a2a-sdk-025/client';
import { vi } from 'vitest';
import type { RunningGateway } from '../../src/app.js';
import { API_KEY, startFacadeGateway } from './facade.js';

const rawFetch = globalThis.fetch;

/**
 * Bailian sends the console-configured key on every call. The a2a-js 0.2.5 client takes no fetch and no headers of
 * its own, so the global fetch is stubbed to add `X-API-KEY` to every request to `baseUrl` (a file that calls this
 * runs in OWN_PROCESS, vitest.config.ts). Undone by `vi.unstubAllGlobals()`.
 */
export function stubKeyedFetch(baseUrl: string, apiKey: string = API_KEY): void {
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(baseUrl)) return rawFetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set('X-API-KEY', apiKey);
    return rawFetch(input, { ...init, headers });
  });
}

/**
 * A facade gateway (`bailian` profile) in front of the agent `upstream` names, taking the test key, and the a2a-js
 * 0.2.5 client sending it, as Bailian calls a registered agent. Stopped by stopKeyedFacade.
 */
export async function startKeyedFacade(upstream: Record<string, unknown>): Promise<{ gateway: RunningGateway; client: A2AClient }> {
  const gateway = await startFacadeGateway({ upstream, bailian: { 'api-key': API_KEY } });
  stubKeyedFetch(gateway.url);
  return { gateway, client: new A2AClient(gateway.url) };
}

export async function stopKeyedFacade(gateway: RunningGateway | undefined): Promise<void> {
  vi.unstubAllGlobals();
  await gateway?.close();
}
