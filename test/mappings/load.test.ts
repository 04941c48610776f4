import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_STATES } from '../../src/model/index.js';
import { V025_METHODS, V025_TASK_STATES } from '../../src/protocol/v025/index.js';
import { defaultMappingsDir, findMappingsDir, loadMappingProfile, V1_METHODS } from '../../src/mappings/index.js';

const spec = loadMappingProfile('a2a-0.2.5');
const bailian = loadMappingProfile('bailian');

describe('mapping profiles: state tables', () => {
  it.each([
    ['TASK_STATE_UNSPECIFIED', 'unknown', 'failed'],
    ['TASK_STATE_SUBMITTED', 'submitted', 'submitted'],
    ['TASK_STATE_WORKING', 'working', 'working'],
    ['TASK_STATE_COMPLETED', 'completed', 'completed'],
    ['TASK_STATE_FAILED', 'failed', 'failed'],
    ['TASK_STATE_CANCELED', 'canceled', 'failed'],
    ['TASK_STATE_INPUT_REQUIRED', 'input-required', 'completed'],
    ['TASK_STATE_REJECTED', 'rejected', 'rejected'],
    ['TASK_STATE_AUTH_REQUIRED', 'auth-required', 'failed'],
  ] as const)('1.0 %s → 0.2.5 %s (a2a-0.2.5) / %s (bailian)', (v1, plain, forBailian) => {
    expect(spec.statesToV025[v1]).toBe(plain);
    expect(bailian.statesToV025[v1]).toBe(forBailian);
  });

  it.each([
    ['submitted', 'TASK_STATE_SUBMITTED'],
    ['working', 'TASK_STATE_WORKING'],
    ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
    ['completed', 'TASK_STATE_COMPLETED'],
    ['canceled', 'TASK_STATE_CANCELED'],
    ['failed', 'TASK_STATE_FAILED'],
    ['rejected', 'TASK_STATE_REJECTED'],
    ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
    // 0.2.5's terminal 'unknown': 1.0's UNSPECIFIED is no end (docs/version-mapping.md).
    ['unknown', 'TASK_STATE_FAILED'],
  ] as const)('0.2.5 %s → 1.0 %s in both profiles', (v025, v1) => {
    expect(spec.statesFromV025[v025]).toBe(v1);
    expect(bailian.statesFromV025[v025]).toBe(v1);
  });

  it('bailian only ever shows states Bailian documents', () => {
    const understood = ['submitted', 'working', 'completed', 'failed', 'input-required', 'rejected'];
    for (const state of TASK_STATES) expect(understood).toContain(bailian.statesToV025[state]);
  });

  it('every state of each version has a target', () => {
    expect(Object.keys(spec.statesToV025).sort()).toEqual([...TASK_STATES].sort());
    expect(Object.keys(spec.statesFromV025).sort()).toEqual([...V025_TASK_STATES].sort());
  });
});

describe('mapping profiles: roles, methods, errors, part kinds, options', () => {
  it('maps roles both ways', () => {
    expect(spec.rolesToV025).toEqual({ ROLE_USER: 'user', ROLE_AGENT: 'agent' });
    expect(spec.rolesFromV025).toEqual({ user: 'ROLE_USER', agent: 'ROLE_AGENT' });
  });

  it.each([
    ['message/send', 'SendMessage'],
    ['message/stream', 'SendStreamingMessage'],
    ['tasks/get', 'GetTask'],
    ['tasks/cancel', 'CancelTask'],
    ['tasks/resubscribe', 'SubscribeToTask'],
    ['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig'],
    ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig'],
    ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs'],
    ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig'],
    ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard'],
  ] as const)('method %s ⇄ %s', (v025, v1) => {
    expect(spec.methodsFromV025[v025]).toBe(v1);
    expect(spec.methodsToV025[v1]).toBe(v025);
  });

  it('ListTasks has no 0.2.5 method; every other method has one', () => {
    expect(spec.methodsToV025.ListTasks).toBeUndefined();
    for (const method of V1_METHODS.filter((m) => m !== 'ListTasks')) expect(spec.methodsToV025[method]).toBeDefined();
    for (const method of V025_METHODS) expect(spec.methodsFromV025[method]).toBeDefined();
  });

  it.each([
    [-32700, -32700],
    [-32600, -32600],
    [-32601, -32601],
    [-32602, -32602],
    [-32603, -32603],
    [-32001, -32001],
    [-32002, -32002],
    [-32003, -32003],
    [-32004, -32004],
    [-32005, -32005],
    [-32006, -32006],
    [-32007, -32007],
    [-32008, -32008],
    [-32009, -32600],
  ])('error %i → 0.2.5 %i', (v1, v025) => {
    expect(spec.errorsToV025.get(v1)).toBe(v025);
  });

  it('0.2.5 error codes map to the same 1.0 codes and have default messages', () => {
    for (const [code, target] of spec.errorsFromV025) expect(target).toBe(code);
    expect(spec.errorsFromV025.size).toBe(11);
    expect(spec.errorMessagesV025.get(-32001)).toBe('Task not found');
    expect(spec.errorMessagesV025.get(-32700)).toBe('Invalid JSON payload');
  });

  it('part kinds', () => {
    expect(spec.partKindsToV025).toEqual({ text: 'text', raw: 'file', url: 'file', data: 'data' });
    expect(spec.partKindsFromV025).toEqual({ text: 'text', 'file-bytes': 'raw', 'file-uri': 'url', data: 'data' });
  });

  it('options: bailian shows a direct message as a task, the whole reply as one artifact, every part as text', () => {
    expect(spec.options).toEqual({ defaultSkillTag: 'general', directMessageAs: 'message', replyArtifacts: 'own', renderParts: 'native' });
    expect(bailian.options).toEqual({ defaultSkillTag: 'general', directMessageAs: 'task', replyArtifacts: 'single', renderParts: 'text' });
  });

  it('profiles are frozen and cached', () => {
    expect(Object.isFrozen(bailian.statesToV025)).toBe(true);
    expect(loadMappingProfile('bailian')).toBe(bailian);
  });
});

describe('operator overrides', () => {
  it('change exactly one entry', () => {
    const changed = loadMappingProfile('bailian', { 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'input-required' } });
    expect(changed.statesToV025.TASK_STATE_INPUT_REQUIRED).toBe('input-required');
    const { TASK_STATE_INPUT_REQUIRED: _a, ...restChanged } = changed.statesToV025;
    const { TASK_STATE_INPUT_REQUIRED: _b, ...restBase } = bailian.statesToV025;
    expect(restChanged).toEqual(restBase);
    expect(changed.rolesToV025).toEqual(bailian.rolesToV025);
    expect(loadMappingProfile('bailian')).toBe(bailian); // the base profile is untouched
  });

  it('accept numeric strings for error codes', () => {
    const changed = loadMappingProfile('a2a-0.2.5', { 'errors-to-v025': { '-32008': '-32600' } });
    expect(changed.errorsToV025.get(-32008)).toBe(-32600);
    expect(changed.errorsToV025.get(-32007)).toBe(-32007);
  });

  it('can render url and data parts as text', () => {
    const changed = loadMappingProfile('bailian', { 'part-kinds-to-v025': { url: 'text', data: 'text' } });
    expect(changed.partKindsToV025).toEqual({ text: 'text', raw: 'file', url: 'text', data: 'text' });
  });

  it.each([
    [{ 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'complete' } }, /states-to-v025\.TASK_STATE_INPUT_REQUIRED: invalid value "complete"/],
    [{ 'states-to-v025': { TASK_STATE_DONE: 'completed' } }, /states-to-v025\.TASK_STATE_DONE: unknown key/],
    [{ 'states-from-v025': { completed: 'completed' } }, /states-from-v025\.completed: invalid value "completed"/],
    [{ 'methods-to-v025': { ListTasks: 'tasks/get' } }, /methods-to-v025\.ListTasks: unknown key/],
    [{ 'errors-to-v025': { '-32001': -1 } }, /errors-to-v025\.-32001: invalid value -1/],
    [{ 'errors-from-v025': { '-32001': -32050 } }, /errors-from-v025\.-32001: invalid value -32050/],
    [{ 'part-kinds-to-v025': { raw: 'text' } }, /part-kinds-to-v025\.raw: invalid value "text"/],
    [{ options: { 'direct-message-as': 'artifact' } }, /options\.direct-message-as: invalid value "artifact"/],
    [{ colours: { red: 'blue' } }, /unknown table 'colours'/],
  ])('reject %j naming the key', (overrides, message) => {
    expect(() => loadMappingProfile('bailian', overrides as Record<string, Record<string, string>>)).toThrow(message);
    expect(() => loadMappingProfile('bailian', overrides as Record<string, Record<string, string>>)).toThrow(/operator override/);
  });
});

describe('locating mappings/', () => {
  it('finds the package root from src/ and from a built dist/ folder', () => {
    expect(defaultMappingsDir()).toBe(join(process.cwd(), 'mappings'));
    const root = mkdtempSync(join(tmpdir(), 'a2a-bridge-pkg-'));
    try {
      mkdirSync(join(root, 'mappings', 'profiles'), { recursive: true });
      mkdirSync(join(root, 'dist', 'mappings'), { recursive: true });
      mkdirSync(join(root, 'dist', 'src', 'mappings'), { recursive: true });
      writeFileSync(join(root, 'package.json'), '{}');
      expect(findMappingsDir(join(root, 'dist', 'mappings'))).toBe(join(root, 'mappings'));
      expect(findMappingsDir(join(root, 'dist', 'src', 'mappings'))).toBe(join(root, 'mappings'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('invalid mapping files', () => {
  let dir = '';
  const copy = (): string => {
    dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-mappings-'));
    cpSync(defaultMappingsDir(), dir, { recursive: true });
    return dir;
  };
  const edit = (file: string, change: (json: Record<string, Record<string, unknown>>) => void): void => {
    const path = join(dir, file);
    const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>;
    change(json);
    writeFileSync(path, JSON.stringify(json));
  };
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  it('loads an unmodified copy', () => {
    expect(loadMappingProfile('bailian', undefined, { dir: copy() }).statesToV025.TASK_STATE_INPUT_REQUIRED).toBe('completed');
  });

  it('rejects a bad value in a base table, naming the file and key', () => {
    copy();
    edit('states.json', (json) => {
      json['states-to-v025']!.TASK_STATE_WORKING = 'busy';
    });
    expect(() => loadMappingProfile('a2a-0.2.5', undefined, { dir })).toThrow(
      /mappings\/states\.json: states-to-v025\.TASK_STATE_WORKING: invalid value "busy"/,
    );
  });

  it('rejects a base table missing a state', () => {
    copy();
    edit('states.json', (json) => {
      delete json['states-from-v025']!['auth-required'];
    });
    expect(() => loadMappingProfile('a2a-0.2.5', undefined, { dir })).toThrow(/states-from-v025 has no entry for auth-required/);
  });

  it('rejects a table in the wrong file', () => {
    copy();
    edit('roles.json', (json) => {
      json['states-to-v025'] = { TASK_STATE_WORKING: 'working' };
    });
    expect(() => loadMappingProfile('a2a-0.2.5', undefined, { dir })).toThrow(
      /mappings\/roles\.json: table 'states-to-v025' belongs in mappings\/states\.json/,
    );
  });

  it('rejects a bad profile entry, naming the profile file', () => {
    copy();
    edit('profiles/bailian.json', (json) => {
      json.tables!['roles-to-v025'] = { ROLE_AGENT: 'assistant' };
    });
    expect(() => loadMappingProfile('bailian', undefined, { dir })).toThrow(
      /mappings\/profiles\/bailian\.json: roles-to-v025\.ROLE_AGENT: invalid value "assistant"/,
    );
  });

  it('rejects unknown top-level profile keys, extends cycles and unknown profiles', () => {
    copy();
    edit('profiles/bailian.json', (json) => {
      (json as Record<string, unknown>).extend = 'a2a-0.2.5';
    });
    expect(() => loadMappingProfile('bailian', undefined, { dir })).toThrow(/profiles\/bailian\.json/);
    edit('profiles/a2a-0.2.5.json', (json) => {
      (json as Record<string, unknown>).extends = 'a2a-0.2.5';
    });
    expect(() => loadMappingProfile('a2a-0.2.5', undefined, { dir })).toThrow(/cycle/);
    expect(() => loadMappingProfile('missing', undefined, { dir })).toThrow(/profiles\/missing\.json does not exist/);
    expect(() => loadMappingProfile('../states', undefined, { dir })).toThrow(/invalid name/);
  });

  it('rejects a file that is not JSON', () => {
    copy();
    writeFileSync(join(dir, 'methods.json'), '{ not json');
    expect(() => loadMappingProfile('a2a-0.2.5', undefined, { dir })).toThrow(/mappings\/methods\.json: not valid JSON/);
  });
});
