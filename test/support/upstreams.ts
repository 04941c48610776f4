/**
 * The two upstreams every end-to-end test runs against, with what each one really does, so a test
 * asserts the upstream's own behaviour as seen through the gateway.
 */
import { TaskState } from 'a2a-sdk-1';
import { DEMO_AGENT_NAME, SLOW_PREFIX, demoReply } from '../../src/demo-agent/index.js';
import { startDemoAgentGateway, startDemoGateway, startSdkGateway, type TestGateway } from './gateway.js';
import { SDK_AGENT_NAME, SDK_SLOW_PREFIX, sdkReply } from './sdk-v1-agent.js';

export interface UpstreamCase {
  /** The embedded demo agent (iac-code's wire behaviour), or a real a2a-js 1.x server. */
  kind: 'demo' | 'sdk';
  name: string;
  /** The gateway in front of this upstream (the demo one is the gateway's embedded agent). */
  startGateway(overrides?: Record<string, unknown>): Promise<TestGateway>;
  /** The gateway in front of a separately started upstream whose URL is exposed as `upstreamUrl`. */
  startGatewayWithReachableUpstream(overrides?: Record<string, unknown>): Promise<TestGateway>;
  agentName: string;
  /**
   * Whether the agent's own Task (a blocking answer, GetTask) shows the message that opened the task: iac-code's
   * never does (it saves the task before its SDK records the message), the SDK agent's does. Through the gateway
   * it always does, first, as the gateway recorded it (core/first-message.ts).
   */
  showsOpeningMessage: boolean;
  /** The state a turn ends in (iac-code pauses at INPUT_REQUIRED; the SDK agent completes). */
  endState: TaskState;
  /** The reply text of the context's `turn`-th turn. */
  reply(text: string, turn: number): string;
  /** The stream of a turn, in order, as `outline()` renders it. */
  streamOutline(text: string, turn: number): string[];
  slowPrefix: string;
  /** A slow turn lasts at least this long, so a test can act while it runs. */
  slowTurnMinMs: number;
  /** What GetExtendedAgentCard answers: a card with these skills, or an error with this reason and message. */
  extendedCard: { skillIds: string[] } | { errorReason: string; message: string };
}

export const UPSTREAMS: UpstreamCase[] = [
  {
    kind: 'demo',
    name: 'embedded demo agent',
    startGateway: (overrides) => startDemoGateway(overrides),
    startGatewayWithReachableUpstream: (overrides) => startDemoAgentGateway(overrides),
    agentName: DEMO_AGENT_NAME,
    showsOpeningMessage: false,
    endState: TaskState.TASK_STATE_INPUT_REQUIRED,
    reply: (text, turn) => demoReply(text, turn).full,
    // iac-code's frames: SUBMITTED, WORKING, one WORKING per chunk, usage, the artifact, the final text, INPUT_REQUIRED.
    streamOutline: (text, turn) => [
      'task',
      `statusUpdate:${TaskState.TASK_STATE_SUBMITTED}`,
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      ...demoReply(text, turn).chunks.map(() => `statusUpdate:${TaskState.TASK_STATE_WORKING}`),
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      'artifactUpdate',
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      `statusUpdate:${TaskState.TASK_STATE_INPUT_REQUIRED}`,
    ],
    slowPrefix: SLOW_PREFIX,
    // At least 25 chunks at the default 100 ms.
    slowTurnMinMs: 2_000,
    extendedCard: { skillIds: ['echo', 'failure', 'demo_runtime_details'] },
  },
  {
    kind: 'sdk',
    name: 'a2a-js 1.x server',
    startGateway: (overrides) => startSdkGateway(overrides),
    startGatewayWithReachableUpstream: (overrides) => startSdkGateway(overrides),
    agentName: SDK_AGENT_NAME,
    showsOpeningMessage: true,
    endState: TaskState.TASK_STATE_COMPLETED,
    reply: (text, turn) => sdkReply(text, turn).full,
    streamOutline: (text, turn) => [
      'task',
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      ...sdkReply(text, turn).chunks.map(() => 'artifactUpdate'),
      `statusUpdate:${TaskState.TASK_STATE_COMPLETED}`,
    ],
    slowPrefix: SDK_SLOW_PREFIX,
    // At least 15 chunks (10 extra plus the words) at 60 ms.
    slowTurnMinMs: 800,
    // No extended card is configured: DefaultRequestHandler answers UnsupportedOperationError.
    extendedCard: { errorReason: 'UNSUPPORTED_OPERATION', message: 'Agent does not support authenticated extended card.' },
  },
];
