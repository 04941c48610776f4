import { withFields } from '../model/index.js';
/**
 * Bailian's contract for a third-party agent's 0.2.5 card (docs/bailian.md), as rules a person can act
 * on: each says what it checks, whether the card passes, and how to fix it (gateway keys where they apply).
 */
export interface RuleResult {
  rule: string;
  ok: boolean;
  /** A failure that Bailian tolerates, or a rule skipped on request: shown, but not failing the lint. */
  warning?: boolean;
  detail: string;
  fix?: string;
  /** The agent refused the credentials the lint sent (HTTP 401/403): what comes after it went unchecked, and the lint exits 4. */
  credentialsRefused?: boolean;
}

export interface CardLintOptions {
  /** The key the operator will enter in Bailian; with one, the card must declare the X-API-KEY scheme. */
  apiKey?: boolean;
  /** Local testing: an http `url` is a warning instead of a failure. */
  allowHttp?: boolean;
}

type Card = Record<string, unknown>;

const REQUIRED = ['name', 'description', 'url', 'version', 'protocolVersion', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'];
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

const pass = (rule: string, detail: string): RuleResult => ({ rule, ok: true, detail });
const fail = (rule: string, detail: string, fix: string): RuleResult => ({ rule, ok: false, detail, fix });

function requiredFields(card: Card): RuleResult {
  const missing = REQUIRED.filter((key) => card[key] === undefined || card[key] === null || card[key] === '');
  return missing.length === 0
    ? pass('required-fields', 'name, description, url, version, protocolVersion, capabilities, modes and skills are present')
    : fail('required-fields', `missing: ${missing.join(', ')}`, 'add the missing fields (the gateway: bailian.card.name / description / version)');
}

function protocolVersion(card: Card): RuleResult {
  return card.protocolVersion === '0.2.5'
    ? pass('protocol-version', 'protocolVersion is 0.2.5')
    : fail(
        'protocol-version',
        `protocolVersion is ${JSON.stringify(card.protocolVersion)}`,
        "Bailian speaks A2A 0.2.5: serve a 0.2.5 card (the gateway's facade does)",
      );
}

function httpsUrl(card: Card, options: CardLintOptions): RuleResult {
  const url = typeof card.url === 'string' ? card.url : '';
  if (url.startsWith('https://')) return pass('url-https', `url ${url} is https`);
  const result = fail(
    'url-https',
    `url ${JSON.stringify(url)} is not https`,
    'Bailian accepts only https: set public-url to the https address (or tls.cert-file/key-file)',
  );
  return options.allowHttp && url.startsWith('http://')
    ? withFields(result, { warning: true, detail: `${result.detail} (allowed by --allow-http)` })
    : result;
}

function noTrailingSlash(card: Card): RuleResult {
  const url = typeof card.url === 'string' ? card.url : '';
  return url && !url.endsWith('/')
    ? pass('url-no-trailing-slash', 'url does not end with /, so url + "/stream" is a clean path')
    : fail(
        'url-no-trailing-slash',
        `url ${JSON.stringify(url)} ends with /`,
        'Bailian appends /stream to the url: remove the trailing slash (bailian.base-path without one)',
      );
}

function textModes(card: Card): RuleResult {
  const problems: string[] = [];
  for (const key of ['defaultInputModes', 'defaultOutputModes']) {
    const modes = card[key];
    if (!Array.isArray(modes) || !modes.includes('text/plain')) problems.push(`${key} lacks text/plain`);
  }
  return problems.length === 0
    ? pass('text-plain-modes', 'input and output modes include text/plain')
    : fail(
        'text-plain-modes',
        problems.join('; '),
        'Bailian supports only text/plain: list "text/plain" in both defaultInputModes and defaultOutputModes',
      );
}

function skills(card: Card): RuleResult {
  const list = card.skills;
  if (!Array.isArray(list) || list.length === 0) {
    return fail('skills', 'no skills', 'declare at least one skill with id, name, description and tags (bailian.card.skills)');
  }
  const problems: string[] = [];
  list.forEach((skill, i) => {
    const label = isRecord(skill) && nonEmpty(skill.id) ? `skill ${String(skill.id)}` : `skill #${i + 1}`;
    if (!isRecord(skill)) return problems.push(`${label} is not an object`);
    const missing = ['id', 'name', 'description'].filter((key) => !nonEmpty(skill[key]));
    if (missing.length) problems.push(`${label} lacks ${missing.join(', ')}`);
    if (!Array.isArray(skill.tags) || skill.tags.length === 0 || !skill.tags.every(nonEmpty)) problems.push(`${label} has no tags`);
    return undefined;
  });
  return problems.length === 0
    ? pass('skills', `${list.length} skill(s), each with id, name, description and tags`)
    : fail('skills', problems.join('; '), 'give every skill an id, name, description and at least one tag (bailian.card.skills[].tags)');
}

function streaming(card: Card): RuleResult {
  return isRecord(card.capabilities) && card.capabilities.streaming === true
    ? pass('streaming', 'capabilities.streaming is true')
    : fail(
        'streaming',
        'capabilities.streaming is not true',
        'Bailian streams replies: set capabilities.streaming: true and answer message/stream at url + /stream',
      );
}

function apiKeyScheme(card: Card, options: CardLintOptions): RuleResult {
  if (!options.apiKey)
    return { rule: 'api-key-scheme', ok: true, warning: true, detail: 'skipped: no --api-key given (Bailian then calls without a key)' };
  const schemes = isRecord(card.securitySchemes) ? card.securitySchemes : {};
  const names = Object.entries(schemes)
    .filter(
      ([, scheme]) =>
        isRecord(scheme) &&
        scheme.type === 'apiKey' &&
        scheme.in === 'header' &&
        typeof scheme.name === 'string' &&
        scheme.name.toLowerCase() === 'x-api-key',
    )
    .map(([name]) => name);
  const required = Array.isArray(card.security) && card.security.some((entry) => isRecord(entry) && names.some((name) => name in entry));
  return names.length > 0 && required
    ? pass('api-key-scheme', 'an apiKey scheme in the X-API-KEY header is declared and required')
    : fail(
        'api-key-scheme',
        names.length ? 'the X-API-KEY scheme is declared but not listed in security' : 'no apiKey scheme with header X-API-KEY',
        'declare securitySchemes {type: apiKey, in: header, name: X-API-KEY} and require it (the gateway does when bailian.api-key is set)',
      );
}

/** Every card rule, in the order a person fixes them. */
export function lintCard(card: unknown, options: CardLintOptions = {}): RuleResult[] {
  if (!isRecord(card)) return [fail('card-json', 'the card is not a JSON object', 'serve the card as a JSON object at /.well-known/agent.json')];
  return [
    requiredFields(card),
    protocolVersion(card),
    httpsUrl(card, options),
    noTrailingSlash(card),
    textModes(card),
    skills(card),
    streaming(card),
    apiKeyScheme(card, options),
  ];
}
