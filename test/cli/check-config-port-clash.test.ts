import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/run-cli.js';

/**
 * Two listeners set to one port stop serve before anything listens (start/port-check.ts); that is a fact of the
 * configuration alone, so check-config, which says it runs the checks serve stops for, tells it too.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-port-clash-'));
  await writeFile(path.join(dir, 'gw.yml'), ['port: 18601', 'metrics:', '  port: 18601'].join('\n'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a2a-bridge check-config and two listeners on one port', { timeout: 60_000 }, () => {
  it('refuses metrics.port equal to port with the line serve stops with, exit 2', async () => {
    const check = await cli(['check-config', '--config', 'gw.yml'], {}, dir);
    const serve = await cli(['serve', '--config', 'gw.yml', '--log-level', 'silent'], {}, dir);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('metrics.port 18601 is the same as port');
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('metrics.port 18601 is the same as port: two listeners cannot share a port');
  });

  it('refuses grpc.port equal to port given in the environment', async () => {
    const check = await cli(['check-config', '--port', '18602'], { A2A_BRIDGE_GRPC__PORT: '18602' });
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('grpc.port 18602 is the same as port');
  });
});
