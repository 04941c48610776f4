import type { Logger } from 'pino';
import type { CardSource } from '../../core/card-source.js';
import type { AgentCard } from '../../model/index.js';

/** The card extension in which iac-code says which run mode it serves (docs/iac-code.md, "Pipeline mode"). */
export const PIPELINE_EVENTS_EXTENSION = 'urn:iac-code:a2a:pipeline-events:v1';

/** Whether the agent is an iac-code serving pipeline mode. */
export function servesPipelineMode(card: AgentCard): boolean {
  const params = card.capabilities.extensions?.find((extension) => extension.uri === PIPELINE_EVENTS_EXTENSION)?.params;
  return params?.enabled === true || params?.mode === 'pipeline';
}

/**
 * Says, once each time the agent's card turns to it, that iac-code runs in pipeline mode: its replies
 * and questions then come only as pipeline events in metadata. The 0.2.5 facade reads them
 * (surfaces/v025/reply/pipeline-text.ts) as iac-code's source describes them, never checked against a
 * captured run, so an operator who finds a Bailian user's turn shown oddly knows where to look.
 */
export function notePipelineMode(cards: CardSource, logger: Logger): void {
  let serving = false;
  const check = (card: AgentCard): void => {
    const now = servesPipelineMode(card);
    if (now && !serving) {
      logger.info(
        'the upstream iac-code serves pipeline mode (IAC_CODE_MODE=pipeline): the 0.2.5 facade shows its steps, text and questions from its pipeline events',
      );
    }
    serving = now;
  };
  const current = cards.current();
  if (current) check(current.card);
  cards.onChange((snapshot) => check(snapshot.card));
}
