import type { CallerAuth } from '../shared/auth.js';
import type { ServedCardConfig } from '../v1/card.js';

/** What the gRPC binding reads of the config. */
export interface GrpcSurfaceOptions {
  /** The gateway's credentials (`auth`), asked of every call as on the HTTP bindings. */
  auth: CallerAuth;
  /** `lenient-version`: a call without `a2a-version` passes. */
  lenientVersion: boolean;
  /** `push-notifications`. */
  pushNotifications: boolean;
  /** `upstream.first-event-timeout-ms`. */
  firstEventTimeoutMs: number;
  /** `server.max-connections-per-client`: calls one client address may have open at once (0: no cap). */
  callsPerClient: number;
  /** `trust-proxy`: the client address is the last `x-forwarded-for` entry. */
  trustProxy: boolean;
  /** `max-body-bytes`: the largest request message. */
  maxBodyBytes: number;
  /** `keepalive-ms`: HTTP/2 ping interval on quiet connections (0: none). */
  keepaliveMs: number;
  /** Where to listen: `grpc.host` (default: `host`) and `grpc.port` (0: any free port). */
  host: string;
  listenPort: number;
  /** What the extended card is built from; the server sets its `grpc.port` to the bound port. */
  card: ServedCardConfig;
  /** `tls.cert-file` and `tls.key-file`: the gRPC port serves TLS with the main port's certificate. */
  tls?: { certFile: string; keyFile: string };
}
