import type { Logger } from 'pino';
import { withFields } from '../../model/index.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { RequestLogFields } from '../shared/env.js';

/** Where a call's line goes: the gateway's log, and its request metrics. */
export interface CallLineSinks {
  logger: Logger;
  metrics?: GatewayMetrics;
}

/** What a `grpc call` line says of a call (an unnamed caller's `client: undefined` is left out by the logger). */
export interface CallLine extends Pick<RequestLogFields, 'taskId' | 'contextId' | 'state'> {
  method: string;
  client?: string | undefined;
  grpcStatus: number;
  durationMs: number;
}

/**
 * The one line a gRPC call writes, counted in the request metrics: `errorCode` for an A2A error, or `ended:
 * caller_left` for a caller that went away, which is no failure (docs/surfaces.md, "A caller that stops waiting").
 */
export function writeCallLine(sinks: CallLineSinks, line: CallLine, outcome: { errorCode?: number | undefined } | 'caller_left' = {}): void {
  const fields = withFields({ surface: 'grpc' }, line);
  if (outcome === 'caller_left') {
    sinks.metrics?.callerLeft('grpc', line.method, line.client);
    sinks.logger.info(withFields(fields, { ended: 'caller_left' }), 'grpc call');
    return;
  }
  sinks.metrics?.grpcRequest(line.method, line.grpcStatus, outcome.errorCode, line.client);
  sinks.logger.info(outcome.errorCode !== undefined ? withFields(fields, { errorCode: outcome.errorCode }) : fields, 'grpc call');
}
