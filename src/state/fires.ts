/**
 * The fires journal (`fires.json`): every trigger fire is written down before it is sent, marked
 * sent right before its bytes leave, and answered with its workflow run. A fire whose answer was
 * lost stays `sent`: the next fire for that lead and trigger says that an earlier one may have
 * started a workflow run (CRM writes and routing fairness repeat) before it fires again.
 */
import { randomUUID } from 'node:crypto';
import { FileStore } from './json-file.js';
import { sameLead } from './identity.js';
import type { FireEntry, FiresFile } from './schemas.js';

export type { FireEntry };
export type NewFire = Pick<FireEntry, 'scope' | 'triggerId' | 'personEmail' | 'answersKey'>;

const KEEP_DAYS = 90;
const DAY_MS = 86_400_000;

export class Fires extends FileStore<FiresFile> {
  /** Records a fire about to be sent; prunes answered fires older than 90 days. */
  async prepare(fire: NewFire): Promise<FireEntry> {
    const entry: FireEntry = { id: randomUUID(), ...fire, preparedAt: this.now().toISOString(), state: 'prepared' };
    const cutoff = this.now().getTime() - KEEP_DAYS * DAY_MS;
    return this.file.update((file) => {
      file.fires = [...file.fires.filter((f) => !(Date.parse(f.preparedAt) < cutoff)), entry];
      return entry;
    });
  }

  async markSent(id: string): Promise<void> {
    await this.patch(id, { state: 'sent', sentAt: this.now().toISOString() });
  }

  /**
   * The fire's answer: its workflow run. Earlier fires of this lead and trigger whose answers
   * were lost are settled by it (the user was told before this fire), so they are dropped.
   */
  async answered(id: string, executionId: string, outcomeType: string): Promise<void> {
    const at = this.now().toISOString();
    await this.file.update((file) => {
      const held = file.fires.find((f) => f.id === id);
      if (!held) return;
      file.fires = file.fires.filter(
        (f) =>
          f === held ||
          !(
            f.state === 'sent' &&
            f.scope === held.scope &&
            f.triggerId === held.triggerId &&
            sameLead(f.personEmail, held.personEmail)
          ),
      );
      Object.assign(held, { state: 'answered', answeredAt: at, executionId, outcomeType });
    });
  }

  /** A fire refused, or one that never left the machine: it started nothing. */
  async forget(id: string): Promise<void> {
    await this.file.update((file) => {
      file.fires = file.fires.filter((f) => f.id !== id);
    });
  }

  /** Sent fires of this lead (and trigger, when given) whose answer never came: each may have started a run. */
  async unanswered(scope: string, email: string, triggerId?: string): Promise<FireEntry[]> {
    return (await this.file.read()).fires.filter(
      (f) =>
        f.state === 'sent' &&
        f.scope === scope &&
        sameLead(f.personEmail, email) &&
        (triggerId === undefined || f.triggerId === triggerId),
    );
  }

  /** The answered fire that started this workflow run (its trigger and answers), if on record. */
  async byExecution(scope: string, executionId: string): Promise<FireEntry | undefined> {
    return (await this.file.read()).fires.find((f) => f.scope === scope && f.executionId === executionId);
  }

  /** Records written under a legacy scope move to the workspace (state/identity.ts). */
  async adopt(from: string, to: string): Promise<void> {
    if (!(await this.file.read()).fires.some((f) => f.scope === from)) return;
    await this.file.update((file) => {
      for (const f of file.fires) if (f.scope === from) f.scope = to;
    });
  }

  private async patch(id: string, patch: Partial<FireEntry>): Promise<void> {
    await this.file.update((file) => {
      const held = file.fires.find((f) => f.id === id);
      if (held) Object.assign(held, patch);
    });
  }
}
