import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig, usage } from '../config/load.js';
import { complain, EXIT_USAGE } from './exit-codes.js';

function packageVersion(): string {
  // src/cli/main.ts and dist/cli/main.js both sit two levels below package.json.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Commands that talk to an agent take their own options; the rest read the gateway's configuration. */
const AGENT_COMMANDS: Record<string, () => Promise<{ run(argv: string[]): Promise<number> }>> = {
  call: () => import('./call.js'),
  card: () => import('./card.js'),
  lint: () => import('./lint.js'),
};

async function main(argv: string[]): Promise<void> {
  const agentCommand = argv[0] ? AGENT_COMMANDS[argv[0]] : undefined;
  if (agentCommand) {
    process.exitCode = await (await agentCommand()).run(argv.slice(1));
    return;
  }
  let loaded;
  try {
    loaded = await loadConfig({ argv, env: process.env, cwd: process.cwd() });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    complain(`${error.message}\nRun 'a2a-bridge --help' for usage.`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  switch (loaded.command) {
    case 'help':
      process.stdout.write(`${usage()}\n`);
      return;
    case 'version':
      process.stdout.write(`${packageVersion()}\n`);
      return;
    case 'check-config': {
      const { checkConfig } = await import('./check-config.js');
      process.exitCode = await checkConfig(loaded.config, loaded.warnings);
      return;
    }
    case 'health': {
      const { health } = await import('./health.js');
      process.exitCode = await health(loaded.config);
      return;
    }
    case 'serve': {
      const { serve } = await import('./serve.js');
      await serve(loaded.config, loaded.warnings);
    }
  }
}

await main(process.argv.slice(2));
