/** A test CA and certificates signed by it, made with openssl in a temporary directory. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Certificates {
  dir: string;
  /** `<name>.pem` / `<name>.key` / `ca.pem` in the directory. */
  file(name: string): string;
  cleanup(): Promise<void>;
}

/**
 * `ca.pem` (and its key), then for each name a certificate and key: `servers` for 127.0.0.1 and
 * localhost, `clients` for TLS client authentication.
 */
export async function makeCertificates(names: { servers?: string[]; clients?: string[] }): Promise<Certificates> {
  const dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-certs-'));
  const file = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=a2a-bridge test CA');
  await writeFile(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await writeFile(file('client.ext'), 'extendedKeyUsage=clientAuth\n');
  const issue = async (name: string, ext: string) => {
    await ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    await ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      ext,
    );
  };
  for (const name of names.servers ?? []) await issue(name, 'server.ext');
  for (const name of names.clients ?? []) await issue(name, 'client.ext');
  return { dir, file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
