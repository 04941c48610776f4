import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** SIGKILL to every child still running; resolves once all of them exited. */
export async function killChildren(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }),
  );
}
