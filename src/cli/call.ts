import { randomUUID } from 'node:crypto';
import { withFields, type SendMessageRequest, type StreamResponse, type TaskState } from '../model/index.js';
import {
  agentBaseUrl,
  agentUrl,
  agentOptionsHelp,
  clientConfig,
  commandContext,
  connectAgent,
  headerPairs,
  parseCommandLine,
  typedV025Card,
  UsageError,
} from './agent.js';
import { explainCallFailure, type CallStage } from './call-failure.js';
import { complain, EXIT_FAILURE, EXIT_NEEDS_INPUT, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { createStreamPrinter, spinner, summaryLines } from './render.js';
import { ranOutOfTime, turnAddress } from './turn-failure.js';

const USAGE = `Usage: a2a-bridge call URL TEXT [options]

Sends TEXT to the A2A agent at URL (1.0, 0.3 or 0.2.5, found from its card) and prints the reply:
streamed text as it arrives, then the final state, ids and artifacts (on stderr).

Options:
  --stream / --no-stream  stream (default when the card says it can) or one blocking send
  --context ID         continue a conversation (the context id printed by an earlier call)
  --task ID            answer a task waiting for input (the task id printed by an earlier call)
${agentOptionsHelp('print each event of the reply as one line of JSON (1.0 model), and nothing else on stdout')}

Exit codes: 0 completed or input-required (the turn ended; follow up with --context/--task), 1 failed,
rejected or canceled, 2 usage, 3 agent unreachable or protocol error, 4 auth-required or the
credentials missing or refused (HTTP 401/403; gRPC UNAUTHENTICATED/PERMISSION_DENIED).`;

const CALL_OPTIONS = {
  stream: { type: 'boolean' },
  'no-stream': { type: 'boolean', default: false },
  context: { type: 'string' },
  task: { type: 'string' },
} as const;

export function exitCodeFor(state: TaskState | undefined): number {
  // input-required is how iac-code ends every successful turn: a normal end, not a failure.
  if (state === 'TASK_STATE_AUTH_REQUIRED') return EXIT_NEEDS_INPUT;
  if (state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_REJECTED' || state === 'TASK_STATE_CANCELED') return EXIT_FAILURE;
  return EXIT_OK;
}

/** `a2a-bridge call … | head` closing the pipe early is not an error. */
function quietOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_OK);
    throw error;
  });
}

/** `a2a-bridge call URL TEXT`. */
export async function run(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  let parsed;
  try {
    parsed = parseCommandLine(argv, CALL_OPTIONS);
    if (parsed.values.help) {
      process.stdout.write(`${USAGE}\n`);
      return EXIT_OK;
    }
    if (parsed.positionals.length !== 2) throw new UsageError('expected exactly URL and TEXT (quote the text)');
    agentUrl(parsed.positionals[0]);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    complain(`${error.message}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  const url = agentBaseUrl(positionals[0]);
  const request: SendMessageRequest = {
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: positionals[1]! }],
      ...(values.context ? { contextId: values.context } : {}),
      ...(values.task ? { taskId: values.task } : {}),
    },
  };

  let agent;
  try {
    agent = await connectAgent(url, values);
  } catch (error) {
    if (error instanceof UsageError) {
      complain(error.message);
      return EXIT_USAGE;
    }
    // The options parsed once already (connectAgent): the probe of the card sends what the call sent.
    const target = { url, config: clientConfig(values), headers: headerPairs(values.header), typedV025: typedV025Card(positionals[0]!) };
    const failure = await explainCallFailure(error, 'detect', target);
    complain(failure.text);
    return failure.code;
  }
  const { ctx, dispose } = commandContext(agent.config);
  const wait = values.json ? { stop() {} } : spinner();
  let stage: CallStage = 'card';
  let address = url;
  // --json: the events themselves, one per line, and nothing else on stdout.
  const printer = createStreamPrinter((text) => {
    if (values.json) return;
    wait.stop();
    process.stdout.write(text);
  });
  try {
    const card = await agent.upstream.fetchCard(ctx.signal);
    address = turnAddress(agent.upstream, url);
    stage = 'turn';
    const streaming = values['no-stream'] ? false : (values.stream ?? card.capabilities?.streaming === true);
    const events: AsyncIterable<StreamResponse> = streaming
      ? agent.upstream.sendStreamingMessage(request, ctx)
      : (async function* () {
          yield await agent.upstream.sendMessage(request, ctx);
        })();
    for await (const event of events) {
      if (values.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      printer.event(event);
    }
    wait.stop();
    if (!values.json) {
      printer.finish();
      process.stderr.write(`${summaryLines(printer.summary).join('\n')}\n`);
    }
    return exitCodeFor(printer.summary.state);
  } catch (error) {
    wait.stop();
    // A reply cut short ends its line: the error starts on one of its own.
    if (!values.json) printer.finish();
    // The card is probed where the client of the protocol found (or given) reads it.
    const config = withFields(agent.config, { protocol: agent.protocol });
    const turn = { url, address, ranOut: ranOutOfTime(ctx.signal, error), timeoutMs: config['request-timeout-ms'] };
    const target = { url, config, headers: agent.headers, interrupted: ctx.signal.aborted, binding: agent.binding, turn };
    const failure = await explainCallFailure(error, stage, target);
    complain(failure.text);
    return failure.code;
  } finally {
    dispose();
    await agent.close();
  }
}
