/**
 * Scenario 5: the 1.0 → 0.2.5 stream translation alone, in this process: events per second of the
 * facade's reply reducer (`createTurnReply`, bailian profile) over one long stream of text chunks, each output
 * serialised as the facade would send it. A JSON parse + stringify of the same events runs
 * alternately as the yardstick (the work every relayed event costs anyway).
 */
import type { StreamResponse } from '../../src/model/index.js';
import type { BenchContext, ScenarioResult } from '../lib/context.js';
import { median, round } from '../lib/stats.js';

/** One stream: Task, N WORKING text chunks, INPUT_REQUIRED; fresh objects per call (no caching effects). */
function upstreamEvents(chunks: number): StreamResponse[] {
  const ref = { taskId: 't1', contextId: 'c1' };
  const events: StreamResponse[] = [{ task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } } }];
  for (let i = 0; i < chunks; i++) {
    events.push({
      statusUpdate: {
        ...ref,
        status: {
          state: 'TASK_STATE_WORKING',
          message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: `chunk ${i} ` }] },
        },
        metadata: { sentAt: String(i) },
      },
    });
  }
  events.push({ statusUpdate: { ...ref, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
  return events;
}

const perSecond = (count: number, ns: bigint) => round(count / (Number(ns) / 1e9));

export async function runTranslation(ctx: BenchContext): Promise<ScenarioResult> {
  let reply: typeof import('../../src/surfaces/v025/reply/index.js');
  let mappings: typeof import('../../src/mappings/index.js');
  try {
    reply = await import('../../src/surfaces/v025/reply/index.js');
    mappings = await import('../../src/mappings/index.js');
    if (typeof reply.createTurnReply !== 'function') throw new Error('no createTurnReply');
  } catch (error) {
    return { status: 'skipped', note: `reply reducer not available: ${(error as Error).message}` };
  }
  const profile = mappings.loadMappingProfile('bailian');
  const options = {
    profile,
    decisionState: reply.decisionStateOf(profile, {}),
    upstreamMetadata: 'drop' as const,
    renderParts: 'text' as const,
    replyArtifacts: 'single' as const,
    inlineMaxBytes: 256 * 1024,
    deviceCommandsKey: 'bailian',
    words: reply.facadeWords('en'),
    newId: () => 'reply',
    now: () => new Date().toISOString(),
  };
  const chunks = ctx.timings.translationEvents;

  const translateOnce = (): { events: number; out: number; ns: bigint } => {
    const events = upstreamEvents(chunks);
    const translator = reply.createTurnReply(options);
    let out = 0;
    const t0 = process.hrtime.bigint();
    for (const event of events) for (const produced of translator.push(event)) out += JSON.stringify(produced).length;
    for (const produced of translator.close()) out += JSON.stringify(produced).length;
    return { events: events.length, out, ns: process.hrtime.bigint() - t0 };
  };
  const jsonOnce = (): { events: number; out: number; ns: bigint } => {
    const events = upstreamEvents(chunks);
    let out = 0;
    const t0 = process.hrtime.bigint();
    for (const event of events) out += JSON.stringify(JSON.parse(JSON.stringify(event))).length;
    return { events: events.length, out, ns: process.hrtime.bigint() - t0 };
  };

  translateOnce(); // warm-up
  jsonOnce();
  const rounds: Array<{ translatorEventsPerSecond: number; jsonRoundTripEventsPerSecond: number; outputBytes: number }> = [];
  for (let r = 0; r < Math.max(ctx.timings.rounds, 3); r++) {
    const translated = translateOnce();
    const json = jsonOnce();
    rounds.push({
      translatorEventsPerSecond: perSecond(translated.events, translated.ns),
      jsonRoundTripEventsPerSecond: perSecond(json.events, json.ns),
      outputBytes: translated.out,
    });
  }
  const translatorEventsPerSecond = round(median(rounds.map((r) => r.translatorEventsPerSecond)));
  const jsonEventsPerSecond = round(median(rounds.map((r) => r.jsonRoundTripEventsPerSecond)));
  ctx.log(`  translator ${Math.round(translatorEventsPerSecond)} ev/s, JSON round trip ${Math.round(jsonEventsPerSecond)} ev/s`);
  return {
    status: 'ok',
    rounds,
    summary: {
      eventsPerStream: chunks + 2,
      translatorEventsPerSecond,
      jsonRoundTripEventsPerSecond: jsonEventsPerSecond,
      translatorVsJsonRoundTrip: round(translatorEventsPerSecond / jsonEventsPerSecond),
      microsecondsPerEvent: round(1e6 / translatorEventsPerSecond),
    },
  };
}
