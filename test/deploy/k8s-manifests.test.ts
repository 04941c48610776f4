/**
 * The Kubernetes manifests (deploy/k8s) as an API server and a kubelet would take them, short of a
 * cluster (none here): every object against the Kubernetes API schema of its kind (kubernetes-models,
 * the types and required fields `kubectl apply` would refuse), and every reference between the objects
 * resolved: selectors, named ports, config and secret keys, claims, the Service the Ingress and the
 * gateway's Redis URL name, and the shared iac-code Service the gateway's upstream points to. Then what
 * the objects do in a cluster: any replica can take any turn, /metrics is not routed out, a stopping
 * pod keeps serving until the endpoints have dropped it.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';

type Manifest = Record<string, any>;

const folder = path.resolve(__dirname, '../../deploy/k8s');
let files: string[];
let objects: Array<Manifest & { file: string }>;

beforeAll(async () => {
  files = (await readdir(folder)).filter((file) => file.endsWith('.yaml'));
  objects = (
    await Promise.all(
      files.map(async (file) => YAML.parseAllDocuments(await readFile(path.join(folder, file), 'utf8')).map((doc) => ({ ...doc.toJS(), file }))),
    )
  )
    .flat()
    .filter((object) => object.kind !== 'Kustomization');
});

const ofKind = (kind: string) => objects.filter((object) => object.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find((object) => object.metadata.name === name);
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
/** The Deployments whose pods a selector picks. */
const podsOf = (selector: Record<string, string>) => ofKind('Deployment').filter((d) => matches(selector, d.spec.template.metadata.labels));
const gatewayPod = (): Manifest => named('Deployment', 'a2a-gateway')!.spec.template.spec;
const gatewayContainer = (): Manifest => gatewayPod().containers.find((c: Manifest) => c.name === 'gateway');
const iacCode = (): Manifest =>
  named('Deployment', 'a2a-gateway-iac-code')!.spec.template.spec.containers.find((c: Manifest) => c.name === 'iac-code');
const containerPorts = (deployment: Manifest): Manifest[] => deployment.spec.template.spec.containers.flatMap((c: Manifest) => c.ports ?? []);

/** The kubernetes-models class of an object's apiVersion and kind (`v1` is the core group). */
async function modelOf(object: Manifest): Promise<new (data: Manifest) => { validate(): void }> {
  const module = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<
    string,
    new (data: Manifest) => { validate(): void }
  >;
  return module[object.kind]!;
}

describe('deploy/k8s', () => {
  it('kustomization.yaml lists every manifest of the folder, so `kubectl apply -k` applies them all', async () => {
    const kustomization = YAML.parse(await readFile(path.join(folder, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(files.filter((file) => file !== 'kustomization.yaml').sort());
  });

  it('every object is valid for the Kubernetes API schema of its kind', async () => {
    expect(objects.length).toBeGreaterThan(5);
    for (const object of objects) {
      const Model = await modelOf(object);
      expect(() => new Model(object).validate(), `${object.file}: ${object.kind} ${object.metadata?.name}`).not.toThrow();
    }
  });

  it("each Deployment's selector picks its own pods (the API server refuses one that does not)", () => {
    for (const deployment of ofKind('Deployment')) {
      expect(matches(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels), deployment.metadata.name).toBe(true);
    }
  });

  it('each Service, the PDB and the Ingress reach pods through ports that exist', () => {
    for (const service of ofKind('Service')) {
      const [deployment, ...more] = podsOf(service.spec.selector);
      expect(deployment, `Service ${service.metadata.name} selects no pods`).toBeDefined();
      expect(more).toEqual([]);
      const names = containerPorts(deployment!).map((port) => port.name);
      for (const port of service.spec.ports) if (typeof port.targetPort === 'string') expect(names).toContain(port.targetPort);
    }
    for (const pdb of ofKind('PodDisruptionBudget')) {
      expect(podsOf(pdb.spec.selector.matchLabels).map((d) => d.metadata.name)).toEqual(['a2a-gateway']);
    }
    for (const ingress of ofKind('Ingress')) {
      for (const rule of ingress.spec.rules) {
        for (const { backend } of rule.http.paths) {
          const service = named('Service', backend.service.name);
          expect(service, `Ingress backend ${backend.service.name}`).toBeDefined();
          expect(service!.spec.ports.map((port: Manifest) => port.name)).toContain(backend.service.port.name);
        }
      }
    }
  });

  it("every container's probes use its named ports, and every ConfigMap and Secret key it reads exists", () => {
    for (const deployment of ofKind('Deployment')) {
      const pod = deployment.spec.template.spec;
      for (const container of pod.containers) {
        const ports = (container.ports ?? []).map((port: Manifest) => port.name);
        for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
          const port = container[probe]?.httpGet?.port;
          if (typeof port === 'string') expect(ports, `${container.name} ${probe}`).toContain(port);
        }
        for (const source of container.envFrom ?? []) expect(named('Secret', source.secretRef.name)).toBeDefined();
        for (const { valueFrom } of container.env ?? []) {
          const ref = valueFrom?.secretKeyRef;
          if (ref) expect(Object.keys(named('Secret', ref.name)?.stringData ?? {}), `${container.name} env`).toContain(ref.key);
        }
        for (const mount of container.volumeMounts ?? []) {
          const volume = pod.volumes.find((v: Manifest) => v.name === mount.name);
          expect(volume, `${container.name} mounts ${mount.name}`).toBeDefined();
          if (volume.persistentVolumeClaim) expect(named('PersistentVolumeClaim', volume.persistentVolumeClaim.claimName), mount.name).toBeDefined();
          if (volume.configMap && mount.subPath) {
            expect(Object.keys(named('ConfigMap', volume.configMap.name)?.data ?? {}), `${container.name} ${mount.mountPath}`).toContain(
              mount.subPath,
            );
          }
        }
      }
    }
  });

  it("iac-code names the vendor of its API key (IAC_CODE_PROVIDER), so a caller's model name cannot pick where the key goes", () => {
    expect(iacCode().env.find((e: Manifest) => e.name === 'IAC_CODE_PROVIDER')?.value).toBe('dashscope');
  });

  it("the gateway's config names the iac-code Service's port, a workspace root iac-code allows and mounts (and the gateway, which prunes it, the same folder of the same volume, writable), and the Redis Service", () => {
    const data = named('ConfigMap', 'a2a-gateway-config')!.data;
    const gateway = YAML.parse(data['a2a-bridge.yml']) as { upstream: { url: string; 'workspace-root': string; 'workspace-prune'?: unknown } };
    const root = gateway.upstream['workspace-root'];
    expect(iacCode().env.find((e: Manifest) => e.name === 'IACCODE_A2A_ALLOWED_CWDS')?.value).toBe(root);
    const iacCodeMount = iacCode().volumeMounts.find((m: Manifest) => m.mountPath === root);
    expect(iacCodeMount, `iac-code mounts ${root}`).toBeDefined();
    expect(gateway.upstream['workspace-prune']).toBeDefined();
    const gatewayMount = gatewayContainer().volumeMounts.find((m: Manifest) => m.mountPath === root);
    const claimOf = (deployment: string, volume: string) =>
      named('Deployment', deployment)!.spec.template.spec.volumes.find((v: Manifest) => v.name === volume)?.persistentVolumeClaim?.claimName;
    expect(claimOf('a2a-gateway', gatewayMount.name), `the gateway mounts ${root}`).toBe(claimOf('a2a-gateway-iac-code', iacCodeMount.name));
    expect(gatewayMount.subPath).toBe(iacCodeMount.subPath);
    expect(gatewayMount.readOnly ?? false).toBe(false);
    // The artifacts the gateway shows callers: the folder iac-code writes them to.
    const artifacts = (c: Manifest) => c.volumeMounts.find((m: Manifest) => m.mountPath === '/artifacts');
    expect(artifacts(gatewayContainer()).subPath).toBe(artifacts(iacCode()).subPath);
    const iacCodeConfig = YAML.parse(data['iac-code-a2a-server.yml']) as { host: string; port: number };
    const upstream = new URL(gateway.upstream.url);
    const service = named('Service', upstream.hostname);
    expect(service, `upstream.url names the Service ${upstream.hostname}`).toBeDefined();
    const servicePort = service!.spec.ports.find((port: Manifest) => port.port === Number(upstream.port));
    expect(servicePort, `${upstream.hostname} has port ${upstream.port}`).toBeDefined();
    expect(iacCode().ports.find((port: Manifest) => port.name === servicePort.targetPort)?.containerPort).toBe(iacCodeConfig.port);
    // Reached from other pods: not bound to loopback.
    expect(iacCodeConfig.host).toBe('0.0.0.0');
    const redis = new URL(named('Secret', 'a2a-gateway-secrets')!.stringData.REDIS_URL);
    const redisService = named('Service', redis.hostname);
    expect(redisService, `REDIS_URL names ${redis.hostname}`).toBeDefined();
    expect(redisService!.spec.ports.map((port: Manifest) => port.port)).toContain(Number(redis.port));
  });

  it('any replica can take any turn: one iac-code (never two at once), on a volume every node can mount, and no session affinity', () => {
    expect(gatewayPod().containers.map((c: Manifest) => c.name)).toEqual(['gateway']);
    const deployment = named('Deployment', 'a2a-gateway-iac-code')!;
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy.type).toBe('Recreate');
    for (const claim of ofKind('PersistentVolumeClaim')) expect(claim.spec.accessModes).toEqual(['ReadWriteMany']);
    for (const service of ofKind('Service')) expect(service.spec.sessionAffinity ?? 'None').toBe('None');
    // Only the gateway pods may call it.
    const policy = ofKind('NetworkPolicy').find((p) => matches(p.spec.podSelector.matchLabels, deployment.spec.template.metadata.labels));
    expect(policy, 'a NetworkPolicy for iac-code').toBeDefined();
    const from = policy!.spec.ingress.flatMap((rule: Manifest) => rule.from.map((peer: Manifest) => podsOf(peer.podSelector.matchLabels)));
    expect(from.flat().map((d: Manifest) => d.metadata.name)).toEqual(['a2a-gateway']);
  });

  it('the images the manifests name are the ones deploy/README.md builds and pushes, where kustomization.yaml points the nodes', async () => {
    const readme = await readFile(path.resolve(folder, '../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### The images a cluster pulls'));
    const commands = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const kustomization = YAML.parse(await readFile(path.join(folder, 'kustomization.yaml'), 'utf8')) as {
      images: Array<{ name: string; newName: string; newTag: string }>;
    };
    const { version } = JSON.parse(await readFile(path.resolve(folder, '../../package.json'), 'utf8')) as { version: string };
    const images = ['a2a-gateway', 'a2a-gateway-iac-code'].map((name) => named('Deployment', name)!.spec.template.spec.containers[0].image as string);
    expect(images[0]).toBe(`a2a-bridge:${version}`);
    // Built under the name the manifest gives, in the README's table and its steps.
    expect(readme).toContain(`docker build -f deploy/Dockerfile -t ${images[0]} .\``);
    expect(commands).toContain(`docker build -f deploy/Dockerfile -t ${images[0]} .`);
    for (const image of images) {
      const [name, tag] = image.split(':');
      const entry = kustomization.images.find((one) => one.name === name);
      expect(entry, `kustomization.yaml images: ${name}`).toBeDefined();
      expect(entry!.newTag).toBe(tag);
      const pulled = `${entry!.newName}:${entry!.newTag}`;
      expect(commands).toContain(`docker tag ${image} ${pulled}\n`);
      expect(commands).toContain(`docker push ${pulled}\n`);
      expect(commands).toContain(`${name}=${pulled}`);
    }
  });

  it("the gateway pods get the Secret keys their config names, and not iac-code's model key", () => {
    const config = named('ConfigMap', 'a2a-gateway-config')!.data['a2a-bridge.yml'] as string;
    // The ${VAR}s of the config, left out the commented ones (push, off).
    const referenced = new Set(
      config
        .split('\n')
        .filter((line) => !line.trim().startsWith('#'))
        .flatMap((line) => [...line.matchAll(/\$\{(\w+)\}/g)].map((found) => found[1]!)),
    );
    const container = gatewayContainer();
    const given = [
      ...(container.envFrom ?? []).flatMap((source: Manifest) => Object.keys(named('Secret', source.secretRef.name)?.stringData ?? {})),
      ...(container.env ?? []).map((entry: Manifest) => entry.name),
    ];
    expect(given).not.toContain('IAC_CODE_API_KEY');
    for (const variable of referenced) expect(given, `the gateway's config reads \${${variable}}`).toContain(variable);
    expect(iacCode().env.map((entry: Manifest) => entry.name)).toContain('IAC_CODE_API_KEY');
  });

  it('Redis takes only the gateway pods (a NetworkPolicy) and the password REDIS_URL gives', () => {
    const deployment = named('Deployment', 'a2a-gateway-redis')!;
    const policy = ofKind('NetworkPolicy').find((p) => matches(p.spec.podSelector.matchLabels, deployment.spec.template.metadata.labels));
    expect(policy, 'a NetworkPolicy for Redis').toBeDefined();
    expect(policy!.spec.policyTypes).toContain('Ingress');
    const from = policy!.spec.ingress.flatMap((rule: Manifest) => rule.from.map((peer: Manifest) => podsOf(peer.podSelector.matchLabels)));
    expect(from.flat().map((d: Manifest) => d.metadata.name)).toEqual(['a2a-gateway']);
    // requirepass from the Secret, the value REDIS_URL carries.
    const redis = deployment.spec.template.spec.containers.find((c: Manifest) => c.name === 'redis');
    const args = redis.args as string[];
    const variable = /^\$\((\w+)\)$/.exec(args[args.indexOf('--requirepass') + 1] ?? '')?.[1];
    expect(variable, 'redis-server --requirepass $(VAR)').toBeDefined();
    const ref = redis.env.find((entry: Manifest) => entry.name === variable)?.valueFrom?.secretKeyRef;
    const password = named('Secret', ref.name)!.stringData[ref.key];
    expect(decodeURIComponent(new URL(named('Secret', 'a2a-gateway-secrets')!.stringData.REDIS_URL).password)).toBe(password);
    // Its readiness probe authenticates too (redis-cli reads REDISCLI_AUTH).
    expect(redis.env.find((entry: Manifest) => entry.name === 'REDISCLI_AUTH')?.valueFrom?.secretKeyRef).toEqual(ref);
  });

  it('/metrics on a port of its own that neither the Service nor the Ingress routes to, and no snippet annotation (ingress-nginx >= 1.9 refuses them)', () => {
    const config = YAML.parse(named('ConfigMap', 'a2a-gateway-config')!.data['a2a-bridge.yml']) as { port?: number; metrics: { port?: number } };
    const metricsPort = config.metrics.port;
    expect(metricsPort).toBeDefined();
    expect(metricsPort).not.toBe(config.port ?? 8080);
    const containerPort = gatewayContainer().ports.find((port: Manifest) => port.containerPort === metricsPort);
    expect(containerPort, 'the gateway container declares the metrics port').toBeDefined();
    for (const service of ofKind('Service')) {
      for (const port of service.spec.ports) expect([containerPort.name, metricsPort]).not.toContain(port.targetPort ?? port.port);
    }
    expect(named('Deployment', 'a2a-gateway')!.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(metricsPort));
    for (const ingress of ofKind('Ingress')) expect(Object.keys(ingress.metadata.annotations ?? {}).filter((key) => /snippet/.test(key))).toEqual([]);
  });

  it('a stopping gateway keeps serving until the endpoints dropped it (preStop), then drains, within the grace period', () => {
    const sleep = gatewayContainer().lifecycle?.preStop;
    const seconds = sleep?.sleep?.seconds ?? Number(sleep?.exec?.command?.[0] === 'sleep' ? sleep.exec.command[1] : NaN);
    expect(seconds).toBeGreaterThanOrEqual(5);
    const config = YAML.parse(named('ConfigMap', 'a2a-gateway-config')!.data['a2a-bridge.yml']) as { 'drain-timeout-ms'?: number };
    const drainSeconds = (config['drain-timeout-ms'] ?? 10_000) / 1000;
    expect(gatewayPod().terminationGracePeriodSeconds).toBeGreaterThan(seconds + drainSeconds);
  });
});
