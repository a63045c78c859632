/**
 * The lost-response journal (table `attempts`): every booking attempt is written down before it
 * is sent, so that after a lost response a later `book` for the same reservation or workflow run
 * can tell "already booked" from a real failure. Entries carry `sentAt`: an attempt recorded but
 * never sent (schedctl died first, or the request failed before leaving the machine) is not a
 * lost response. It never stores the API key.
 *
 * One row per attempt: the columns are what the rules look things up by (workspace + lead,
 * reservation, workflow run, meeting), the whole entry is its `body`. Every question is asked of
 * one lead's, one reservation's or one run's rows through an index, never of the whole history.
 */
import { randomUUID } from 'node:crypto';
import { leadId } from './identity.js';
import { sameEmail } from './records.js';
import type { JournalEntry } from './schemas.js';
import { get, type Sql, type SqlSource, type SqlValue } from './sql/types.js';
import { claimReads, isClaimed, SlotClaimedError } from './slot-claims.js';
import { settleOtherwise, type FireAnswers, type Write } from './together.js';

export type { JournalEntry };
/** What a caller supplies for a new attempt; id, attemptedAt (the clock) and sentAt (null) are set here. */
export type NewAttempt = Omit<JournalEntry, 'id' | 'attemptedAt' | 'sentAt'>;
export type JournalPatch = Partial<Omit<JournalEntry, 'id' | 'scope'>>;
export interface PriorQuery {
  reservationId?: string;
  workflowExecutionId?: string | null;
  startTime?: string;
  personEmail?: string;
}
export interface OpenAttemptQuery {
  personEmail: string;
  workflowExecutionId?: string;
  event?: string;
  triggerId?: string;
  answersKey?: string;
  /**
   * Also attempts known to have booked (`already_booked`: a retry showed it; `booked`) whose
   * time is at or after this instant: a re-run must say "already booked" again, not book anew.
   */
  bookedSince?: Date;
}

/** Entries older than this are dropped when one is added: reservations and sessions are long gone. */
export const KEEP_DAYS = 90;
const DAY_MS = 86_400_000;

/** False only for an attempt recorded but not sent (sentAt null); entries from before sentAt count as sent. */
export const wasSent = (e: JournalEntry): boolean => e.sentAt !== null;

const COLUMNS = '*';
interface Row {
  workspace: string;
  body: string;
}
/** The entry of a row: its body, in the workspace the row is filed under (an adopted row's body may name the old one). */
export const entryOf = (row: Row): JournalEntry => ({
  ...(JSON.parse(row.body) as JournalEntry),
  scope: row.workspace,
});
/** An instant as the table keeps it: epoch ms, or null for a date that does not read (never guessed). */
export const msOf = (iso: string | undefined): number | null => {
  const ms = Date.parse(iso ?? '');
  return Number.isNaN(ms) ? null : ms;
};

/**
 * The statement that writes one entry (insert, or replace the row with its id: its place in the order stays). An
 * outcome once known stays known: a copy still `unknown` (kept on a machine while the team
 * database was down, and moved in after another machine learnt the outcome) never replaces it.
 */
export function attemptWrite(e: JournalEntry, keep = false, sameWorkspace = false): [string, SqlValue[]] {
  return [
    `INSERT INTO schedctl_attempts (id, workspace, lead, reservation_id, execution_id, meeting_id, outcome, sent, start_ms, touched_ms, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) ${
       keep
         ? 'DO NOTHING'
         : `DO UPDATE SET workspace = excluded.workspace, lead = excluded.lead,
       reservation_id = excluded.reservation_id, execution_id = excluded.execution_id,
       meeting_id = excluded.meeting_id, outcome = excluded.outcome, sent = excluded.sent,
       start_ms = excluded.start_ms, touched_ms = excluded.touched_ms, body = excluded.body
       WHERE ${sameWorkspace ? 'schedctl_attempts.workspace = excluded.workspace AND ' : ''}NOT (schedctl_attempts.outcome <> 'unknown' AND excluded.outcome = 'unknown')`
     }`,
    [
      e.id,
      e.scope,
      leadId(e.personEmail),
      e.reservationId,
      e.workflowExecutionId ?? null,
      e.meetingId ?? null,
      e.outcome,
      wasSent(e) ? 1 : 0,
      msOf(e.startTime),
      msOf(e.updatedAt ?? e.attemptedAt),
      JSON.stringify(e),
    ],
  ];
}

export const putAttempt = (sql: Sql, e: JournalEntry, keep = false): Promise<number> =>
  sql.run(...attemptWrite(e, keep));

export class Journal {
  constructor(
    private readonly db: SqlSource,
    protected readonly now: () => Date,
    private readonly where: () => string,
    /** What a fire's answer left to write: it goes with the next attempt's step (together.ts). */
    private readonly fireAnswers?: FireAnswers,
  ) {}

  /** The ledger this store keeps its rows in: stores on the same one may share a step (together.ts). */
  get ledger(): SqlSource {
    return this.db;
  }

  /** Where the journal is kept, for messages. */
  get path(): string {
    return `${this.where()} (attempts)`;
  }

  /** The whole journal, oldest first: for tests and inspection, never a command's question (those are one lead's). */
  async all(): Promise<JournalEntry[]> {
    return this.select('1 = 1', []);
  }

  /** Records a new attempt (not sent yet) and prunes old entries. */
  async add(entry: NewAttempt): Promise<JournalEntry> {
    return (await this.begin(entry)).attempt;
  }

  /**
   * findPrior for this attempt and add, in one transaction under the lead's lock: two parallel
   * books of the same lead cannot both miss each other's attempt. `earlier`: the prior's
   * booking's other attempts, sent (it was sent again, and lost again, or its sender killed; or
   * another run learnt one's outcome meanwhile): what settles the prior settles those still
   * unknown, and one known to have booked proves the booking.
   */
  async begin(
    entry: NewAttempt,
    o: {
      /** Written already marked sent (right before its bytes leave: domain/booking.ts). */
      sent?: boolean;
      /**
       * When the page offering its time was fetched (epoch ms): a time another booking holds
       * since (slot-claims.ts) is refused (SlotClaimedError), the attempt taken back, nothing sent.
       */
      claimedSince?: number | undefined;
    } = {},
  ): Promise<{ prior: JournalEntry | undefined; attempt: JournalEntry; earlier: JournalEntry[] }> {
    const at = this.now().toISOString();
    const attempt: JournalEntry = { id: randomUUID(), ...entry, attemptedAt: at, sentAt: o.sent ? at : null };
    // One step (one round trip on a team state): what a fire's answer left to write, the prune,
    // the attempt and the look-up, which sees the new attempt (passed over here). The prior's
    // other attempts, a rare second look-up, come after.
    const db = await this.db();
    const carried = this.fireAnswers?.take() ?? [];
    const since = o.sent ? o.claimedSince : undefined;
    const claims = since === undefined ? [] : claimReads(entry, since);
    const answers = await db
      .step([
        ...carried.map((w) => w.statement),
        // Booked entries stay (reschedule needs them); an unreadable date (null) is kept rather than guessed old.
        [
          `DELETE FROM schedctl_attempts WHERE outcome <> 'booked' AND touched_ms < ?`,
          [this.now().getTime() - KEEP_DAYS * DAY_MS],
        ],
        attemptWrite(attempt),
        ofBookingQuery(entry.scope, entry),
        ...claims,
      ])
      .catch((error: unknown) => {
        // Not written: they wait for the next step again.
        this.fireAnswers?.add(carried);
        throw error;
      });
    await settleOtherwise(carried, answers);
    const read = answers.length - claims.length;
    if (since !== undefined && isClaimed(answers.slice(read), entry, since)) {
      await this.remove(attempt.id);
      throw new SlotClaimedError(entry.startTime);
    }
    const candidates = (answers[read - 1]!.rows as unknown as Row[]).map(entryOf);
    const others = (list: JournalEntry[]) => list.filter((e) => e.id !== attempt.id);
    const prior = findPrior(others(candidates), entry.scope, entry);
    const earlier = prior
      ? others(await ofBooking(db, prior.scope, prior)).filter((e) => otherOfSameBooking(prior, e))
      : [];
    return { prior, attempt, earlier };
  }

  /** The request left the machine: from now on a missing answer is a lost response. */
  async markSent(id: string, known?: JournalEntry): Promise<JournalEntry | undefined> {
    return this.update(id, { sentAt: this.now().toISOString() }, known);
  }

  /**
   * `known`: the entry as this process last wrote or read it (the attempt it began, say): the
   * patched entry is then written over its row in one statement, no read first (one round trip
   * on a team state; the lead's lock keeps other runs off it), unless the row moved to another
   * workspace since (a key's records adopted), which is read and patched as without `known`. A
   * known outcome is never replaced by `unknown` either way (attemptWrite).
   */
  async update(id: string, patch: JournalPatch, known?: JournalEntry): Promise<JournalEntry | undefined> {
    const db = await this.db();
    if (known?.id === id) {
      const next: JournalEntry = { ...known, ...patch };
      if ((await db.run(...attemptWrite(next, false, true))) > 0) return next;
    }
    return db.transaction(async (tx) => {
      const row = await get<Row>(tx, `SELECT ${COLUMNS} FROM schedctl_attempts WHERE id = ?`, [id]);
      if (!row) return undefined;
      const updated: JournalEntry = { ...entryOf(row), ...patch };
      await tx.step([attemptWrite(updated)]);
      return updated;
    });
  }

  /**
   * `update` of an attempt as this process last wrote it (`known`), as a write for a shared step
   * (together.ts): written over its row; when that changed nothing (the row moved to another
   * workspace since), read and patched after the step, as `update` does.
   */
  updateWrite(known: JournalEntry, patch: JournalPatch): Write {
    return {
      statement: attemptWrite({ ...known, ...patch }, false, true),
      otherwise: () => this.update(known.id, patch),
    };
  }

  async remove(id: string): Promise<boolean> {
    return (await (await this.db()).run('DELETE FROM schedctl_attempts WHERE id = ?', [id])) > 0;
  }

  /**
   * The latest earlier attempt for this reservation or this workflow run: one whose response
   * was lost (also once a retry showed it `already_booked`, so running the command again says
   * so again), or one that booked (so re-running a successful command is idempotent).
   * An `unknown` attempt that was never sent is skipped: it cannot have booked anything.
   */
  async findPrior(scope: string, by: PriorQuery): Promise<JournalEntry | undefined> {
    return findPrior(await ofBooking(await this.db(), scope, by), scope, by);
  }

  /**
   * The latest sent attempt still `unknown` for this lead, narrowed by every filter given
   * (run, event or link, trigger, answers): a re-run resolves it (the meeting exists or not)
   * before choosing a time, whatever its flags. With `bookedSince`, an upcoming attempt known
   * to have booked counts too: once a re-run showed a lost attempt `already_booked`, its
   * outcome is forgotten and the meeting (id unknown) is in no record, so without it the
   * next re-run would fire and book again.
   */
  async findOpenAttempt(scope: string, by: OpenAttemptQuery): Promise<JournalEntry | undefined> {
    const since = by.bookedSince?.getTime();
    const open = (e: JournalEntry) =>
      (e.outcome === 'unknown' && wasSent(e)) ||
      (since !== undefined && e.outcome !== 'unknown' && e.goneAt === undefined && !(Date.parse(e.startTime) < since));
    // ofLead asks the index for this workspace's and lead's rows: what is left to decide is here.
    return (await this.ofLead(scope, by.personEmail)).filter((e) => open(e) && matchesGiven(e, by)).at(-1);
  }

  /** Every sent attempt in this scope whose outcome is still unknown, oldest first. */
  async listOpen(scope: string): Promise<JournalEntry[]> {
    return this.select(`workspace = ? AND outcome = 'unknown' AND sent = 1`, [scope]);
  }

  /** Attempts of this workspace that a retry proved booked but whose meeting id the API never sent back. */
  async recovered(scope: string): Promise<JournalEntry[]> {
    return this.select(`workspace = ? AND outcome = 'already_booked' AND meeting_id IS NULL`, [scope]);
  }

  /**
   * The API no longer has this meeting (a move was answered 404): the attempts that booked it
   * prove no meeting now, so neither the ledger's rule nor a re-run answers "already booked" from them.
   */
  async markGone(scope: string, meetingId: string, at: Date): Promise<number> {
    const booked = await this.select('workspace = ? AND meeting_id = ?', [scope, meetingId]);
    for (const e of booked) if (e.goneAt === undefined) await this.update(e.id, { goneAt: at.toISOString() });
    return booked.length;
  }

  /** The booked meeting with this id, when it was booked (or last moved) through schedctl. */
  async findMeeting(scope: string, meetingId: string): Promise<JournalEntry | undefined> {
    return (await this.select('workspace = ? AND meeting_id = ?', [scope, meetingId])).at(-1);
  }

  /**
   * This lead's entries in the workspace, oldest first (the ledger's view of its attempts); in
   * several workspaces at once (one query) when `scope` is a list.
   */
  async ofLead(scope: string | readonly string[], email: string): Promise<JournalEntry[]> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    if (scopes.length === 1) return this.select('workspace = ? AND lead = ?', [scopes[0]!, leadId(email)]);
    return this.select(`workspace IN (${scopes.map(() => '?').join(', ')}) AND lead = ?`, [...scopes, leadId(email)]);
  }

  private async select(where: string, params: string[]): Promise<JournalEntry[]> {
    const rows = await (
      await this.db()
    ).all<Row>(`SELECT ${COLUMNS} FROM schedctl_attempts WHERE ${where} ORDER BY seq`, params);
    return rows.map(entryOf);
  }
}

/** The attempts of a reservation or a workflow run in a workspace, oldest first (two indexed look-ups). */
async function ofBooking(sql: Sql, scope: string, by: PriorQuery): Promise<JournalEntry[]> {
  return (await sql.all<Row>(...ofBookingQuery(scope, by))).map(entryOf);
}

function ofBookingQuery(scope: string, by: PriorQuery): [string, SqlValue[]] {
  return [
    `SELECT ${COLUMNS} FROM schedctl_attempts WHERE workspace = ? AND reservation_id = ?
     UNION SELECT ${COLUMNS} FROM schedctl_attempts WHERE workspace = ? AND execution_id = ?
     ORDER BY seq`,
    [scope, by.reservationId ?? null, scope, by.workflowExecutionId || null],
  ];
}

export function findPrior(entries: JournalEntry[], scope: string, by: PriorQuery): JournalEntry | undefined {
  // A booked entry counts only for the very same booking (same time and lead): then a refusal
  // means "this one exists"; another time on a spent reservation is a real error.
  // Any earlier attempt counts only for the same lead: another lead's lost attempt on a shared
  // reservation says nothing about this booking (and must not be taken for it, nor deleted by it).
  // (Without an email, only an attempt whose outcome is open can match: a booked one is a lead's.)
  const sameLead = (e: JournalEntry) =>
    by.personEmail === undefined ? e.outcome !== 'booked' : sameEmail(e.personEmail, by.personEmail);
  const sameBooking = (e: JournalEntry) =>
    sameLead(e) &&
    (e.outcome !== 'booked' || (by.startTime !== undefined && Date.parse(e.startTime) === Date.parse(by.startTime)));
  return entries
    .filter(
      (e) =>
        e.scope === scope &&
        !(e.outcome === 'unknown' && !wasSent(e)) &&
        sameBooking(e) &&
        ((by.reservationId !== undefined && e.reservationId === by.reservationId) ||
          (!!by.workflowExecutionId && e.workflowExecutionId === by.workflowExecutionId)),
    )
    .at(-1);
}

/**
 * `e`, one of the attempts of `prior`'s reservation or run in its workspace (ofBooking), is
 * another sent attempt of the same booking: the same lead's.
 */
export function otherOfSameBooking(prior: JournalEntry, e: JournalEntry): boolean {
  return e.id !== prior.id && wasSent(e) && sameEmail(e.personEmail, prior.personEmail);
}

function matchesGiven(e: JournalEntry, by: OpenAttemptQuery): boolean {
  return (
    (by.workflowExecutionId === undefined || e.workflowExecutionId === by.workflowExecutionId) &&
    (by.event === undefined || e.event === by.event) &&
    (by.triggerId === undefined || e.triggerId === by.triggerId) &&
    (by.answersKey === undefined || e.answersKey === by.answersKey)
  );
}
