/**
 * A small stand-in for the real service whose answers are valid per the spec by default,
 * and can be broken one route at a time (an extra property, a bad enum, a non-uuid id,
 * a missing field), to prove that `schedctl smoke` catches a contract break and names it.
 */
import { sendJson, startTestServer } from './server.js';

export type ContractRoute = 'triggers' | 'events' | 'event' | 'slots' | 'fire' | 'meeting';
/** Edits the valid body in place before it is sent. */
export type Breakage = Partial<Record<ContractRoute, (body: any) => void>>;

export const IDS = {
  trigger: '0b7d5c1e-2f4a-4c3b-9d8e-1a2b3c4d5e6f',
  event: '1c8e6d2f-3a5b-4d4c-8e9f-2b3c4d5e6f70',
  link: '2d9f7e30-4b6c-4e5d-9fa0-3c4d5e6f7081',
  question: '3ea08f41-5c7d-4f6e-8ab1-4d5e6f708192',
  reservation: '4fb19052-6d8e-407f-9bc2-5e6f708192a3',
  execution: '50c2a163-7e9f-4180-8cd3-6f708192a3b4',
  meeting: '61d3b274-8fa0-4291-9de4-708192a3b4c5',
};

const NOW = '2026-01-05T09:00:00Z';

function bodies(now: Date) {
  const slot = new Date(Math.ceil(now.getTime() / 3_600_000) * 3_600_000 + 86_400_000).toISOString();
  const common = {
    id: IDS.event,
    slug: 'intro-call',
    name: 'Intro Call',
    schedulerTitle: 'Quick intro',
    schedulerDescription: 'Fifteen minutes',
    duration: 15,
    timeslotIncrement: 15,
    conferencingType: 'zoom',
    location: '',
  };
  return {
    triggers: {
      triggers: [
        {
          id: IDS.trigger,
          name: 'Demo request',
          description: 'Inbound demo form',
          fields: [
            { name: 'email', label: 'Email', type: 'text', required: true, options: null },
            { name: 'company', label: 'Company', type: 'text', required: true, options: null },
          ],
        },
      ],
    },
    events: { events: [{ ...common, createdAt: NOW, updatedAt: NOW }], nextCursor: '' },
    event: {
      ...common,
      hosts: [{ name: 'Amelia Hart', profilePictureUrl: 'https://example.com/a.png', isQueue: false, isPrimary: true }],
      questions: [
        {
          id: IDS.question,
          type: 'email',
          title: 'Email',
          description: '',
          placeholder: '',
          isRequired: true,
          order: 0,
          options: [],
          requireWorkEmail: false,
        },
      ],
    },
    slots: {
      reservationId: IDS.reservation,
      eventId: IDS.event,
      expiresAt: new Date(now.getTime() + 600_000).toISOString(),
      slots: [slot],
      activeHost: null,
    },
    fire: {
      executionId: IDS.execution,
      outcome: { type: 'scheduler', schedulerUrl: 'https://book.example.com/x', schedulingLinkId: IDS.link },
    },
    meeting: {
      id: IDS.meeting,
      eventId: IDS.event,
      title: 'Intro Call',
      status: 'scheduled',
      date: slot,
      duration: 15,
      meetingLink: 'https://zoom.example.com/j/1',
      conferencingType: 'zoom',
      location: null,
      personEmail: 'qa@acme.com',
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    },
  };
}

function routeOf(method: string, path: string): ContractRoute | undefined {
  if (method === 'GET' && path === '/v1/triggers') return 'triggers';
  if (method === 'POST' && /^\/v1\/triggers\/[^/]+$/.test(path)) return 'fire';
  if (method === 'GET' && path === '/v1/scheduling/events') return 'events';
  if (method === 'GET' && /^\/v1\/scheduling\/events\/[^/]+$/.test(path)) return 'event';
  if (method === 'POST' && /^\/v1\/scheduling\/events\/[^/]+\/slots$/.test(path)) return 'slots';
  if (method === 'POST' && path === '/v1/scheduling/meetings') return 'meeting';
  return undefined;
}

export async function startContractServer(breakage: Breakage = {}) {
  return startTestServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = routeOf(req.method ?? '', path);
    if (!route) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${req.method} ${path}` } });
    const body = bodies(new Date())[route];
    breakage[route]?.(body);
    sendJson(res, route === 'meeting' ? 201 : 200, body);
  });
}
