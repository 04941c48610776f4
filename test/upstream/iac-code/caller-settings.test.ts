import { describe, expect, it } from 'vitest';
import { onlyAllowedSettings } from '../../../src/upstream/iac-code/caller-settings.js';
import { givingWorkspaces, workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { collect } from '../../support/collect.js';
import { ctxOf, recordingUpstream as recording, userMessage } from '../../support/gateway-stubs.js';

const CALLER = {
  iac_code_model: 'the-costly-one',
  iac_code_api_key: 'sk-caller',
  llm_headers: { Authorization: 'Bearer caller' },
  alibaba_cloud_access_key_id: 'LTAI-caller',
  alibaba_cloud_region_id: 'cn-hangzhou',
  run_mode: 'pipeline',
  cwd: '/etc',
};

describe('onlyAllowedSettings (upstream.caller-settings)', () => {
  it("keeps only the allowed keys of iac_code, in the message's metadata and the request's own, and the rest of the metadata", async () => {
    const { port, sent } = recording((inner) => onlyAllowedSettings(inner, ['alibaba_cloud_region_id', 'alibaba_cloud_access_key_id']));
    const request = {
      message: userMessage({ contextId: 'c1', metadata: { iac_code: CALLER, trace: 'm' } }),
      metadata: { iac_code: CALLER, trace: 'r' },
    };
    await port.sendMessage(request, ctxOf('p'));
    await collect(port.sendStreamingMessage(request, ctxOf('p')));
    const allowed = { alibaba_cloud_access_key_id: 'LTAI-caller', alibaba_cloud_region_id: 'cn-hangzhou' };
    for (const settled of sent) {
      expect(settled.message.metadata).toEqual({ iac_code: allowed, trace: 'm' });
      expect(settled.metadata).toEqual({ iac_code: allowed, trace: 'r' });
    }
    // The caller's request itself is left as it was.
    expect(request.metadata.iac_code).toBe(CALLER);
  });

  it('an empty list keeps none; a request without settings goes on as it came; an iac_code that is no object becomes an empty one', async () => {
    const { port, sent } = recording((inner) => onlyAllowedSettings(inner, []));
    const plain = { message: userMessage({ metadata: { trace: 1 } }) };
    await port.sendMessage(plain, ctxOf('p'));
    await port.sendMessage({ message: userMessage({ metadata: { iac_code: CALLER } }), metadata: { iac_code: 'cwd=/etc' } }, ctxOf('p'));
    expect(sent[0]).toBe(plain);
    expect(sent[1]!.message.metadata).toEqual({ iac_code: {} });
    expect(sent[1]!.metadata).toEqual({ iac_code: {} });
  });

  it("with a workspace root the conversation's folder is still named, whatever the list says of cwd", async () => {
    const root = '/srv/ws';
    const { port, sent } = recording((inner) => onlyAllowedSettings(givingWorkspaces(inner, { root, contextOf: async () => undefined }), []));
    await port.sendMessage({ message: userMessage({ contextId: 'c1', metadata: { iac_code: CALLER } }), metadata: { iac_code: CALLER } }, ctxOf('p'));
    expect(sent[0]!.message.metadata).toEqual({ iac_code: { cwd: workspaceOf(root, 'c1') } });
    expect(sent[0]!.metadata).toEqual({ iac_code: { cwd: workspaceOf(root, 'c1') } });
  });

  it('tells the log which keys it took out and whose, at most once a minute, counting the rest', async () => {
    const warnings: Array<{ fields: object; message: string }> = [];
    const logger = { warn: (fields: object, message: string) => void warnings.push({ fields, message }) };
    const { port } = recording((inner) => onlyAllowedSettings(inner, ['alibaba_cloud_region_id'], { logger }));
    const ctx = { ...ctxOf('p'), surface: 'jsonrpc' as const, client: 'ops-console' };
    await port.sendMessage({ message: userMessage({ metadata: { iac_code: { alibaba_cloud_region_id: 'x' } } }) }, ctx);
    expect(warnings).toEqual([]);
    const request = { message: userMessage({ metadata: { iac_code: CALLER } }), metadata: { iac_code: { iac_code_model: 'm', other: 1 } } };
    await port.sendMessage(request, ctx);
    await port.sendMessage(request, ctx);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toEqual({
      surface: 'jsonrpc',
      client: 'ops-console',
      removed: ['iac_code_model', 'iac_code_api_key', 'llm_headers', 'alibaba_cloud_access_key_id', 'run_mode', 'cwd', 'other'],
    });
    expect(warnings[0]!.message).toMatch(/upstream\.caller-settings/);
  });
});
