/**
 * The real gateway (`startGateway`, the same composition the CLI serves) started for a test, with its
 * request log lines captured so a test can see which surface and method a call really took.
 */
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { startDemoAgent } from '../../src/demo-agent/index.js';
import { createLogger } from '../../src/log.js';
import type { RequestLogFields } from '../../src/surfaces/shared/env.js';
import { startSdkV1Agent, type SdkV1AgentOptions } from './sdk-v1-agent.js';

/** One line of the gateway's request log (`msg: 'request'`). */
export interface RequestLogLine extends RequestLogFields {
  httpMethod: string;
  path: string;
  status: number;
  stream?: boolean;
}

export interface TestGateway {
  /** The gateway's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The upstream agent's base URL; undefined for the embedded demo agent (startGateway keeps it private). */
  upstreamUrl?: string;
  /** Request log lines written so far, oldest first. */
  requestLog(): RequestLogLine[];
  /** `host:port` of the gRPC binding, when `grpc.port` was set. */
  grpcAddress?: string;
  /** Where the metrics are scraped, when `metrics.port` was set (0: a free port the gateway took). */
  metricsUrl?: string;
  /** gRPC call log lines (`msg: 'grpc call'`) written so far, oldest first. */
  grpcLog(): GrpcLogLine[];
  /** Every log line written so far (start-up and background work included), oldest first. */
  log(): Array<{ level: number; msg: string } & Record<string, unknown>>;
  /** Stop the gateway and whatever upstream this helper started. */
  close(): Promise<void>;
}

/** One line of the gateway's gRPC call log. */
export interface GrpcLogLine {
  surface: 'grpc';
  method: string;
  /** The caller's client name, when its credential has one. */
  client?: string;
  /** The task and context the call is about, named as on the HTTP request line. */
  taskId?: string;
  contextId?: string;
  state?: string;
  grpcStatus: number;
  errorCode?: number;
}

type LogEntry = { level: number; msg: string } & Record<string, unknown>;

function captureRequestLog(): { lines: RequestLogLine[]; grpcLines: GrpcLogLine[]; all: LogEntry[]; write(chunk: string): void } {
  const lines: RequestLogLine[] = [];
  const grpcLines: GrpcLogLine[] = [];
  const all: LogEntry[] = [];
  return {
    lines,
    grpcLines,
    all,
    write(chunk: string) {
      for (const text of chunk.split('\n')) {
        if (text.trim() === '') continue;
        const entry = JSON.parse(text) as LogEntry;
        all.push(entry);
        if (entry.msg === 'request') lines.push(entry as unknown as RequestLogLine);
        if (entry.msg === 'grpc call') grpcLines.push(entry as unknown as GrpcLogLine);
      }
    },
  };
}

/**
 * Start the gateway on 127.0.0.1:0 with `defaultConfig(overrides)`. Without `upstream.url` the gateway
 * starts its embedded demo agent, exactly as `a2a-bridge serve` does.
 */
export async function startTestGateway(overrides: Record<string, unknown> = {}): Promise<TestGateway> {
  const log = captureRequestLog();
  const config = defaultConfig({ port: 0, host: '127.0.0.1', ...overrides });
  const running = await startGateway(config, createLogger('info', log));
  return {
    url: running.url,
    upstreamUrl: config.upstream.url,
    requestLog: () => [...log.lines],
    ...(running.grpcAddress ? { grpcAddress: running.grpcAddress } : {}),
    ...(running.metricsUrl ? { metricsUrl: running.metricsUrl } : {}),
    grpcLog: () => [...log.grpcLines],
    log: () => [...log.all],
    close: running.close,
  };
}

/** The gateway with its embedded demo agent (no `upstream.url`). */
export function startDemoGateway(overrides: Record<string, unknown> = {}): Promise<TestGateway> {
  return startTestGateway(overrides);
}

/** Start `agent`, then the gateway in front of it; closing the gateway closes both. */
async function gatewayInFrontOf(agent: { url: string; close(): Promise<void> }, overrides: Record<string, unknown>): Promise<TestGateway> {
  try {
    const upstream = { ...(overrides.upstream as Record<string, unknown> | undefined), url: agent.url };
    const gateway = await startTestGateway({ ...overrides, upstream });
    return {
      ...gateway,
      async close() {
        await gateway.close();
        await agent.close();
      },
    };
  } catch (error) {
    await agent.close();
    throw error;
  }
}

/** A real a2a-js 1.x server, and the gateway in front of it. */
export async function startSdkGateway(overrides: Record<string, unknown> = {}, agentOptions: SdkV1AgentOptions = {}): Promise<TestGateway> {
  return gatewayInFrontOf(await startSdkV1Agent(agentOptions), overrides);
}

/**
 * A stand-alone demo agent (the code the gateway embeds) and the gateway in front of it, for the tests
 * that also talk to the upstream directly.
 */
export async function startDemoAgentGateway(overrides: Record<string, unknown> = {}): Promise<TestGateway> {
  return gatewayInFrontOf(await startDemoAgent(), overrides);
}
