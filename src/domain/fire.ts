/**
 * Firing a trigger, shared by `trigger fire` and `route`. Every fire starts a workflow run
 * (CRM writes and notifications repeat, routing fairness counts again), so a fire whose
 * answer is lost is never repeated: it is reported as outcome unknown (exit 7), and the
 * API's refusals carry a hint of what to change.
 */
import type { Api } from '../api/endpoints.js';
import type { FireRequest, Trigger, TriggerFireResult } from '../api/schemas.js';
import { ApiError, OutcomeUnknownError } from '../errors.js';
import { hintFor } from '../hints.js';

export async function fireTrigger(
  api: Pick<Api, 'fireTrigger'>,
  trigger: Trigger,
  body: FireRequest,
): Promise<TriggerFireResult> {
  try {
    return await api.fireTrigger(trigger.id, body);
  } catch (error) {
    if (error instanceof OutcomeUnknownError) {
      throw new OutcomeUnknownError(
        `no answer to firing "${trigger.name}" (${error.message}): the workflow run may have started; do not fire again blindly`,
        {
          hint: 'each fire starts a new run (CRM writes and notifications repeat, routing fairness counts again): check the run in the workflow history before firing again',
          cause: error,
        },
      );
    }
    if (error instanceof ApiError)
      throw error.withHint(hintFor(error.code, { operation: 'fire', trigger, details: error.details }));
    throw error;
  }
}
