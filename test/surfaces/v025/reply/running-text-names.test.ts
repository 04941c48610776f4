/**
 * A model's tokens, each in a working message of its own (a2a-python's `new_agent_text_message` per chunk),
 * cut URLs, paths and ROS resource types where a `:` or a `?` would otherwise read as a sentence's end; and a
 * progress message may open with a cloud resource id (`vsw-123 created`) that must not run into the message
 * before it. What a Bailian user reads of both.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { carriesOn } from '../../../../src/surfaces/v025/reply/running-text.js';
import { readText, run, status, submitted } from './support.js';

const working = (texts: readonly string[]): StreamResponse[] => texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`));
const read = (texts: readonly string[]): string => readText(run([submitted, ...working(texts), status('TASK_STATE_COMPLETED')]));

describe('a token cut inside a URL, a path or a ::-joined name carries on', () => {
  it.each([
    ['See https:', '//help.aliyun.com/docs for details.'],
    ['See https:', '/', '/help.aliyun.com/docs for details.'],
    ['访问 http:', '//47.96.12.34 即可。'],
    ['Call https://ecs.aliyuncs.com/?', 'Action=DescribeInstances&RegionId=cn-hangzhou'],
    ['Call https://ecs.aliyuncs.com/?Action=Describe', 'Instances&Region', 'Id=cn-hangzhou'],
    ['Docs: https://help.aliyun.com/zh/', 'ecs/user-guide/Create', 'Instance.html'],
    ['Type: ALIYUN::', 'ECS::Instance creates a VM.'],
    ['Type: ALIYUN::ECS::', 'Instance creates a VM.'],
    ['类型为 ALIYUN::ECS::', 'VPC。'],
    ['Saved to C:', '\\Users\\me'],
    ['Saved to /tmp/', 'Main.tf and C:', '\\Users\\me'],
  ])('%j + %j …', (...texts: string[]) => {
    expect(read(texts)).toBe(texts.join(''));
  });

  it('whole progress messages around URLs, paths and sentences still start their lines', () => {
    const lines = (texts: readonly string[]): string => texts.join('\n');
    for (const texts of [
      ['Docs: https://help.aliyun.com/docs', 'Creating VPC'],
      ['Docs: https://help.aliyun.com/docs', 'Done.'],
      ['See https://help.aliyun.com/?spm=a2c4g', 'Done.'],
      ['Opened https://x.com/docs?lang=en', 'Deploying'],
      ['Saved to /tmp/out', 'Main.tf validated'],
      // A lone word after a message that holds the whole URL: nothing tells a camel-cased word's hump from a
      // message of its own there (`Instances` or `Deploying`), and a line too many reads better.
      ['GET /?Action=Describe', 'Instances'],
      ['Did you open https://help.aliyun.com/docs?', 'Next I will create the VPC.'],
      ['Files written:', '/tmp/main.tf'],
      ['Plan ready.', 'Creating VPC'],
      ['Note:', 'Creating VPC'],
    ]) {
      expect(read(texts)).toBe(lines(texts));
    }
  });
});

describe("a model's token that goes on with a URL's last name", () => {
  it.each([
    // After the path's `/`, a name that goes on as a URL does: the next segment.
    ['Saved to https://oss.example.com/bucket/', 'Template.yaml'],
    ['模板已上传到 https://oss.example.com/', 'bucket/', 'Template.yaml', '。'],
    // Without the `/`, the same shape as a camel-cased name cut at its hump (`get` + `User.html`): carried on.
    ['Saved to https://oss.example.com/', 'bucket', 'Template.yaml'],
    // A camel-cased word inside a URL the tokens before already cut: the hump goes on, also as the URL's last token.
    ['Call https://ecs.aliyuncs.com/?Action=', 'Describe', 'Instances'],
    ['Call https://ecs.', 'aliyuncs.com/?Action=Describe', 'Instances', ' to list them.'],
  ])('%j + %j …', (...texts: string[]) => {
    expect(read(texts)).toBe(texts.join(''));
  });

  it('tells a piece of the URL from a message that holds it whole', () => {
    expect(carriesOn('e', 'Instances', { text: 'Describe', word: '/?Action=Describe' })).toBe(true);
    expect(carriesOn('e', 'Instances', { text: 'GET /?Action=Describe', word: '/?Action=Describe' })).toBe(false);
    expect(carriesOn('n', 'Deploying', { text: 'Opened https://x.com/docs?lang=en' })).toBe(false);
  });

  it("a one-word progress message after a URL a model streamed starts a line: its tokens cut every URL, only a capitalised name's piece goes on", () => {
    // Streamed, a URL is always in pieces: only a capitalised name being written (`?Action=` + `Describe`,
    // `/Create`) is a camel-cased word's hump; a lower-case name (`/ros`, `?lang=` + `en`) is not.
    const tokens = ['Docs', ':', ' https', '://', 'help', '.aliyun', '.com', '/zh', '/ros'];
    for (const word of ['Deploying…', 'Done', 'Validating']) {
      expect(read([...tokens, word])).toBe(`Docs: https://help.aliyun.com/zh/ros\n${word}`);
    }
    expect(read(['See https://x.com/docs?lang=', 'en', 'Deploying'])).toBe('See https://x.com/docs?lang=en\nDeploying');
    expect(read(['See https://x.com/a?next=', '/zh', '/ros', 'Deploying'])).toBe('See https://x.com/a?next=/zh/ros\nDeploying');
    expect(carriesOn('s', 'Deploying', { text: '/ros', word: 'https://help.aliyun.com/zh/ros' })).toBe(false);
    // The case the piece was for: a capitalised name cut between tokens, in a query or a path.
    expect(read(['Call https://ecs.aliyuncs.com/?', 'Action=', 'Describe', 'Instances', '&', 'Region', 'Id=cn'])).toBe(
      'Call https://ecs.aliyuncs.com/?Action=DescribeInstances&RegionId=cn',
    );
    expect(read(['Docs: https://help.aliyun.com/zh/ecs/user-guide/Cr', 'eate', 'Inst', 'ance.html'])).toBe(
      'Docs: https://help.aliyun.com/zh/ecs/user-guide/CreateInstance.html',
    );
  });

  it("a camel-cased name in a console link a model streamed word by word goes on: a query's name, a path's segment", () => {
    // Alibaba Cloud console links: a query's name (`?stack` + `Id`, no `=` yet) or a lower-case segment
    // (`/get` + `User`) cut at its hump, the next token a word no progress message is.
    for (const texts of [
      ['部署完成，请查看 ', 'https://ros.console.aliyun.com', '/cn-hangzhou', '/stacks', '?stack', 'Id', '=abc', ' 。'],
      ['Open ', 'https://ecs.console.aliyun.com', '/server', '?region', 'Id', '=cn-hangzhou', ' to see it.'],
      ['Open ', 'https://ros.console.aliyun.com', '/stacks', '?resource', 'Group', 'Id', '=rg-1', ' now.'],
      ['Log in to ', 'https://signin.aliyun.com', '/login', '.htm', '?callback', 'Url', '=x', ' first.'],
      ['See ', 'https://example.com', '/api', '/get', 'User', 'Info', ' for details.'],
      ['Open ', 'https://ros.console.aliyun.com/cn-hangzhou/stacks?resource', 'Group', 'Id=rg-1', ' now.'],
      ['Visit ', 'https://github.com', '/aliyun', '/terraform-provider-ali', 'Cloud', ' please.'],
      ['Open ', 'https://ros.console.aliyun.com/stacks?stack', 'Id', '&region', 'Id', '=cn-hangzhou'],
    ]) {
      expect(read(texts)).toBe(texts.join(''));
    }
    // A progress word after such a link still starts a line.
    expect(read(['Open ', 'https://ros.console.aliyun.com', '/stacks', '?stack', 'Id', '=abc', 'Deploying…'])).toBe(
      'Open https://ros.console.aliyun.com/stacks?stackId=abc\nDeploying…',
    );
    expect(read(['See ', 'https://example.com', '/api', '/get', 'User', 'Info', 'Done'])).toBe('See https://example.com/api/getUserInfo\nDone');
    // A message that holds the whole URL, ending in a path's lower-case name, may be followed by a word of its own.
    expect(read(['See ', 'https://example.com/api/get', 'User'])).toBe('See https://example.com/api/get\nUser');
  });

  it('the last token on the status that ends the turn, under the running id, goes on with the URL too', () => {
    const under = (text: string) => status('TASK_STATE_WORKING', text, {}, 'm');
    const tokens = [submitted, under('Saved to https://oss.'), under('example.com/bucket/')];
    expect(readText(run([...tokens, status('TASK_STATE_COMPLETED', 'Template.yaml', {}, 'm')]))).toBe(
      'Saved to https://oss.example.com/bucket/Template.yaml',
    );
    // New words still start a line there.
    expect(readText(run([...tokens, status('TASK_STATE_COMPLETED', 'Done.', {}, 'm')]))).toBe('Saved to https://oss.example.com/bucket/\nDone.');
  });
});

describe('a progress message that opens with a whole cloud resource id', () => {
  it('starts a line after a message that ends in a whole word', () => {
    expect(read(['Creating vSwitch', 'vsw-123 created'])).toBe('Creating vSwitch\nvsw-123 created');
    expect(read(['Creating VPC', 'vpc-bp1abc'])).toBe('Creating VPC\nvpc-bp1abc');
    expect(read(['Created VPC vpc-1', 'i-bp1xyz is starting'])).toBe('Created VPC vpc-1\ni-bp1xyz is starting');
    expect(read(['Opening the ports', 'sg-bp1abc updated'])).toBe('Opening the ports\nsg-bp1abc updated');
  });

  it("a model's tokens that cut an id, or a word before one, still carry on", () => {
    for (const texts of [
      ['Creating vsw', '-123 now'],
      ['Creating vs', 'w-123 now'],
      ['the RDS instance r', 'm-bp1xyz'],
      ['the RDS instance r', 'm-bp1xyz.'],
      ['the ', 'vpc-bp1', 'abc is ready'],
      ['ID是', 'vpc-bp1234', '。'],
      ['in cn', '-hangzhou now'],
    ]) {
      expect(read(texts)).toBe(texts.join(''));
    }
  });
});
