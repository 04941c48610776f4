/** Calls the instruction count and the heap profile run one after another on one connection, and what they open first. */
import type { Client } from 'undici';
import { followUp, openConversations } from './follow-ups.js';

/** One unit of load, a window's `i`th: a call whose answer is read whole; returns the events it carried (1 for a call). */
export type Load = (client: Client, i: number) => Promise<number>;

/** A window's load, with what it needs done first (before the window: not counted). */
export type Prepared = (client: Client) => Promise<Load>;

export const ready =
  (load: Load): Prepared =>
  async () =>
    load;

/** A call answered with a JSON-RPC result. */
export const call =
  (headers: Readonly<Record<string, string>>, body: string): Load =>
  async (client) => {
    const answer = await client.request({ method: 'POST', path: '/', headers, body });
    const text = await answer.body.text();
    if (answer.statusCode !== 200 || !text.includes('"result"')) throw new Error(`unexpected answer ${answer.statusCode}: ${text.slice(0, 200)}`);
    return 1;
  };

/** A stream read to its end: its events. */
export const stream =
  (headers: Readonly<Record<string, string>>, body: string): Load =>
  async (client) => {
    const answer = await client.request({ method: 'POST', path: '/', headers, body });
    const text = await answer.body.text();
    return text.split('\n\n').filter((frame) => frame.startsWith('data:')).length;
  };

/** `count` conversations opened first, the window's `i`th call the `i`th's next message (follow-ups.ts). */
export const followingUp =
  (count: number): Prepared =>
  async (client) => {
    const contexts = await openConversations(client, count);
    return async (to, i) => (await followUp(to, contexts[i]!), 1);
  };
