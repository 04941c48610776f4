import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { startupLine } from '../../src/cli/exit-codes.js';

describe('startupLine', () => {
  it("keeps the path of the operator's own problem: a ConfigError, an fs error on a file the config named", () => {
    expect(startupLine(new ConfigError('persistence-dir /srv/a/state cannot be used (ENOTDIR: not a directory)\nmore'))).toBe(
      'persistence-dir /srv/a/state cannot be used (ENOTDIR: not a directory)',
    );
    const fsError = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/a/state/push'"), {
      code: 'EACCES',
      syscall: 'mkdir',
      path: '/srv/a/state/push',
    });
    expect(startupLine(fsError)).toBe("EACCES: permission denied, mkdir '/srv/a/state/push'");
  });

  it('leaves the paths out of anything else (a module, an agent or a Redis speaking)', () => {
    expect(startupLine(new Error("Cannot find module '/work/app/dist/x/y.js' imported from /work/app/dist/app.js"))).toBe(
      "Cannot find module 'y.js' imported from app.js",
    );
  });
});
