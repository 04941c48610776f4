/**
 * A real a2a-js 1.x agent streams two artifacts at the same time (their chunks interleaved; the SDK sends a
 * first chunk's `lastChunk: false` as nothing), or sends a result as an artifact, says more, and ends the turn
 * with that result again; a Bailian user reads message/stream and message/send. Each artifact's text reads
 * together (a file as one block under its name), and a result said again after other words is shown again,
 * so the user's last line is the result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Part } from 'a2a-sdk-1';
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, facadeTurnReads, startFacadeGateway } from '../../support/facade.js';
import { part, promptOf, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

const file = (filename: string, text: string): Part => part({ $case: 'raw', value: Buffer.from(text) }, { filename, mediaType: 'text/plain' });

type Turn = ReturnType<typeof turnEvents>;
type Chunk = [artifactId: string, parts: Part[]];

/** Chunks of several artifacts in the order given: each artifact's first is whole-looking, the later ones appended, its last says so. */
function chunks(turn: Turn, order: readonly Chunk[]): AgentExecutionEvent[] {
  const seen = new Map<string, number>();
  const total = new Map<string, number>();
  for (const [id] of order) total.set(id, (total.get(id) ?? 0) + 1);
  return order.map(([id, parts]) => {
    const at = seen.get(id) ?? 0;
    seen.set(id, at + 1);
    return turn.artifact(id, parts, at > 0, at === total.get(id)! - 1);
  });
}

const SCRIPTS: Record<string, (turn: Turn) => AgentExecutionEvent[]> = {
  interleaved: (turn) => [
    ...chunks(turn, [
      ['x', [textPart('Alpha part one, ')]],
      ['y', [textPart('Beta part one, ')]],
      ['x', [textPart('alpha part two.')]],
      ['y', [textPart('beta part two.')]],
    ]),
    turn.status(TaskState.TASK_STATE_COMPLETED),
  ],
  files: (turn) => [
    turn.status(TaskState.TASK_STATE_WORKING, 'Writing both files.'),
    ...chunks(turn, [
      ['main', [file('main.tf', 'resource "alicloud_vpc" "main" {\n')]],
      ['vars', [file('variables.tf', 'variable "region" {\n')]],
      ['main', [file('main.tf', '  vpc_name = "demo"\n}\n')]],
      ['vars', [file('variables.tf', '  default = "cn-hangzhou"\n}\n')]],
    ]),
    turn.status(TaskState.TASK_STATE_COMPLETED, 'Both files are ready.'),
  ],
  // A first piece the SDK sends without `lastChunk` may be whole: a progress line, or a third artifact, tells the
  // facade so before the first one's next chunk comes.
  three: (turn) => [
    ...chunks(turn, [
      ['a', [textPart('Alpha one, ')]],
      ['b', [textPart('Beta one, ')]],
      ['c', [textPart('Gamma one, ')]],
      ['a', [textPart('alpha two.')]],
      ['b', [textPart('beta two, ')]],
      ['c', [textPart('gamma two.')]],
      ['b', [textPart('beta three.')]],
    ]),
    turn.status(TaskState.TASK_STATE_COMPLETED),
  ],
  progress: (turn) => [
    turn.artifact('a', [textPart('Alpha one, ')], false, false),
    turn.artifact('b', [textPart('Beta one, ')], false, false),
    turn.status(TaskState.TASK_STATE_WORKING, 'Checking quotas'),
    turn.artifact('a', [textPart('alpha two.')], true, true),
    turn.artifact('b', [textPart('beta two.')], true, true),
    turn.status(TaskState.TASK_STATE_COMPLETED),
  ],
  // Two plans streamed side by side, a progress line after each of plan A's chunks; no chunk says it is the last.
  plans: (turn) => [
    turn.artifact('a', [textPart('## 方案 A\n')], false, false),
    turn.status(TaskState.TASK_STATE_WORKING, '正在生成方案'),
    turn.artifact('b', [textPart('## 方案 B\n')], false, false),
    turn.artifact('a', [textPart('使用 ECS ')], true, false),
    turn.status(TaskState.TASK_STATE_WORKING, '正在检查配额'),
    turn.artifact('b', [textPart('使用 SAE ')], true, false),
    turn.artifact('a', [textPart('和 RDS。\n')], true, false),
    turn.status(TaskState.TASK_STATE_WORKING, '正在估算费用'),
    turn.artifact('b', [textPart('无服务器。\n')], true, false),
    turn.status(TaskState.TASK_STATE_COMPLETED, '请选择一个方案。'),
  ],
  // A log artifact that never says its last chunk, a whole artifact, then progress.
  log: (turn) => [
    turn.artifact('log', [textPart('Deploy log:\n')], false, false),
    turn.artifact('log', [textPart('vpc created\n')], true, false),
    turn.artifact('plan', [textPart('Plan: 3 resources.')], false, false),
    turn.status(TaskState.TASK_STATE_WORKING, 'Creating VPC'),
    turn.status(TaskState.TASK_STATE_WORKING, 'Creating ECS'),
    turn.status(TaskState.TASK_STATE_COMPLETED),
  ],
  result: (turn) => [
    turn.artifact('check-1', [textPart('Result: PASS')], false, true),
    turn.status(TaskState.TASK_STATE_WORKING, 'Next check.'),
    turn.status(TaskState.TASK_STATE_COMPLETED, 'Result: PASS'),
  ],
};

class ParallelWriter implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const turn = turnEvents(request);
    bus.publish(turn.opening());
    for (const event of SCRIPTS[promptOf(request.userMessage).trim()]?.(turn) ?? [turn.status(TaskState.TASK_STATE_COMPLETED, 'Unknown.')])
      bus.publish(event);
  };
  cancelTask = async (): Promise<void> => {};
}

describe('a Bailian user in front of an a2a-js 1.x agent that streams artifacts side by side, or says a result again', () => {
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  const reads = facadeTurnReads(() => gateway.url, { 'X-API-KEY': API_KEY });

  beforeAll(async () => {
    agent = await startSdkTestAgent(
      {
        name: 'parallel writer',
        description: 'streams artifacts side by side',
        skill: { id: 'p', name: 'P', description: Object.keys(SCRIPTS).join(', ') },
      },
      new ParallelWriter(),
    );
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  const read = async (prompt: string) => ({ streamed: (await reads.stream(prompt)).text, sent: (await reads.send(prompt)).text });

  it('two text artifacts whose chunks interleave each read together, the second after the first', async () => {
    const whole = 'Alpha part one, alpha part two.\nBeta part one, beta part two.';
    expect(await read('interleaved')).toEqual({ streamed: whole, sent: whole });
  });

  it('three artifacts at once, and a progress line between first chunks: no artifact reads out of its own order or after words that came later', async () => {
    // The third's first piece tells the facade the first was whole; its next chunk goes on where it comes.
    const three = 'Alpha one, \nBeta one, \nalpha two.\nbeta two, beta three.\nGamma one, gamma two.';
    expect(await read('three')).toEqual({ streamed: three, sent: three });
    const progress = 'Alpha one, \nBeta one, \nChecking quotas\nalpha two.\nbeta two.';
    expect(await read('progress')).toEqual({ streamed: progress, sent: progress });
  });

  it('two plans with progress between their chunks each read whole under their own heading, the progress between and after them', async () => {
    const whole = '## 方案 A\n使用 ECS 和 RDS。\n正在生成方案\n## 方案 B\n使用 SAE 无服务器。\n正在检查配额\n正在估算费用\n请选择一个方案。';
    expect(await read('plans')).toEqual({ streamed: whole, sent: whole });
  });

  it('a log artifact left open at a line end lets the artifact and the progress after it through', async () => {
    const whole = 'Deploy log:\nvpc created\nPlan: 3 resources.\nCreating VPC\nCreating ECS';
    expect(await read('log')).toEqual({ streamed: whole, sent: whole });
  });

  it('two files whose chunks interleave each read as one block under its name', async () => {
    const whole =
      'Writing both files.\nmain.tf\n```hcl\nresource "alicloud_vpc" "main" {\n  vpc_name = "demo"\n}\n```\n' +
      'variables.tf\n```hcl\nvariable "region" {\n  default = "cn-hangzhou"\n}\n```\nBoth files are ready.';
    expect(await read('files')).toEqual({ streamed: whole, sent: whole });
  });

  it('a result said again after other words ends the reply, where the user reads it last', async () => {
    const whole = 'Result: PASS\nNext check.\nResult: PASS';
    expect(await read('result')).toEqual({ streamed: whole, sent: whole });
  });
});
