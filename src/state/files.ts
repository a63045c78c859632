/** The files of the config directory: each one's name, what it holds (for messages), shape and empty content. */
import type { FileKind } from './json-file.js';
import {
  configSchema,
  eventsSchema,
  firesSchema,
  isPlainConfig,
  journalSchema,
  meetingsSchema,
  outcomesSchema,
  type ConfigFile,
  type EventsFile,
  type FiresFile,
  type JournalFile,
  type MeetingsFile,
  type OutcomesFile,
} from './schemas.js';

const kind = <T>(name: string, what: string, schema: FileKind<T>['schema'], empty: () => T): FileKind<T> => ({
  name,
  what,
  schema,
  empty,
});

export const PROFILES_FILE = {
  ...kind<ConfigFile>('config.json', 'profile', configSchema, () => ({ profiles: {} })),
  isPlain: isPlainConfig,
};
export const JOURNAL_FILE = kind<JournalFile>('journal.json', 'journal', journalSchema, () => ({ entries: [] }));
export const OUTCOMES_FILE = kind<OutcomesFile>('outcomes.json', 'outcomes', outcomesSchema, () => ({ outcomes: {} }));
export const MEETINGS_FILE = kind<MeetingsFile>('meetings.json', 'meetings', meetingsSchema, () => ({ meetings: {} }));
export const FIRES_FILE = kind<FiresFile>('fires.json', 'fires journal', firesSchema, () => ({ fires: [] }));
export const EVENTS_FILE = kind<EventsFile>('events.json', 'event aliases', eventsSchema, () => ({ aliases: {} }));
