/**
 * ListTasks paged across replicas and bindings (each page asked of the other replica, on the next binding,
 * with the page token the last one gave) while the caller's tasks are being created on both replicas: every
 * task there before the listing began is listed once, none twice, and the pages end. One page is the same
 * page whichever replica and binding it is asked of.
 */
import type { Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { requireRedis } from '../../support/redis.js';
import { asTask, listRequest, sendRequest } from '../../support/sdk-v1-client.js';
import { BINDINGS, BOB, sdkClient, startDeployment, type Deployment } from './deployment.js';

let deployment: Deployment<TestGateway>;
beforeAll(requireRedis);
beforeAll(async () => {
  deployment = await startDeployment();
});
afterAll(() => deployment?.close());

describe('ListTasks pages across replicas', () => {
  it('while tasks are created on both replicas, each earlier task is listed once, on pages asked of A and B in turn', async () => {
    // Every pair (replica, binding), so consecutive pages come from another replica and another binding.
    const clients: Client[] = [];
    for (const binding of BINDINGS) for (const replica of [deployment.a, deployment.b]) clients.push(await sdkClient(replica, binding, BOB));
    const before: Task[] = [];
    for (let i = 0; i < 10; i++) before.push(asTask(await clients[i % clients.length]!.sendMessage(sendRequest(`note earlier-${i}`))));

    let creating = true;
    const created: string[] = [];
    const creator = (async () => {
      for (let i = 0; creating; i++) {
        const client = clients[(i * 5) % clients.length]!;
        const script = i % 2 === 0 ? `note during-${i}` : `long during-${i} 2`;
        created.push(asTask(await client.sendMessage(sendRequest(script))).id);
      }
    })();

    const listed: string[] = [];
    let pageToken = '';
    for (let page = 0; page < 40; page++) {
      const answer = await clients[page % clients.length]!.listTasks(listRequest({ pageSize: 2, pageToken }));
      listed.push(...answer.tasks.map((task) => task.id));
      pageToken = answer.nextPageToken;
      if (!pageToken) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    creating = false;
    await creator;

    expect(pageToken, 'the pages ended').toBe('');
    expect(created.length, 'tasks were created while the pages were read').toBeGreaterThan(0);
    expect(
      listed.filter((id, index) => listed.indexOf(id) !== index),
      'listed twice',
    ).toEqual([]);
    for (const task of before)
      expect(
        listed.filter((id) => id === task.id),
        task.id,
      ).toHaveLength(1);
  }, 30_000);

  it('one page asked of A and of B, on each binding, is the same page', async () => {
    const request = listRequest({ pageSize: 5, historyLength: 1, includeArtifacts: true });
    const pages = [];
    for (const binding of BINDINGS) {
      for (const replica of [deployment.a, deployment.b]) pages.push(await (await sdkClient(replica, binding, BOB)).listTasks(request));
    }
    expect(pages[0]!.tasks.length).toBe(5);
    for (const page of pages.slice(1)) expect(page).toEqual(pages[0]);
  });
});
