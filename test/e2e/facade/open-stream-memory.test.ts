/**
 * What an open facade message/stream keeps while its agent works: not its request's Hono context (the request,
 * its response, a dozen closures of its own, some 5 KB), which thousands of open streams would each hold. The
 * stream notes its task and its end on the request line's fields alone.
 */
import { Context } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, startFacadeGateway, userMessage, type OpenStream } from '../../support/facade.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { liveInstances } from '../../support/live-objects.js';

const OPEN = 4;

let agent: HeldTurnsAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startHeldTurnsAgent();
  gateway = await startFacadeGateway({ upstream: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe('an open facade message/stream', () => {
  it("does not keep its request's Hono context while the agent holds its turn", async () => {
    const streams: OpenStream[] = [];
    for (let i = 0; i < OPEN; i++) {
      const stream = await openStream(gateway.url, 'message/stream', { message: userMessage({ text: `hold ${i}` }) });
      expect((await stream.next())?.json.result).toBeDefined();
      streams.push(stream);
    }
    await agent.waitForHeld(OPEN);
    // Every stream is open, its turn held: no request is in flight but theirs.
    expect(await liveInstances(Context.prototype)).toBe(0);
    for (const turn of agent.held()) turn.complete();
    for (const stream of streams) await stream.rest();
  });
});
