import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { startFakeIacCode } from '../support/fake-iac-code.js';

describe('time to first event', () => {
  it('is the first SSE event, not the headers and the opening comment of a quiet upstream', async () => {
    const iac = await startFakeIacCode();
    const gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: iac.url } }), createLogger('silent'));
    try {
      const res = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendStreamingMessage',
          params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'wait [fault:quiet after=0 ms=600]' }] } },
        }),
      });
      await res.text();
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      const sum = Number(/^a2a_bridge_time_to_first_event_seconds_sum\{surface="jsonrpc"\} (\S+)$/m.exec(text)?.[1]);
      const count = Number(/^a2a_bridge_time_to_first_event_seconds_count\{surface="jsonrpc"\} (\S+)$/m.exec(text)?.[1]);
      expect(count).toBe(1);
      expect(sum).toBeGreaterThanOrEqual(0.55);
    } finally {
      await gateway.close();
      await iac.close();
    }
  });
});
