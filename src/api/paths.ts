/** The API's paths (spec "Endpoints"), in one place: the endpoints (endpoints.ts) and the smoke checks use them. */
const seg = (s: string) => encodeURIComponent(s);

export const PATHS = {
  triggers: '/v1/triggers',
  trigger: (triggerId: string) => `/v1/triggers/${seg(triggerId)}`,
  events: '/v1/scheduling/events',
  event: (event: string) => `/v1/scheduling/events/${seg(event)}`,
  slots: (event: string) => `/v1/scheduling/events/${seg(event)}/slots`,
  meetings: '/v1/scheduling/meetings',
  meeting: (meetingId: string) => `/v1/scheduling/meetings/${seg(meetingId)}`,
} as const;
