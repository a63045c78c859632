/** HTTP plumbing: the error envelope, replies, body reading and request validation. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from '../api/zod.js';
import { issueDetails } from '../api/request-schemas.js';
import type { ErrorCode } from '../api/schemas.js';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Thrown by handlers; turned into the spec's envelope `{"error":{code,message,details?}}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: string[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export function errorReply(
  status: number,
  code: string,
  message: string,
  details?: string[],
  headers?: Record<string, string>,
): Reply {
  const error: Record<string, unknown> = { code, message };
  if (details && details.length > 0) error.details = details;
  return { status, body: { error }, headers };
}

export function failureReply(failure: ApiFailure): Reply {
  return errorReply(failure.status, failure.code, failure.message, failure.details, failure.headers);
}

export const invalid = (message: string, details: string[]) => new ApiFailure(400, 'INVALID_REQUEST', message, details);
export const notFound = (message: string) => new ApiFailure(404, 'NOT_FOUND', message);

/** Parses a raw body as JSON; an empty body counts as `{}` so zod reports the missing fields. */
export function parseJson(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw invalid('The request body is not valid JSON.', ['(body): malformed JSON']);
  }
}

export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const details = issueDetails(result.error);
    const fields = [...new Set(details.map((d) => d.split(':')[0]))].join(', ');
    throw invalid(`Invalid ${what}: fix ${fields}.`, details);
  }
  return result.data;
}

const MAX_BODY = 1024 * 1024;

/** Reads the whole body; `null` when it exceeds 1 MiB (answered as INVALID_REQUEST). */
export async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) tooLarge = true;
    else chunks.push(buf);
  }
  return tooLarge ? null : Buffer.concat(chunks).toString('utf8');
}

export function serialise(reply: Reply): string {
  return JSON.stringify(reply.body);
}

/** Sends a JSON reply. No CORS headers, ever: the API is server-to-server. */
export function send(res: ServerResponse, reply: Reply, bodyText = serialise(reply)): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(bodyText),
    ...reply.headers,
  });
  res.end(bodyText);
}
