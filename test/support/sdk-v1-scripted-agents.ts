/**
 * A REAL a2a-js 1.x server whose executor behaves the way real agents do, one script per prompt
 * (the first word of the user's text), so a test can check that every word such an agent says
 * reaches the caller:
 *   ask     streams working text, sends a two-chunk text artifact, then asks a question in its
 *           input-required status (ASK_*)
 *   direct  answers with a direct Message, no task (DIRECT_TEXT)
 *   files   returns a text file as raw bytes, a binary file, a data part and a file URL (FILES_*)
 *   fail    starts working, then fails with a reason (FAIL_*)
 *   book    asks a question (BOOK_QUESTION); the answer, sent into the waiting task, is streamed a few
 *           words at a time after the task as the agent found it, as a 1.x agent must open every stream
 *           (bookedReply)
 *   look    says which attachments (non-text parts) it received, and how many images its message
 *           metadata still holds under `bailian` (lookReply)
 */
import { createHash, randomUUID } from 'node:crypto';
import { TaskState, type Message } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type TaskStore } from 'a2a-sdk-1/server';
import {
  agentMessage,
  part,
  promptOf,
  startSdkTestAgent,
  textPart as text,
  turnEvents,
  type RunningTestAgent,
  type TestAgentCardSpec,
} from './sdk-v1-agent-kit.js';

export const ASK_WORKING = ['Let me look ', 'at the VPC quotas.'];
export const ASK_ARTIFACT = ['Quota report: 3 of 10 VPCs used. ', 'Region cn-hangzhou has room.'];
export const ASK_QUESTION = 'Need more input: reply in this task, or send "/done".';
export const DIRECT_TEXT = 'Here is a direct answer without a task.';
export const FILES_NOTE = 'Line one of the notes.\nLine two of the notes.\n';
export const FILES_DATA = { region: 'cn-hangzhou', vpcs: 3 };
export const FILES_URL = 'https://example.com/reports/vpc.pdf';
export const FILES_DONE = 'Attached the notes, the data and the report.';
export const FILES_BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x01]);
export const FAIL_WORKING = 'Starting the deployment.';
export const FAIL_REASON = 'Deployment failed: the quota for VPCs in cn-hangzhou is exhausted.';
export const BOOK_QUESTION = 'Which date should I book the flight for?';
export const bookedReply = (date: string): string[] => ['Booking ', `the flight for ${date}.`, `\nBooked for ${date}. Ticket 7731.`];
/** Tasks the `book` script asked about: an answer sent into one of them is the booking's date. */
const booking = new Set<string>();

/** What the `look` script answers: each attachment as `name (type, N bytes, sha256 …)`, then the images left in `metadata.bailian.images`. */
export function lookReply(attachments: Array<{ filename: string; mediaType: string; bytes: Uint8Array }>, metadataImages: number): string {
  const described = (a: { filename: string; mediaType: string; bytes: Uint8Array }) =>
    `${a.filename} (${a.mediaType}, ${a.bytes.length} bytes, sha256 ${createHash('sha256').update(a.bytes).digest('hex').slice(0, 16)})`;
  const seen = attachments.length > 0 ? attachments.map(described).join(', ') : 'no attachment';
  return `Saw ${seen}. Images in metadata: ${metadataImages}.`;
}

function looked(message: Message): string {
  const attachments = message.parts.flatMap((p) =>
    p.content?.$case === 'raw' ? [{ filename: p.filename, mediaType: p.mediaType, bytes: p.content.value }] : [],
  );
  const images = (message.metadata as { bailian?: { images?: unknown } } | undefined)?.bailian?.images;
  return lookReply(attachments, Array.isArray(images) ? images.length : 0);
}

class Scripts implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = request;
    const prompt = promptOf(userMessage, ' ').trim();
    const script = prompt.split(/\s+/)[0] ?? '';
    const { opening, status, artifact } = turnEvents(request);
    if (request.task && booking.has(request.task.id)) {
      booking.delete(request.task.id);
      // The SDK refuses a stream that does not open with the Task or a Message, also when it goes on with one.
      bus.publish(AgentEvent.task(request.task));
      const [first = '', second = '', booked = ''] = bookedReply(prompt);
      const working = randomUUID();
      bus.publish(status(TaskState.TASK_STATE_WORKING, first, working));
      bus.publish(status(TaskState.TASK_STATE_WORKING, second, working));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, booked.trim()));
      return;
    }
    if (script === 'direct') {
      bus.publish(AgentEvent.message(agentMessage(DIRECT_TEXT, '', contextId)));
      return;
    }
    bus.publish(opening());
    switch (script) {
      case 'ask': {
        const working = randomUUID();
        for (const chunk of ASK_WORKING) bus.publish(status(TaskState.TASK_STATE_WORKING, chunk, working));
        bus.publish(artifact('quota-report', [text(ASK_ARTIFACT[0] ?? '')], false, false));
        bus.publish(artifact('quota-report', [text(ASK_ARTIFACT[1] ?? '')], true, true));
        bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, ASK_QUESTION));
        break;
      }
      case 'files':
        bus.publish(status(TaskState.TASK_STATE_WORKING));
        bus.publish(
          artifact(
            'outputs',
            [
              part({ $case: 'raw', value: Buffer.from(FILES_NOTE) }, { filename: 'notes.txt', mediaType: 'text/plain' }),
              part({ $case: 'raw', value: FILES_BINARY }, { filename: 'diagram.png', mediaType: 'image/png' }),
              part({ $case: 'data', value: FILES_DATA }, { mediaType: 'application/json' }),
              part({ $case: 'url', value: FILES_URL }, { filename: 'vpc.pdf', mediaType: 'application/pdf' }),
            ],
            false,
            true,
          ),
        );
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, FILES_DONE));
        break;
      case 'book':
        booking.add(taskId);
        bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, BOOK_QUESTION));
        break;
      case 'look':
      case '': // an image sent without words
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, looked(userMessage)));
        break;
      case 'fail':
        bus.publish(status(TaskState.TASK_STATE_WORKING, FAIL_WORKING));
        bus.publish(status(TaskState.TASK_STATE_FAILED, FAIL_REASON));
        break;
      default:
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, `Unknown script: ${script}`));
    }
  };

  cancelTask = async (): Promise<void> => undefined;
}

const CARD: TestAgentCardSpec = {
  name: 'sdk-v1-scripted',
  description: 'a2a-js 1.x agents that ask, answer directly, return files and fail, for the fidelity tests.',
  rest: true,
  defaultOutputModes: ['text/plain', 'application/json'],
  // Images by the skill's modes, not the default ones: both count as what the agent takes.
  skill: {
    id: 'scripts',
    name: 'Scripts',
    description: 'ask, direct, files, fail',
    examples: ['ask'],
    inputModes: ['text/plain', 'image/png', 'image/jpeg'],
  },
};

export type RunningScriptedAgent = RunningTestAgent;

export const startScriptedAgent = (options: { taskStore?: TaskStore } = {}): Promise<RunningScriptedAgent> =>
  startSdkTestAgent(CARD, new Scripts(), options);
