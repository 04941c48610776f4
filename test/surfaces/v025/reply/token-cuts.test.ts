/**
 * A model's tokens, each in a working message of its own (a2a-python's `new_agent_text_message` per chunk,
 * ADK's partial events), cut words, acronyms, units, numbers, CIDRs and code anywhere: read back, they must
 * be the text the model wrote, with no line break where it was cut. Whole progress messages still start
 * lines of their own (message-boundaries.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { carriesOn } from '../../../../src/surfaces/v025/reply/running-text.js';
import { MARKDOWN_TEXT } from './markdown-text.js';
import { readText, run, status, submitted } from './support.js';
import { seededRandom } from '../../../support/seeded-random.js';

const working = (texts: readonly string[]): StreamResponse[] => texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`));
const read = (texts: readonly string[]): string => readText(run([submitted, ...working(texts), status('TASK_STATE_COMPLETED')]));
/** The same pieces as the text parts of one message (render-parts.ts joins them by the same rules). */
const readParts = (texts: readonly string[]): string => {
  const parts = texts.map((text) => ({ text }));
  const message: StreamResponse = {
    statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'w', role: 'ROLE_AGENT', parts } } },
  };
  return readText(run([submitted, message, status('TASK_STATE_COMPLETED')]));
};

/** Cuts a review found starting a line (659ca6f's capitalised phrases and list items); each carried on before it. */
const REVIEWED: ReadonlyArray<readonly [string, string]> = [
  ['Create an EC', 'S instance in Hangzhou'],
  ['about 12.5 U', 'SD per day'],
  ['then run R', 'OS CreateStack'],
  ['uses 12 vCP', 'Us and 48 GiB'],
  ['the VP', 'C named demo'],
  ['CIDR 192.168.0.0/', '16. Then create'],
  ['x = a', '- b'],
  ['在华东1', 'VPC 中创建交换机'],
  ['Upgrade to v2', 'X Series now'],
];

describe("a model's token cut inside a word, an acronym, a number or code", () => {
  it.each(REVIEWED)('%j + %j carries on', (before, after) => {
    expect(carriesOn(before.charAt(before.length - 1), after, { text: before })).toBe(true);
    expect(read([before, after])).toBe(before + after);
    expect(readParts([before, after])).toBe(before + after);
  });

  it('units and prefixes cut where a capital starts: a lone capital, or after a lone lower-case letter', () => {
    expect(read(['48 Gi', 'B of memory'])).toBe('48 GiB of memory');
    expect(read(['uses 12 v', 'CPUs and 48 GiB'])).toBe('uses 12 vCPUs and 48 GiB');
    expect(read(['create a ', 'v', 'Switch in the VPC'])).toBe('create a vSwitch in the VPC');
    // An acronym's piece after a lone capital, a token of its own or not, and a unit after a number.
    expect(read(['about 12.5 ', 'U', 'SD per day'])).toBe('about 12.5 USD per day');
    expect(read(['then run R', 'OS to deploy'])).toBe('then run ROS to deploy');
    expect(read(['uses 48', 'GB of memory'])).toBe('uses 48GB of memory');
    // A lone `A` or `I` is a word: a message that opens with one after a lower-case letter still starts a line.
    expect(read(['Searching flights', 'I found 3 flights'])).toBe('Searching flights\nI found 3 flights');
  });

  it('whole progress messages still start lines of their own', () => {
    const lines = (texts: readonly string[]): string => texts.join('\n');
    for (const texts of [
      ['Creating VPC', 'Creating ECS', 'Creating RDS', 'All resources created.'],
      ['Here are the steps', '1. Create the VPC'],
      ['Here are the steps.', '1. Create the VPC.', '2) Deploy'],
      ['VPC created', '✅ ECS created'],
      ['步骤如下：', '1. 创建专有网络', '2. 创建交换机'],
      ['已创建专有网络 vpc-123', '已创建交换机 vsw-456', 'Creating VPC'],
      ['Searching flights', 'Found 3 flights'],
      ['Checks:', '- VPC', '- ECS', '- RDS'],
    ]) {
      expect(read(texts)).toBe(lines(texts));
    }
  });
});

/** Texts a model writes about Alibaba Cloud: acronyms, units, CIDRs, ids, code, Chinese with Latin words. */
const TEXTS: readonly string[] = [
  'Create an ECS instance in the VPC named demo, then run ROS to deploy the stack. The instance uses 12 vCPUs and 48 GiB of memory and costs about 12.5 USD per day.',
  'Use the CIDR 192.168.0.0/16 for the VPC and 192.168.1.0/24 for the vSwitch. Then create the SLB and attach 2 ECS instances (ecs.g7.xlarge) to it.',
  'Set x = a - b * 2 and y = x / 4, then check that x >= 0 before you call deploy(x, y) on the RDS instance rm-bp1xyz.',
  'Run this:\n```bash\naliyun ros CreateStack --StackName demo --TemplateBody file://vpc.yaml\n```\nThe stack takes about 3 minutes.',
  '在华东1（杭州）创建 VPC 和交换机 vsw-bp1abc，网段为 172.16.0.0/12。然后创建 ECS 实例 i-bp1xyz，规格为 ecs.g7.xlarge，共 4 vCPU 16 GiB。',
  '请在华东1VPC 中创建交换机，再用 ROS 模板部署 SLB 和 2 台 ECS，每台 8 vCPUs、32 GiB 内存，每天约 12.5 USD。',
  '使用Terraform部署VPC后，再用ROS模板创建ECS实例。实例状态：Running，可用区：H，规格为ecs.g7.xlarge，Status:Running。',
  // Closing punctuation, then words: in prose a blank comes between (`(see docs) The next`), so no token that starts
  // right after it opens with a capital phrase; `/` outside a URL joins alternatives; an opening quote's words go on.
  'Created the VPC (vpc-bp1abc) at 80% of the quota (see docs) The next step allows TCP/IP traffic, checks CPU/Memory usage, names the stack "Demo Stack" and runs `terraform apply` in /tmp/ros/ now.',
  '已创建「专有网络」（共 3 个）ECS 实例，再用（可选）Terraform 模板部署。',
  MARKDOWN_TEXT,
];

/**
 * A URL, a ROS resource type and a Windows path: their `:`, `::` and `?` are no sentence's end (names-in-text.ts).
 * Not a camel-cased word inside a URL: cut in two where its capital starts, the piece before holds the whole
 * URL as a message of its own does, and the capital reads as a new message's (CAMEL_URL_TEXT).
 */
const NAMED_TEXTS: readonly string[] = [
  'See https://help.aliyun.com/document_detail/25468.html?spm=a2c4g.11186623 for details, or call https://ecs.aliyuncs.com/?action=describe-instances&region=cn-hangzhou to list them.',
  'The template declares Type: ALIYUN::ECS::Instance and ALIYUN::ECS::VPC. 模板保存在 C:\\Users\\admin\\ros\\vpc.yaml，资源类型为 ALIYUN::ECS::VSwitch。',
];

/** Camel-cased words and file names inside URLs: cut into a model's tokens, each a piece of the URL, they carry on. */
const CAMEL_URL_TEXT =
  'Template: https://oss.example.com/bucket/Template.yaml, API: https://ecs.aliyuncs.com/?Action=DescribeInstances&RegionId=cn-hangzhou, docs: https://help.aliyun.com/zh/ecs/user-guide/CreateInstance.html';

/** `text` cut into pieces of 1 to `longest` characters (a model's tokens), never inside a surrogate pair. */
function cut(text: string, next: () => number, longest: number): string[] {
  const chars = [...text];
  const pieces: string[] = [];
  for (let at = 0; at < chars.length;) {
    const size = 1 + Math.floor(next() * longest);
    pieces.push(chars.slice(at, at + size).join(''));
    at += size;
  }
  return pieces;
}

describe('a text cut anywhere into messages of their own reads back as that text (property)', () => {
  it.each(TEXTS.map((text) => [text]))('every cut in two: %j', (text) => {
    const chars = [...text];
    for (let at = 1; at < chars.length; at += 1) {
      const pieces = [chars.slice(0, at).join(''), chars.slice(at).join('')];
      expect(read(pieces), JSON.stringify(pieces)).toBe(text);
    }
  });

  it.each(TEXTS.map((text, at) => [at, text] as const))('300 random cuttings into tokens, as messages and as parts: text %i', (at, text) => {
    const next = seededRandom(0x5eed + at);
    for (let round = 0; round < 300; round += 1) {
      const pieces = cut(text, next, round % 2 === 0 ? 4 : 10);
      expect(read(pieces), JSON.stringify(pieces)).toBe(text);
      expect(readParts(pieces), JSON.stringify(pieces)).toBe(text);
    }
  });

  it.each(NAMED_TEXTS.map((text) => [text]))('URLs, paths and ROS types, every cut in two: %j', (text) => {
    const chars = [...text];
    for (let at = 1; at < chars.length; at += 1) {
      const pieces = [chars.slice(0, at).join(''), chars.slice(at).join('')];
      expect(read(pieces), JSON.stringify(pieces)).toBe(text);
    }
  });

  it.each([...NAMED_TEXTS, CAMEL_URL_TEXT].map((text, at) => [at, text] as const))(
    'URLs, paths and ROS types, 300 random cuttings into tokens: text %i',
    (at, text) => {
      const next = seededRandom(0x5eed + TEXTS.length + at);
      for (let round = 0; round < 300; round += 1) {
        const pieces = cut(text, next, round % 2 === 0 ? 4 : 10);
        expect(read(pieces), JSON.stringify(pieces)).toBe(text);
        expect(readParts(pieces), JSON.stringify(pieces)).toBe(text);
      }
    },
  );
});
