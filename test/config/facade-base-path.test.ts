/**
 * `bailian.base-path` naming one of the gateway's own routes is refused at start, with the route it would
 * take: mounted first, the facade took it from its surface (a GET of the 1.0 card answered 405) or lost its
 * own to it, and nothing said so.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, yamlFile, configError } = configFolder();

describe('bailian.base-path on a route of the gateway', () => {
  it.each([
    ['/tasks', '/tasks (the A2A 1.0 HTTP+JSON binding)'],
    ['/tasks/', '/tasks (the A2A 1.0 HTTP+JSON binding)'],
    ['/acme/tasks', '/acme/tasks (the A2A 1.0 HTTP+JSON binding)'],
    ['/extendedAgentCard', '/extendedAgentCard (the A2A 1.0 HTTP+JSON binding)'],
    ['/.well-known/agent-card.json', '/.well-known/ (the agent cards and the card signing keys)'],
    ['/.well-known', '/.well-known/ (the agent cards and the card signing keys)'],
    ['/health', '/health (the health probe)'],
    ['/ready', '/ready (the readiness probe)'],
    ['/metrics', '/metrics (the metrics scrape, metrics.path)'],
    ['/iac-code/pipeline/state', "/iac-code/pipeline/state (the agent's own route the 1.0 surface forwards)"],
  ])('%s is refused, naming %s and where the setting came from', async (basePath, route) => {
    const file = await yamlFile(`bailian:\n  base-path: ${basePath}\n`);
    const message = await configError(['--config', file]);
    const line = message.split('\n').find((one) => one.startsWith('  - bailian.base-path: '));
    expect(line).toBe(
      `  - bailian.base-path: would put the Bailian facade on the gateway's own route ${route}; choose a path of its own, e.g. /bailian (from ${file})`,
    );
  });

  it('from the environment, the variable is named', async () => {
    const message = await configError([], { A2A_BRIDGE_BAILIAN__BASE_PATH: '/tasks' });
    expect(message).toMatch(/^ {2}- bailian\.base-path: would put the Bailian facade on .*\/tasks.*\(from A2A_BRIDGE_BAILIAN__BASE_PATH\)$/m);
  });

  it.each([
    ['a path of its own', { A2A_BRIDGE_BAILIAN__BASE_PATH: '/bailian' }],
    ['/, the JSON-RPC endpoint shared by design', { A2A_BRIDGE_BAILIAN__BASE_PATH: '/' }],
    ['a tenant-like segment of its own', { A2A_BRIDGE_BAILIAN__BASE_PATH: '/acme' }],
    ['the metrics path when the scrape has its own port', { A2A_BRIDGE_BAILIAN__BASE_PATH: '/metrics', A2A_BRIDGE_METRICS__PORT: '9464' }],
    ['the metrics path with metrics off', { A2A_BRIDGE_BAILIAN__BASE_PATH: '/metrics', A2A_BRIDGE_METRICS__ENABLED: 'false' }],
    ['any path with the facade off', { A2A_BRIDGE_BAILIAN__BASE_PATH: '/tasks', A2A_BRIDGE_BAILIAN__ENABLED: 'false' }],
  ])('%s is taken', async (_name, env) => {
    await expect(load([], env)).resolves.toBeDefined();
  });
});

describe('bailian.base-path with a segment no request reaches it by', () => {
  it.each(['/x/../health', '/./bailian', '//tasks', '/bailian//stream', '/bailian/.', '/..'])(
    '%s is refused, saying why and how to write it',
    async (basePath) => {
      const message = await configError([], { A2A_BRIDGE_BAILIAN__BASE_PATH: basePath });
      expect(message.split('\n').filter((line) => line.startsWith('  - '))).toEqual([
        '  - bailian.base-path: must not hold an empty, `.` or `..` segment (requests on such a path are refused with 404 or rewritten on the way, so the facade could not be reached); write it plainly, e.g. /bailian (from A2A_BRIDGE_BAILIAN__BASE_PATH)',
      ]);
    },
  );

  it.each(['/bailian/', '/bailian//', '/', '/a.b/c..d/...'])(
    '%s is taken (trailing slashes and dots inside a segment are fine)',
    async (basePath) => {
      await expect(load([], { A2A_BRIDGE_BAILIAN__BASE_PATH: basePath })).resolves.toBeDefined();
    },
  );
});
