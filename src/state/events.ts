/**
 * Event aliases (`events.json`): what the slots results and booked meetings taught the ledger
 * about which slug, scheduling link id or link slug stands for which eventId, per workspace.
 * The ledger compares events by id (state/identity.ts), never as typed.
 */
import { FileStore } from './json-file.js';
import { eventAliasKey } from './identity.js';
import type { EventsFile } from './schemas.js';
import { own, put } from './records.js';

export class EventAliases extends FileStore<EventsFile> {
  /** This workspace's aliases, alias → eventId. */
  async of(scope: string): Promise<Record<string, string>> {
    const prefix = `${scope} `;
    const out: Record<string, string> = {};
    for (const [key, id] of Object.entries((await this.file.read()).aliases))
      if (key.startsWith(prefix)) put(out, key.slice(prefix.length), id);
    return out;
  }

  /** Learns that `alias` names `eventId` here; writes only what is new. */
  async learn(scope: string, alias: string, eventId: string): Promise<void> {
    const key = `${scope} ${eventAliasKey(alias)}`;
    const id = eventId.toLowerCase();
    if (eventAliasKey(alias) === id || own((await this.file.read()).aliases, key) === id) return;
    await this.file.update(({ aliases }) => put(aliases, key, id));
  }
}
