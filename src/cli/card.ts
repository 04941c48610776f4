import { parseArgs } from 'node:util';
import { getJson } from '../upstream/card-fetch.js';
import { createUpstreamPool, credentialHeaders } from '../upstream/http.js';
import { AGENT_CARD_JSON_PATH, AGENT_JSON_PATH } from '../upstream/v025/card.js';
import { classifyCard } from '../upstream/detect.js';
import {
  agentBaseUrl,
  AGENT_OPTIONS,
  agentOptionsHelp,
  clientConfig,
  headerPairs,
  TYPED_V025_CARD_HINT,
  typedV025Card,
  UsageError,
} from './agent.js';
import { complain, EXIT_NEEDS_INPUT, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE, isCredentialsRefused, oneLine, shown } from './exit-codes.js';
import { withFields } from '../model/index.js';
import { NOT_READY, notReady } from './call-failure.js';

const USAGE = `Usage: a2a-bridge card URL [options]

Prints the agent card of the agent at URL as it is served, as indented JSON: the 1.0 card
(${AGENT_CARD_JSON_PATH}, asked for with A2A-Version: 1.0) or, with --protocol 0.2.5 or when there is
none, the 0.2.5 card (${AGENT_JSON_PATH}).
A 1.0 card that refuses the credentials (HTTP 401/403) is not "none": pass them, or --protocol 0.2.5.
The first line on stderr names the protocol and where the card was found.

Options:
${agentOptionsHelp('print the card on one line (compact JSON) instead of indented')}

Exit codes: 0 printed, 2 usage, 3 no agent card at URL (or URL unreachable, or the agent not ready: HTTP
503), 4 the credentials missing or refused (HTTP 401/403).`;

/** `a2a-bridge card URL`: the card exactly as served, pretty-printed (or one line with --json). */
export async function run(argv: string[]): Promise<number> {
  let values;
  let url: string;
  let typedV025 = false;
  try {
    const parsed = parseArgs({ args: argv, options: AGENT_OPTIONS, allowPositionals: true, strict: true });
    values = parsed.values;
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return EXIT_OK;
    }
    if (parsed.positionals.length !== 1) throw new UsageError('expected exactly one URL');
    url = agentBaseUrl(parsed.positionals[0]);
    typedV025 = typedV025Card(parsed.positionals[0]!);
  } catch (error) {
    complain(`${oneLine(error)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  let config;
  let headers: Record<string, string>;
  try {
    config = clientConfig(values);
    headers = withFields(credentialHeaders(config.auth), headerPairs(values.header));
  } catch (error) {
    complain(oneLine(error));
    return EXIT_USAGE;
  }
  const dispatcher = createUpstreamPool(config);
  const tries: Array<{ path: string; headers: Record<string, string>; foundAt: 'agent-card.json' | 'agent.json' }> = [];
  if (config.protocol !== '0.2.5')
    tries.push({ path: AGENT_CARD_JSON_PATH, headers: config.protocol === '0.3' ? {} : { 'a2a-version': '1.0' }, foundAt: 'agent-card.json' });
  if (config.protocol === 'auto' || config.protocol === '0.2.5') tries.push({ path: AGENT_JSON_PATH, headers: {}, foundAt: 'agent.json' });
  const misses: string[] = [];
  // A card that asks for credentials is the agent refusing them (exit 4), as the gateway's detection takes
  // it: falling back from a refused 1.0 card to agent.json would print an open 0.2.5 side (an
  // a2a-bridge's facade) and exit 0. Only a missing card (404, not a card) sends on to the next path.
  let refused: { cardUrl: string; status: number } | undefined;
  let cardUrl = url;
  try {
    for (const attempt of tries) {
      cardUrl = `${url}${attempt.path}`;
      const answer = await getJson(cardUrl, {
        dispatcher,
        headers: withFields(headers, attempt.headers),
        timeoutMs: config['request-timeout-ms'],
      });
      const protocol = answer.status === 200 ? classifyCard(answer.body, attempt.foundAt) : undefined;
      if (!protocol) {
        if (answer.status === NOT_READY) {
          const failure = notReady(url, cardUrl);
          complain(failure.text);
          return failure.code;
        }
        if (isCredentialsRefused(answer.status)) {
          refused = { cardUrl, status: answer.status };
          break;
        }
        misses.push(`${attempt.path}: HTTP ${answer.status}${answer.status === 200 ? ', not an agent card' : ''}`);
        continue;
      }
      process.stderr.write(`${shown(`A2A ${protocol} card at ${cardUrl}`)}\n`);
      process.stdout.write(`${values.json ? JSON.stringify(answer.body) : JSON.stringify(answer.body, null, 2)}\n`);
      return EXIT_OK;
    }
    if (refused) {
      const { cardUrl: where, status } = refused;
      const hint = typedV025 && config.protocol === 'auto' ? TYPED_V025_CARD_HINT : '';
      // With nothing sent (no --token, --api-key or --header), no credentials were refused: the card asks for them.
      complain(
        Object.keys(headers).length > 0
          ? `the agent refused the credentials for its card at ${where} (HTTP ${status}): give it credentials with --token, --api-key or --header${hint}`
          : `the agent's card at ${where} needs credentials (HTTP ${status}): give them with --token, --api-key or --header${hint}`,
      );
      return EXIT_NEEDS_INPUT;
    }
    complain(`no agent card at ${url} (${misses.join('; ')})`);
    return EXIT_UNREACHABLE;
  } catch (error) {
    complain(`cannot reach the agent card at ${cardUrl}: ${oneLine(error)}`);
    return EXIT_UNREACHABLE;
  } finally {
    await dispatcher.close();
  }
}
