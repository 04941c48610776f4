/**
 * SendStreamingMessage's `configuration.historyLength` (A2A 1.0 §3.2.4: the history returned in the task, the same
 * for every operation) bounds the history of the Task a stream opens with, as a2a-js 1.x's own server cuts each Task
 * of a stream, and as a blocking SendMessage's Task is cut. Official a2a-js 1.x client, both bindings, in front of
 * the embedded demo agent (which, like iac-code, sends the whole history) and a real a2a-js 1.x server (which cuts
 * it itself). The gateway's registry keeps the whole history either way (ListTasks answers from it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'a2a-sdk-1/client';
import type { SendMessageRequest, Task } from 'a2a-sdk-1';
import type { TestGateway } from '../../support/gateway.js';
import { TRANSPORTS, StreamReader, connect, listRequest, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';

const withHistoryLength = (request: SendMessageRequest, historyLength: number | undefined): SendMessageRequest => ({
  ...request,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength, returnImmediately: false },
});

/** The Task a stream opens with; the stream is read to its end. */
async function openingTask(client: Client, request: SendMessageRequest): Promise<Task> {
  const [first] = await new StreamReader(client.sendMessageStream(request)).rest();
  if (first?.$case !== 'task') throw new Error(`the stream opened with ${first?.$case}, not a Task`);
  return first.value;
}

describe.each(UPSTREAMS)('SendStreamingMessage historyLength in front of the $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it("0: the stream's Task holds no history, as the blocking answer's; the registry keeps the opening message", async () => {
      const { client } = await connect(gateway.url, transport);
      const text = `bounded stream ${transport}`;
      const opened = await openingTask(client, withHistoryLength(sendRequest(text), 0));
      expect(opened.history).toEqual([]);
      const blocking = await client.sendMessage(withHistoryLength(sendRequest(`${text} blocking`), 0));
      expect('status' in blocking && blocking.history).toEqual([]);
      const listed = await client.listTasks(listRequest({ contextId: opened.contextId }));
      expect(listed.tasks.find((task) => task.id === opened.id)?.history.map(textOf)[0]).toBe(text);
    });

    it("unset: the stream's Task holds the whole history; 1: at most one message", async () => {
      const { client } = await connect(gateway.url, transport);
      const text = `unbounded stream ${transport}`;
      expect((await openingTask(client, withHistoryLength(sendRequest(text), undefined))).history.map(textOf)).toEqual([text]);
      expect((await openingTask(client, withHistoryLength(sendRequest(text), 1))).history.map(textOf)).toEqual([text]);
    });
  });
});
