import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskSecrets } from '../../src/cli/check-config.js';
import { cli, serveCli, stderrLines } from '../support/run-cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-check-'));
  await writeFile(
    path.join(dir, 'gw.yml'),
    [
      'port: 9000',
      'upstream:',
      '  url: http://iac-code:41242',
      '  auth:',
      '    token: ${UP_TOKEN}',
      'bailian:',
      '  api-key: file-key-value',
      'push-keys: ["k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]',
      'redis-url: redis://app:redis-password@redis:6379',
      'push-redis-url: redis+sentinel://app:data-password@s1:26379,s2:26379/mymaster/2?sentinelUsername=watch&sentinelPassword=sentinel-password',
      'signing:',
      '  keys:',
      '    - kid: k1',
      '      secret: signing-secret-value',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('a2a-bridge check-config', { timeout: 60_000 }, () => {
  it('prints the effective config of file + env + flags with every secret masked, exit 0', async () => {
    const run = await cli(
      ['check-config', '--config', 'gw.yml', '--port', '9100'],
      { UP_TOKEN: 'upstream-secret', A2A_BRIDGE_AUTH__TOKEN: 'gateway-secret', A2A_BRIDGE_LOG_LEVEL: 'debug' },
      dir,
    );
    expect(run.code).toBe(0);
    const printed = YAML.parse(run.stdout) as Record<string, any>;
    expect(printed.port).toBe(9100);
    expect(printed['log-level']).toBe('debug');
    expect(printed.upstream.url).toBe('http://iac-code:41242');
    expect(printed.upstream.auth.token).toBe('********');
    expect(printed.auth.token).toBe('********');
    expect(printed.bailian['api-key']).toBe('********');
    expect(printed['push-keys']).toEqual(['********']);
    expect(printed['redis-url']).toBe('redis://[redacted]@redis:6379');
    expect(printed['push-redis-url']).toBe(
      'redis+sentinel://[redacted]@s1:26379,s2:26379/mymaster/2?sentinelUsername=watch&sentinelPassword=[redacted]',
    );
    expect(printed.signing.keys[0]).toMatchObject({ kid: 'k1', secret: '********' });
    const secrets = ['upstream-secret', 'gateway-secret', 'file-key-value', 'redis-password', 'data-password', 'sentinel-password', 'AAAA'];
    for (const secret of [...secrets, 'signing-secret-value']) {
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
    // Advice goes to stderr so stdout stays a valid YAML config.
    expect(run.stderr).toMatch(/warning: public-url is not set/);
  });

  it('warns, as serve does, when gateway auth is set but the Bailian facade takes calls without a key', async () => {
    const warning = 'gateway auth is set but bailian.api-key(s) are not: the 0.2.5 facade accepts calls without a key';
    const unkeyed = await cli(['check-config'], { A2A_BRIDGE_AUTH__TOKEN: 'gateway-secret' }, dir);
    expect(unkeyed.code).toBe(0);
    expect(stderrLines(unkeyed)).toContain(`warning: ${warning}`);
    // The open /metrics next to those credentials is said the same way (start/metrics-token-warning.ts).
    expect(stderrLines(unkeyed)).toContain(
      'warning: caller credentials are set but metrics.token is not: /metrics is open to anyone and names every client and its calls',
    );
    const keyed = await cli(['check-config'], { A2A_BRIDGE_AUTH__TOKEN: 'gateway-secret', A2A_BRIDGE_BAILIAN__API_KEY: 'bl-key' }, dir);
    expect(keyed.stderr).not.toContain(warning);
    // The same words serve logs at start, from the same function.
    const serve = await serveCli(['--port', '0', '--public-url', 'https://gw.example.com'], { env: { A2A_BRIDGE_AUTH__TOKEN: 'gateway-secret' } });
    try {
      expect(serve.logs.map((entry) => entry.msg)).toContain(warning);
    } finally {
      serve.child.kill('SIGKILL');
    }
  });

  it('an invalid config exits 2 with one line per problem', async () => {
    const run = await cli(['check-config', '--port', 'x', '--upstream', 'ftp://nope'], {}, dir);
    expect(run.code).toBe(2);
    const problems = stderrLines(run).filter((line) => line.startsWith('  - '));
    expect(problems).toHaveLength(2);
    expect(run.stdout).toBe('');
  });

  it("refuses a bailian.base-path on one of the gateway's own routes, naming it, and prints no config", async () => {
    const run = await cli(['check-config'], { A2A_BRIDGE_BAILIAN__BASE_PATH: '/.well-known/agent-card.json' }, dir);
    expect(run.code).toBe(2);
    const problems = stderrLines(run).filter((line) => line.startsWith('  - '));
    expect(problems).toEqual([
      "  - bailian.base-path: would put the Bailian facade on the gateway's own route /.well-known/ (the agent cards and the card signing keys); choose a path of its own, e.g. /bailian (from A2A_BRIDGE_BAILIAN__BASE_PATH)",
    ]);
    expect(run.stdout).toBe('');
  });

  it('refuses a bailian.base-path with a `..` segment, which no request could reach, and prints no config', async () => {
    const run = await cli(['check-config'], { A2A_BRIDGE_BAILIAN__BASE_PATH: '/x/../health' }, dir);
    expect(run.code).toBe(2);
    expect(stderrLines(run).filter((line) => line.startsWith('  - '))).toEqual([
      '  - bailian.base-path: must not hold an empty, `.` or `..` segment (requests on such a path are refused with 404 or rewritten on the way, so the facade could not be reached); write it plainly, e.g. /bailian (from A2A_BRIDGE_BAILIAN__BASE_PATH)',
    ]);
    expect(run.stdout).toBe('');
  });

  it('prints URL-valued settings without their credentials, by the rule serve logs them with', async () => {
    const run = await cli(
      ['check-config'],
      {
        A2A_BRIDGE_UPSTREAM__AUTH__TOKEN: 'up-token',
        A2A_BRIDGE_TRACING__OTLP_ENDPOINT: 'http://c:OTPW@x:4318/v1/traces?key=OTK&v=1',
        A2A_BRIDGE_AUTH__JWT__ISSUER: 'https://idp.example.com',
        A2A_BRIDGE_AUTH__JWT__AUDIENCE: 'gw',
        A2A_BRIDGE_AUTH__JWT__JWKS_URL: 'https://idp.example.com/jwks?access_token=JWKSTOKEN',
      },
      dir,
    );
    expect(run.code).toBe(0);
    const printed = YAML.parse(run.stdout) as Record<string, any>;
    expect(printed.tracing['otlp-endpoint']).toBe('http://[redacted]@x:4318/v1/traces?key=[redacted]&v=1');
    expect(printed.auth.jwt['jwks-url']).toBe('https://idp.example.com/jwks?access_token=[redacted]');
    for (const secret of ['OTPW', 'OTK', 'JWKSTOKEN']) expect(run.stdout + run.stderr).not.toContain(secret);
  });

  // serve stops with the same lines (start/checks.ts; test/cli/startup-errors.test.ts).
  it('refuses what serve would refuse at start, by the same checks, one line per problem', async () => {
    const pushKey = { A2A_BRIDGE_PUSH_NOTIFICATIONS: 'true', A2A_BRIDGE_PUSH_KEYS: 'k1:c2hvcnRTRUNSRVQ=' };
    await writeFile(path.join(dir, 'afile'), '');
    await writeFile(path.join(dir, 'sk.yml'), 'signing:\n  keys:\n    - kid: a\n      private-key-file: /nonexistent.pem\n');
    const [keys, signing, tls, persistence] = await Promise.all([
      cli(['check-config'], pushKey, dir),
      cli(['check-config', '--config', 'sk.yml'], {}, dir),
      cli(['check-config'], { A2A_BRIDGE_TLS__CERT_FILE: '/nonexist.pem', A2A_BRIDGE_TLS__KEY_FILE: 'sk.yml' }, dir),
      cli(['check-config'], { A2A_BRIDGE_PUSH_NOTIFICATIONS: 'true', A2A_BRIDGE_PERSISTENCE_DIR: 'afile/sub' }, dir),
    ]);
    const keyProblem = "push-keys entry #1 ('k1'): the key must be 32 bytes, base64-encoded";
    expect(stderrLines(keys)).toEqual(['a2a-bridge: invalid configuration:', `  - ${keyProblem}`]);
    expect(stderrLines(signing)).toContain('  - signing.keys[0] (kid a): private-key-file cannot be read');
    expect(stderrLines(tls)).toContain('  - tls.cert-file cannot be read (no such file)');
    expect(stderrLines(persistence)).toContain(`  - persistence-dir ${path.join(dir, 'afile', 'sub')} cannot be used (ENOTDIR: not a directory)`);
    for (const run of [keys, signing, tls, persistence]) expect([run.code, run.stdout]).toEqual([2, '']);
  });

  it('says what only serve checks at start', async () => {
    const run = await cli(['check-config'], { A2A_BRIDGE_STORE: 'redis' }, dir);
    expect(run.code).toBe(0);
    expect(stderrLines(run)).toContain(
      'note: not checked here, only by serve at start: that the ports are free (on the host serve runs on); that the Redis takes the configured credentials and, on a cluster, the key names',
    );
  });

  it('a mapping override that would stop the start is caught here too', async () => {
    const run = await cli(['check-config'], { A2A_BRIDGE_BAILIAN__MAPPINGS: '{"states-to-v025":{"TASK_STATE_NOPE":"working"}}' }, dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/states-to-v025\.TASK_STATE_NOPE: unknown key/);
  });
});

describe('maskSecrets', () => {
  it('masks a password in the userinfo and in the query of any URL, in place', () => {
    expect(maskSecrets({ 'redis-url': 'redis+sentinel://:pw@s:1/m?sentinelPassword=spw' })).toEqual({
      'redis-url': 'redis+sentinel://[redacted]@s:1/m?sentinelPassword=[redacted]',
    });
    expect(maskSecrets({ 'redis-url': 'rediss+sentinel://s:1,t:2/m?sentinelUsername=u&sentinelPassword=spw' })).toEqual({
      'redis-url': 'rediss+sentinel://s:1,t:2/m?sentinelUsername=u&sentinelPassword=[redacted]',
    });
    expect(maskSecrets({ 'redis-url': 'redis://h:6379/0?password=pw&family=6' })).toEqual({
      'redis-url': 'redis://h:6379/0?password=[redacted]&family=6',
    });
    expect(maskSecrets({ 'persistence-dir': 'dir?password=kept' })).toEqual({ 'persistence-dir': 'dir?password=kept' });
  });

  it("takes the credentials out of every URL-valued setting by the log's rule: user info and secret-named query values", () => {
    expect(
      maskSecrets({
        upstream: { url: 'http://u:UPPASS@127.0.0.1:9/x?api_key=QSECRET&token=T2&v=1' },
        tracing: { 'otlp-endpoint': 'http://c:OTPW@x:4318/v1/traces?key=OTK' },
      }),
    ).toEqual({
      upstream: { url: 'http://[redacted]@127.0.0.1:9/x?api_key=[redacted]&token=[redacted]&v=1' },
      tracing: { 'otlp-endpoint': 'http://[redacted]@x:4318/v1/traces?key=[redacted]' },
    });
  });

  it("masks the introspection client's secret, not its id", () => {
    expect(maskSecrets({ auth: { introspection: { url: 'https://idp/introspect', 'client-id': 'gw', 'client-secret': 's' } } })).toEqual({
      auth: { introspection: { url: 'https://idp/introspect', 'client-id': 'gw', 'client-secret': '********' } },
    });
  });

  it('masks every entry of the caller credential lists', () => {
    expect(maskSecrets({ auth: { tokens: ['t1', 't2'], 'api-keys': ['k1'] } })).toEqual({
      auth: { tokens: ['********', '********'], 'api-keys': ['********'] },
    });
  });

  it('masks the secret of a named entry but shows its name', () => {
    const config = { auth: { tokens: ['t1', { name: 'acme', token: 't2' }] }, bailian: { 'api-keys': [{ name: 'bailian-prod', key: 'k1' }] } };
    expect(maskSecrets(config)).toEqual({
      auth: { tokens: ['********', { name: 'acme', token: '********' }] },
      bailian: { 'api-keys': [{ name: 'bailian-prod', key: '********' }] },
    });
  });

  it('leaves absent secrets absent and other values as they are', () => {
    expect(maskSecrets({ auth: { 'api-key-header': 'X-API-Key' }, upstream: { url: 'http://a:1' } })).toEqual({
      auth: { 'api-key-header': 'X-API-Key' },
      upstream: { url: 'http://a:1' },
    });
  });
});
