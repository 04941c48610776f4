/**
 * In front of iac-code without `upstream.caller-settings`, every holder of a gateway credential sets
 * iac-code's per-turn settings (the model, an LLM key, cloud credentials, the run mode; its folder too
 * without `upstream.workspace-root`). The operator is told once, at warn, with the keys (never values)
 * and how to restrict them; not when the list is set, nor for an agent that is not iac-code.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CardSnapshot, CardSource } from '../../../src/core/card-source.js';
import type { AgentCard } from '../../../src/model/index.js';
import { warnOpenCallerSettings } from '../../../src/upstream/iac-code/open-caller-settings.js';
import { capturedLog } from '../../support/captured-log.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startDemoGateway, startTestGateway, type TestGateway } from '../../support/gateway.js';
import { cli, stderrLines } from '../../support/run-cli.js';

const WARNING = /^upstream\.caller-settings is not set: every caller holding a gateway credential sets the per-turn settings of iac-code/;
const CLOUD_KEYS = ['alibaba_cloud_access_key_id', 'alibaba_cloud_access_key_secret', 'alibaba_cloud_security_token', 'alibaba_cloud_region_id'];

const card = (extensionUri?: string, version = '1'): AgentCard => ({
  name: 'agent',
  description: 'd',
  version,
  supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { extensions: extensionUri ? [{ uri: extensionUri }] : [] },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});
const IAC_CODE_EXTENSION = 'urn:iac-code:a2a:thinking-exposure:v1';

describe('the open caller-settings warning, as the card changes', () => {
  /** A card source that starts with `first` (or none), and the function that publishes a new card to it. */
  function cardsFrom(first: AgentCard | undefined): { cards: CardSource; publish(card: AgentCard): void } {
    const listeners: Array<(snapshot: CardSnapshot) => void> = [];
    return {
      cards: {
        current: () => (first ? { card: first, fetchedAt: new Date() } : undefined),
        upstreamReachable: () => first !== undefined,
        onChange: (listener) => void listeners.push(listener),
      },
      publish: (next) => listeners.forEach((listener) => listener({ card: next, fetchedAt: new Date() })),
    };
  }
  function warned(first: AgentCard | undefined, later: AgentCard[]): string[] {
    const log = capturedLog();
    const { cards, publish } = cardsFrom(first);
    warnOpenCallerSettings(cards, { url: 'http://iac-code:41242' }, log.logger);
    later.forEach(publish);
    return log.messages.filter((message) => WARNING.test(message));
  }

  it('is said once however often an iac-code card changes', () => {
    expect(warned(card(IAC_CODE_EXTENSION), [card(IAC_CODE_EXTENSION, '2'), card(), card(IAC_CODE_EXTENSION, '3')])).toHaveLength(1);
  });

  it('is said when the card first shows iac-code: after a start without a card, or with another agent', () => {
    expect(warned(undefined, [card(IAC_CODE_EXTENSION)])).toHaveLength(1);
    expect(warned(card('urn:other:ext'), [card(IAC_CODE_EXTENSION)])).toHaveLength(1);
    expect(warned(card('urn:other:ext'), [card()])).toEqual([]);
  });
});

describe('a gateway in front of iac-code', () => {
  const started: Array<FakeIacCode | TestGateway> = [];
  afterAll(async () => {
    for (const running of started.reverse()) await running.close();
  });
  const warningsOf = async (upstream: Record<string, unknown>) => {
    const fake = await startFakeIacCode();
    started.push(fake);
    const gateway = await startTestGateway({ upstream: { url: fake.url, ...upstream } });
    started.push(gateway);
    return gateway.log().filter((line) => WARNING.test(line.msg));
  };

  it('without caller-settings nor workspace-root warns once that callers set its settings and its folder (cwd), and how to restrict them', async () => {
    const warnings = await warningsOf({});
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning).toMatchObject({ level: 40 });
    expect(warning!.callerSettable).toEqual(
      expect.arrayContaining(['cwd', 'iac_code_model', 'iac_code_api_key', 'llm_headers', 'run_mode', ...CLOUD_KEYS]),
    );
    expect(warning!.msg).toContain('the folder it works in (cwd');
    expect(warning!.msg).toContain(`upstream.caller-settings: [${CLOUD_KEYS.join(', ')}] when they bring their own cloud account, [] for none`);
  });

  it('with workspace-root (the gateway names the folder) warns without cwd', async () => {
    const root = await mkdtemp(join(tmpdir(), 'a2a-bridge-open-settings-'));
    const [warning, ...more] = await warningsOf({ 'workspace-root': root });
    expect(more).toEqual([]);
    expect(warning!.callerSettable).toEqual(expect.arrayContaining(CLOUD_KEYS));
    expect(warning!.callerSettable).not.toContain('cwd');
    expect(warning!.msg).not.toContain('cwd');
  });

  it('with caller-settings, even allowing none, says nothing', async () => {
    expect(await warningsOf({ 'caller-settings': CLOUD_KEYS })).toEqual([]);
    expect(await warningsOf({ 'caller-settings': [] })).toEqual([]);
  });
});

describe('the embedded demo agent', () => {
  it('is not warned about: its card names an iac-code extension, but it reads no caller setting', async () => {
    const gateway = await startDemoGateway();
    try {
      expect(gateway.log().filter((line) => WARNING.test(line.msg))).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

describe('check-config, which reads no card', () => {
  const NOTE = 'whether the agent is an iac-code, whose per-turn settings every caller may then set (upstream.caller-settings is not set)';
  const noteOf = async (env: Record<string, string>, args: string[] = []) => {
    const run = await cli(['check-config', ...args], env);
    expect(run.code).toBe(0);
    return stderrLines(run).find((line) => line.startsWith('note: not checked here, only by serve at start:'));
  };

  it("notes that serve tells, from the card, whether every caller sets iac-code's settings; not once the list is set", async () => {
    const restrictedFile = join(await mkdtemp(join(tmpdir(), 'a2a-bridge-open-settings-')), 'a2a-bridge.yml');
    await writeFile(restrictedFile, 'upstream:\n  url: http://iac-code:41242\n  caller-settings: []\n');
    const [open, restricted] = await Promise.all([
      noteOf({ A2A_BRIDGE_UPSTREAM__URL: 'http://iac-code:41242' }),
      noteOf({}, ['--config', restrictedFile]),
    ]);
    expect(open).toContain(NOTE);
    expect(restricted).toBeDefined();
    expect(restricted).not.toContain(NOTE);
  });
});
