/**
 * The memory registry cannot grow the gateway past its heap. A gateway whose heap is capped at 160 MiB
 * records 300 turns of about 200 KB each (a long prompt and its echo, as an iac-code turn with tool
 * output is long): 60 MB of tasks, past what that heap can keep next to the gateway itself. Bounded by
 * count only (100,000 tasks) the process dies of a full heap, near the 130th turn (seen with
 * `{"tasks":{"max-bytes":100000000000}}` as the fixture's overrides): 300 leaves more than twice that as
 * a margin; with the default byte budget (a quarter of the heap limit) the oldest tasks go, and the
 * gateway still answers, its latest task included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtureNodeArgs } from '../../support/run-cli.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { testPersistenceDir } from '../../support/test-persistence-dir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const TURNS = 300;

let agent: RunningSdkV1Agent;
let child: ChildProcess;
let url: string;
const exits: Array<number | null> = [];

beforeAll(async () => {
  agent = await startSdkV1Agent();
  child = spawn(
    process.execPath,
    // The test file's own persistence-dir: the checkout's, the default, may be held by a gateway a developer runs there.
    [
      '--max-old-space-size=160',
      ...fixtureNodeArgs(path.join(here, 'fixtures', 'capped-heap-gateway.ts')),
      agent.url,
      JSON.stringify({ 'persistence-dir': testPersistenceDir() }),
    ],
    {
      cwd: path.resolve(here, '../../..'),
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    },
  );
  child.stderr?.resume();
  child.once('exit', (code) => exits.push(code));
  url = await new Promise<string>((resolve, reject) => {
    child.on('message', (message: { type?: string; url?: string }) => message.type === 'ready' && message.url && resolve(message.url));
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before it was ready`)));
  });
}, 30_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  await agent?.close();
});

async function rpc(method: string, params: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return response.json();
}

it(`records ${TURNS} turns of 200 KB in a 160 MiB heap: the oldest tasks go, the process and the latest task stay`, async () => {
  const long = 'x'.repeat(100_000); // one word: the echo agent answers it in one chunk
  const ids: string[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const answer = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `${turn}:${long}` }] } });
    expect(answer.error, `turn ${turn}`).toBeUndefined();
    ids.push(answer.result.task.id);
  }
  expect(exits).toEqual([]);
  const latest = await rpc('GetTask', { id: ids.at(-1) });
  expect(latest.result.history.map((m: any) => m.parts[0].text.length)).toContain(100_000 + `${TURNS - 1}:`.length);
  const listed = await rpc('ListTasks', { pageSize: 100 });
  expect(listed.result.totalSize).toBeGreaterThan(10);
  expect(listed.result.totalSize).toBeLessThan(TURNS);
}, 120_000);
