/**
 * A Bailian conversation's later message on the facade: `message/send` naming the `contextId` of a turn that ended.
 * The bench's own facade send opens a conversation every time (no `contextId`), so what a conversation's next
 * message pays is never read there: its lane's let-go, the cut-turn, moved-context and repeated-turn notes, the
 * context's paused task (the fast agent ends every turn in INPUT_REQUIRED and continues the task a message names,
 * as iac-code does), the files noted before its turn. Each conversation is opened before the window and followed
 * up once in it: every measured message is a conversation's second, whose cost does not grow with the count.
 */
import type { Client } from 'undici';
import { V025_HEADERS, v025SendBody } from './targets.js';

let sent = 0;

/** A follow-up's body: the bench's message again, under an id of its own (the same id would be a retry). */
export const v025FollowUpBody = (contextId: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: '1',
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: `f${++sent}`, contextId, parts: [{ kind: 'text', text: 'hi' }] } },
  });

interface Answer {
  result?: { contextId?: string; status?: { state?: string } };
}

/** The answer's context, when it is the turn's reply (an error, or a turn that never ran, throws). */
async function answeredContext(client: Client, body: string): Promise<string> {
  const answer = await client.request({ method: 'POST', path: '/', headers: V025_HEADERS, body });
  const text = await answer.body.text();
  const { result } = JSON.parse(text) as Answer;
  const state = result?.status?.state;
  if (answer.statusCode !== 200 || !result?.contextId || (state !== 'completed' && state !== 'input-required'))
    throw new Error(`unexpected answer ${answer.statusCode}: ${text.slice(0, 200)}`);
  return result.contextId;
}

/** Opens `count` conversations, one after another, and returns their context ids. */
export async function openConversations(client: Client, count: number): Promise<string[]> {
  const contexts: string[] = [];
  for (let i = 0; i < count; i++) contexts.push(await answeredContext(client, v025SendBody()));
  return contexts;
}

/** The conversation's next message; throws unless its turn ran and answered in that conversation. */
export async function followUp(client: Client, contextId: string): Promise<void> {
  const answered = await answeredContext(client, v025FollowUpBody(contextId));
  if (answered !== contextId) throw new Error(`a follow-up in ${contextId} was answered in ${answered}`);
}
