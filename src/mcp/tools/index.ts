/** Every tool the server offers, in the order clients list them. */
import type { ToolDef } from '../tool.js';
import { bookMeetingTool, findSlotsTool } from './book.js';
import { fireTriggerTool } from './fire.js';
import { listEvents, listMeetingsTool, listTriggers, showEvent } from './read.js';
import { rescheduleMeetingTool } from './reschedule.js';
import { routeLeadTool } from './route.js';

// Each definition keeps its own argument types; the server needs only the common shape.
export const TOOLS = [
  listTriggers,
  listEvents,
  showEvent,
  fireTriggerTool,
  findSlotsTool,
  bookMeetingTool,
  routeLeadTool,
  listMeetingsTool,
  rescheduleMeetingTool,
] as unknown as ToolDef[];
