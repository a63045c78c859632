/**
 * Read-only resources a client can attach as context (MCP resources): the meetings on record
 * (schedctl's local record, no API request) and the workspace's API triggers (1 request per
 * read). Each is the JSON document the matching tool returns as structuredContent, as
 * application/json: data, never instructions.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.js';
import { listMeetings } from '../run/meetings/ls.js';
import { newCall } from './call.js';
import { clip } from './input.js';
import { ProtocolError } from './protocol-error.js';
import { PAGE } from './output.js';
import { meetingsDocument } from './tools/read.js';

export const RESOURCES = {
  upcoming: 'schedctl://meetings/upcoming',
  all: 'schedctl://meetings/all',
  triggers: 'schedctl://triggers',
} as const;

const json = (uri: string, doc: unknown) => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(doc, null, 2) }],
});

/** What resources/list shows. */
const LIST = [
  {
    name: 'upcoming-meetings',
    uri: RESOURCES.upcoming,
    title: 'Upcoming meetings on record',
    description: `The upcoming meetings booked or moved through schedctl with this profile (schedctl's local record: the API has no list operation). The same document as list_meetings: the first ${PAGE.default}, earliest first, with total and nextOffset (list_meetings with offset lists the rest). No API request.`,
    mimeType: 'application/json',
    annotations: { audience: ['user', 'assistant'], priority: 0.6 },
  },
  {
    name: 'all-meetings',
    uri: RESOURCES.all,
    title: 'All meetings on record',
    description: `Every meeting booked or moved through schedctl with this profile, past ones included: the first ${PAGE.default}, earliest first, with total and nextOffset (list_meetings with all: true and offset lists the rest). No API request.`,
    mimeType: 'application/json',
    annotations: { audience: ['user', 'assistant'], priority: 0.3 },
  },
  {
    name: 'triggers',
    uri: RESOURCES.triggers,
    title: 'API triggers',
    description:
      "The workspace's API triggers with the form fields each expects (the same document as list_triggers). Costs 1 API request per read.",
    mimeType: 'application/json',
    annotations: { audience: ['assistant'], priority: 0.5 },
  },
] satisfies Resource[];

/** The specification's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

export function registerResources(server: Server, base: Context): void {
  const meetings = async (uri: string, all: boolean) => {
    const { ctx } = newCall(base);
    const list = await listMeetings(ctx, all ? {} : { upcomingFrom: ctx.clock.now() });
    // Bounded as list_meetings is: a resource is read whole into the client's context.
    return json(uri, meetingsDocument(list));
  };
  const shownUri = (uri: string) => JSON.stringify(clip(uri, 200));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: LIST }));
  // No templates (every resource has a fixed URI); answered, as clients list them on connecting.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    // Malformed (not an absolute URI): bad params. Well-formed but not ours: not found (-32002).
    if (!URL.canParse(uri))
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `${shownUri(uri)} is not a URI (the resources are ${Object.values(RESOURCES).join(', ')})`,
      );
    switch (uri) {
      case RESOURCES.upcoming:
        return meetings(uri, false);
      case RESOURCES.all:
        return meetings(uri, true);
      case RESOURCES.triggers: {
        const { ctx } = newCall(base);
        return json(uri, await (await ctx.api()).listTriggers());
      }
      default:
        throw new ProtocolError(
          RESOURCE_NOT_FOUND,
          `Resource not found: ${shownUri(uri)} (the resources are ${Object.values(RESOURCES).join(', ')})`,
          { uri: clip(uri, 200) },
        );
    }
  });
}
