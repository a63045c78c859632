/**
 * The seeded demo workspace. Ids and keys depend only on the seed; busy blocks and
 * `createdAt` are placed relative to the seeding instant, so the workspace has free
 * slots in the coming days whenever the sandbox starts.
 */
import { DateTime } from 'luxon';
import type { Question, TriggerField } from '../api/schemas.js';
import { Rng } from './rng.js';
import type { EventConferencing, EventRecord, HostRecord, LinkRecord, TriggerRecord, Workspace } from './types.js';
import { must } from './must.js';

const WEEKDAYS = [1, 2, 3, 4, 5];

// Zones chosen to cover DST in both hemispheres' northern variants (London, New York,
// Los Angeles) and a zone without DST (Tokyo).
const HOSTS = [
  {
    key: 'amelia',
    name: 'Amelia Hart',
    zone: 'Europe/London',
    weekdays: WEEKDAYS,
    start: '09:00',
    end: '17:00',
    busy: [
      [1, '10:00', 60],
      [2, '13:00', 90],
      [3, '09:00', 120],
    ],
  },
  {
    key: 'ben',
    name: 'Ben Carter',
    zone: 'America/New_York',
    weekdays: WEEKDAYS,
    start: '09:00',
    end: '17:00',
    busy: [
      [1, '11:00', 60],
      [2, '09:00', 30],
      [4, '14:00', 120],
    ],
  },
  {
    key: 'chiyo',
    name: 'Chiyo Sato',
    zone: 'Asia/Tokyo',
    weekdays: WEEKDAYS,
    start: '10:00',
    end: '18:00',
    busy: [
      [1, '10:00', 240],
      [3, '15:00', 60],
    ],
  },
  {
    key: 'diego',
    name: 'Diego Ramos',
    zone: 'America/Los_Angeles',
    weekdays: [1, 2, 3, 4],
    start: '08:00',
    end: '16:00',
    busy: [
      [1, '08:00', 60],
      [2, '12:00', 120],
    ],
  },
] as const;

type QuestionSeed = Omit<Question, 'id' | 'order'>;
const emailQuestion = (requireWorkEmail: boolean): QuestionSeed => ({
  type: 'email',
  title: requireWorkEmail ? 'Work email' : 'Email',
  description: '',
  placeholder: 'you@company.com',
  isRequired: true,
  options: [],
  requireWorkEmail,
});
const topicQuestion: QuestionSeed = {
  type: 'text',
  title: 'What would you like to cover?',
  description: 'Optional',
  placeholder: '',
  isRequired: false,
  options: [],
  requireWorkEmail: false,
};
const teamSizeQuestion: QuestionSeed = {
  type: 'select',
  title: 'Team size',
  description: '',
  placeholder: 'Choose one',
  isRequired: false,
  options: [
    { value: '1-10', label: '1 to 10' },
    { value: '11-50', label: '11 to 50' },
    { value: '51+', label: 'More than 50' },
  ],
  requireWorkEmail: false,
};

interface EventSeed {
  key: string;
  slug: string;
  name: string;
  title: string;
  description: string;
  duration: number;
  increment: number;
  conferencingType: EventConferencing;
  location: string;
  hosts: string[];
  questions: QuestionSeed[];
}

/** Newest first: index 0 gets the most recent createdAt. */
const EVENTS: EventSeed[] = [
  {
    key: 'intro',
    slug: 'intro-call',
    name: 'Intro Call',
    title: 'Quick intro call',
    description: 'Fifteen minutes to get to know each other.',
    duration: 15,
    increment: 15,
    conferencingType: 'zoom',
    location: '',
    hosts: ['amelia', 'ben'],
    questions: [emailQuestion(false)],
  },
  {
    key: 'demo',
    slug: 'product-demo',
    name: 'Product Demo',
    title: 'See the product',
    description: 'A guided demo with a solutions engineer.',
    duration: 30,
    increment: 30,
    conferencingType: 'calendar_default',
    location: '',
    hosts: ['amelia', 'ben', 'chiyo'],
    questions: [emailQuestion(true), teamSizeQuestion, topicQuestion],
  },
  {
    key: 'strategy',
    slug: 'strategy-session',
    name: 'Strategy Session',
    title: 'Plan your rollout',
    description: 'An hour in person.',
    duration: 60,
    increment: 60,
    conferencingType: 'in_person',
    location: '1 Market St, San Francisco, CA',
    hosts: ['chiyo', 'diego'],
    questions: [emailQuestion(false), topicQuestion],
  },
  {
    key: 'onboarding',
    slug: 'onboarding',
    name: 'Customer Onboarding',
    title: 'Get set up',
    description: 'Onboarding for new customers.',
    duration: 45,
    increment: 15,
    conferencingType: 'zoom_personal',
    location: '',
    hosts: ['ben', 'diego'],
    questions: [emailQuestion(false)],
  },
  {
    key: 'support',
    slug: 'support-escalation',
    name: 'Support Escalation',
    title: 'Talk to support',
    description: 'For urgent issues.',
    duration: 20,
    increment: 10,
    conferencingType: 'calendar_default',
    location: '',
    hosts: ['diego'],
    questions: [emailQuestion(false)],
  },
  {
    key: 'partner',
    slug: 'partner-sync',
    name: 'Partner Sync',
    title: 'Partner check-in',
    description: 'Monthly partner sync.',
    duration: 30,
    increment: 30,
    conferencingType: 'zoom',
    location: '',
    hosts: ['amelia', 'chiyo'],
    questions: [emailQuestion(false)],
  },
  {
    key: 'review',
    slug: 'quarterly-review',
    name: 'Quarterly Business Review',
    title: 'Quarterly review',
    description: 'Review the quarter.',
    duration: 90,
    increment: 30,
    conferencingType: 'in_person',
    location: 'At your office',
    hosts: ['ben'],
    questions: [emailQuestion(false)],
  },
];

// `onboarding` deliberately collides with the event slug: the link wins (spec rule).
const LINKS = [
  { key: 'emea', slug: 'sales-emea', name: 'Sales EMEA', event: 'demo', hosts: ['amelia'] },
  { key: 'americas', slug: 'sales-americas', name: 'Sales Americas', event: 'demo', hosts: ['ben'] },
  { key: 'apac', slug: 'sales-apac', name: 'Sales APAC', event: 'demo', hosts: ['chiyo'] },
  { key: 'onboarding-west', slug: 'onboarding', name: 'Onboarding (US West)', event: 'onboarding', hosts: ['diego'] },
];

const emailField: TriggerField = { name: 'email', label: 'Email', type: 'text', required: true, options: null };
const text = (name: string, label: string, required: boolean): TriggerField => ({
  name,
  label,
  type: 'text',
  required,
  options: null,
});
const select = (name: string, label: string, required: boolean, options: [string, string][]): TriggerField => ({
  name,
  label,
  type: 'select',
  required,
  options: options.map(([value, optionLabel]) => ({ value, label: optionLabel })),
});

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

export function seedWorkspace(seed: number, seededAt: Date): Workspace {
  const rng = Rng.fromSeed(seed, 'workspace');
  const keyHex = rng.hex(16);
  const keys = {
    full: `sk_sandbox_full_${keyHex}`,
    readOnly: `sk_sandbox_read_${keyHex}`,
    revoked: `sk_sandbox_revoked_${keyHex}`,
  };
  const hostIds = new Map<string, string>();
  const hosts: HostRecord[] = HOSTS.map((h) => {
    const id = rng.uuid();
    hostIds.set(h.key, id);
    const localNow = DateTime.fromJSDate(seededAt, { zone: h.zone }).startOf('day');
    const busy = h.busy.map(([days, at, length]) => {
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
  const events: EventRecord[] = EVENTS.map((e, index) => {
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
      conferencingType: e.conferencingType,
      location: e.location,
      createdAt,
      updatedAt: createdAt,
      hostIds: ids(e.hosts),
      questions: e.questions.map((q, order) => ({ ...q, id: rng.uuid(), order })),
    };
  });
  const linkIds = new Map<string, string>();
  const links: LinkRecord[] = LINKS.map((l) => {
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
  const link = (key: string) => must(linkIds.get(key), `link ${key}`);
  const triggers: TriggerRecord[] = [
    {
      id: rng.uuid(),
      name: 'Inbound demo request',
      description: 'Website demo form; routes by region to a sales link.',
      requireWorkEmail: true,
      fields: [
        emailField,
        text('company', 'Company', true),
        select('region', 'Region', true, [
          ['emea', 'Europe, Middle East and Africa'],
          ['americas', 'Americas'],
          ['apac', 'Asia Pacific'],
        ]),
        select('team_size', 'Team size', false, [
          ['1-10', '1 to 10'],
          ['11-50', '11 to 50'],
          ['51+', 'More than 50'],
        ]),
        text('notes', 'Anything else?', false),
      ],
      rules: [
        { when: { field: 'region', equals: 'emea' }, outcome: { type: 'scheduler', linkId: link('emea') } },
        { when: { field: 'region', equals: 'apac' }, outcome: { type: 'scheduler', linkId: link('apac') } },
        { outcome: { type: 'scheduler', linkId: link('americas') } },
      ],
    },
    {
      id: rng.uuid(),
      name: 'Partner application',
      description: 'Partner form; sends the lead to the partner portal.',
      requireWorkEmail: false,
      fields: [
        emailField,
        text('company', 'Company', true),
        select('partner_type', 'Partner type', true, [
          ['reseller', 'Reseller'],
          ['referral', 'Referral'],
          ['technology', 'Technology'],
        ]),
        text('website', 'Website', false),
      ],
      rules: [{ outcome: { type: 'redirect', url: 'https://partners.example.com/apply?type={partner_type}' } }],
    },
    {
      id: rng.uuid(),
      name: 'Newsletter signup',
      description: 'Newsletter form; the workflow ends without a meeting.',
      requireWorkEmail: false,
      fields: [
        emailField,
        text('first_name', 'First name', false),
        select('topic', 'Topic', false, [
          ['product', 'Product news'],
          ['engineering', 'Engineering'],
          ['events', 'Events'],
        ]),
      ],
      rules: [{ outcome: { type: 'none' } }],
    },
  ];
  return { seed, keys, hosts, events, links, triggers };
}
