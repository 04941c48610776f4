import { z } from 'zod';
import { Credentials } from './credentials-schema.js';
import { CardVerificationConfig } from './card-verification-schema.js';
import { TlsFiles } from './tls-files.js';
import { UpstreamUrl } from './base-url.js';
import { Millis } from './millis.js';
import { checkWorkspacePrune, WorkspacePruneConfig } from './workspace-prune-schema.js';

/** `https://host[:port]` (a trailing `/` allowed; `grpc://host:port` too): nothing a card's path could be matched against. */
const isOrigin = (url: string): boolean => {
  if (!URL.canParse(url)) return false; // the URL check failed already, and zod runs this one all the same
  const { hostname, pathname, search, hash, username, password } = new URL(url);
  return hostname !== '' && (pathname === '/' || pathname === '') && !search && !hash && !username && !password;
};

/** An origin a card may name: an HTTP interface's (`https://host[:port]`), or a gRPC address (`grpc://host:port`, `grpcs://` over TLS). */
const CardOrigin = z
  .url({ protocol: /^(https?|grpcs?)$/, error: 'must be an http(s) or grpc(s) URL' })
  .refine(isOrigin, 'must be an origin, scheme://host[:port], with no path');

export const UpstreamConfig = z
  .strictObject({
    /** Absent: the embedded demo agent is started and used as upstream. */
    url: UpstreamUrl.optional(),
    protocol: z.enum(['auto', '1.0', '0.3', '0.2.5']).default('auto'),
    auth: Credentials,
    'connect-timeout-ms': Millis.default(5_000),
    /**
     * The longest an idle pooled connection to the agent is kept for the next call. Below the agent server's own
     * keep-alive, so a connection is never reused just as the server closes it: the default suits uvicorn's 5 s
     * (iac-code); gunicorn keeps 2 s. An agent that names a shorter one (`Keep-Alive: timeout=N`) gets N less 2 s.
     */
    'keep-alive-ms': Millis.min(1).default(4_000),
    /** Time to response headers of every upstream call but a send, whose come with the turn's end (request-timeout-ms bounds a send). */
    'headers-timeout-ms': Millis.default(60_000),
    /**
     * How long a stream the agent accepted may stay quiet before its first event; on expiry the caller
     * gets an error event in its protocol and the stream closes. 0: no bound.
     */
    'first-event-timeout-ms': Millis.default(300_000),
    /**
     * How long a stream may then send nothing at all (an event, a comment such as sse-starlette's ping, a
     * gRPC message) before the call is ended as timed out: an agent that froze with its connection open.
     * 0: no bound.
     */
    'stream-idle-timeout-ms': Millis.default(600_000),
    /**
     * Whole-call bound for unary (non-stream) calls, a send's turn included; 0 disables: a send whose caller
     * left then runs until the agent answers or the gateway shuts down (other calls keep headers-timeout-ms).
     */
    'request-timeout-ms': Millis.default(600_000),
    'card-refresh-ms': Millis.default(60_000),
    /**
     * Cap on pooled connections to the upstream; absent or 0: unlimited. Every open stream holds one
     * connection for its whole life, so a cap also caps concurrent streams (the rest wait, queue-timeout-ms).
     */
    connections: z.number().int().min(0).optional(),
    /**
     * With `connections`: how long a call waits for one of them (connecting included) before it is refused as
     * unavailable (503, gRPC UNAVAILABLE, Retry-After), never sent to the agent. 0: it waits as long as its call lasts.
     */
    'queue-timeout-ms': Millis.default(10_000),
    /**
     * The folder where the upstream iac-code stores its artifacts, shared with the gateway (a sidecar
     * volume): its `iac-code-artifact://` files are read from here and shown to callers that cannot fetch them.
     */
    'artifact-dir': z.string().min(1).optional(),
    /** With `artifact-dir`: 1.0 callers get the artifacts' bytes (`raw`) instead of the opaque URL too. */
    'inline-artifacts': z.boolean().default(false),
    /**
     * A folder on iac-code's host under which every conversation gets a workspace of its own: each turn
     * names `<root>/ctx-<digest of its context id>` as iac-code's `cwd` (upstream/iac-code/workspaces.ts).
     */
    'workspace-root': z.string().regex(/^\//, 'must be an absolute path').optional(),
    /**
     * Removal of the folders below `workspace-root` nothing was written to for `idle-after-ms`; absent, its
     * defaults apply whenever `workspace-root` is set (workspace-prune-schema.ts). Refused without a root.
     */
    'workspace-prune': WorkspacePruneConfig.optional(),
    /**
     * The keys of `metadata.iac_code` callers may set on a turn (iac-code takes its model, LLM key and
     * headers, cloud credentials and run mode from there); every other is taken out before the turn
     * goes on (upstream/iac-code/caller-settings.ts). Absent: every key passes, as iac-code has it.
     */
    'caller-settings': z.array(z.string().min(1)).optional(),
    /**
     * How a 1.0 agent is called: `auto` follows its card (JSON-RPC when it lists it, else the first
     * of HTTP+JSON and gRPC in the card's order), or forced. The card itself is always read over HTTP.
     */
    'protocol-binding': z.enum(['auto', 'JSONRPC', 'HTTP+JSON', 'GRPC']).default('auto'),
    /** Reach the agent's HTTP server through this unix domain socket instead of TCP (`url` still names host and path). */
    'socket-path': z.string().min(1).optional(),
    /**
     * TLS towards the agent (HTTP and gRPC): `ca-file` is the CA its certificate is checked against
     * instead of the public roots (a private CA); `cert-file` and `key-file` are the gateway's client
     * certificate, for an agent that requires mutual TLS.
     */
    tls: TlsFiles('upstream.tls'),
    'card-verification': CardVerificationConfig.optional(),
    /**
     * Origins (`https://api.example.com`) besides `url`'s that the agent's card may send calls to. A card
     * interface on any other origin is called at `url`'s origin instead (its path kept), with a warning:
     * the card does not choose where upstream.auth's credentials go (upstream/card-address.ts). A GRPC
     * interface may use any port of `url`'s host; another host's address is listed as `grpc://host:port`
     * (`grpcs://` over TLS), else it is called at `url`'s host and the card's port. A card read over https
     * that names plaintext gRPC is called over TLS unless its address is listed here as `grpc://host:port`.
     */
    'card-origins': z.array(CardOrigin).default([]),
  })
  .superRefine(checkWorkspacePrune)
  .prefault({});
export type UpstreamConfig = z.infer<typeof UpstreamConfig>;
