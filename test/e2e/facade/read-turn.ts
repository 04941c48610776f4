/** One turn through a facade gateway, read as a Bailian user reads it: for the tests of one conversation over two gateways. */
import { expect } from 'vitest';
import { openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';

export type Way = 'send' | 'stream';

/** What a Bailian user reads of one turn, the state it ended in, and its task. */
export interface Read {
  text: string;
  state: string;
  taskId: string;
}

/** One turn of `text` in the conversation `contextId` through the facade at `url`; `taskId`: the task the message names itself. */
export async function readTurn(url: string, way: Way, text: string, contextId: string, taskId?: string): Promise<Read> {
  const message = userMessage(taskId ? { text, contextId, taskId } : { text, contextId });
  if (way === 'send') {
    const { body } = await rpc(url, 'message/send', { message });
    expect(body.error).toBeUndefined();
    return { text: sentText(body.result), state: body.result.status.state, taskId: body.result.id };
  }
  const frames = await (await openStream(`${url}/stream`, 'message/stream', { message })).rest();
  expect(frames.filter((frame) => frame.json.error !== undefined)).toEqual([]);
  const events = results(frames);
  return { text: streamedText(events), state: events.at(-1).status.state, taskId: events[0].id ?? events[0].taskId };
}
