/** How often a gateway npm started looks whether npm's shell is still its parent. */
const PARENT_CHECK_MS = 1_000;

/** A script that ends in a lone `&` (`nohup node dist/cli.js serve > log 2>&1 &`) leaves the gateway running on purpose. */
const BACKGROUNDED = /(?:^|[^&])&\s*$/;

/**
 * Whether npm runs the gateway as the command of a script or bin it waits for: npm sets
 * `npm_lifecycle_event` (and `npm_lifecycle_script`, the command) for what it runs, and its children inherit them.
 */
export function startedByNpmInForeground(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.npm_lifecycle_event) && !BACKGROUNDED.test(env.npm_lifecycle_script ?? '');
}

/**
 * `npx a2a-bridge serve` and `npm start` run the gateway under `sh -c`. On SIGTERM or SIGINT npm passes
 * the signal to that shell only; dash dies of it without passing it on, npm exits, and the gateway ran
 * on orphaned (parent pid 1): never drained, its port still taken. Started so by npm, the gateway
 * takes the loss of its parent for the stop it was sent, and calls `stop`. Not otherwise: `nohup`,
 * `setsid` or a shell's `&` leave a process behind on purpose. Cheap: one unref'd timer reading the parent pid.
 */
export function stopWhenNpmParentLost(stop: () => void, env: NodeJS.ProcessEnv = process.env): void {
  if (!startedByNpmInForeground(env)) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, PARENT_CHECK_MS);
  timer.unref();
}
