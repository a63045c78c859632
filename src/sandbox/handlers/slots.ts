/** POST /v1/scheduling/events/{event}/slots: bookable starts plus a reservation. */
import { slotsRequestSchema } from '../../api/request-schemas.js';
import { listSlots } from '../availability.js';
import { ApiFailure, invalid, notFound, validate, type Reply } from '../http.js';
import type { Store } from '../store.js';
import type { ReservationRecord, Target } from '../types.js';
import type { HandlerContext } from './context.js';
import { toHost } from './events.js';
import { must } from '../must.js';

export const MAX_RANGE_DAYS = 63;

export function resolveTarget(store: Store, identifier: string): Target {
  const target = store.resolve(identifier);
  if (!target) throw notFound(`No event or scheduling link "${identifier}".`);
  return target;
}

/** Unknown → 404; made for another event or link → 400 RESERVATION_MISMATCH. */
export function lookupReservation(store: Store, id: string, target: Target): ReservationRecord {
  const r = store.state.reservations.find((x) => x.id === id);
  if (!r) throw notFound(`Reservation ${id} does not exist.`);
  if (r.targetKind !== target.kind || r.targetId !== target.id) {
    throw new ApiFailure(
      400,
      'RESERVATION_MISMATCH',
      `Reservation ${id} was made for "${r.eventKey}", not for this ${target.kind}.`,
    );
  }
  return r;
}

export function assertUsable(store: Store, r: ReservationRecord): void {
  const status = store.reservationStatus(r);
  if (status === 'used')
    throw new ApiFailure(409, 'RESERVATION_USED', `Reservation ${r.id} was already used to book a meeting.`);
  if (status === 'expired') {
    throw new ApiFailure(
      409,
      'RESERVATION_EXPIRED',
      `Reservation ${r.id} expired at ${r.expiresAt}; request slots again without a reservationId.`,
    );
  }
}

export function postSlots(ctx: HandlerContext): Reply {
  const { store } = ctx;
  const identifier = ctx.params.event ?? '';
  const target = resolveTarget(store, identifier);
  const body = validate(slotsRequestSchema, ctx.json(), 'slots request');
  const start = Date.parse(body.start);
  const end = Date.parse(body.end);
  if (end <= start) throw invalid('Invalid slots request: fix end.', ['end: must be after start']);
  if (end - start > MAX_RANGE_DAYS * 86_400_000) {
    throw invalid('Invalid slots request: fix end.', [`end: range must be at most ${MAX_RANGE_DAYS} days after start`]);
  }
  let reservation: ReservationRecord;
  if (body.reservationId) {
    // Paging further ranges: same reservation, same host selection, expiry not extended.
    reservation = lookupReservation(store, body.reservationId, target);
    assertUsable(store, reservation);
  } else {
    const now = store.nowMs();
    reservation = {
      id: store.nextId(),
      eventId: target.event.id,
      eventKey: identifier,
      targetKind: target.kind,
      targetId: target.id,
      hostIds: [...target.hostIds],
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + store.options.holdSeconds * 1000).toISOString(),
      usedAt: null,
    };
    store.state.reservations.push(reservation);
    store.commit();
  }
  const slots = listSlots(store.calendars(reservation.hostIds), start, end, {
    duration: target.event.duration,
    increment: target.event.timeslotIncrement,
    now: store.nowMs() + (store.options.slotNoticeSeconds ?? 0) * 1000,
  });
  // activeHost: null for plain events; for a link, the link's primary host (Host shape).
  const activeHost = target.link
    ? toHost(store.workspace, must(target.link.hostIds[0], 'the primary host of the link'), true)
    : null;
  return {
    status: 200,
    body: {
      reservationId: reservation.id,
      eventId: reservation.eventId,
      expiresAt: reservation.expiresAt,
      slots: slots.map((t) => new Date(t).toISOString()),
      activeHost,
    },
  };
}
