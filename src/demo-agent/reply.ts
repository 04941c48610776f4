import type { Message } from '../model/index.js';

/**
 * The demo agent's deterministic replies, so tests can assert on exact text.
 *
 * Special prompts (the prompt is the message's text parts joined with "\n"; data parts count as
 * their compact JSON):
 * - `slow:<anything>`  the normal echo followed by SLOW_EXTRA_CHUNKS chunks of "." streamed with the
 *                      slow delay (50 ms by default), so cancel-mid-stream and busy-context cases
 *                      have time to happen.
 * - `fail:<reason>`    the turn ends TASK_STATE_FAILED with `<reason>` (or "Demo failure.") as the
 *                      agent status message, like an iac-code runtime error.
 * - `template:<what>`  the echo, then a `write_file` tool call that stores main.tf as an iac-code
 *                      artifact (template-turn.ts), then "Wrote main.tf ✓", as iac-code writes a template.
 * - empty prompt       FAILED "A2A server currently accepts text input only.", like iac-code.
 */

export const SLOW_PREFIX = 'slow:';
export const FAIL_PREFIX = 'fail:';
export const TEMPLATE_PREFIX = 'template:';
export const SLOW_EXTRA_CHUNKS = 20;
export const TEXT_ONLY_MESSAGE = 'A2A server currently accepts text input only.';

export interface DemoReply {
  chunks: string[];
  full: string;
}

/** `Echo (turn N): <text>` cut after each run of whitespace; the chunks always join to `full`. */
export function demoReply(text: string, turn: number): DemoReply {
  const echo = `Echo (turn ${turn}): ${text}`;
  const chunks = echo.match(/\S+\s*|\s+/g) ?? [echo];
  if (text.startsWith(SLOW_PREFIX)) {
    for (let i = 0; i < SLOW_EXTRA_CHUNKS; i += 1) chunks.push('.');
  }
  return { chunks, full: chunks.join('') };
}

export type TurnPlan = { kind: 'reply'; reply: DemoReply; slow: boolean; usage: TokenUsage; template?: string } | { kind: 'fail'; message: string };

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** What one turn does for a prompt: the reply to stream, or the failure to report. */
export function planTurn(text: string, turn: number): TurnPlan {
  if (text.trim() === '') return { kind: 'fail', message: TEXT_ONLY_MESSAGE };
  if (text.startsWith(FAIL_PREFIX)) {
    return { kind: 'fail', message: text.slice(FAIL_PREFIX.length).trim() || 'Demo failure.' };
  }
  const reply = demoReply(text, turn);
  const inputTokens = text.split(/\s+/).filter(Boolean).length;
  const outputTokens = reply.chunks.length;
  const asksForTemplate = text.startsWith(TEMPLATE_PREFIX);
  return {
    kind: 'reply',
    reply,
    slow: text.startsWith(SLOW_PREFIX),
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    ...(asksForTemplate ? { template: text.slice(TEMPLATE_PREFIX.length).trim() || 'a VPC' } : {}),
  };
}

/** The prompt: text parts as they are, data parts as compact JSON, joined by newlines. */
export function promptText(message: Message): string {
  return message.parts
    .map((part) => (part.text !== undefined ? part.text : part.data !== undefined ? JSON.stringify(part.data) : ''))
    .filter((text) => text !== '')
    .join('\n');
}
