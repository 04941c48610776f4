/** What the bench sends and where: the three paths and the request bodies of each protocol. */

export type PathName = 'direct' | 'proxy' | 'gateway';
export const PATHS: readonly PathName[] = ['direct', 'proxy', 'gateway'];

export interface Target {
  name: PathName;
  /** http://127.0.0.1:<port> */
  origin: string;
}

export const V1_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  'a2a-version': '1.0',
};
export const V1_STREAM_HEADERS: Readonly<Record<string, string>> = { ...V1_HEADERS, accept: 'text/event-stream' };
export const V025_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };
export const V025_STREAM_HEADERS: Readonly<Record<string, string>> = { ...V025_HEADERS, accept: 'text/event-stream' };

const v1Envelope = (method: string, text: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: '1',
    method,
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text }] } },
  });

/** A 1.0 SendMessage body; with `totalBytes` the text is padded so the whole body has exactly that size. */
export function sendMessageBody(totalBytes?: number): string {
  const small = v1Envelope('SendMessage', 'hi');
  if (!totalBytes) return small;
  return v1Envelope('SendMessage', 'h'.repeat(totalBytes - small.length + 2));
}

export type StreamShape = { chunks: number; delayMs: number } | 'idle';

const shapeText = (shape: StreamShape): string => (shape === 'idle' ? 'bench:idle' : `bench:stream:${shape.chunks}:${shape.delayMs}`);

export const streamBody = (shape: StreamShape): string => v1Envelope('SendStreamingMessage', shapeText(shape));

const v025Envelope = (method: string, text: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: '1',
    method,
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text }] } },
  });

export const v025SendBody = (): string => v025Envelope('message/send', 'hi');
export const v025StreamBody = (shape: StreamShape): string => v025Envelope('message/stream', shapeText(shape));

/** A blocking answer is only counted when it is the agent's reply, not an error that also says HTTP 200. */
export const isV1Reply = (body: string): boolean => body.includes('"result"') && body.includes('TASK_STATE_INPUT_REQUIRED');
/** The bailian profile maps the agent's INPUT_REQUIRED to `completed`; the plain 0.2.5 profile keeps `input-required`. */
export const isV025Reply = (body: string): boolean =>
  body.includes('"result"') && (body.includes('"completed"') || body.includes('"input-required"'));

/** The JSON-RPC error code of an answer, if it is an error. */
export function jsonRpcErrorCode(body: string): number | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'number' ? parsed.error.code : undefined;
  } catch {
    return undefined;
  }
}
