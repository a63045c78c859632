/**
 * A server whose text is hostile: it answers every endpoint of the spec with valid-shaped JSON,
 * but every string it controls carries terminal control sequences (window title, hyperlink,
 * clear screen, a bare carriage return, a bidi override, a one-byte CSI). Instants stay
 * readable where the CLI needs them to go on (the free slots; one hostile slot rides along),
 * ids are hostile too (they come back as path segments, encoded). Some requests answer the
 * error envelope, with the same sequences in its code, message and details.
 * Built on the recording test server (test/helpers/server.ts).
 */
import { sendJson, startTestServer } from './server.js';

/** Every sequence a server could use to drive a terminal, and a bare \r. */
export const HOSTILE = '\x1b]0;pwned\x07\x1b]8;;http://evil\x07\x1b[2J\rX\u202e\x9b';
/** The same text as the sanitizer shows it. */
export const HOSTILE_SHOWN = '\\x1b]0;pwned\\x07\\x1b]8;;http://evil\\x07\\x1b[2J\\rX\\u202e\\x9b';
/** A string the server sends: readable text, then the hostile sequences. */
export const h = (text: string): string => `${text}${HOSTILE}`;

/**
 * Line breaks of every kind, each followed by a line that poses as schedctl's own: what a
 * server puts in a one-line field (a trigger name, a meeting title) to forge output lines.
 */
export const FORGED =
  '\nerror: forged LF\r\nhint: forged CRLF\rerror: forged CR\x0berror: forged VT\x0chint: forged FF\x85error: forged NEL\u2028error: forged LS\u2029hint: forged PS';

export const HOSTILE_IDS = {
  trigger: h('0b7d5c1e-2f4a-4c3b-9d8e-1a2b3c4d5e6f'),
  event: h('1c8e6d2f-3a5b-4d4c-8e9f-2b3c4d5e6f70'),
  link: h('2d9f7e30-4b6c-4e5d-9fa0-3c4d5e6f7081'),
  reservation: h('4fb19052-6d8e-407f-9bc2-5e6f708192a3'),
  execution: h('50c2a163-7e9f-4180-8cd3-6f708192a3b4'),
  meeting: h('61d3b274-8fa0-4291-9de4-708192a3b4c5'),
  /** The field the trigger requires: pass it as `--field ${FIELD}=…`. */
  field: h('company'),
};

/** Requests that get the hostile error envelope instead of an answer. */
export const REFUSED = {
  /** `events show missing`: 404 with a hostile code, message and details. */
  event: 'missing',
  /** `trigger fire … --email refused@acme.example`: 400 INVALID_REQUEST, hostile message and details. */
  fireEmail: 'refused@acme.example',
  /** `book … --reservation` this id: 409 SLOT_TAKEN with a hostile message. */
  reservation: '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
};

function envelopeOf(code: string, message: string, h: (text: string) => string) {
  return { error: { code, message: h(message), details: [h('field: reason one'), h('second detail')] } };
}

function bodies(now: Date, h: (text: string) => string) {
  const hour = 3_600_000;
  const first = Math.ceil(now.getTime() / hour) * hour + hour;
  const slots = [
    new Date(first).toISOString(),
    new Date(first + hour).toISOString(),
    h(new Date(first + 2 * hour).toISOString()),
  ];
  const option = { value: h('emea'), label: h('EMEA') };
  const common = {
    id: HOSTILE_IDS.event,
    slug: h('intro-call'),
    name: h('Intro Call'),
    schedulerTitle: h('Quick intro'),
    schedulerDescription: h('Fifteen minutes'),
    duration: 15,
    timeslotIncrement: 15,
    conferencingType: h('zoom'),
    location: h('Room 1'),
  };
  const meeting = {
    id: HOSTILE_IDS.meeting,
    eventId: HOSTILE_IDS.event,
    title: h('Intro Call'),
    status: h('scheduled'),
    date: h(slots[0]!),
    duration: 15,
    meetingLink: h('https://zoom.example.com/j/1'),
    conferencingType: h('zoom'),
    location: h('Room 1'),
    personEmail: h('lead@acme.example'),
    additionalAttendees: [h('guest@acme.example')],
    cancellationReason: h('none'),
    createdAt: h(now.toISOString()),
    updatedAt: h(now.toISOString()),
  };
  return {
    triggers: {
      triggers: [
        {
          id: HOSTILE_IDS.trigger,
          name: h('Demo request'),
          description: h('Inbound demo form'),
          fields: [
            { name: HOSTILE_IDS.field, label: h('Company'), type: h('text'), required: true, options: null },
            { name: h('region'), label: h('Region'), type: h('select'), required: false, options: [option] },
          ],
        },
      ],
      // A key of its own: --json and `api` pass unknown members through.
      [h('x-extra')]: h('extra'),
    },
    events: {
      events: [{ ...common, createdAt: h(now.toISOString()), updatedAt: h(now.toISOString()) }],
      nextCursor: h('cursor'),
    },
    event: {
      ...common,
      hosts: [
        { name: h('Amelia Hart'), profilePictureUrl: h('https://example.com/a.png'), isQueue: false, isPrimary: true },
      ],
      questions: [
        {
          id: h('q1'),
          type: h('choice'),
          title: h('Team size'),
          description: h('How many'),
          placeholder: h('10'),
          isRequired: true,
          order: 0,
          options: [option],
          requireWorkEmail: true,
        },
      ],
    },
    slots: {
      reservationId: HOSTILE_IDS.reservation,
      eventId: HOSTILE_IDS.event,
      expiresAt: h(new Date(now.getTime() + 600_000).toISOString()),
      slots,
      activeHost: { [h('name')]: h('Amelia') },
    },
    fire: {
      executionId: HOSTILE_IDS.execution,
      outcome: { type: 'scheduler', schedulerUrl: h('https://book.example.com/x'), schedulingLinkId: HOSTILE_IDS.link },
    },
    meeting,
  };
}

/**
 * `suffix`: what every server string (but the ids the tests pass back) ends with: the terminal
 * sequences (HOSTILE) by default, or FORGED line breaks.
 */
export async function startHostileTextServer(suffix: string = HOSTILE) {
  const hs = (text: string) => `${text}${suffix}`;
  const envelope = (code: string, message: string) => envelopeOf(code, message, hs);
  return startTestServer((req, res, seen) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const method = req.method ?? '';
    const b = bodies(new Date(), hs);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(seen.body || '{}');
    } catch {
      // not JSON: answered like any other request
    }
    if (method === 'GET' && path === '/v1/triggers') return sendJson(res, 200, b.triggers);
    if (method === 'POST' && path.startsWith('/v1/triggers/')) {
      if (body.email === REFUSED.fireEmail)
        return sendJson(res, 400, envelope('INVALID_REQUEST', 'the form refused this lead'));
      return sendJson(res, 200, b.fire);
    }
    if (method === 'GET' && path === '/v1/scheduling/events') return sendJson(res, 200, b.events);
    if (method === 'GET' && path === `/v1/scheduling/events/${REFUSED.event}`)
      return sendJson(res, 404, envelope(h('NOT_FOUND'), 'no such event'));
    if (method === 'GET' && path.startsWith('/v1/scheduling/events/') && !path.endsWith('/slots'))
      return sendJson(res, 200, b.event);
    if (method === 'POST' && path.endsWith('/slots')) return sendJson(res, 200, b.slots);
    if (method === 'POST' && path === '/v1/scheduling/meetings') {
      if (body.reservationId === REFUSED.reservation)
        return sendJson(res, 409, envelope('SLOT_TAKEN', 'that time was just taken'));
      return sendJson(res, 201, b.meeting);
    }
    if (method === 'PATCH' && path.startsWith('/v1/scheduling/meetings/'))
      return sendJson(res, 200, { ...b.meeting, status: hs('rescheduled') });
    sendJson(res, 404, envelope(h('NOT_FOUND'), `no route ${method} ${path}`));
  });
}
