/**
 * A real a2a-js 0.2.5 agent for the relay explorations (explore-relay-*.test.ts), answering as agents
 * built for chat do, chosen by the prompt: `rates` streams progress in working status messages, then a
 * file artifact and a data part, then completes; `ask` ends input-required with a question (its answer,
 * any prompt on that task, completes it); `fail` fails with its reason; `long` says a word every 100 ms
 * for 3 s. Each request's connection is watched, so a test can tell the agent's call was hung up.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskState } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus } from 'a2a-sdk-025/server';
import { saidStatus, startSdkV025Server } from '../../support/sdk-v025-server.js';

export const PROGRESS = 'Looking up the exchange rates...';
export const QUESTION = 'Which currency do you want to convert to?';
export const FAILURE = 'Rates service answered 503 Service Unavailable';
export const CSV = 'currency,rate\nUSD,7.253\n';

export interface ExploreRelayAgent {
  url: string;
  /** JSON-RPC methods whose connection closed before the agent finished its answer. */
  hungUp: string[];
  close(): Promise<void>;
}

export async function startExploreRelayAgent(): Promise<ExploreRelayAgent> {
  const hungUp: string[] = [];
  const executor: AgentExecutor = {
    async execute(request, bus: ExecutionEventBus) {
      const { taskId, contextId } = request;
      const ids = { taskId, contextId };
      const prompt = request.userMessage.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
      const say = (state: TaskState, text: string, final = false) => bus.publish(saidStatus(ids, state, text, final));
      if (!request.task) {
        bus.publish({
          kind: 'task',
          id: taskId,
          contextId,
          status: { state: 'submitted', timestamp: new Date().toISOString() },
          history: [request.userMessage],
        });
      } else {
        say('working', `Got it: ${prompt}`);
        say('completed', 'Converted.', true);
        return bus.finished();
      }
      say('working', PROGRESS);
      await sleep(50);
      if (prompt === 'ask') say('input-required', QUESTION, true);
      else if (prompt === 'fail') say('failed', FAILURE, true);
      else if (prompt === 'long') {
        for (let tick = 0; tick < 30; tick += 1) {
          await sleep(100);
          say('working', `tick ${tick}`);
        }
        say('completed', 'done', true);
      } else {
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          lastChunk: true,
          artifact: {
            artifactId: 'rates',
            parts: [
              { kind: 'file', file: { name: 'rates.csv', mimeType: 'text/csv', bytes: Buffer.from(CSV).toString('base64') } },
              { kind: 'data', data: { usd: 7.253 } },
            ],
          },
        });
        say('completed', 'The rates table is attached.', true);
      }
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      bus.publish(saidStatus({ taskId, contextId: '' }, 'canceled', 'canceled', true));
    },
  };
  const { url, close } = await startSdkV025Server({
    card: { name: 'explore-relay', description: 'Exchange rates', version: '1.0.0', capabilities: { streaming: true }, skills: [] },
    executor,
    extend: (app) =>
      app.use((req, res, next) => {
        const method = (req.body as { method?: string } | undefined)?.method;
        res.on('close', () => {
          if (method && !res.writableEnded) hungUp.push(method);
        });
        next();
      }),
  });
  return { url, hungUp, close };
}
