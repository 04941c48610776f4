/**
 * The physical limit of one Node hop: a node:http server that forwards every request to one origin
 * with undici `request` over a pooled Agent (the gateway's own client and pool settings). Bytes pass
 * untouched: no parsing, no translation, no validation, no logging. SSE responses are piped chunk by
 * chunk; request bodies and non-SSE responses are relayed as whole byte buffers, because a stream
 * pipeline per small body measured ~1.5-2x slower than the copy (and the gateway reads whole bodies too).
 *
 * With BENCH_DIAG=1 it answers the same IPC diagnostics as the gateway (diag-hooks.mjs).
 *
 * Prints `READY <url>` on stdout once listening. Usage: bare-proxy.ts <upstream-origin> [connections]
 */
import http from 'node:http';
import { pipeline } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { installDiagnostics } from './diag-hooks.mjs';
import { hopUpstream, listenAsHop } from './lib/hop-listen.js';
import { answerMemoryProbes } from './memory-probes.mjs';

const { origin, pool } = hopUpstream('bare-proxy.ts');

/** Headers undici refuses or that belong to one hop only. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'host',
  'expect',
  'content-length', // recomputed from the relayed bytes
]);

function forwardHeaders(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name)) out[name] = raw[i + 1]!;
  }
  return out;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** An SSE body is piped frame by frame; any other body is relayed as one byte buffer. */
async function relay(upstream: Dispatcher.ResponseData, res: http.ServerResponse): Promise<void> {
  const headers = responseHeaders(upstream.headers);
  if (String(upstream.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    res.writeHead(upstream.statusCode, headers);
    // node:http does not buffer res.write: each upstream chunk goes out as it arrives.
    pipeline(upstream.body, res, () => undefined);
    return;
  }
  const bytes = Buffer.from(await upstream.body.arrayBuffer());
  res.writeHead(upstream.statusCode, { ...headers, 'content-length': String(bytes.length) }).end(bytes);
}

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  // No AbortSignal: a caller leaving mid-stream breaks the pipeline, which destroys the upstream body.
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    request(`${origin}${req.url ?? '/'}`, {
      dispatcher: pool,
      method: req.method as 'GET',
      headers: forwardHeaders(req.rawHeaders),
      body: hasBody ? Buffer.concat(chunks) : null,
    })
      .then((upstream) => relay(upstream, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
});
installDiagnostics();
answerMemoryProbes();
listenAsHop(server, pool);
