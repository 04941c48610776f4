import { getJson } from '../upstream/card-fetch.js';
import { createUpstreamPool } from '../upstream/http.js';
import { AGENT_JSON_PATH } from '../upstream/v025/card.js';
import { agentUrl, clientConfig, headerPairs, parseCommandLine, UsageError } from './agent.js';
import {
  complain,
  EXIT_FAILURE,
  EXIT_NEEDS_INPUT,
  EXIT_OK,
  EXIT_UNREACHABLE,
  EXIT_USAGE,
  isCredentialsRefused,
  oneLine,
  shown,
} from './exit-codes.js';
import { lintCard, type RuleResult } from './lint-card.js';
import { lintKeyEnforced, lintStreamTurn } from './lint-turn.js';
import { withFields } from '../model/index.js';

const USAGE = `Usage: a2a-bridge lint URL [options]

Checks the A2A 0.2.5 card at URL (an agent's base URL, or the card's own URL) against what Alibaba
Cloud Bailian requires of a third-party agent, then does a test message/stream turn at the card's
url + /stream the way Bailian does. Each rule is printed with PASS, FAIL or WARN and how to fix it.

Options:
  --api-key K          the key you will enter in Bailian: the card must declare X-API-KEY, calls send it,
                       and a call without it must be refused
  --allow-http         an http card url is a warning, not a failure (local testing only)
  --no-turn            check the card only
  --text T             the test turn's text (default "hello")
  --header "N: V"      an extra request header (repeatable)
  --timeout-ms N       bound on each request (default 60000)
  --json               print the results as JSON

Exit codes: 0 every rule passed, 1 a rule failed, 2 usage, 3 no card at URL (or URL unreachable),
4 the agent refused the credentials (HTTP 401/403) for the card or the test turn.`;

const LINT_OPTIONS = {
  'allow-http': { type: 'boolean', default: false },
  'no-turn': { type: 'boolean', default: false },
  text: { type: 'string', default: 'hello' },
  'timeout-ms': { type: 'string', default: '60000' },
} as const;

/** The card's address: URL itself when it names a .json document, else the 0.2.5 well-known path. */
export const cardAddress = (url: string): string => (/\.json$/.test(new URL(url).pathname) ? url : `${url}${AGENT_JSON_PATH}`);

function print(results: readonly RuleResult[]): void {
  const width = Math.max(...results.map((result) => result.rule.length));
  for (const result of results) {
    const mark = result.ok ? (result.warning ? 'WARN' : 'PASS') : result.warning ? 'WARN' : 'FAIL';
    process.stdout.write(`${mark}  ${result.rule.padEnd(width)}  ${result.detail}\n`);
    if (!result.ok && result.fix) process.stdout.write(`      ${' '.repeat(width)}  fix: ${result.fix}\n`);
  }
  const failed = results.filter((result) => !result.ok && !result.warning).length;
  const warned = results.filter((result) => result.warning).length;
  process.stdout.write(`\n${results.length - failed - warned} passed, ${failed} failed, ${warned} warning(s)\n`);
}

/** `a2a-bridge lint URL`. */
export async function run(argv: string[]): Promise<number> {
  let parsed;
  let url: string;
  let headers: Record<string, string>;
  let timeoutMs: number;
  try {
    parsed = parseCommandLine(argv, LINT_OPTIONS);
    if (parsed.values.help) {
      process.stdout.write(`${USAGE}\n`);
      return EXIT_OK;
    }
    if (parsed.positionals.length !== 1) throw new UsageError('expected exactly one URL');
    url = agentUrl(parsed.positionals[0]);
    const config = clientConfig(withFields(parsed.values, { protocol: '0.2.5' }));
    timeoutMs = config['request-timeout-ms'] || 60_000;
    headers = headerPairs(parsed.values.header);
    if (parsed.values['api-key']) headers['x-api-key'] = parsed.values['api-key'];
  } catch (error) {
    complain(`${oneLine(error)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values } = parsed;
  const dispatcher = createUpstreamPool(clientConfig({ protocol: '0.2.5', 'timeout-ms': String(timeoutMs) }));
  try {
    const where = cardAddress(url);
    let card: unknown;
    try {
      const answer = await getJson(where, { dispatcher, headers, timeoutMs });
      if (isCredentialsRefused(answer.status)) {
        // With nothing sent (no --api-key or --header), no credentials were refused: the card asks for them.
        const refusal =
          Object.keys(headers).length > 0
            ? `the agent refused the credentials for its card at ${where}`
            : `the agent's card at ${where} needs credentials`;
        complain(`${refusal} (HTTP ${answer.status}): pass the key with --api-key (on the gateway: bailian.api-key), or what it takes with --header`);
        return EXIT_NEEDS_INPUT;
      }
      if (answer.status !== 200 || answer.body === undefined) {
        complain(`no card at ${where} (HTTP ${answer.status}${answer.status === 200 ? ', not JSON' : ''})`);
        return EXIT_UNREACHABLE;
      }
      card = answer.body;
    } catch (error) {
      complain(`cannot reach the agent card at ${where}: ${oneLine(error)}`);
      return EXIT_UNREACHABLE;
    }
    const results = lintCard(card, { apiKey: !!values['api-key'], allowHttp: values['allow-http'] });
    const cardUrl = (card as { url?: unknown }).url;
    if (!values['no-turn']) {
      if (typeof cardUrl === 'string' && /^https?:\/\//.test(cardUrl)) {
        const turn = { dispatcher, headers, timeoutMs, text: values.text, ...(values['api-key'] ? { apiKey: values['api-key'] } : {}) };
        const base = cardUrl.replace(/\/+$/, '');
        try {
          results.push(...(await lintStreamTurn(base, turn)));
          if (values['api-key']) results.push(await lintKeyEnforced(base, turn));
        } catch (error) {
          results.push({
            rule: 'stream-answers',
            ok: false,
            detail: `the test turn at ${base}/stream failed: ${oneLine(error)}`,
            fix: 'the card url must be reachable from Bailian and answer message/stream at url + /stream',
          });
        }
      } else {
        results.push({ rule: 'stream-answers', ok: false, detail: 'no usable card url to call', fix: 'set url to the https base address' });
      }
    }
    // Each text on its own: a redacted query value runs to the next blank, which in a JSON text is past its closing quote.
    const safeResults = results.map((result) => withFields(result, { detail: shown(result.detail) }));
    if (values.json) process.stdout.write(`${JSON.stringify({ card: shown(where), results: safeResults }, null, 2)}\n`);
    else print(safeResults);
    if (results.some((result) => result.credentialsRefused)) return EXIT_NEEDS_INPUT;
    return results.some((result) => !result.ok && !result.warning) ? EXIT_FAILURE : EXIT_OK;
  } finally {
    await dispatcher.close();
  }
}
