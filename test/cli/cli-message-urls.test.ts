/**
 * The CLI's one-line messages drop local paths (a module's, a file's: an operator needs its name, not the layout),
 * but a URL in them is where the operator looks next: it is printed whole, never cut to `http://host:portagent.json`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneLine } from '../../src/cli/exit-codes.js';
import { TaskState } from 'a2a-sdk-1';
import { startSdkTestAgent, turnEvents, type RunningTestAgent } from '../support/sdk-v1-agent-kit.js';
import { cli } from '../support/run-cli.js';

let agent: RunningTestAgent;
beforeAll(async () => {
  agent = await startSdkTestAgent(
    { name: 'urls', description: 'an agent whose card is at its root', skill: { id: 'echo', name: 'echo', description: 'echo' } },
    {
      async execute(request, bus) {
        bus.publish(turnEvents(request).status(TaskState.TASK_STATE_COMPLETED, 'ok'));
        bus.finished();
      },
      async cancelTask() {},
    },
  );
});
afterAll(() => agent?.close());

describe('URLs in the CLI messages', { timeout: 60_000 }, () => {
  it('a call given a binding endpoint for the base URL names the card URLs it read, whole', async () => {
    const base = `${agent.url}/a2a/jsonrpc`;
    const run = await cli(['call', base, 'hello']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`${base}/.well-known/agent-card.json (HTTP 404)`);
    expect(run.stderr).toContain(`${base}/.well-known/agent.json (HTTP 404)`);
  });

  it('keep relative paths and URLs, and drop absolute paths to their last segment', () => {
    expect(oneLine(new Error('no card at http://127.0.0.1:8000/a2a/v1/.well-known/agent.json (HTTP 404)'))).toBe(
      'no card at http://127.0.0.1:8000/a2a/v1/.well-known/agent.json (HTTP 404)',
    );
    expect(oneLine(new Error("mapping profile 'x': mappings/profiles/x.json does not exist"))).toBe(
      "mapping profile 'x': mappings/profiles/x.json does not exist",
    );
    expect(oneLine(new Error("ENOENT: no such file or directory, open '/srv/app/certs/gw.pem'"))).toBe(
      "ENOENT: no such file or directory, open 'gw.pem'",
    );
    expect(oneLine(new Error('Cannot find module /work/app/dist/x.js imported from file:///work/app/dist/cli.js'))).toBe(
      'Cannot find module x.js imported from cli.js',
    );
  });
});
