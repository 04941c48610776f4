/**
 * The captured iac-code agent card (public and extended) as the fake iac-code serves it, pointing at the
 * fake itself (see fake-iac-code.ts).
 */
import type { Json } from './fake-iac-code-data.js';

const INPUT_MODES = [
  'text/plain',
  'application/json',
  'text/markdown',
  'text/yaml',
  'application/yaml',
  'application/x-yaml',
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'audio/mpeg',
  'audio/wav',
  'audio/ogg',
  'application/octet-stream',
];

function skill(id: string, name: string, description: string, tags: string[], example: string): Json {
  return { id, name, description, tags, examples: [example], inputModes: INPUT_MODES, outputModes: ['text/plain'] };
}

const PUBLIC_SKILLS = [
  skill(
    'iac_generation',
    'IaC Generation',
    'Generate Alibaba Cloud ROS and Terraform templates from natural language.',
    ['iac', 'ros', 'terraform', 'alibaba-cloud'],
    'Create a VPC with two vSwitches in cn-hangzhou.',
  ),
  skill(
    'iac_review',
    'IaC Review',
    'Inspect IaC templates and suggest fixes.',
    ['iac', 'review', 'validation'],
    'Review this ROS template for missing parameters.',
  ),
  skill(
    'aliyun_ros_operations',
    'Alibaba Cloud ROS Operations',
    'Assist with ROS stack workflows using iac-code tools.',
    ['aliyun', 'ros', 'stack'],
    'Check why this ROS stack update failed.',
  ),
  skill(
    'terraform_ros_conversion',
    'Terraform To ROS Conversion',
    'Assist Terraform-to-ROS conversion using bundled iac-code skill resources.',
    ['terraform', 'ros', 'conversion'],
    'Convert this Terraform VPC module to ROS YAML.',
  ),
];

const RUNTIME_SKILL = skill(
  'iac_code_runtime_details',
  'iac-code Runtime Details',
  'Authenticated details for task management, push configuration, and local runtime behavior.',
  ['iac-code', 'runtime', 'a2a'],
  'List my current A2A tasks.',
);

const extensions = (runMode: CardShape['runMode']): Json[] => [
  {
    uri: 'urn:iac-code:a2a:artifact-metadata:v1',
    description: 'Optional iac-code metadata namespace for tool status and stored local artifact metadata.',
  },
  {
    uri: 'urn:iac-code:a2a:thinking-exposure:v1',
    description:
      'Optional iac-code metadata namespace for selected thinking exposure signals. Raw thinking is emitted only when raw_thinking is enabled.',
    params: { enabledTypes: ['tool_trace'] },
  },
  {
    uri: 'urn:iac-code:a2a:pipeline-events:v1',
    description: 'Optional iac-code pipeline event extension for state snapshots, replay, interrupts, and parallel candidate streams.',
    params: {
      stateEndpoint: '/iac-code/pipeline/state',
      maxBatchDelayMs: 20,
      supportsParallelCandidates: true,
      supportsInterrupts: true,
      schemaVersion: '1.0',
      eventBatchMetadataPath: 'metadata.iac_code.pipelineBatch.events',
      mode: runMode,
      supportsSnapshot: true,
      supportsEventBatching: true,
      maxBatchBytes: 1048576,
      maxBatchEvents: 1024,
      enabled: runMode === 'pipeline',
      supportsReplay: true,
    },
  },
];

export interface CardShape {
  /** Origin of the fake, e.g. http://127.0.0.1:4321 (no trailing slash). */
  origin: string;
  /** Path of the JSON-RPC endpoint (iac-code: `/`). */
  rpcPath: string;
  /** List HTTP+JSON before JSONRPC (iac-code lists JSONRPC first). */
  restFirst: boolean;
  pushNotifications: boolean;
  runMode: 'normal' | 'pipeline';
}

/** The public card with the legacy 0.3 fields appended, pointing at the fake itself. */
export function publicCard(shape: CardShape): Json {
  const interfaces: Json[] = [
    { url: `${shape.origin}${shape.rpcPath}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: shape.origin, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ];
  if (shape.restFirst) interfaces.reverse();
  const [first = {}, ...rest] = interfaces;
  return {
    ...protoCard(interfaces, shape, PUBLIC_SKILLS),
    url: first.url,
    preferredTransport: first.protocolBinding,
    protocolVersion: '1.0',
    additionalInterfaces: rest.map((entry) => ({ url: entry.url, transport: entry.protocolBinding })),
  };
}

/** The extended card: the proto card plus the runtime skill, no legacy fields. */
export function extendedCard(shape: CardShape): Json {
  const card = publicCard(shape);
  return protoCard(card.supportedInterfaces as Json[], shape, [...PUBLIC_SKILLS, RUNTIME_SKILL]);
}

function protoCard(interfaces: Json[], shape: CardShape, skills: Json[]): Json {
  return {
    name: 'iac-code',
    description:
      'AI-powered Infrastructure as Code assistant for Alibaba Cloud ROS and Terraform workflows. Unauthenticated A2A server mode is intended for trusted local environments.',
    supportedInterfaces: interfaces,
    provider: { organization: 'iac-code' },
    version: '0.13.1',
    capabilities: { streaming: true, pushNotifications: shape.pushNotifications, extensions: extensions(shape.runMode), extendedAgentCard: true },
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: ['text/plain'],
    skills,
  };
}
