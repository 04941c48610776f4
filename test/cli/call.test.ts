import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { cli } from '../support/run-cli.js';
import { inProcess } from './in-process.js';

/*
 * Each exit code is seen once from a CLI process (`cli`), as a terminal sees it; every other case runs the
 * command in this process (`inProcess`): a CLI process costs a second or more of CPU to start, and this
 * file ran forty of them.
 */

let open: RunningGateway;
let guarded: RunningGateway;
beforeAll(async () => {
  const quiet = createLogger('silent');
  open = await startGateway(defaultConfig({ port: 0 }), quiet);
  guarded = await startGateway(defaultConfig({ port: 0, auth: { token: 'gw-token' }, bailian: { 'api-key': 'bl-key' } }), quiet);
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
});

/** `key: value` lines of the summary on stderr. */
function summary(stderr: string): Record<string, string> {
  return Object.fromEntries(
    stderr
      .split('\n')
      .map((line) => /^(state|task|context|artifact): (.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

describe.concurrent('a2a-bridge card', { timeout: 60_000 }, () => {
  it('prints the 1.0 card, and the 0.2.5 facade card with --protocol 0.2.5', async () => {
    const v1 = await cli(['card', open.url]);
    expect(v1.code).toBe(0);
    expect(v1.stderr).toContain(`A2A 1.0 card at ${open.url}/.well-known/agent-card.json`);
    expect(JSON.parse(v1.stdout).supportedInterfaces[0].protocolVersion).toMatch(/^1\./);
    const v025 = await inProcess(['card', open.url, '--protocol', '0.2.5']);
    expect(v025.code).toBe(0);
    expect(v025.stderr).toContain('A2A 0.2.5 card at');
    expect(JSON.parse(v025.stdout).protocolVersion).toBe('0.2.5');
  });

  it('--json prints the same card on one line, as its help says; call --help says what its --json prints', async () => {
    const indented = await inProcess(['card', open.url]);
    const compact = await inProcess(['card', open.url, '--json']);
    expect(compact.code).toBe(0);
    expect(compact.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(compact.stdout)).toEqual(JSON.parse(indented.stdout));
    const help = await inProcess(['card', '--help']);
    expect(help.stdout).toMatch(/^ {2}--json {15}print the card on one line \(compact JSON\) instead of indented$/m);
    const callHelp = await inProcess(['call', '--help']);
    expect(callHelp.stdout).toMatch(/^ {2}--json {15}print each event of the reply as one line of JSON/m);
  });

  it("takes the card's own URL, as Bailian's console and agents' docs give it, for the base it is under (call and card)", async () => {
    const card = await inProcess(['card', `${open.url}/.well-known/agent.json`, '--protocol', '0.2.5']);
    expect(card.code).toBe(0);
    expect(card.stderr).toContain(`A2A 0.2.5 card at ${open.url}/.well-known/agent.json\n`);
    const v1 = await inProcess(['call', `${open.url}/.well-known/agent-card.json/`, 'by the card URL']);
    expect(v1.code).toBe(0);
    expect(v1.stdout).toBe('Echo (turn 1): by the card URL\n');
    const facade = await inProcess(['call', `${open.url}/.well-known/agent.json`, 'by the facade card URL', '--protocol', '0.2.5']);
    expect(facade.code).toBe(0);
    expect(facade.stdout).toBe('Echo (turn 1): by the facade card URL\n');
  });

  it('exit 3 when there is no agent, 2 for a bad command line', async () => {
    const down = await inProcess(['card', 'http://127.0.0.1:1']);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(
      /^a2a-bridge: cannot reach the agent card at http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json: .*ECONNREFUSED/,
    );
    expect((await inProcess(['card'])).code).toBe(2);
    expect((await inProcess(['card', 'ftp://x'])).code).toBe(2);
    expect((await inProcess(['card', open.url, '--bogus'])).code).toBe(2);
  });
});

describe.concurrent('a2a-bridge call', { timeout: 60_000 }, () => {
  it('1.0, streamed: the reply text once on stdout, state and ids on stderr, exit 0', async () => {
    const run = await cli(['call', open.url, 'hello gateway']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Echo (turn 1): hello gateway\n');
    const s = summary(run.stderr);
    expect(s.state).toBe('input-required');
    expect(s.task).toMatch(/\S/);
    expect(s.context).toMatch(/\S/);
  });

  it('a follow-up with --context continues the conversation (1.0 and 0.2.5)', async () => {
    await Promise.all(
      ['1.0', '0.2.5'].map(async (protocol) => {
        const first = await inProcess(['call', open.url, 'one', '--protocol', protocol]);
        expect(first.code).toBe(0);
        const context = summary(first.stderr).context!;
        const second = await inProcess(['call', open.url, 'two', '--protocol', protocol, '--context', context]);
        expect(second.code).toBe(0);
        expect(second.stdout).toBe('Echo (turn 2): two\n');
        expect(summary(second.stderr).context).toBe(context);
      }),
    );
  });

  it('--task answers the task that waits for input (iac-code ends every turn input-required)', async () => {
    const first = await inProcess(['call', open.url, 'first']);
    const { task, context } = summary(first.stderr);
    const second = await inProcess(['call', open.url, 'second', '--task', task!, '--context', context!]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('Echo (turn 2): second\n');
    expect(summary(second.stderr).task).toBe(task);
  });

  it('0.2.5 facade, blocking send and stream', async () => {
    const send = await inProcess(['call', open.url, 'via facade', '--protocol', '0.2.5', '--no-stream']);
    expect(send.code).toBe(0);
    expect(send.stdout).toBe('Echo (turn 1): via facade\n');
    expect(summary(send.stderr).state).toBe('completed');
    const stream = await inProcess(['call', open.url, 'streamed facade', '--protocol', '0.2.5', '--stream']);
    expect(stream.code).toBe(0);
    expect(stream.stdout).toBe('Echo (turn 1): streamed facade\n');
  });

  it('a turn with a tool call: the text after it on its own line, the file in the summary (1.0) or inlined (0.2.5 facade)', async () => {
    const v1 = await inProcess(['call', open.url, 'template: shop']);
    expect(v1.code).toBe(0);
    expect(v1.stdout).toBe('Echo (turn 1): template: shop\nWrote main.tf ✓\n');
    expect(v1.stderr).toMatch(/artifact: main\.tf .*iac-code-artifact:\/\//);
    const facade = await inProcess(['call', open.url, 'template: shop', '--protocol', '0.2.5', '--stream']);
    expect(facade.code).toBe(0);
    expect(facade.stdout).toMatch(/^Echo \(turn 1\): template: shop\nmain\.tf\n```hcl\n[\s\S]*vpc_name {3}= "shop"[\s\S]*```\nWrote main\.tf ✓\n$/);
  });

  it('--json prints one 1.0 stream event per line and nothing else', async () => {
    const run = await inProcess(['call', open.url, 'raw', '--json']);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.length).toBeGreaterThan(3);
    for (const event of events) expect(Object.keys(event)).toHaveLength(1);
    expect(Object.keys(events[0]!)[0]).toBe('task');
    expect(events.at(-1)).toHaveProperty('statusUpdate.status.state', 'TASK_STATE_INPUT_REQUIRED');
  });

  it('a failed turn exits 1 and says why', async () => {
    const run = await cli(['call', open.url, 'fail: the disk is full']);
    expect(run.code).toBe(1);
    expect(summary(run.stderr).state).toBe('failed (the disk is full)');
  });

  it('credentials: --token for the 1.0 surface, --api-key (X-API-KEY) or --header for the facade', async () => {
    // Refused credentials are told apart from an agent that is down: exit 4, and what to pass.
    for (const protocol of ['1.0', '0.2.5']) {
      const denied = await (protocol === '1.0' ? cli : inProcess)(['call', guarded.url, 'hi', '--protocol', protocol]);
      expect(denied.code).toBe(4);
      expect(denied.stderr).toBe('a2a-bridge: the agent needs credentials for the call (HTTP 401): give them with --token, --api-key or --header\n');
    }
    expect((await inProcess(['call', guarded.url, 'hi', '--token', 'gw-token'])).code).toBe(0);
    expect((await inProcess(['call', guarded.url, 'hi', '--protocol', '0.2.5', '--api-key', 'bl-key'])).code).toBe(0);
    expect((await inProcess(['call', guarded.url, 'hi', '--protocol', '0.2.5', '--header', 'X-API-KEY: bl-key'])).code).toBe(0);
    expect((await inProcess(['call', guarded.url, 'hi', '--protocol', '0.2.5', '--api-key', 'wrong'])).code).toBe(4);
    expect((await inProcess(['call', guarded.url, 'hi', '--token', 'wrong'])).code).toBe(4);
  });

  it('exit codes for a bad command line and an unreachable agent', async () => {
    expect((await cli(['call', open.url])).code).toBe(2);
    expect((await inProcess(['call', open.url, 'x', '--protocol', '2.0'])).code).toBe(2);
    expect((await inProcess(['call', open.url, 'x', '--header', 'no-colon'])).code).toBe(2);
    const down = await inProcess(['call', 'http://127.0.0.1:1', 'x']);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/cannot reach the agent card at http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json/);
  });

  it('a card URL that cannot be reached is told as such, not as an A2A error, whatever --protocol: exit 3', async () => {
    const cards = { auto: 'agent-card.json', '1.0': 'agent-card.json', '0.3': 'agent-card.json', '0.2.5': 'agent.json' };
    for (const [protocol, card] of Object.entries(cards)) {
      const refused = await (protocol === 'auto' ? cli : inProcess)(['call', 'http://127.0.0.1:1', 'x', '--protocol', protocol]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toBe(
        `a2a-bridge: cannot reach the agent card at http://127.0.0.1:1/.well-known/${card}: connect ECONNREFUSED 127.0.0.1:1\n`,
      );
    }
    // A host name that does not resolve (.invalid never does).
    const unknown = await inProcess(['call', 'http://agent.invalid', 'x', '--protocol', '1.0']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(
      /^a2a-bridge: cannot reach the agent card at http:\/\/agent\.invalid\/\.well-known\/agent-card\.json: .*(ENOTFOUND|EAI_AGAIN)/,
    );
    expect(unknown.stderr).not.toMatch(/A2A error/);
  });

  it('a card the agent answered, probed again without an answer in time, is not told unreachable: exit 3', { timeout: 60_000 }, async () => {
    // The first read of the card gets a card that is none; the probe that follows waits out its time (a slow agent).
    let reads = 0;
    const agent = createServer((_request, response) => {
      if (++reads === 1) response.writeHead(200, { 'content-type': 'application/json' }).end('{"not":"a card"}');
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
      const late = await inProcess(['call', url, 'x', '--protocol', '1.0', '--timeout-ms', '1500']);
      expect(reads).toBe(2);
      expect(late.code).toBe(3);
      expect(late.stderr).toMatch(/^a2a-bridge: the call failed: /);
      expect(late.stderr).not.toMatch(/cannot reach/);
    } finally {
      agent.closeAllConnections();
      await new Promise((resolve) => agent.close(resolve));
    }
  });
});
