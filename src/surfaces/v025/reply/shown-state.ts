import { withFields, type TaskState } from '../../../model/index.js';
import type { JsonObject } from '../../../model/json.js';
import type { MappingOverrides, MappingProfile } from '../../../mappings/index.js';
import type { V025TaskState } from '../../../protocol/v025/index.js';
import { pendingInput } from '../../../upstream/iac-code/events.js';
import { pendingPermission } from '../../../upstream/iac-code/permissions.js';
import { pendingDeploymentConfirmation } from './pipeline-questions.js';

/**
 * The one place the facade decides which 0.2.5 state its caller is shown (docs/bailian.md, "States Bailian
 * understands"): message/send, message/stream and tasks/get (all through the reply reducer: turn-bounds.ts)
 * and the refusal of a cancel (task-methods.ts).
 */
export interface ShownStates {
  /** The profile as the agent behind the facade is shown by (shownStatesOf). */
  profile: MappingProfile;
  /** The state a turn that waits on its user's decision ends in (decisionStateOf). */
  decisionState: V025TaskState;
}

/**
 * Whether iac-code waits on a decision its user answers in words, which the facade turns into iac-code's answer
 * (permission-answers.ts, pipeline-answers.ts): a permission prompt, or in pipeline mode a choice between candidates
 * or the confirmation of a deployment.
 */
export const asksDecision = (metadata: JsonObject | undefined): boolean =>
  pendingPermission(metadata) !== undefined ||
  pendingInput(metadata, 'candidate_selection') !== undefined ||
  pendingDeploymentConfirmation(metadata) !== undefined;

/**
 * The state a turn that waits on its user is shown in: `input-required`, which Bailian answers by routing its
 * user's next turn back to this agent. The `bailian` profile shows iac-code's end of an ordinary turn (it ends
 * every turn INPUT_REQUIRED) as `completed`, and a question shown so could never be answered in an app of several
 * agents: Bailian may give "同意" or "cn-hangzhou" to its own model or another agent. An operator who maps
 * INPUT_REQUIRED themselves (`bailian.mappings`) is taken at their word for every INPUT_REQUIRED, these turns too.
 */
export function decisionStateOf(profile: MappingProfile, overrides: MappingOverrides): V025TaskState {
  const said = Object.hasOwn(overrides['states-to-v025'] ?? {}, 'TASK_STATE_INPUT_REQUIRED');
  return said ? profile.statesToV025.TASK_STATE_INPUT_REQUIRED : 'input-required';
}

/**
 * The states one turn is shown in. An agent that ends every turn INPUT_REQUIRED, its answers too (iac-code, and the
 * demo agent, which follows its wire behaviour), is shown by the profile, but for the questions its metadata names
 * (asksUser). Any other agent says INPUT_REQUIRED only when it asks its user something ("Which region?"): every
 * INPUT_REQUIRED of it is shown in the decision state, which the `bailian` profile's `completed` (iac-code's) is not.
 */
export function shownStatesOf(profile: MappingProfile, overrides: MappingOverrides, endsEveryTurnWaiting: boolean): ShownStates {
  const decisionState = decisionStateOf(profile, overrides);
  const { statesToV025 } = profile;
  if (endsEveryTurnWaiting || statesToV025.TASK_STATE_INPUT_REQUIRED === decisionState) return { profile, decisionState };
  return { profile: shownWaitingAs(profile, decisionState), decisionState };
}

/** Each profile as shown with INPUT_REQUIRED in a decision state: made once, not copied twice per turn (a profile is never written to). */
const profilesShownWaiting = new WeakMap<MappingProfile, Map<V025TaskState, MappingProfile>>();

function shownWaitingAs(profile: MappingProfile, decisionState: V025TaskState): MappingProfile {
  let byState = profilesShownWaiting.get(profile);
  if (!byState) profilesShownWaiting.set(profile, (byState = new Map()));
  let shown = byState.get(decisionState);
  if (!shown) {
    shown = withFields(profile, { statesToV025: withFields(profile.statesToV025, { TASK_STATE_INPUT_REQUIRED: decisionState }) });
    byState.set(decisionState, shown);
  }
  return shown;
}

/**
 * Whether iac-code asks its user something: a decision above, or in pipeline mode a question it takes the answer to
 * itself (`ask_user_question`, an option's number or free text). Not iac-code's end of an ordinary turn.
 */
const asksUser = (metadata: JsonObject | undefined): boolean => asksDecision(metadata) || pendingInput(metadata, 'ask_user_question') !== undefined;

/** The 0.2.5 state of a 1.0 state, `metadata` that of its status update (or of the task that holds it). */
export function shownState(state: TaskState, metadata: JsonObject | undefined, states: ShownStates): V025TaskState {
  if (state === 'TASK_STATE_INPUT_REQUIRED' && asksUser(metadata)) return states.decisionState;
  return states.profile.statesToV025[state];
}
