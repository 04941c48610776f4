/**
 * The folder the current test file's gateways keep their files in (own-persistence-dir.ts makes one per
 * file). Held on globalThis, not in a module: a `shared` worker runs every file's setup in one process,
 * and a module imported by a test may be an instance older than the setup that ran for this file.
 */
const CURRENT = Symbol.for('a2a-bridge.test.persistence-dir');
type Holder = Record<symbol, string | undefined>;

/** Undefined outside vitest's setup (a script run by hand). */
export const testPersistenceDir = (): string | undefined => (globalThis as unknown as Holder)[CURRENT];

export function setTestPersistenceDir(dir: string): void {
  (globalThis as unknown as Holder)[CURRENT] = dir;
}
