import { createHash } from 'node:crypto';
import { withFields, type AgentCard, type AgentSkill } from '../model/index.js';

export const DEMO_AGENT_NAME = 'a2a-bridge-demo';
export const DEMO_AGENT_VERSION = '0.1.0';
export const ARTIFACT_METADATA_EXTENSION = 'urn:iac-code:a2a:artifact-metadata:v1';

const INPUT_MODES = ['text/plain', 'application/json'];
const OUTPUT_MODES = ['text/plain'];

const PUBLIC_SKILLS: AgentSkill[] = [
  {
    id: 'echo',
    name: 'Echo',
    description: 'Replies deterministically with "Echo (turn N): <your text>", streamed word by word.',
    tags: ['demo', 'echo', 'testing'],
    examples: ['Hello there', 'slow: stream this slowly so I can cancel it'],
    inputModes: INPUT_MODES,
    outputModes: OUTPUT_MODES,
  },
  {
    id: 'failure',
    name: 'Deterministic Failure',
    description: 'A prompt starting with "fail:" ends the turn in TASK_STATE_FAILED with the rest as the reason.',
    tags: ['demo', 'errors'],
    examples: ['fail: simulated runtime error'],
    inputModes: INPUT_MODES,
    outputModes: OUTPUT_MODES,
  },
];

const EXTENDED_SKILL: AgentSkill = {
  id: 'demo_runtime_details',
  name: 'Demo Runtime Details',
  description: 'Task management of the embedded demo agent: GetTask, ListTasks, CancelTask and SubscribeToTask.',
  tags: ['demo', 'runtime', 'a2a'],
  examples: ['List my current A2A tasks.'],
  inputModes: INPUT_MODES,
  outputModes: OUTPUT_MODES,
};

/** The public card, shaped like iac-code's (including its legacy top-level fields for 0.3 clients). */
export function buildDemoCard(baseUrl: string, name = DEMO_AGENT_NAME): AgentCard {
  const jsonRpcUrl = `${baseUrl.replace(/\/+$/, '')}/`;
  return withFields(baseCard(jsonRpcUrl, name, PUBLIC_SKILLS), { url: jsonRpcUrl, preferredTransport: 'JSONRPC', protocolVersion: '1.0' });
}

/** Like iac-code's extended card: one more skill and no legacy fields. */
export function buildExtendedDemoCard(baseUrl: string, name = DEMO_AGENT_NAME): AgentCard {
  return baseCard(`${baseUrl.replace(/\/+$/, '')}/`, name, [...PUBLIC_SKILLS, EXTENDED_SKILL]);
}

function baseCard(jsonRpcUrl: string, name: string, skills: AgentSkill[]): AgentCard {
  return {
    name,
    description: 'Embedded demo A2A 1.0 agent of a2a-bridge: deterministic echo replies that follow the iac-code wire behaviour.',
    supportedInterfaces: [{ url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    provider: { organization: 'a2a-bridge' },
    version: DEMO_AGENT_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: ARTIFACT_METADATA_EXTENSION,
          description: 'Optional iac-code metadata namespace for tool status and stored local artifact metadata.',
        },
      ],
      extendedAgentCard: true,
    },
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills,
  };
}

/** iac-code's strong ETag: sha256 over the card serialised with sorted keys. */
export function cardEtag(card: AgentCard): string {
  return `"sha256-${createHash('sha256').update(sortedJson(card)).digest('hex')}"`;
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
