import { describe, expect, it } from 'vitest';
import { cli, serveCli, stderrLines } from '../support/run-cli.js';

/** A gateway set up to be reached by others (every interface, a Bailian key) but with no upstream and a one-letter key. */
const env = { A2A_BRIDGE_HOST: '0.0.0.0', A2A_BRIDGE_BAILIAN__API_KEY: 'x', A2A_BRIDGE_AUTH__TOKEN: 'change-me-gateway-token' };
const demoWarning =
  "upstream.url is not set, so callers get the embedded demo agent's echoes, though this gateway looks deployed (it binds 0.0.0.0): set upstream.url (--upstream, A2A_BRIDGE_UPSTREAM__URL) to the agent to bridge to";
const shortKey = 'bailian.api-key is shorter than 16 characters, which is easy to guess: use a long random secret (e.g. openssl rand -hex 24)';
const placeholder = 'auth.token is still a placeholder (it starts with "change-me"): set the real secret';

describe.concurrent('warnings for a gateway that looks deployed but is not ready to be', { timeout: 60_000 }, () => {
  it('check-config says them, naming the settings and not the values', async () => {
    const run = await cli(['check-config', '--port', '0'], env);
    expect(run.code).toBe(0);
    const lines = stderrLines(run);
    for (const warning of [demoWarning, shortKey, placeholder]) expect(lines).toContain(`warning: ${warning}`);
    expect(run.stderr).not.toContain('change-me-gateway-token');
  });

  it('serve logs the same words as warnings at start', async () => {
    const serve = await serveCli(['--port', '0'], { env });
    try {
      const warned = serve.logs.filter((entry) => (entry as { level?: number }).level === 40).map((entry) => entry.msg);
      for (const warning of [demoWarning, shortKey, placeholder]) expect(warned).toContain(warning);
    } finally {
      serve.child.kill('SIGKILL');
    }
  });
});
