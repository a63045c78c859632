/**
 * Broken and hostile HTTP servers for reliability tests: a local server that answers the
 * trigger list normally (commands that resolve a trigger need it) and misbehaves in one
 * chosen way on the route under test. Built on the recording test server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startTestServer, TRIGGERS_BODY } from './server.js';

export type Hostility =
  | 'html-502'
  | 'html-200'
  | 'truncated-json'
  | 'wrong-content-type'
  | 'schema-break'
  | 'huge-body'
  | 'never-answers'
  | 'drip'
  | 'redirect'
  | 'retry-after-huge'
  | 'retry-after-negative'
  | 'retry-after-nonsense';

/** What each misbehaviour must produce, for a read and for a once-only request (a booking, a fire). */
export interface HostileExpectation {
  exit: number;
  code: string;
  message: RegExp;
}

/** What each misbehaviour must produce, for a read and for a once-only request. */
export function hostileExpectation(kind: Hostility, once: boolean): HostileExpectation {
  const unknown = (message: RegExp): HostileExpectation => ({ exit: 7, code: 'OUTCOME_UNKNOWN', message });
  const bad = (message: RegExp): HostileExpectation => ({ exit: 1, code: 'BAD_RESPONSE', message });
  switch (kind) {
    case 'html-502':
      return once ? unknown(/HTTP 502/) : bad(/HTTP 502.*text\/html/);
    case 'html-200':
      return once ? unknown(/text\/html.*not JSON/) : bad(/text\/html.*not JSON/);
    case 'truncated-json':
      return once ? unknown(/does not parse/) : bad(/does not parse/);
    case 'wrong-content-type':
      return once ? unknown(/text\/plain, not JSON/) : bad(/text\/plain, not JSON/);
    case 'schema-break':
      return once ? unknown(/does not match the API contract/) : bad(/does not match the API contract/);
    case 'huge-body':
      return once ? unknown(/did not arrive completely/) : bad(/larger than 5 MB/);
    case 'never-answers':
      return once
        ? unknown(/no response within 1 s/)
        : { exit: 1, code: 'NETWORK_ERROR', message: /no response within 1 s/ };
    case 'drip':
      return once
        ? unknown(/did not arrive completely/)
        : { exit: 1, code: 'NETWORK_ERROR', message: /did not arrive within 2 s/ };
    case 'redirect':
      // A 3xx to a booking or a fire means it was processed (issue 25): outcome unknown.
      return once
        ? unknown(/redirect \(HTTP 307\), which schedctl does not follow/)
        : bad(/redirect \(HTTP 307\).*does not follow redirects/);
    case 'retry-after-huge':
    case 'retry-after-negative':
    case 'retry-after-nonsense':
      return { exit: 6, code: 'RATE_LIMITED', message: /slow down/ };
  }
}

/** Every misbehaviour, in the order the tests list them. */
export const HOSTILE_KINDS: Hostility[] = [
  'html-502',
  'html-200',
  'truncated-json',
  'wrong-content-type',
  'schema-break',
  'huge-body',
  'never-answers',
  'drip',
  'redirect',
  'retry-after-huge',
  'retry-after-negative',
  'retry-after-nonsense',
];

/** 10 MB: twice the client's 5 MB cap. */
const HUGE_BYTES = 10 * 1024 * 1024;

/** The misbehaviours; `redirectTo` is the other origin a redirect points at. */
export function misbehave(kind: Hostility, res: ServerResponse, redirectTo: string): void {
  res.on('error', () => undefined); // the client hanging up mid-body is expected
  switch (kind) {
    case 'html-502':
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    case 'html-200': // a captive portal or a login page
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body>Please sign in</body></html>');
      return;
    case 'truncated-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"triggers": [{"id": "3f0e5f1e-6a43-4d5c-9c1e');
      return;
    case 'wrong-content-type':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(JSON.stringify(TRIGGERS_BODY));
      return;
    case 'schema-break':
      sendJson(res, 200, { triggers: 'none', events: 42, slots: null, id: 7, executionId: false });
      return;
    case 'huge-body': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20); // spaces: valid JSON whitespace, so only the size is wrong
      let sent = 0;
      const pump = () => {
        while (sent < HUGE_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}');
      };
      pump();
      return;
    }
    case 'never-answers':
      return; // accepts the request, never writes a byte
    case 'drip': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const body = JSON.stringify(TRIGGERS_BODY);
      let i = 0;
      const timer = setInterval(() => {
        if (i >= body.length || res.destroyed) return void clearInterval(timer);
        res.write(body[i++]);
      }, 1000);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'redirect':
      res.writeHead(307, { location: `${redirectTo}/v1/triggers` });
      res.end();
      return;
    case 'retry-after-huge':
    case 'retry-after-negative':
    case 'retry-after-nonsense': {
      const value = {
        'retry-after-huge': '999999',
        'retry-after-negative': '-30',
        'retry-after-nonsense': 'after lunch',
      }[kind];
      sendJson(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': value });
      return;
    }
  }
}

/**
 * A server that misbehaves on `target` ("METHOD /path", the path matched as a prefix) and
 * answers GET /v1/triggers normally otherwise; a second, "other origin" server records
 * whatever a redirect makes reach it.
 */
export async function startHostileServer(kind: Hostility, target: string) {
  const other = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
  const [method, prefix] = target.split(' ') as [string, string];
  const isTarget = (req: IncomingMessage) => req.method === method && (req.url ?? '').startsWith(prefix);
  const main = await startTestServer((req, res) => {
    if (isTarget(req)) return misbehave(kind, res, other.baseUrl);
    if (req.method === 'GET' && req.url === '/v1/triggers') return sendJson(res, 200, TRIGGERS_BODY);
    sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url}` } });
  });
  return {
    baseUrl: main.baseUrl,
    /** Requests that hit the misbehaving route. */
    targetHits: () => main.seen.filter((s) => s.method === method && s.url.startsWith(prefix)),
    seen: main.seen,
    /** Requests that reached the other origin (a redirect must never carry the key there). */
    otherSeen: other.seen,
    close: async () => {
      await Promise.all([main.close(), other.close()]);
    },
  };
}
