import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stdoutDestination } from '../src/stdout-destination.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function logFile(flags = 'a'): { file: string; fd: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'stdout-destination-'));
  dirs.push(dir);
  const file = path.join(dir, 'log');
  closeSync(openSync(file, 'a'));
  return { file, fd: openSync(file, flags) };
}

type Destination = ReturnType<typeof stdoutDestination> & {
  flushSync(): void;
  flush(cb: () => void): void;
  on(event: 'error', listener: () => void): void;
};

const LINES = Array.from({ length: 100 }, (_, i) => `{"msg":"line ${i}"}\n`);

describe('the gateway stdout destination', () => {
  it('writes every line still held when flushed at exit', async () => {
    const { file, fd } = logFile();
    const destination = stdoutDestination(fd) as Destination;
    for (const line of LINES) destination.write(line);
    destination.flushSync();
    // The first line went to an asynchronous write before the flush, which does not wait for it: it may land last.
    await new Promise<void>((resolve) => destination.flush(() => resolve()));
    closeSync(fd);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean).sort()).toEqual(LINES.map((line) => line.trim()).sort());
  });

  // A write error other than a full pipe, as EPIPE is for a reader gone: here EBADF, from a file open for reading.
  it('ends its exit flush, without throwing, when the lines cannot be written', () => {
    const { fd } = logFile('r');
    const destination = stdoutDestination(fd) as Destination;
    destination.on('error', () => {});
    for (const line of LINES) destination.write(line);
    expect(() => destination.flushSync()).not.toThrow();
    closeSync(fd);
  });
});
