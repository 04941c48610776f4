import {
  A2AError,
  ErrorCode,
  GATEWAY_ERROR_DOMAIN,
  GATEWAY_FAILURES,
  endsTurn,
  eventTaskRef,
  eventTaskState,
  type StreamResponse,
  type TaskState,
} from '../../model/index.js';

/**
 * What a 1.0 stream (JSON-RPC and HTTP+JSON SSE, gRPC server streaming) that the gateway's shutdown cut ends with.
 * "The gateway is shutting down" (HTTP+JSON 503, gRPC UNAVAILABLE) tells a caller that nothing reached the agent
 * and to try again (docs/surfaces.md). Once the stream named its task, the turn had reached the agent and goes on
 * there: a caller that sent its message again would run the turn twice (with iac-code, a second deployment), and
 * another replica would refuse it while the first runs. So such a stream ends with words that name the task and
 * how to follow it, at the status of a call that may have done its work (500 INTERNAL), as the 0.2.5 facade tells
 * its users that the agent is still working (v025/recovery/cut-turns.ts).
 */
export class StreamCut {
  private taskId: string | undefined;
  private turnEnded = false;

  /**
   * `sentMessage`: the stream is SendStreamingMessage's. A SubscribeToTask stream sent nothing its caller could
   * run twice: subscribing again is its retry, which "shutting down" (503, UNAVAILABLE) invites.
   */
  constructor(private readonly sentMessage: boolean) {}

  /** Notes an event the caller is sent; its task state, when it carries one. */
  readonly seen = (event: StreamResponse): TaskState | undefined => {
    this.taskId = eventTaskRef(event).taskId || this.taskId;
    const state = eventTaskState(event);
    if (state) this.turnEnded = endsTurn(state);
    return state;
  };

  /** The error the stream ends with: the shutdown's, told as above once the task is known; any other as it is. */
  ending<E>(error: E): E | A2AError {
    if (!this.sentMessage || !isShutdown(error) || this.taskId === undefined || this.turnEnded) return error;
    return turnGoesOnAtAgent(this.taskId);
  }
}

const isShutdown = (error: unknown): boolean =>
  error instanceof A2AError && error.code === ErrorCode.Internal && error.message === GATEWAY_FAILURES.shuttingDown;

/**
 * The ErrorInfo reason of a stream the shutdown cut while its task goes on, `metadata.taskId` the task to follow:
 * A2A has no reason for it (-32603, INTERNAL carry none), so it is the gateway's own, under GATEWAY_ERROR_DOMAIN.
 */
const STREAM_CUT_REASON = 'STREAM_CUT_TASK_CONTINUES';

/**
 * The words of a turn the shutdown cut off its caller, the task named; and the same task as structured detail
 * (JSON-RPC `error.data`, HTTP+JSON `details`, gRPC `grpc-status-details-bin`), for a client that follows it
 * without reading the words.
 */
export const turnGoesOnAtAgent = (taskId: string): A2AError =>
  new A2AError(
    ErrorCode.Internal,
    `This gateway is shutting down and ended the stream, but task ${taskId} goes on at the agent: follow it with SubscribeToTask or read it with GetTask; do not send the message again, which would run the turn twice`,
    { gatewayErrorInfo: { reason: STREAM_CUT_REASON, domain: GATEWAY_ERROR_DOMAIN, metadata: { taskId } } },
  );
