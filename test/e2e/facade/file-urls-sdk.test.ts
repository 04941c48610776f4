/**
 * A real a2a-js 1.x agent answers with files sent as URLs (a bucket location, a file on its own disk and
 * bytes without a name in a Chinese turn, a `data:` URL, a web link with spaces); a Bailian user reads
 * message/stream and message/send. The location is shown where the user can copy it, never the agent's
 * path; the facade's word for a nameless file is Chinese; the data URL reads as its bytes; the link is whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Part } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { part, promptOf, startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

const YAML = "ROSTemplateFormatVersion: '2015-09-01'\nResources:\n  Vpc:\n    Type: ALIYUN::ECS::VPC\n";
const url = (value: string, filename = '', mediaType = ''): Part => part({ $case: 'url', value }, { filename, mediaType });

/** The parts each prompt's answer carries, in one artifact, before "Here it is." */
const ANSWERS: Record<string, Part[]> = {
  oss: [url('oss://my-bucket/reports/r.pdf', 'r.pdf', 'application/pdf')],
  请发给我报告: [
    url('file:///home/agent/workspace/%E6%8A%A5%E5%91%8A.pdf', '', 'application/pdf'),
    part({ $case: 'raw', value: Buffer.from([1, 2, 3]) }, { filename: '', mediaType: 'image/png' }),
  ],
  'data url': [url(`data:application/yaml;base64,${Buffer.from(YAML).toString('base64')}`, 't.yaml', 'application/yaml')],
  bytes: [part({ $case: 'raw', value: Buffer.from(YAML) }, { filename: 't.yaml', mediaType: 'application/yaml' })],
  spaces: [url('https://example.com/a b (1).pdf', 'spaces.pdf', 'application/pdf')],
  // An AWS secret key with a `/` in it, written raw into the user info; an STS token and a secret in the query.
  secret: [
    url('s3a://AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY@my-bucket/out/report.csv', 'report.csv', 'text/csv'),
    url('oss://my-bucket/out/r.csv?security-token=CAIS1234secretsts&access_key_secret=abcdEFGH1234', 'r.csv', 'text/csv'),
  ],
};

class FileLinks implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status, artifact } = turnEvents(request);
    bus.publish(opening());
    bus.publish(artifact('files', ANSWERS[promptOf(request.userMessage)] ?? [], false, true));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, 'Here it is.'));
  };
  cancelTask = async (): Promise<void> => {};
}

describe('a Bailian user in front of an a2a-js 1.x agent that answers with files sent as URLs', () => {
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  const headers = { 'X-API-KEY': API_KEY };

  beforeAll(async () => {
    agent = await startSdkTestAgent(
      { name: 'file links', description: 'answers with file URLs', skill: { id: 'f', name: 'F', description: 'files' } },
      new FileLinks(),
    );
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  /** What the user reads of one turn, streamed and sent. */
  async function read(prompt: string): Promise<{ streamed: string; sent: string }> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: prompt }) }, { headers });
    const streamed = streamedText(results(await stream.rest()).filter(Boolean));
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: prompt }) }, { headers });
    return { streamed, sent: sentText(answer.body.result) };
  }

  it('a bucket location is shown for the user to copy', async () => {
    const said = 'r.pdf: `oss://my-bucket/reports/r.pdf`\nHere it is.';
    expect(await read('oss')).toEqual({ streamed: said, sent: said });
  });

  it("in a Chinese turn, a file on the agent's disk is named from its URL, without its path, and a nameless file is 文件", async () => {
    const said = '报告.pdf (application/pdf)\n文件 (image/png, 3 字节)\nHere it is.';
    expect(await read('请发给我报告')).toEqual({ streamed: said, sent: said });
  });

  it('a data: URL reads as the same bytes sent as raw do', async () => {
    const said = `t.yaml\n\`\`\`yaml\n${YAML}\`\`\`\nHere it is.`;
    expect(await read('bytes')).toEqual({ streamed: said, sent: said });
    expect(await read('data url')).toEqual({ streamed: said, sent: said });
  });

  it('never a credential in a bucket location: a secret key with a `/` in its user info, a token in its query', async () => {
    const said = 'report.csv: `s3a://my-bucket/out/report.csv`\nr.csv: `oss://my-bucket/out/r.csv`\nHere it is.';
    const shown = await read('secret');
    expect(shown).toEqual({ streamed: said, sent: said });
    for (const secret of ['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI', 'CAIS1234secretsts', 'abcdEFGH1234']) {
      expect(JSON.stringify(shown)).not.toContain(secret);
    }
  });

  it('a web link with spaces is percent-encoded, so an autolink takes it whole', async () => {
    const said = 'spaces.pdf: https://example.com/a%20b%20(1).pdf\nHere it is.';
    expect(await read('spaces')).toEqual({ streamed: said, sent: said });
  });
});
