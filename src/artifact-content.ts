import type { Logger } from 'pino';
import type { GatewayConfig } from './config/schema.js';
import type { AgentPort } from './core/agent-port.js';
import { inlineArtifacts, type ArtifactReader } from './core/inline-artifacts.js';
import { createArtifactReader } from './upstream/iac-code/artifacts.js';

/** The content of iac-code's artifacts, read from the folder it shares with the gateway (`upstream.artifact-dir`). */
export interface ArtifactContent {
  reader: ArtifactReader;
  /** `upstream.inline-artifacts`: 1.0 callers are shown the bytes too, in their calls and their webhooks' bodies. */
  forV1: boolean;
}

/** The artifacts' content with `upstream.artifact-dir`; undefined without it (callers get iac-code's URL). */
export function artifactContentFor(config: GatewayConfig, logger: Logger): ArtifactContent | undefined {
  const dir = config.upstream['artifact-dir'];
  if (!dir) return undefined;
  return { reader: createArtifactReader({ dir, maxBytes: config.bailian['inline-max-bytes'], logger }), forV1: config.upstream['inline-artifacts'] };
}

/**
 * `port` showing the artifacts' content to the facade (Bailian can show nothing else of them) and, with
 * `upstream.inline-artifacts`, to 1.0 callers.
 */
export function withArtifactContent<P extends AgentPort>(port: P, content: ArtifactContent | undefined): P {
  if (!content) return port;
  return inlineArtifacts(port, content.reader, (ctx) => ctx.surface === 'v025' || content.forV1);
}
