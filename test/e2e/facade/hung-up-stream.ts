import { request } from 'node:http';
import { userMessage } from '../../support/facade.js';

/**
 * A Bailian message/stream whose caller hangs up (destroys the socket, as a time-out or a network blip does) the
 * moment the SSE bytes it read hold `until`: the raw text it read, and what its user read of the reply's words.
 */
export function streamHungUpAt(gatewayUrl: string, text: string, until: string): Promise<{ raw: string; words: string; contextId: string }> {
  const url = new URL(`${gatewayUrl}/stream`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: '1', method: 'message/stream', params: { message: userMessage({ text }) } });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let raw = '';
        res.on('data', (chunk) => {
          raw += chunk;
          if (!raw.includes(until)) return;
          req.destroy();
          const words = [...raw.matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join('');
          resolve({ raw, words, contextId: /"contextId":"([^"]+)"/.exec(raw)![1]! });
        });
        res.on('end', () => reject(new Error(`the stream ended before ${until}`)));
      },
    );
    req.on('error', () => undefined);
    req.end(body);
  });
}
