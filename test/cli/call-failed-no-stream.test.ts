import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { inProcess } from './in-process.js';

/*
 * A failed turn reads the same whether `call` streams it or waits for the blocking answer. The 0.2.5 facade's
 * `bailian` profile puts all a turn said, its reason too, in its reply artifact (its user reads nothing else): the
 * blocking answer of a failed turn has no status message, and `--no-stream` printed only `state: failed`.
 */

let gateway: RunningGateway;
beforeAll(async () => {
  gateway = await startGateway(defaultConfig({ port: 0 }), createLogger('silent'));
});
afterAll(() => gateway?.close());

describe('a2a-bridge call, a turn the agent fails', { timeout: 30_000 }, () => {
  for (const protocol of ['0.2.5', '1.0']) {
    it(`--protocol ${protocol}: --no-stream prints what --stream prints, the reason too`, async () => {
      const streamed = await inProcess(['call', gateway.url, 'fail: disk full', '--protocol', protocol, '--stream']);
      const blocking = await inProcess(['call', gateway.url, 'fail: disk full', '--protocol', protocol, '--no-stream']);
      expect(`${streamed.stdout}${streamed.stderr}`).toContain('disk full');
      expect(blocking.stdout).toBe(streamed.stdout);
      expect(blocking.stderr.match(/^state: .*$/m)?.[0]).toBe(streamed.stderr.match(/^state: .*$/m)?.[0]);
      expect(`${blocking.stdout}${blocking.stderr}`).toContain('disk full');
      expect(blocking.code).toBe(streamed.code);
    });
  }
});
