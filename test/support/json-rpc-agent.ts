/** What the hand-written 1.0 JSON-RPC agents of the tests (faulty-agent.ts, held-turns-agent.ts) share. */
import type { IncomingMessage } from 'node:http';

/** A 1.0 card naming one JSON-RPC interface at `${url}/`, streaming, one skill. */
export function jsonRpcAgentCard(
  url: string,
  about: { name: string; description: string; skill: { id: string; name: string; description: string }; inputModes?: string[] },
): unknown {
  return {
    name: about.name,
    description: about.description,
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: about.inputModes ?? ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ ...about.skill, tags: ['t'] }],
  };
}

/** A request's body, parsed as JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
