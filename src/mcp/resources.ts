/**
 * Read-only resources a client can attach as context (MCP resources): the meetings on record
 * (schedctl's local record, no API request) and the workspace's API triggers (1 request per
 * read). Each is the JSON document the matching tool returns as structuredContent, as
 * application/json: data, never instructions.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Context } from '../context.js';
import { listMeetings } from '../run/meetings/ls.js';
import { newCall } from './call.js';

export const RESOURCES = {
  upcoming: 'schedctl://meetings/upcoming',
  all: 'schedctl://meetings/all',
  triggers: 'schedctl://triggers',
} as const;

const json = (uri: string, doc: unknown) => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(doc, null, 2) }],
});

export function registerResources(server: McpServer, base: Context): void {
  const meetings = (uri: string, all: boolean) => async () => {
    const { ctx } = newCall(base);
    const list = await listMeetings(ctx, all ? {} : { upcomingFrom: ctx.clock.now() });
    return json(uri, { meetings: list });
  };
  server.registerResource(
    'upcoming-meetings',
    RESOURCES.upcoming,
    {
      title: 'Upcoming meetings on record',
      description:
        "The upcoming meetings booked or moved through schedctl with this profile (schedctl's local record: the API has no list operation). The same document as list_meetings. No API request.",
      mimeType: 'application/json',
      annotations: { audience: ['user', 'assistant'], priority: 0.6 },
    },
    meetings(RESOURCES.upcoming, false),
  );
  server.registerResource(
    'all-meetings',
    RESOURCES.all,
    {
      title: 'All meetings on record',
      description:
        'Every meeting booked or moved through schedctl with this profile, past ones included (list_meetings with all: true). No API request.',
      mimeType: 'application/json',
      annotations: { audience: ['user', 'assistant'], priority: 0.3 },
    },
    meetings(RESOURCES.all, true),
  );
  server.registerResource(
    'triggers',
    RESOURCES.triggers,
    {
      title: 'API triggers',
      description:
        "The workspace's API triggers with the form fields each expects (the same document as list_triggers). Costs 1 API request per read.",
      mimeType: 'application/json',
      annotations: { audience: ['assistant'], priority: 0.5 },
    },
    async () => {
      const { ctx } = newCall(base);
      return json(RESOURCES.triggers, await (await ctx.api()).listTriggers());
    },
  );
}
