import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createFileOnceSync, removeStaleTemps } from '../atomic-file.js';
import { ConfigError } from '../config/config-error.js';
import { errnoText } from '../errno-text.js';
import { withFields, type TaskPushNotificationConfig } from '../model/index.js';

/** An AES-256-GCM ciphertext with everything needed to open it, all binary fields base64. */
export interface Sealed {
  keyId: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

export interface KeyRing {
  /** Id of the key that encrypts (the first configured one). */
  readonly activeKeyId: string;
  encrypt(plaintext: string, associatedData?: string): Sealed;
  /** Throws when the key id is unknown or the ciphertext, tag or associated data was tampered with. */
  decrypt(sealed: Sealed, associatedData?: string): string;
}

export interface KeyRingOptions {
  /** Without configured keys, generate one: persisted (mode 0600) at persistPath, or kept in memory. */
  generateIfEmpty?: { persistPath?: string };
}

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const KEY_BYTES = 32;

/** Parses `keyId:base64-32-bytes` entries; errors name the entry, never its key material. */
function parseKeySpecs(specs: string[]): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  specs.forEach((spec, index) => {
    const separator = spec.indexOf(':');
    const id = separator > 0 ? spec.slice(0, separator) : '';
    const label = `push-keys entry #${index + 1}${KEY_ID.test(id) ? ` ('${id}')` : ''}`;
    if (!KEY_ID.test(id)) throw new Error(`${label}: expected 'keyId:base64-key' with a key id of letters, digits, _ . -`);
    const encoded = spec.slice(separator + 1);
    const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
    if (key.length !== KEY_BYTES) throw new Error(`${label}: the key must be ${KEY_BYTES} bytes, base64-encoded`);
    if (keys.has(id)) throw new Error(`${label}: duplicate key id`);
    keys.set(id, key);
  });
  return keys;
}

interface KeyFile {
  activeKeyId: string;
  keys: Array<{ id: string; key: string; createdAt: number }>;
}

/** `push key file <path> (in persistence-dir)`: what the operator looks for, the setting and the full path. */
const keyFileName = (path: string): string => `push key file ${resolve(path)} (in persistence-dir)`;

/** The key file's entries, active key first; undefined when there is none yet. Errors name the file and the errno, never its content. */
function readKeyFile(path: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${keyFileName(path)} cannot be read (${errnoText(error)})`);
  }
  try {
    const parsed = JSON.parse(text) as KeyFile;
    const active = parsed.keys.find((entry) => entry.id === parsed.activeKeyId);
    const ordered = active ? [active, ...parsed.keys.filter((entry) => entry !== active)] : parsed.keys;
    return ordered.map((entry) => `${entry.id}:${entry.key}`);
  } catch {
    // JSON.parse's words quote the text, which is key material.
    throw new ConfigError(`${keyFileName(path)} is malformed: not the JSON key file the gateway writes`);
  }
}

/**
 * The generated key file is created atomically and only if absent (createFileOnceSync), so two
 * processes starting together agree on one key: the one that lost reads the winner's. The temp files
 * a crash left mid-create are removed meanwhile (removeStaleTemps, which never fails): the ring is
 * made synchronously, and nothing reads them.
 */
function loadOrCreateKeyFile(path: string): string[] {
  void removeStaleTemps(path);
  const existing = readKeyFile(path);
  if (existing) return existing;
  try {
    createKeyFile(path);
  } catch (error) {
    throw new ConfigError(`${keyFileName(path)} cannot be created (${errnoText(error)})`);
  }
  return readKeyFile(path) ?? [];
}

function createKeyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const id = `push-${Date.now()}-${randomBytes(6).toString('hex')}`;
  const file: KeyFile = { activeKeyId: id, keys: [{ id, key: randomBytes(KEY_BYTES).toString('base64'), createdAt: Date.now() }] };
  createFileOnceSync(path, `${JSON.stringify(file)}\n`);
}

/**
 * What createKeyRing would refuse, found without creating anything (check-config): the configured
 * keys, else the key file generated before (none yet is fine: the start generates it).
 */
export function checkKeyRing(specs: string[], keyFile: string): void {
  parseKeySpecs(specs.length > 0 ? specs : (readKeyFile(keyFile) ?? []));
}

export function createKeyRing(specs: string[], options: KeyRingOptions = {}): KeyRing {
  let entries = specs;
  if (entries.length === 0) {
    if (!options.generateIfEmpty) throw new Error('push-keys: at least one key is required');
    const path = options.generateIfEmpty.persistPath;
    entries = path ? loadOrCreateKeyFile(path) : [`memory-${randomBytes(6).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}`];
  }
  const keys = parseKeySpecs(entries);
  const [activeKeyId, activeKey] = [...keys.entries()][0] as [string, Buffer];

  return {
    activeKeyId,
    encrypt(plaintext, associatedData = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', activeKey, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return {
        keyId: activeKeyId,
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        ciphertext: ciphertext.toString('base64'),
      };
    },
    decrypt(sealed, associatedData = '') {
      const key = keys.get(sealed.keyId);
      if (!key) throw new Error(`push secret was sealed with an unknown key id '${String(sealed.keyId).slice(0, 64)}'`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('push secret failed authentication (tampered, or sealed for another config)');
      }
    },
  };
}

/** A config as stored: `token` and `authentication.credentials` replaced by their sealed forms. */
export interface SealedPushConfig {
  config: TaskPushNotificationConfig;
  sealed: { token?: Sealed; credentials?: Sealed };
}

/** Binds a ciphertext to its field and config, so it cannot be copied into another config or field. */
const associatedData = (field: string, config: TaskPushNotificationConfig): string =>
  JSON.stringify(['a2a-bridge-push', field, config.taskId ?? '', config.id ?? '']);

export function sealConfig(keyRing: KeyRing, config: TaskPushNotificationConfig): SealedPushConfig {
  const { token, authentication, ...rest } = config;
  const sealed: SealedPushConfig['sealed'] = {};
  const clear: TaskPushNotificationConfig = { ...rest };
  if (token !== undefined) sealed.token = keyRing.encrypt(token, associatedData('token', config));
  if (authentication) {
    const { credentials, ...auth } = authentication;
    clear.authentication = auth;
    if (credentials !== undefined) {
      sealed.credentials = keyRing.encrypt(credentials, associatedData('authentication.credentials', config));
    }
  }
  return { config: clear, sealed };
}

export function openConfig(keyRing: KeyRing, stored: SealedPushConfig): TaskPushNotificationConfig {
  const config: TaskPushNotificationConfig = { ...stored.config };
  if (stored.sealed.token) config.token = keyRing.decrypt(stored.sealed.token, associatedData('token', config));
  if (stored.sealed.credentials && config.authentication) {
    config.authentication = withFields(config.authentication, {
      credentials: keyRing.decrypt(stored.sealed.credentials, associatedData('authentication.credentials', config)),
    });
  }
  return config;
}

export const MASK = '****';

/** What reads return unless `push-reveal-secrets` is set: the secrets' presence, not their value. */
export function maskConfig(config: TaskPushNotificationConfig): TaskPushNotificationConfig {
  const masked: TaskPushNotificationConfig = { ...config };
  if (masked.token !== undefined) masked.token = MASK;
  if (masked.authentication?.credentials !== undefined) masked.authentication = withFields(masked.authentication, { credentials: MASK });
  return masked;
}
