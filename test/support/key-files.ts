/** Key material made for one test: PEM files in a temporary directory, removed by `cleanup()`. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export interface TestKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  privatePemFile: string;
  publicPemFile: string;
  publicJwk: JWK;
}

export interface KeyDir {
  dir: string;
  pair(alg: 'ES256' | 'EdDSA', name: string): Promise<TestKeyPair>;
  file(name: string, text: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function keyDir(): Promise<KeyDir> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-keys-'));
  const file = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text, { mode: 0o600 });
    return path;
  };
  return {
    dir,
    file,
    async pair(alg, name) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      return {
        privateKey,
        publicKey,
        privatePemFile: await file(`${name}.pem`, await exportPKCS8(privateKey)),
        publicPemFile: await file(`${name}.pub.pem`, await exportSPKI(publicKey)),
        publicJwk: await exportJWK(publicKey),
      };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
