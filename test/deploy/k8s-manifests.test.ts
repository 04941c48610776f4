/**
 * The Kubernetes manifests (deploy/k8s) as an API server and a kubelet would take them, short of a
 * cluster (none here): every object against the Kubernetes API schema of its kind (kubernetes-models,
 * the types and required fields `kubectl apply` would refuse), and every reference between the objects
 * resolved: selectors, named ports, config and secret keys, the Service the Ingress and the gateway's
 * Redis URL name, and the sidecar the gateway's upstream points to.
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
          if (volume.configMap && mount.subPath) {
            expect(Object.keys(named('ConfigMap', volume.configMap.name)?.data ?? {}), `${container.name} ${mount.mountPath}`).toContain(
              mount.subPath,
            );
          }
        }
      }
    }
  });

  it("the iac-code sidecar names the vendor of its API key (IAC_CODE_PROVIDER), so a caller's model name cannot pick where the key goes", () => {
    const containers = named('Deployment', 'a2a-gateway')!.spec.template.spec.containers as Manifest[];
    const sidecar = containers.find((c) => c.name === 'iac-code')!;
    expect(sidecar.env.find((e: Manifest) => e.name === 'IAC_CODE_PROVIDER')?.value).toBe('dashscope');
  });

  it("the gateway's config names the iac-code sidecar's port, a workspace root the sidecar allows and mounts (and the gateway, which prunes it, the same volume there, writable), and the Redis Service", () => {
    const data = named('ConfigMap', 'a2a-gateway-config')!.data;
    const gateway = YAML.parse(data['a2a-bridge.yml']) as { upstream: { url: string; 'workspace-root': string; 'workspace-prune'?: unknown } };
    const containers = named('Deployment', 'a2a-gateway')!.spec.template.spec.containers as Manifest[];
    const sidecar = containers.find((c) => c.name === 'iac-code')!;
    const root = gateway.upstream['workspace-root'];
    expect(sidecar.env.find((e: Manifest) => e.name === 'IACCODE_A2A_ALLOWED_CWDS')?.value).toBe(root);
    const sidecarMount = sidecar.volumeMounts.find((m: Manifest) => m.mountPath === root);
    expect(sidecarMount, `iac-code mounts ${root}`).toBeDefined();
    expect(gateway.upstream['workspace-prune']).toBeDefined();
    const gatewayMount = containers.find((c) => c.name === 'gateway')!.volumeMounts.find((m: Manifest) => m.mountPath === root);
    expect(gatewayMount, `the gateway mounts ${root}`).toMatchObject({ name: sidecarMount.name });
    expect(gatewayMount.readOnly ?? false).toBe(false);
    expect(gatewayMount.subPath).toBeUndefined();
    const iacCode = YAML.parse(data['iac-code-a2a-server.yml']) as { host: string; port: number };
    const upstream = new URL(gateway.upstream.url);
    expect(upstream.hostname).toBe(iacCode.host);
    expect(Number(upstream.port)).toBe(iacCode.port);
    const redis = new URL(named('Secret', 'a2a-gateway-secrets')!.stringData.REDIS_URL);
    const service = named('Service', redis.hostname);
    expect(service, `REDIS_URL names ${redis.hostname}`).toBeDefined();
    expect(service!.spec.ports.map((port: Manifest) => port.port)).toContain(Number(redis.port));
  });
});
