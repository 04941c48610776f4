import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, usage } from '../../src/config/load.js';
import { configFolder } from './support.js';

const { load, yamlFile, configError } = configFolder();

describe('defaults and commands', () => {
  it('serves with schema defaults when nothing is given', async () => {
    const { config, command } = await load();
    expect(command).toBe('serve');
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.upstream.url).toBeUndefined();
    expect(config.store).toBe('memory');
  });

  it('reads the command from the first positional and the help/version options', async () => {
    expect((await load(['help'])).command).toBe('help');
    expect((await load(['version'])).command).toBe('version');
    expect((await load(['serve', '--help'])).command).toBe('help');
    expect((await load(['-h'])).command).toBe('help');
    expect((await load(['--version'])).command).toBe('version');
  });

  it('help does not validate the rest of the configuration', async () => {
    expect((await load(['--help', '--port', 'abc'])).command).toBe('help');
  });

  it('rejects unknown commands, unknown options, extra arguments and missing values', async () => {
    expect(await configError(['launch'])).toMatch(/unknown command launch/);
    expect(await configError(['--prot', '1'])).toMatch(/unknown option --prot/);
    expect(await configError(['--verbose=1'])).toMatch(/unknown option --verbose/);
    expect(await configError(['serve', 'extra'])).toMatch(/unexpected argument extra/);
    expect(await configError(['--port'])).toMatch(/--port needs a value/);
    expect(await configError(['--port', '--host', 'x'])).toMatch(/--port needs a value/);
  });

  it('takes an empty value as none (`--config="$CONFIG"` with CONFIG unset), and names a mistyped command before its arguments', async () => {
    expect(await configError(['check-config', '--config='])).toMatch(/option --config needs a value/);
    expect(await configError(['--config', ''])).toMatch(/option --config needs a value/);
    for (const flag of ['--host', '--port', '--upstream', '--public-url', '--log-level']) {
      expect(await configError([`${flag}=`])).toMatch(`option ${flag} needs a value`);
    }
    expect(await configError(['cal', 'http://127.0.0.1:1', 'hi'])).toMatch(/^unknown command cal \(expected .*\bcall\b/);
  });
});

describe('precedence: flags > env > file > defaults', () => {
  it('layers every source, key by key', async () => {
    const file = await yamlFile('host: 10.0.0.1\nport: 7000\nlog-level: debug\nupstream:\n  url: http://file:1\n');
    const env = { A2A_BRIDGE_PORT: '7100', A2A_BRIDGE_LOG_LEVEL: 'warn' };
    const { config } = await load(['--config', file, '--log-level', 'error'], env);
    expect(config.host).toBe('10.0.0.1'); // file only
    expect(config.port).toBe(7100); // env beats file
    expect(config['log-level']).toBe('error'); // flag beats env and file
    expect(config.upstream.url).toBe('http://file:1');
  });

  it('the flag beats the env var for the same nested key, and --flag=value works', async () => {
    const { config } = await load(['--upstream=http://flag:2'], { A2A_BRIDGE_UPSTREAM__URL: 'http://env:1' });
    expect(config.upstream.url).toBe('http://flag:2');
  });

  it('finds the file through A2A_BRIDGE_CONFIG, relative to cwd, and --config wins over it', async () => {
    const a = await yamlFile('port: 1111\n');
    const b = await yamlFile('port: 2222\n');
    expect((await load([], { A2A_BRIDGE_CONFIG: path.basename(a) })).config.port).toBe(1111);
    expect((await load(['--config', b], { A2A_BRIDGE_CONFIG: a })).config.port).toBe(2222);
  });

  it('uses REDIS_URL below the file and below A2A_BRIDGE_REDIS_URL', async () => {
    expect((await load([], { REDIS_URL: 'redis://ambient:1' })).config['redis-url']).toBe('redis://ambient:1');
    const env = { REDIS_URL: 'redis://ambient:1', A2A_BRIDGE_REDIS_URL: 'redis://explicit:2' };
    expect((await load([], env)).config['redis-url']).toBe('redis://explicit:2');
    const file = await yamlFile('redis-url: redis://file:3\n');
    expect((await load(['--config', file], { REDIS_URL: 'redis://ambient:1' })).config['redis-url']).toBe('redis://file:3');
  });
});

describe('environment variable mapping and coercion', () => {
  it('maps dashed keys, nested keys with __ and coerces by field type', async () => {
    const { config } = await load([], {
      A2A_BRIDGE_PUSH_NOTIFICATIONS: 'true',
      A2A_BRIDGE_TRUST_PROXY: 'yes',
      A2A_BRIDGE_UPSTREAM__CONNECT_TIMEOUT_MS: '2500',
      A2A_BRIDGE_BAILIAN__API_KEY: 'k-secret',
      A2A_BRIDGE_BAILIAN__ENABLED: 'false',
      A2A_BRIDGE_AUTH__TOKEN: 't-secret',
      A2A_BRIDGE_TASKS__MAX_TASKS: '42',
      A2A_BRIDGE_PUSH_KEYS: '["k1:AAAA","k2:BBBB"]',
      A2A_BRIDGE_AUTH__API_KEYS: '["client-a-key","client-b-key"]',
    });
    expect(config['push-notifications']).toBe(true);
    expect(config['trust-proxy']).toBe(true);
    expect(config.upstream['connect-timeout-ms']).toBe(2500);
    expect(config.bailian['api-key']).toBe('k-secret');
    expect(config.bailian.enabled).toBe(false);
    expect(config.auth.token).toBe('t-secret');
    expect(config.tasks['max-tasks']).toBe(42);
    expect(config['push-keys']).toEqual(['k1:AAAA', 'k2:BBBB']);
    expect(config.auth['api-keys']).toEqual(['client-a-key', 'client-b-key']);
  });

  it('accepts comma-separated lists and JSON objects for records', async () => {
    const { config } = await load([], {
      A2A_BRIDGE_PUSH_KEYS: 'k1:AAAA, k2:BBBB',
      A2A_BRIDGE_BAILIAN__MAPPINGS: '{"states-to-v025":{"TASK_STATE_INPUT_REQUIRED":"completed"}}',
    });
    expect(config['push-keys']).toEqual(['k1:AAAA', 'k2:BBBB']);
    expect(config.bailian.mappings).toEqual({ 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'completed' } });
  });

  it('resolves a single underscore as nesting only when no key matches exactly', async () => {
    const { config } = await load([], { A2A_BRIDGE_UPSTREAM_URL: 'http://single:1' });
    expect(config.upstream.url).toBe('http://single:1');
  });

  it('warns about (and ignores) A2A_BRIDGE_ variables naming no key', async () => {
    const { warnings } = await load([], { A2A_BRIDGE_SERVICE_HOST: '10.0.0.9', A2A_BRIDGE_PORT: '9000' });
    expect(warnings.some((w) => w.includes('A2A_BRIDGE_SERVICE_HOST'))).toBe(true);
    expect(warnings).toContain('ignoring environment variable A2A_BRIDGE_SERVICE_HOST: it names no configuration key');
  });

  it('tells a map given as something else from a variable that it takes JSON, not the words "a record"', async () => {
    const message = await configError([], { A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_BY_NAME: 'bailian=4' });
    expect(message).toMatch(
      /^ {2}- limits\.turns-in-flight-by-name: expected a mapping \(keys under it; in an environment variable, JSON such as \{"name": 4\}\), got a string \(from A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_BY_NAME\)$/m,
    );
    const { config } = await load([], { A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_BY_NAME: '{"bailian": 4}' });
    expect(config.limits['turns-in-flight-by-name']).toEqual({ bailian: 4 });
  });

  it('names the variable a mistyped one was meant to be', async () => {
    const { warnings } = await load([], {
      A2A_BRIDGE_UPSTREAM__PROTOCL: '1.0',
      A2A_BRIDGE_BAILAN__API_KEY: 'k',
      A2A_BRIDGE_PUSH_NOTIFICATION: 'true',
    });
    expect(warnings).toEqual(
      expect.arrayContaining([
        'ignoring environment variable A2A_BRIDGE_UPSTREAM__PROTOCL: it names no configuration key (did you mean A2A_BRIDGE_UPSTREAM__PROTOCOL?)',
        'ignoring environment variable A2A_BRIDGE_BAILAN__API_KEY: it names no configuration key (did you mean A2A_BRIDGE_BAILIAN__API_KEY?)',
        'ignoring environment variable A2A_BRIDGE_PUSH_NOTIFICATION: it names no configuration key (did you mean A2A_BRIDGE_PUSH_NOTIFICATIONS?)',
      ]),
    );
  });

  it('ignores PORT and HOST without the prefix', async () => {
    const { config } = await load([], { PORT: '1234', HOST: '0.0.0.0' });
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
  });

  it('names the variable when a JSON value does not parse, without echoing it', async () => {
    const message = await configError([], { A2A_BRIDGE_PUSH_KEYS: '[not-json-secret' });
    expect(message).toMatch(/A2A_BRIDGE_PUSH_KEYS: expected a JSON array/);
    expect(message).not.toContain('not-json-secret');
  });
});

describe('YAML file', () => {
  it('expands ${VAR} and ${VAR:-default}, coercing expanded values', async () => {
    const file = await yamlFile(
      ['port: ${GW_PORT}', 'host: ${GW_HOST:-0.0.0.0}', 'bailian:', '  api-key: "${BAILIAN_API_KEY}"', 'auth:', '  token: pre-$${LITERAL}'].join(
        '\n',
      ),
    );
    const { config } = await load(['--config', file], { GW_PORT: '9100', BAILIAN_API_KEY: 'bk' });
    expect(config.port).toBe(9100);
    expect(config.host).toBe('0.0.0.0');
    expect(config.bailian['api-key']).toBe('bk');
    expect(config.auth.token).toBe('pre-${LITERAL}');
  });

  it('fails on an unset variable without default, naming the key path and the variable', async () => {
    const file = await yamlFile('upstream:\n  auth:\n    token: ${IAC_TOKEN}\n');
    const message = await configError(['--config', file]);
    expect(message).toContain('upstream.auth.token');
    expect(message).toContain('IAC_TOKEN');
  });

  it('accepts underscores in keys but keeps record keys verbatim', async () => {
    const file = await yamlFile(
      [
        'public_url: https://gw.example.com',
        'upstream:',
        '  connect_timeout_ms: 1000',
        'bailian:',
        '  base_path: /bailian',
        '  mappings:',
        '    states_to_v025:',
        '      TASK_STATE_INPUT_REQUIRED: completed',
      ].join('\n'),
    );
    const { config } = await load(['--config', file]);
    expect(config['public-url']).toBe('https://gw.example.com');
    expect(config.upstream['connect-timeout-ms']).toBe(1000);
    expect(config.bailian['base-path']).toBe('/bailian');
    expect(config.bailian.mappings).toEqual({ states_to_v025: { TASK_STATE_INPUT_REQUIRED: 'completed' } });
  });

  it('reports a missing file, a YAML syntax error (position only) and a non-mapping', async () => {
    expect(await configError(['--config', 'nope.yml'])).toMatch(/config file not found: .*nope\.yml/);
    const broken = await yamlFile('auth:\n  token: "s3cret-value\n  x: [\n');
    const message = await configError(['--config', broken]);
    expect(message).toMatch(/invalid YAML at line \d+, column \d+/);
    expect(message).not.toContain('s3cret-value');
    expect(await configError(['--config', await yamlFile('- a\n- b\n')])).toMatch(/top level must be a mapping/);
  });

  it('treats an empty file as no settings', async () => {
    expect((await load(['--config', await yamlFile('')])).config.port).toBe(8080);
  });
});

describe('validation errors name the key', () => {
  it('lists every problem, one per line, with key path and source', async () => {
    const file = await yamlFile(
      ['upstream:', '  connect-timeout-ms: -5', '  colour: blue', 'bailian:', '  base-path: no-slash', 'store: postgres'].join('\n'),
    );
    const message = await configError(['--config', file, '--port', 'abc', '--public-url', 'ftp://x']);
    const lines = message.split('\n').slice(1);
    expect(lines).toHaveLength(6);
    expect(message).toMatch(/^ {2}- port: expected a number, got "abc" \(from --port\)$/m);
    expect(message).toMatch(/^ {2}- public-url: must be an http\(s\) URL \(from --public-url\)$/m);
    expect(message).toMatch(/^ {2}- upstream\.connect-timeout-ms: .*>=0.*\(from .*\.yml\)$/m);
    expect(message).toMatch(/^ {2}- upstream\.colour: unknown key .*known keys here: url, protocol/m);
    expect(message).toMatch(/^ {2}- bailian\.base-path: must be a path starting with \//m);
    expect(message).toMatch(/^ {2}- store: expected one of memory, redis \(from .*\.yml\)$/m);
  });

  it('names an unknown top-level key in the file, and the file, as it does a nested one', async () => {
    const message = await configError(['--config', await yamlFile('prot: 80\n')]);
    expect(message).toMatch(/^ {2}- prot: unknown key, did you mean port\? \(from .*config-\d+\.yml\); known keys here: host, port/m);
    const typo = await configError(['--config', await yamlFile('upstrem:\n  url: http://agent:41242\nupstream:\n  urll: x\n')]);
    expect(typo).toMatch(/^ {2}- upstrem: unknown key, did you mean upstream\? \(from .*config-\d+\.yml\); known keys here: host, port/m);
    expect(typo).toMatch(/^ {2}- upstream\.urll: unknown key, did you mean url\? \(from .*config-\d+\.yml\); known keys here: url, protocol/m);
  });

  it('names the key a typo was meant to be (a letter off, two swapped, an underscore for a dash), and none for a stranger', async () => {
    const file = await yamlFile(['uptream:', '  protocl: auto', 'bailian:', '  api_kye: x', 'colour: blue'].join('\n'));
    const lines = (await configError(['--config', file])).split('\n').slice(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}- uptream: unknown key, did you mean upstream\? \(from /),
        expect.stringMatching(/^ {2}- bailian\.api-kye: unknown key, did you mean api-key\? \(from /),
        expect.stringMatching(/^ {2}- colour: unknown key \(from .*\); known keys here: host, port/),
      ]),
    );
  });

  it('tells a value outside the choices with the choices (a text given is not repeated), and a YAML number where a version was meant', async () => {
    const env = { A2A_BRIDGE_STORE: 'redsi', A2A_BRIDGE_LOG_LEVEL: 'verbose' };
    const message = await configError(['--config', await yamlFile('upstream:\n  protocol: 1.0\n  protocol-binding: grpc\n')], env);
    expect(message).toMatch(/^ {2}- store: expected one of memory, redis \(from A2A_BRIDGE_STORE\)$/m);
    expect(message).toMatch(/^ {2}- log-level: expected one of fatal, error, warn, info, debug, trace, silent \(from A2A_BRIDGE_LOG_LEVEL\)$/m);
    expect(message).not.toMatch(/redsi|verbose/);
    expect(message).toMatch(
      /^ {2}- upstream\.protocol: expected one of auto, 1\.0, 0\.3, 0\.2\.5, got 1 \(from .*\.yml\) — YAML read it as a number: quote it \(protocol: "1\.0"\)$/m,
    );
    expect(message).toMatch(/^ {2}- upstream\.protocol-binding: expected one of auto, JSONRPC, HTTP\+JSON, GRPC \(from .*\.yml\)$/m);
    expect(message).not.toMatch(/Invalid option/);
  });

  it('tells a wrong type as key, what was given, what is expected and where from, never a secret', async () => {
    const file = await yamlFile(
      ['port: "eighty"', 'metrics:', '  enabled: yes please', 'upstream: http://agent:41242', 'auth:', '  token: 12345'].join('\n'),
    );
    const lines = (await configError(['--config', file])).split('\n').slice(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}- port: expected a number, got "eighty" \(from .*\.yml\)$/),
        expect.stringMatching(/^ {2}- metrics\.enabled: expected true or false, got "yes please" \(from .*\.yml\)$/),
        expect.stringMatching(/^ {2}- upstream: expected a mapping \(keys under it\), got a string \(from .*\.yml\)$/),
        expect.stringMatching(/^ {2}- auth\.token: expected a string, got a number \(from .*\.yml\) — YAML read it as a number: quote it/),
      ]),
    );
    expect(lines.join('\n')).not.toContain('12345');
    // A text where a mapping belongs may be a credential one level too high: its kind only.
    expect(await configError(['--config', await yamlFile('auth: s3cr3t-token-value\n')])).toMatch(
      /^ {2}- auth: expected a mapping \(keys under it\), got a string/m,
    );
    expect(await configError([], { A2A_BRIDGE_DRAIN_TIMEOUT_MS: 'soon' })).toMatch(
      /^ {2}- drain-timeout-ms: expected a number, got "soon" \(from A2A_BRIDGE_DRAIN_TIMEOUT_MS\)$/m,
    );
  });

  it('rejects a bad enum from env and an out-of-range port', async () => {
    expect(await configError([], { A2A_BRIDGE_LOG_LEVEL: 'loud' })).toMatch(/log-level: expected one of .*info.* \(from A2A_BRIDGE_LOG_LEVEL\)/);
    expect(await configError(['--port', '70000'])).toMatch(/port: .*<=65535/);
  });

  it('refuses a malformed Sentinel URL in redis-url and push-redis-url, with the reason and no password', async () => {
    const message = await configError([], {
      A2A_BRIDGE_REDIS_URL: 'redis+sentinel://:hunter2@/mymaster',
      A2A_BRIDGE_PUSH_REDIS_URL: 'redis+sentinel://:hunter2@s1:26379?sentinelPassword=hunter3',
    });
    expect(message).toMatch(/^ {2}- redis-url: a Sentinel URL names at least one sentinel host .*\(from A2A_BRIDGE_REDIS_URL\)$/m);
    expect(message).toMatch(/^ {2}- push-redis-url: a Sentinel URL names the master after the hosts .*\(from A2A_BRIDGE_PUSH_REDIS_URL\)$/m);
    expect(message).not.toMatch(/hunter/);
    expect(await configError(['--config', await yamlFile('redis-url: redis+sentinel://s:26379/m/zero\n')])).toMatch(
      /redis-url: the database in a Sentinel URL .* is not a number \(from .*\.yml\)/,
    );
  });

  it('takes a well-formed Sentinel URL as it is', async () => {
    const url = 'rediss+sentinel://app:pw@s1:26379,s2:26380/mymaster/1?sentinelPassword=spw';
    expect((await load([], { A2A_BRIDGE_REDIS_URL: url, A2A_BRIDGE_PUSH_REDIS_URL: url })).config).toMatchObject({
      'redis-url': url,
      'push-redis-url': url,
    });
  });

  it('never prints a secret value', async () => {
    const message = await configError(['--upstream', 'not a url'], {
      A2A_BRIDGE_AUTH__TOKEN: '',
      A2A_BRIDGE_BAILIAN__API_KEY: '',
      A2A_BRIDGE_AUTH__API_KEY_HEADER: 'X-Key',
      A2A_BRIDGE_UPSTREAM__AUTH__TOKEN: 'topsecret',
      A2A_BRIDGE_UPSTREAM__PROTOCOL: 'topsecret2',
    });
    expect(message).toContain('auth.token');
    expect(message).toContain('upstream.protocol');
    expect(message).not.toContain('topsecret');
  });
});

describe('warnings', () => {
  it('warns when public-url is unset', async () => {
    const { warnings } = await load();
    expect(warnings.join('\n')).toMatch(/public-url is not set/);
  });

  it('warns when public-url is http while the Bailian facade is on, and not when it is off', async () => {
    const on = await load(['--public-url', 'http://gw.example.com']);
    expect(on.warnings.join('\n')).toMatch(/not https.*Bailian/);
    const off = await load(['--public-url', 'http://gw.example.com'], { A2A_BRIDGE_BAILIAN__ENABLED: 'false' });
    expect(off.warnings).toEqual([]);
    const https = await load(['--public-url', 'https://gw.example.com']);
    expect(https.warnings).toEqual([]);
  });

  it('warns when binding 0.0.0.0 without auth, and not with a token', async () => {
    const open = await load(['--host', '0.0.0.0', '--public-url', 'https://gw.example.com']);
    expect(open.warnings.join('\n')).toMatch(/binding 0\.0\.0\.0 without auth/);
    const guarded = await load(['--host', '0.0.0.0', '--public-url', 'https://gw.example.com'], { A2A_BRIDGE_AUTH__TOKEN: 't' });
    expect(guarded.warnings).toEqual([]);
  });

  it('says the Bailian facade is open too when binding 0.0.0.0 with neither auth nor bailian.api-key', async () => {
    const both = await load(['--host', '0.0.0.0', '--public-url', 'https://gw.example.com']);
    expect(both.warnings.find((warning) => warning.startsWith('binding 0.0.0.0'))).toBe(
      'binding 0.0.0.0 without auth: anyone who can reach this port can use the upstream agent (set auth.token, auth.api-key, auth.basic-*, the lists auth.tokens, auth.api-keys, auth.jwt or auth.introspection); bailian.api-key is not set either, so the Bailian facade (/.well-known/agent.json, message/send, message/stream) is open too (set bailian.api-key or bailian.api-keys)',
    );
    const keyed = await load(['--host', '0.0.0.0', '--public-url', 'https://gw.example.com'], { A2A_BRIDGE_BAILIAN__API_KEY: 'bl-key' });
    expect(keyed.warnings.join('\n')).toMatch(/binding 0\.0\.0\.0 without auth/);
    expect(keyed.warnings.join('\n')).not.toContain('facade');
    const facadeOff = await load(['--host', '0.0.0.0', '--public-url', 'https://gw.example.com'], { A2A_BRIDGE_BAILIAN__ENABLED: 'false' });
    expect(facadeOff.warnings.join('\n')).not.toContain('facade');
  });

  it('warns when the gRPC binding alone binds 0.0.0.0 without auth (its keys come from the environment like any other)', async () => {
    const env = { A2A_BRIDGE_GRPC__PORT: '50051', A2A_BRIDGE_GRPC__HOST: '0.0.0.0' };
    const open = await load(['--public-url', 'https://gw.example.com'], env);
    expect(open.config.grpc).toMatchObject({ port: 50051, host: '0.0.0.0' });
    expect(open.warnings.join('\n')).toMatch(/gRPC port on 0\.0\.0\.0 without auth/);
    const guarded = await load(['--public-url', 'https://gw.example.com'], { ...env, A2A_BRIDGE_AUTH__TOKEN: 't' });
    expect(guarded.warnings).toEqual([]);
  });
});

describe('usage', () => {
  it('lists every flag and the env convention', () => {
    const text = usage();
    for (const flag of ['--config', '--host', '--port', '--upstream', '--public-url', '--log-level', '--help']) {
      expect(text).toContain(flag);
    }
    expect(text).toContain('A2A_BRIDGE_UPSTREAM__URL');
    expect(text).toContain('REDIS_URL');
  });
});

describe('the configs in deploy/', () => {
  const root = path.resolve(__dirname, '../..');
  it.each(['deploy/a2a-bridge.example.yml', 'deploy/compose/a2a-bridge.yml'])('%s loads with its variables set', async (file) => {
    const env = { IAC_CODE_A2A_TOKEN: 't', GATEWAY_TOKEN: 'g', BAILIAN_API_KEY: 'b' };
    const { config } = await loadConfig({ argv: ['serve', '--config', path.join(root, file)], env, cwd: root });
    expect(config.bailian['api-key']).toBe('b');
    if (file.includes('compose')) expect(config.upstream['artifact-dir']).toBe('/artifacts');
  });
});

describe('start-up warnings about push leases', () => {
  const leaseWarning = (warnings: string[]) => warnings.filter((warning) => warning.startsWith('push-lease-timeout-ms'));

  it('warns when a Redis Streams lease can end before a delivery does, and only then', async () => {
    const queue = { A2A_BRIDGE_PUSH_QUEUE: 'redis-streams' };
    expect(leaseWarning((await load([], { ...queue, A2A_BRIDGE_PUSH_LEASE_TIMEOUT_MS: '5000' })).warnings)).toEqual([
      'push-lease-timeout-ms (5000) is not above push-timeout-ms (5000): a replica whose event loop stalls for most of a lease loses a notification it is delivering to another replica, and the webhook gets it twice',
    ]);
    expect(leaseWarning((await load([], queue)).warnings)).toEqual([]);
    expect(leaseWarning((await load([], { A2A_BRIDGE_PUSH_LEASE_TIMEOUT_MS: '500' })).warnings)).toEqual([]);
  });
});
