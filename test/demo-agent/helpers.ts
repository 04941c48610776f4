import type { StreamResponse, Task } from '../../src/model/index.js';

export const V1 = { 'A2A-Version': '1.0', 'content-type': 'application/json' };

let nextId = 1;

export interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  id: unknown;
  jsonrpc: string;
}

export async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = V1): Promise<RpcReply> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as RpcReply;
}

export async function rpcResult<T>(url: string, method: string, params: unknown): Promise<T> {
  const reply = await rpc(url, method, params);
  if (reply.error) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as T;
}

export interface SseFrame {
  event?: string;
  data: { result?: StreamResponse; error?: { code: number; message: string }; id: unknown; jsonrpc: string };
}

/** Open a JSON-RPC SSE stream; frames are yielded as they arrive (comments are skipped). */
export async function openStream(
  url: string,
  method: string,
  params: unknown,
  signal?: AbortSignal,
): Promise<{ response: Response; frames: AsyncGenerator<SseFrame> }> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { ...V1, accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: `s-${nextId++}`, method, params }),
    signal,
  });
  return { response, frames: readFrames(response) };
}

async function* readFrames(response: Response): AsyncGenerator<SseFrame> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\r\n\r\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 4);
      const lines = block.split('\r\n');
      const data = lines.find((line) => line.startsWith('data: '));
      if (!data) continue;
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      yield { ...(event ? { event } : {}), data: JSON.parse(data.slice('data: '.length)) as SseFrame['data'] };
    }
  }
}

export async function collect(frames: AsyncGenerator<SseFrame>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const frame of frames) {
    if (frame.data.error) throw new Error(`stream error ${JSON.stringify(frame.data.error)}`);
    events.push(frame.data.result as StreamResponse);
  }
  return events;
}

export async function streamTurn(url: string, message: Record<string, unknown>): Promise<StreamResponse[]> {
  const { frames } = await openStream(url, 'SendStreamingMessage', { message });
  return collect(frames);
}

export async function sendMessage(url: string, message: Record<string, unknown>, configuration?: unknown): Promise<Task> {
  const result = await rpcResult<{ task: Task }>(url, 'SendMessage', { message, ...(configuration ? { configuration } : {}) });
  return result.task;
}

/** A compact label per event, e.g. `status:TASK_STATE_WORKING+msg`, for order assertions. */
export function describeEvent(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('artifactUpdate' in event) return 'artifact';
  if ('message' in event) return 'message';
  const { status, metadata } = event.statusUpdate;
  const iac = (metadata?.iac_code ?? {}) as Record<string, unknown>;
  const tags = [status.message ? '+msg' : '', status.timestamp ? '+ts' : '', iac.usage ? '+usage' : '', iac.assistantFinal ? '+final' : ''];
  return `status:${status.state}${tags.join('')}`;
}
