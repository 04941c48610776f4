import { z } from 'zod';
import { mappingProfileNames } from '../mappings/load.js';
import { KeyList } from './named-secrets.js';

/**
 * Whether a base path holds a segment no request can be trusted to reach it by: `.` or `..` (surfaces/shared/path-guard.ts
 * answers 404 to them), or an empty one (`//tasks`), which clients resolve and proxies merge (nginx's merge_slashes)
 * into another path, often one of the gateway's own routes. Trailing slashes are no segment: the facade is mounted
 * without them.
 */
const hasUnreachableSegment = (path: string): boolean =>
  path
    .replace(/\/+$/, '')
    .split('/')
    .slice(1)
    .some((segment) => segment === '' || segment === '.' || segment === '..');

/**
 * A `profile` no file in mappings/profiles has is refused with the other settings, where the message can say where it
 * was given; loading it at start would fail too, without that. Only the facade reads it: off, any name passes.
 */
function checkProfileName(bailian: { enabled: boolean; profile: string }, ctx: z.RefinementCtx): void {
  if (!bailian.enabled) return;
  const unknown = unknownProfile(bailian.profile);
  if (unknown) ctx.addIssue({ code: 'invalid_value', values: unknown.names, input: bailian.profile, path: ['profile'], message: unknown.message });
}

/** Why `profile` names no mapping profile (the names there are, and the words for it); undefined when it names one. */
export function unknownProfile(profile: string): { names: string[]; message: string } | undefined {
  const names = mappingProfileNames();
  return names.includes(profile) ? undefined : { names, message: `expected one of ${names.join(', ')}` };
}

/** A skill of the facade's card, in place of the upstream's (`bailian.card.skills`). */
const SkillOverride = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()).min(1),
  examples: z.array(z.string()).optional(),
});

/** The 0.2.5 facade Bailian calls (config `bailian`). */
export const BailianConfig = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Where the 0.2.5 facade lives: `/` shares the JSON-RPC endpoint with the 1.0 surface. */
    'base-path': z
      .string()
      .regex(/^\/[A-Za-z0-9._~/-]*$/, 'must be a path starting with /')
      .refine(
        (path) => !hasUnreachableSegment(path),
        'must not hold an empty, `.` or `..` segment (requests on such a path are refused with 404 or rewritten on the way, so the facade could not be reached); write it plainly, e.g. /bailian',
      )
      .default('/'),
    'api-key': z.string().min(1).optional(),
    /**
     * Further keys, each a caller of its own (the old and the new key side by side while Bailian's is
     * rotated); a key may carry a client name for logs and metrics (`{ name, key }`).
     */
    'api-keys': KeyList,
    /** Mapping profile in mappings/profiles (bailian or a2a-0.2.5). */
    profile: z.string().default('bailian'),
    /** Per-entry overrides of the profile's tables, e.g. `states-to-v025: {TASK_STATE_INPUT_REQUIRED: input-required}`. */
    mappings: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.number()]))).default({}),
    /** What happens to metadata.iac_code tool/usage/thinking details on the facade: pass them in event metadata, or drop them. */
    'upstream-metadata': z.enum(['pass', 'drop']).default('drop'),
    /** Non-text parts from a 0.2.5 caller: a -32005 error, or a failed task. */
    'non-text-parts': z.enum(['error', 'fail-task', 'forward']).default('error'),
    /** Bailian's protocol/intent extension fields of message.metadata are forwarded upstream under this key. */
    'extension-metadata-key': z.string().min(1).default('bailian'),
    /**
     * Base64 images Bailian puts in message.metadata.images: raw parts of the message when the upstream's
     * card accepts their type ('parts'), or left in the metadata ('metadata').
     */
    images: z.enum(['parts', 'metadata']).default('parts'),
    /**
     * URL images of that list (with `images: parts`): fetched by the gateway under the push callback
     * address rules and made parts like base64 ones, or (`fetch: false`) left in the metadata.
     */
    'image-urls': z
      .strictObject({
        fetch: z.boolean().default(true),
        /** iac-code's own bound on an image part. */
        'max-bytes': z
          .number()
          .int()
          .min(1)
          .default(5 * 1024 * 1024),
        'timeout-ms': z.number().int().min(1).default(10_000),
        /** Images fetched per message; the rest stay in the metadata. */
        'max-images': z.number().int().min(0).default(4),
        /** Fetches running at once, all callers together; one that finds none free is not made. */
        'max-concurrent': z.number().int().min(1).default(16),
        /** Private, loopback and metadata addresses allowed: only where the images live on the operator's own network. */
        'allow-private': z.boolean().default(false),
      })
      .prefault({}),
    /**
     * The language of the facade's own words (pipeline headings, how to answer, the permission prompt's
     * defaults): `auto` follows the caller's writing turn by turn (English when it says nothing).
     */
    language: z.enum(['auto', 'en', 'zh', 'ja']).default('auto'),
    /** How file, data and URL parts reach the caller: as text (the profile's default for Bailian) or as they are. Absent: the profile decides. */
    'render-parts': z.enum(['text', 'native']).optional(),
    /** Largest file shown inline as text; larger ones become a one-line description. */
    'inline-max-bytes': z
      .number()
      .int()
      .min(0)
      .default(256 * 1024),
    card: z
      .strictObject({
        name: z.string().min(1).optional(),
        description: z.string().min(1).optional(),
        version: z.string().min(1).optional(),
        skills: z.array(SkillOverride).min(1).optional(),
      })
      .prefault({}),
  })
  .superRefine(checkProfileName)
  .prefault({});
export type BailianConfig = z.infer<typeof BailianConfig>;
