/**
 * A public-url with a path: the cards advertise the gateway's routes under it, while the gateway serves them at its
 * root, so an operator who registers the card in Bailian without a proxy that strips the prefix gets 404 for every
 * call. The start says so, naming the prefix.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load } = configFolder();

describe('public-url with a path', () => {
  it('warns that the proxy in front must strip the prefix, naming it', async () => {
    const { warnings } = await load(['--public-url', 'https://gw.example.com/bailian/agent1/']);
    const said = warnings.find((warning) => warning.startsWith('public-url has a path'));
    expect(said).toContain('(/bailian/agent1)');
    expect(said).toContain('/bailian/agent1/.well-known/agent.json must reach /.well-known/agent.json');
  });

  it('says nothing of a public-url at a host root, with or without its slash', async () => {
    for (const url of ['https://gw.example.com', 'https://gw.example.com/']) expect((await load(['--public-url', url])).warnings).toEqual([]);
  });
});
