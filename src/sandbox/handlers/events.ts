/** GET /v1/scheduling/events and GET /v1/scheduling/events/{event}. */
import type { EventDetail, EventSummary, Host } from '../../api/schemas.js';
import { invalid, notFound, type Reply } from '../http.js';
import type { EventRecord, Workspace } from '../types.js';
import type { HandlerContext } from './context.js';
import { must } from '../must.js';

export const DEFAULT_PAGE = 5;
export const MAX_PAGE = 50;

export function toSummary(e: EventRecord): EventSummary {
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    schedulerTitle: e.schedulerTitle,
    schedulerDescription: e.schedulerDescription,
    duration: e.duration,
    timeslotIncrement: e.timeslotIncrement,
    conferencingType: e.conferencingType,
    location: e.location,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function toHost(workspace: Workspace, hostId: string, isPrimary: boolean): Host {
  const h = must(
    workspace.hosts.find((x) => x.id === hostId),
    `host ${hostId}`,
  );
  return { name: h.name, profilePictureUrl: h.profilePictureUrl, isQueue: false, isPrimary };
}

export function toDetail(workspace: Workspace, e: EventRecord, hostIds: string[]): EventDetail {
  const { createdAt: _c, updatedAt: _u, ...rest } = toSummary(e);
  return { ...rest, hosts: hostIds.map((id, i) => toHost(workspace, id, i === 0)), questions: e.questions };
}

// Opaque cursors: base64url of the offset, so clients cannot rely on their shape.
const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
function decodeCursor(cursor: string): number | undefined {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

export function listEvents(ctx: HandlerContext): Reply {
  const details: string[] = [];
  const limitText = ctx.query.get('limit');
  let limit = DEFAULT_PAGE;
  if (limitText !== null) {
    limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_PAGE)) details.push(`limit: must be an integer from 1 to ${MAX_PAGE}`);
  }
  const cursor = ctx.query.get('cursor');
  let offset = 0;
  if (cursor !== null && cursor !== '') {
    const decoded = decodeCursor(cursor);
    if (decoded === undefined) details.push('cursor: not a cursor returned by this API');
    else offset = decoded;
  }
  if (details.length > 0)
    throw invalid(`Invalid query: fix ${details.map((d) => d.split(':')[0]).join(', ')}.`, details);
  const newestFirst = [...ctx.store.workspace.events].sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id),
  );
  const page = newestFirst.slice(offset, offset + limit);
  const next = offset + limit < newestFirst.length ? encodeCursor(offset + limit) : '';
  return { status: 200, body: { events: page.map(toSummary), nextCursor: next } };
}

export function getEvent(ctx: HandlerContext): Reply {
  const target = ctx.store.resolve(ctx.params.event ?? '');
  if (!target) throw notFound(`No event or scheduling link "${ctx.params.event}".`);
  return { status: 200, body: toDetail(ctx.store.workspace, target.event, target.hostIds) };
}
