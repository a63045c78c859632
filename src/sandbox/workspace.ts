/**
 * The seeded demo workspace. The data lives in seed.json; this module turns it into records.
 * Ids and keys depend only on the seed; busy blocks and `createdAt` are placed relative to the
 * seeding instant, so the workspace has free slots in the coming days whenever the sandbox starts.
 */
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { EVENT_CONFERENCING_TYPES, type TriggerField } from '../api/schemas.js';
import { Rng } from './rng.js';
import seedJson from './seed.json' with { type: 'json' };
import type {
  EventConferencing,
  EventRecord,
  HostRecord,
  LinkRecord,
  RoutingOutcome,
  TriggerRecord,
  Workspace,
} from './types.js';
import { must } from './must.js';

/** The shape of seed.json. Hosts, events, questions and links refer to each other by `key`. */
interface Seed {
  hosts: HostSeed[];
  /** Shared by events, which list them by key; keys in the order the API returns a question's. */
  questions: Record<string, QuestionSeed>;
  events: EventSeed[];
  links: LinkSeed[];
  triggers: TriggerSeed[];
}

interface HostSeed {
  /** Also names the avatar. */
  key: string;
  name: string;
  zone: string;
  /** luxon weekdays, 1 = Monday ... 7 = Sunday. */
  weekdays: number[];
  /** Local working hours, "HH:MM". */
  start: string;
  end: string;
  /** `days` after the seeding day, at local "HH:MM", for `minutes`. */
  busy: { days: number; at: string; minutes: number }[];
}

interface QuestionSeed {
  type: string;
  title: string;
  description: string;
  placeholder: string;
  isRequired: boolean;
  options: { value: string; label: string }[];
  requireWorkEmail: boolean;
}

interface EventSeed {
  key: string;
  slug: string;
  name: string;
  title: string;
  description: string;
  duration: number;
  increment: number;
  /** One of EVENT_CONFERENCING_TYPES, checked when seeding (JSON types it as a plain string). */
  conferencingType: string;
  location: string;
  /** Host keys, primary first. */
  hosts: string[];
  /** Question keys, in order. */
  questions: string[];
}

interface LinkSeed {
  key: string;
  slug: string;
  name: string;
  /** Event key. */
  event: string;
  /** Host keys. */
  hosts: string[];
}

interface TriggerSeed {
  name: string;
  description: string;
  requireWorkEmail: boolean;
  /** Keys in the order the API returns a field's. */
  fields: TriggerField[];
  rules: { when?: { field: string; equals: string }; outcome: OutcomeSeed }[];
}

/** A RoutingOutcome with the scheduling link named by key: `link` for scheduler, `url` for redirect. */
interface OutcomeSeed {
  type: string;
  link?: string;
  url?: string;
}

const SEED: Seed = seedJson;

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

function conferencing(type: string): EventConferencing {
  return must(
    EVENT_CONFERENCING_TYPES.find((t) => t === type),
    `conferencing type ${type}`,
  );
}

export function seedWorkspace(seed: number, seededAt: Date): Workspace {
  const rng = Rng.fromSeed(seed, 'workspace');
  const keyHex = rng.hex(16);
  // Each key its own hex (derived, so the seeded data after it is unchanged): two keys never
  // share their last characters, so they never mask the same (`sk_…407c`) anywhere.
  const hexOf = (kind: string) => createHash('sha256').update(`${keyHex}:${kind}`).digest('hex').slice(0, 16);
  const keys = {
    full: `sk_sandbox_full_${keyHex}`,
    readOnly: `sk_sandbox_read_${hexOf('read')}`,
    revoked: `sk_sandbox_revoked_${hexOf('revoked')}`,
  };
  // The seed's zones cover DST in both hemispheres' northern variants (London, New York,
  // Los Angeles) and a zone without DST (Tokyo).
  const hostIds = new Map<string, string>();
  const hosts: HostRecord[] = SEED.hosts.map((h) => {
    const id = rng.uuid();
    hostIds.set(h.key, id);
    const localNow = DateTime.fromJSDate(seededAt, { zone: h.zone }).startOf('day');
    const busy = h.busy.map(({ days, at, minutes: length }) => {
      const start = localNow.plus({ days }).set({ hour: Math.floor(minutes(at) / 60), minute: minutes(at) % 60 });
      return {
        start: must(start.toUTC().toISO(), 'a busy start'),
        end: must(start.plus({ minutes: length }).toUTC().toISO(), 'a busy end'),
      };
    });
    return {
      id,
      name: h.name,
      profilePictureUrl: `https://avatars.sandbox.invalid/${h.key}.png`,
      zone: h.zone,
      weekdays: [...h.weekdays],
      startMinute: minutes(h.start),
      endMinute: minutes(h.end),
      busy,
    };
  });
  const ids = (keys_: readonly string[]) => keys_.map((k) => must(hostIds.get(k), `host ${k}`));
  const eventIds = new Map<string, string>();
  const base = DateTime.fromJSDate(seededAt).toUTC().startOf('minute');
  // The seed lists events newest first: index 0 gets the most recent createdAt.
  const events: EventRecord[] = SEED.events.map((e, index) => {
    const id = rng.uuid();
    eventIds.set(e.key, id);
    const createdAt = must(base.minus({ days: 3 * (index + 1) }).toISO(), 'a creation time');
    return {
      id,
      slug: e.slug,
      name: e.name,
      schedulerTitle: e.title,
      schedulerDescription: e.description,
      duration: e.duration,
      timeslotIncrement: e.increment,
      conferencingType: conferencing(e.conferencingType),
      location: e.location,
      createdAt,
      updatedAt: createdAt,
      hostIds: ids(e.hosts),
      questions: e.questions.map((key, order) => ({
        // Copies: each sandbox owns its workspace (several may run in one process).
        ...structuredClone(must(SEED.questions[key], `question ${key}`)),
        id: rng.uuid(),
        order,
      })),
    };
  });
  // Link `onboarding` deliberately collides with the event slug: the link wins (spec rule).
  const linkIds = new Map<string, string>();
  const links: LinkRecord[] = SEED.links.map((l) => {
    const id = rng.uuid();
    linkIds.set(l.key, id);
    return {
      id,
      slug: l.slug,
      name: l.name,
      eventId: must(eventIds.get(l.event), `event ${l.event}`),
      hostIds: ids(l.hosts),
    };
  });
  const outcome = (o: OutcomeSeed): RoutingOutcome => {
    if (o.type === 'scheduler') {
      const key = must(o.link, 'the link of a scheduler outcome');
      return { type: 'scheduler', linkId: must(linkIds.get(key), `link ${key}`) };
    }
    if (o.type === 'redirect') return { type: 'redirect', url: must(o.url, 'the url of a redirect outcome') };
    if (o.type === 'none') return { type: 'none' };
    throw new Error(`sandbox invariant broken: unknown outcome type ${o.type}`);
  };
  const triggers: TriggerRecord[] = SEED.triggers.map((t) => ({
    id: rng.uuid(),
    name: t.name,
    description: t.description,
    requireWorkEmail: t.requireWorkEmail,
    fields: structuredClone(t.fields),
    rules: t.rules.map(({ when, outcome: o }) =>
      when ? { when: { ...when }, outcome: outcome(o) } : { outcome: outcome(o) },
    ),
  }));
  return { seed, keys, hosts, events, links, triggers };
}
