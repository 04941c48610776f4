/**
 * The shipped gateway configs all sit in front of iac-code: each keeps callers to their own cloud account
 * (`upstream.caller-settings`), so no holder of a gateway credential picks iac-code's model, spends its
 * LLM key or chooses its folder, and none starts with the open-settings warning.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { openCallerSettingsWarning } from '../../src/upstream/iac-code/open-caller-settings.js';

const root = path.resolve(__dirname, '../..');
const env = { IAC_CODE_A2A_TOKEN: 't', GATEWAY_TOKEN: 'g', BAILIAN_API_KEY: 'b', REDIS_URL: 'redis://redis:6379' };
const OWN_CLOUD_ACCOUNT = [
  'alibaba_cloud_access_key_id',
  'alibaba_cloud_access_key_secret',
  'alibaba_cloud_security_token',
  'alibaba_cloud_region_id',
];

/** The Kubernetes gateway config, written out of its ConfigMap as the pod mounts it. */
async function k8sConfigFile(): Promise<string> {
  const configMap = YAML.parse(await readFile(path.join(root, 'deploy/k8s/configmap.yaml'), 'utf8')) as { data: Record<string, string> };
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'a2a-bridge-k8s-')), 'a2a-bridge.yml');
  await writeFile(file, configMap.data['a2a-bridge.yml']!);
  return file;
}

it('the example, compose and Kubernetes configs let callers set only their own cloud account', async () => {
  const files = [path.join(root, 'deploy/a2a-bridge.example.yml'), path.join(root, 'deploy/compose/a2a-bridge.yml'), await k8sConfigFile()];
  for (const file of files) {
    const { config } = await loadConfig({ argv: ['serve', '--config', file], env, cwd: root });
    expect(config.upstream['caller-settings'], file).toEqual(OWN_CLOUD_ACCOUNT);
    expect(openCallerSettingsWarning(config.upstream), file).toBeUndefined();
  }
});
