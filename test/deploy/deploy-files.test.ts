import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { workspacePruning } from '../../src/config/workspace-prune-schema.js';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFile(path.join(root, file), 'utf8');
const env = {
  IAC_CODE_A2A_TOKEN: 't',
  GATEWAY_TOKEN: 'g',
  BAILIAN_API_KEY: 'b',
  REDIS_URL: 'redis://redis:6379',
  PUBLIC_URL: 'https://agents.example.com',
};

describe('deploy/', () => {
  it('the Dockerfile has no syntax line (air-gapped builders), takes a corporate CA and uses the CLI as entrypoint', async () => {
    const dockerfile = await read('deploy/Dockerfile');
    expect(dockerfile).not.toMatch(/^#\s*syntax=/m);
    expect(dockerfile).toMatch(/^ARG CORPORATE_CA=/m);
    expect(dockerfile).toMatch(/NODE_EXTRA_CA_CERTS=/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/cli\.js"\]$/m);
  });

  it('compose: iac-code, two gateway replicas sharing the artifact and workspace volumes, Redis and nginx', async () => {
    const compose = YAML.parse(await read('deploy/compose/compose.yml'), { merge: true }) as { services: Record<string, any> };
    expect(Object.keys(compose.services).sort()).toEqual(['gateway-1', 'gateway-2', 'iac-code', 'nginx', 'redis']);
    const gatewayConfig = YAML.parse(await read('deploy/compose/a2a-bridge.yml')) as { upstream: Record<string, any> };
    const root = gatewayConfig.upstream['workspace-root'] as string;
    expect(compose.services['iac-code'].environment.IACCODE_A2A_ALLOWED_CWDS).toBe(root);
    expect(compose.services['iac-code'].volumes).toContain(`workspaces:${root}`);
    // The vendor of IAC_CODE_API_KEY, so a caller's model name cannot pick where the key goes (Bailian by default).
    expect(compose.services['iac-code'].environment.IAC_CODE_PROVIDER).toBe('${IAC_CODE_PROVIDER:-dashscope}');
    expect(gatewayConfig.upstream['workspace-prune']).toBeDefined();
    for (const name of ['gateway-1', 'gateway-2']) {
      expect(compose.services[name].volumes).toContain('artifacts:/artifacts:ro');
      // The gateways prune the folders iac-code makes: the same volume at the same place, writable.
      expect(compose.services[name].volumes).toContain(`workspaces:${root}`);
      expect(compose.services[name].command).toContain('serve');
    }
    expect(compose.services['iac-code'].volumes).toContain('artifacts:/artifacts');
    const nginx = await read('deploy/compose/nginx.conf');
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(nginx).toMatch(/proxy_read_timeout (\d+)s;/);
    expect(Number(/proxy_read_timeout (\d+)s;/.exec(nginx)![1])).toBeGreaterThan(15);
    expect(nginx).toMatch(/server gateway-1:8080/);
    expect(nginx).toMatch(/server gateway-2:8080/);
  });

  it('the gateway configs of compose and Kubernetes load, with the Redis store; push off, so no push queue set', async () => {
    const configMap = YAML.parse(await read('deploy/k8s/configmap.yaml')) as { data: Record<string, string> };
    const k8sFile = path.join(await mkdtemp(path.join(tmpdir(), 'a2a-bridge-k8s-')), 'a2a-bridge.yml');
    await writeFile(k8sFile, configMap.data['a2a-bridge.yml']!);
    for (const file of [path.join(root, 'deploy/compose/a2a-bridge.yml'), k8sFile]) {
      const { config } = await loadConfig({ argv: ['serve', '--config', file], env, cwd: root });
      expect(config.store).toBe('redis');
      // A queue for deliveries that are never made would only read as if push were on.
      expect(config['push-notifications']).toBe(false);
      expect(config['push-queue']).toBe('local-file');
      expect(config['push-keys']).toEqual([]);
      expect(config['trust-proxy']).toBe(true);
      expect(config.upstream['artifact-dir']).toBe('/artifacts');
      expect(workspacePruning(config.upstream)).toEqual({ root: '/workspaces', idleAfterMs: 7 * 24 * 3_600_000, everyMs: 3_600_000 });
      expect(config.auth.token).toBe('g');
    }
  });

  it('the example config bounds a quiet stream, and says so (no stream "may stay quiet as long as it likes")', async () => {
    const example = await read('deploy/a2a-bridge.example.yml');
    expect(example).not.toMatch(/as long as it likes/);
    const { config } = await loadConfig({
      argv: ['serve', '--config', path.join(root, 'deploy/a2a-bridge.example.yml')],
      env: { ...env, IAC_CODE_A2A_TOKEN: 't' },
      cwd: root,
    });
    expect(config.upstream['stream-idle-timeout-ms']).toBeGreaterThan(0);
    expect(config.upstream['first-event-timeout-ms']).toBeGreaterThan(0);
  });

  it('Kubernetes: one shared iac-code, probes, no service links, PDB, and every mount has its volume', async () => {
    const files = (await readdir(path.join(root, 'deploy/k8s'))).filter((f) => f.endsWith('.yaml'));
    const docs = (await Promise.all(files.map(async (f) => YAML.parseAllDocuments(await read(`deploy/k8s/${f}`)).map((d) => d.toJS())))).flat();
    const kinds = docs.map((d) => d.kind);
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'ConfigMap', 'Secret']) expect(kinds).toContain(kind);
    const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'a2a-gateway');
    const pod = deployment.spec.template.spec;
    expect(pod.enableServiceLinks).toBe(false);
    // No iac-code per pod: a follow-up turn may reach any replica (deploy/README.md, Scaling).
    expect(pod.containers.map((c: any) => c.name)).toEqual(['gateway']);
    expect(docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'a2a-gateway-iac-code')).toBeDefined();
    const [gateway] = pod.containers;
    expect(gateway.livenessProbe.httpGet.path).toBe('/health');
    expect(gateway.readinessProbe.httpGet.path).toBe('/ready');
    for (const { spec } of docs.filter((d) => d.kind === 'Deployment')) {
      const volumes = new Set(spec.template.spec.volumes.map((v: any) => v.name));
      for (const container of spec.template.spec.containers) for (const mount of container.volumeMounts) expect(volumes).toContain(mount.name);
    }
    const services = docs.filter((d) => d.kind === 'Service').map((d) => d.metadata.name);
    expect(services).not.toContain('a2a-bridge');
  });
});
