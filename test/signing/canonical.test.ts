/**
 * The canonical forms a card signature covers: RFC 8785 against the RFC's own published samples
 * (fixtures/rfc8785-vectors.json, copied from the RFC text), the card projection against the
 * official a2a-js SDK's canonicalizeAgentCard, and the a2a-python dialect iac-code signs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalizeAgentCard } from 'a2a-sdk-1';
import { buildDemoCard, buildExtendedDemoCard } from '../../src/demo-agent/index.js';
import { cardPayload } from '../../src/signing/card-payload.js';
import { canonicalize } from '../../src/signing/jcs.js';
import { pythonFloat, pythonJsonDumps } from '../../src/signing/python-json.js';

interface Vectors {
  'section-3.2.2': { input: string; output: string; 'output-utf8-hex': string };
  'section-3.2.3': { input: string; 'sorted-values': string[] };
  'appendix-b': Array<[string, string | null, string]>;
}
const vectors = JSON.parse(readFileSync(new URL('./fixtures/rfc8785-vectors.json', import.meta.url), 'utf8')) as Vectors;

const fromBits = (hex: string): number => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('RFC 8785 canonicalization', () => {
  it('section 3.2.2: whitespace, literals, numbers and string escapes', () => {
    const sample = vectors['section-3.2.2'];
    const canonical = canonicalize(JSON.parse(sample.input));
    expect(canonical).toBe(sample.output);
    expect(Buffer.from(canonical, 'utf8').toString('hex')).toBe(sample['output-utf8-hex']);
  });

  it('section 3.2.3: members sorted by UTF-16 code units', () => {
    const sample = vectors['section-3.2.3'];
    // Read the order off the text: JSON.parse would put the integer-like key "1" first again.
    const canonical = canonicalize(JSON.parse(sample.input));
    const values = [...canonical.matchAll(/:"([^"]*)"/g)].map((match) => match[1]);
    expect(values).toEqual(sample['sorted-values']);
  });

  it.each(vectors['appendix-b'])('appendix B: %s serializes as %s (%s)', (bits, expected) => {
    const value = fromBits(bits);
    if (expected === null) expect(() => canonicalize(value)).toThrow(/finite/);
    else expect(canonicalize(value)).toBe(expected);
  });

  it('refuses what I-JSON excludes instead of changing it', () => {
    expect(() => canonicalize({ text: 'broken \ud800 surrogate' })).toThrow(/well-formed/);
    expect(() => canonicalize({ when: () => 1 })).toThrow(/not JSON data/);
    expect(canonicalize({ nested: [{ b: 1, a: [] }, {}] })).toBe('{"nested":[{"a":[],"b":1},{}]}');
  });
});

/** A card with every kind of field the projection treats specially. */
function richCard(): Record<string, unknown> {
  return {
    ...buildDemoCard('https://agents.example.com'),
    // 0.3 fields 1.0 servers append: outside the 1.0 schema, so outside the signature.
    url: 'https://agents.example.com/',
    preferredTransport: 'JSONRPC',
    protocolVersion: '1.0',
    additionalInterfaces: [{ url: 'https://agents.example.com', transport: 'HTTP+JSON' }],
    unknownTopLevel: { anything: true },
    documentationUrl: '',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [
        { uri: 'urn:a:required', required: true, description: 'ünïcödé €', params: { n: 1024, f: 20.5, tiny: 1e-7, list: [], deep: { x: '' } } },
        { uri: 'urn:b:optional', required: false },
      ],
    },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: '' } },
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      oauth: {
        oauth2SecurityScheme: {
          flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { read: 'r' }, pkceRequired: false } },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { key: { list: ['x'] } } }],
    signatures: [{ protected: 'e30', signature: 'AA', header: {} }],
  };
}

describe('the card payload', () => {
  it('is byte for byte what the a2a-js SDK canonicalizes (demo cards and a card with every special field)', () => {
    for (const card of [buildDemoCard('http://127.0.0.1:1'), buildExtendedDemoCard('http://127.0.0.1:1'), richCard()]) {
      expect(cardPayload(card)).toBe(canonicalizeAgentCard(card as never));
    }
  });

  it('leaves out signatures, fields outside the 1.0 schema, empty values and required: false', () => {
    const payload = JSON.parse(cardPayload(richCard())) as Record<string, any>;
    for (const field of [
      'signatures',
      'url',
      'preferredTransport',
      'protocolVersion',
      'additionalInterfaces',
      'unknownTopLevel',
      'documentationUrl',
    ]) {
      expect(payload).not.toHaveProperty(field);
    }
    expect(payload.capabilities.extensions[1]).toEqual({ uri: 'urn:b:optional' });
    expect(payload.capabilities.pushNotifications).toBe(false);
    expect(payload.capabilities.extensions[0].params).toEqual({ n: 1024, f: 20.5, tiny: 1e-7 });
  });

  it('in the a2a-python dialect writes Struct numbers as Python floats and escapes non-ASCII', () => {
    const card = {
      name: 'n',
      description: 'é',
      version: '1',
      supportedInterfaces: [{ url: 'http://x/', protocolBinding: 'JSONRPC' }],
      capabilities: { streaming: true, extensions: [{ uri: 'urn:p', params: { maxBatchEvents: 1024, maxBatchDelayMs: 20, ratio: 0.5 } }] },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    expect(cardPayload(card, 'python')).toBe(
      '{"capabilities":{"extensions":[{"params":{"maxBatchDelayMs":20.0,"maxBatchEvents":1024.0,"ratio":0.5},"uri":"urn:p"}],"streaming":true},' +
        '"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"description":"\\u00e9","name":"n",' +
        '"supportedInterfaces":[{"protocolBinding":"JSONRPC","url":"http://x/"}],"version":"1"}',
    );
  });

  it('formats floats the way Python repr() does', () => {
    const cases: Array<[number, string]> = [
      [1024, '1024.0'],
      [20, '20.0'],
      [0.5, '0.5'],
      [1e-5, '1e-05'],
      [0.0001, '0.0001'],
      [1e16, '1e+16'],
      [1234567890123456, '1234567890123456.0'],
      [1.5e300, '1.5e+300'],
      [-2.25, '-2.25'],
      [0, '0.0'],
    ];
    for (const [value, text] of cases) expect(pythonFloat(value)).toBe(text);
    expect(pythonJsonDumps({ b: [true, null], a: 'x"\n\u007f' })).toBe('{"a":"x\\"\\n\\u007f","b":[true,null]}');
  });
});
