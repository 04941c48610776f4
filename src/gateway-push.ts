import type { Logger } from 'pino';
import type { ArtifactContent } from './artifact-content.js';
import type { GatewayConfig } from './config/schema.js';
import { boundedInliner } from './core/inline-artifacts.js';
import type { TaskAliases } from './core/task-aliases/index.js';
import type { TaskRegistry } from './core/task-registry/types.js';
import { loadMappingProfile, type MappingProfile } from './mappings/index.js';
import type { GatewayMetrics } from './observability/metrics.js';
import { createPushService, type PushService } from './push/service.js';
import type { V025TaskRenderer } from './push/v025-body.js';

export interface GatewayPushDeps {
  registry: TaskRegistry;
  logger: Logger;
  /** The facade's profile, of the 0.2.5 bodies made without it too; absent (no facade): `a2a-0.2.5`. */
  profile?: MappingProfile | undefined;
  metrics?: GatewayMetrics | undefined;
  taskAliases: TaskAliases;
  /** The artifacts' content the app shows its callers: their webhooks are pushed it as their calls show it. */
  artifacts?: ArtifactContent | undefined;
}

export interface GatewayPush {
  push: PushService;
  /**
   * Takes the facade's rendering of a pushed 0.2.5 Task once the app mounted it (gateway-app.ts). The facade
   * reads through the port push wraps, so it comes after push is made; start push after handing it over, so
   * that no follow taken up at start is pushed in another shape.
   */
  takeV025Renderer(render: V025TaskRenderer): void;
}

/**
 * The facade's renderer given the registry's copy with its files' content, as the facade's own calls read the
 * agent's task (a Bailian user's stream shows the template, so does each body `push-events: all` makes of that copy).
 */
const showingFiles =
  (render: V025TaskRenderer, artifacts: ArtifactContent): V025TaskRenderer =>
  async (recorded, body, signal) =>
    render(await boundedInliner(artifacts.reader, signal).task(recorded), body, signal);

/**
 * The push service as the gateway runs it: 0.2.5 bodies named by the caller's task ids and shaped by the facade,
 * 1.0 bodies showing iac-code's files as 1.0 callers' own calls show them.
 */
export async function createGatewayPush(config: GatewayConfig, deps: GatewayPushDeps): Promise<GatewayPush> {
  let renderer: V025TaskRenderer | undefined;
  const { artifacts } = deps;
  const push = await createPushService(config, {
    registry: deps.registry,
    logger: deps.logger,
    profile: deps.profile ?? loadMappingProfile('a2a-0.2.5'),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    clientIdOf: (upstreamId, owner) => deps.taskAliases.clientIdOf(upstreamId, owner),
    renderV025: () => renderer,
    ...(artifacts?.forV1 ? { inlineV1: (event, signal) => boundedInliner(artifacts.reader, signal).event(event) } : {}),
  });
  return {
    push,
    takeV025Renderer(render) {
      renderer = artifacts ? showingFiles(render, artifacts) : render;
    },
  };
}
