/**
 * Firing a trigger, shared by `trigger fire` and `route`. Every fire starts a workflow run
 * (CRM writes and notifications repeat, routing fairness counts again), so a fire whose
 * answer is lost is never repeated: it is reported as outcome unknown (exit 7), and the
 * API's refusals carry a hint of what to change.
 */
import type { Api } from '../api/endpoints.js';
import type { FireRequest, Trigger, TriggerFireResult } from '../api/schemas.js';
import { ApiError, CliError, EXIT, OutcomeUnknownError, type ErrorDocument } from '../errors.js';
import { hintFor } from '../hints.js';
import { StateWriteError } from '../state/errors.js';
import type { Write } from '../state/together.js';

/**
 * The fires journal's side of a fire (state/fires.ts): written before it is sent, marked sent
 * right before its bytes leave, answered with its run; forgotten when it never left or was refused.
 */
export interface FireJournal {
  prepare(): Promise<string>;
  markSent(id: string): Promise<void>;
  answered(id: string, result: TriggerFireResult): Promise<void>;
  forget(id: string): Promise<void>;
  /** `answered` as writes for the step that remembers the fire's outcome (state/together.ts): one step for both. */
  answeredWrites?(result: TriggerFireResult): Write[];
  /**
   * Marks the fire sent ahead, with the ledger's next step (the lead's reads: state/fires.ts
   * recordSentIfNewLead), when the lead has nothing on record; markSent then writes nothing more.
   * Returns the fire's id (prepare gives the same). A fire marked ahead and not sent after all
   * is forgotten by abandonAhead.
   */
  markAhead?(): string;
  abandonAhead?(): Promise<void>;
}

/** Remembers a fire's outcome, in one step with the writes given (the fire's answer), or throws. */
export type RememberOutcome = (result: TriggerFireResult, along: Write[]) => Promise<unknown>;

export async function fireTrigger(
  api: Pick<Api, 'fireTrigger'>,
  trigger: Trigger,
  body: FireRequest,
  journal?: FireJournal,
  /**
   * Remembers the outcome, with the fire's answer in the same step when the journal offers its
   * writes (one round trip on a team state); a failure is FiredNotRecordedError (rememberFired).
   */
  remember?: RememberOutcome,
): Promise<TriggerFireResult> {
  const id = await journal?.prepare();
  let sent = false;
  let result: TriggerFireResult;
  try {
    result = await api.fireTrigger(trigger.id, body, {
      beforeSend: async () => {
        if (journal && id) await journal.markSent(id);
        sent = true;
      },
    });
  } catch (error) {
    if (journal && id && !(error instanceof OutcomeUnknownError && sent))
      await journal.forget(id).catch(() => undefined);
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
  // The run started: a failure to write its answer down must not hide it (the caller prints the run).
  const answered = () => (journal && id ? journal.answered(id, result).catch(() => undefined) : undefined);
  const along = journal && id && remember ? journal.answeredWrites?.(result) : undefined;
  if (!along) await answered();
  if (remember) {
    try {
      await rememberFired(trigger, result, () => remember(result, along ?? []));
    } catch (error) {
      // The answer on its own, then: the fire is not left looking unanswered.
      if (along) await answered();
      throw error;
    }
  }
  return result;
}

/**
 * The trigger was fired (the workflow run started), then its outcome could not be written down
 * (disk full, read-only directory). Said as what it is: fired, with the run's id, and what was
 * not recorded; never "nothing was saved", which would hide the run. Exit 1 (STATE_WRITE).
 */
export class FiredNotRecordedError extends CliError {
  constructor(
    trigger: Pick<Trigger, 'name'>,
    readonly result: TriggerFireResult,
    cause: StateWriteError,
  ) {
    super(
      'STATE_WRITE',
      `"${trigger.name}" WAS fired (workflow run ${result.executionId}, outcome ${result.outcome.type}), but its outcome could not be recorded: cannot write ${cause.path} (${causeOf(cause)})`,
      EXIT.error,
      {
        hint: `do not fire it again for this lead: the run exists; ${cause.hint ?? 'free some space and check the configuration directory'}`,
        cause,
      },
    );
  }
  override toDocument(): ErrorDocument & TriggerFireResult {
    return { ...super.toDocument(), executionId: this.result.executionId, outcome: this.result.outcome };
  }
}

function causeOf(error: StateWriteError): string {
  return /\((.*)\): nothing was saved$/.exec(error.message)?.[1] ?? error.message;
}

/** Records a fire's outcome; a write that fails says the trigger was fired all the same. */
export async function rememberFired(
  trigger: Pick<Trigger, 'name'>,
  result: TriggerFireResult,
  remember: () => Promise<unknown>,
): Promise<void> {
  try {
    await remember();
  } catch (error) {
    if (error instanceof StateWriteError) throw new FiredNotRecordedError(trigger, result, error);
    throw error;
  }
}
