/** How often a gateway npm started looks whether npm's shell is still its parent. */
const PARENT_CHECK_MS = 1_000;

/** Redirections that hold an `&` (`2>&1`, `&>`, `>&`): not control operators. */
const REDIRECTIONS = /\d*>&\d*-?|&>>?/g;
/** A control operator or substitution: the script is more than one command (`&`, `&&`, `;`, `|`, a new line). */
const MORE_THAN_ONE_COMMAND = /[&;|\n`]|\$\(/;
/** The script's first word, quotes taken off (npx quotes it: `'a2a-bridge' 'serve'`). */
const FIRST_WORD = /^\s*['"]?([^\s'"]+)/;

/**
 * Whether npm runs the gateway itself as the one command of a script or bin it waits for: npm sets
 * `npm_lifecycle_event` and `npm_lifecycle_script` (the command) for what it runs, and its children
 * inherit them. Only a script that is one command starting `node` or `a2a-bridge` (`npm start`, `npx
 * a2a-bridge serve`): one that backgrounds it (`nohup … &`), chains commands, or runs a wrapper
 * (`./start.sh`, which may leave the gateway behind on purpose) is not watched.
 */
export function startedByNpmInForeground(env: NodeJS.ProcessEnv): boolean {
  const script = env.npm_lifecycle_script;
  if (!env.npm_lifecycle_event || !script) return false;
  if (MORE_THAN_ONE_COMMAND.test(script.replace(REDIRECTIONS, ''))) return false;
  const command = FIRST_WORD.exec(script)?.[1] ?? '';
  return /(?:^|\/)(?:node|a2a-bridge)$/.test(command);
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
