/**
 * `schedctl sandbox`: starts the server, prints where it is, and shuts down cleanly on
 * SIGINT/SIGTERM (state is flushed by close()). Loaded by dynamic import so the rest of
 * the CLI never pays for it.
 */
import { UsageError } from '../errors.js';
import { isLoopbackHost, startSandbox } from './server.js';
import type { SandboxKeys } from './types.js';
import { seedWorkspace } from './workspace.js';

export interface SandboxCommandOptions {
  host: string;
  port: number;
  seed: number;
  /** --seed was given: the seed's ids, start after start (otherwise each start's ids are its own). */
  seeded?: boolean;
  holdSeconds: number;
  rateLimit: number;
  state?: string;
  json: boolean;
  /** How to run schedctl from here, for the banner's "Try it" (`schedctl`, or `node bin/schedctl.js` in a checkout). */
  command?: string;
  /** The profile this sandbox is saved as (--profile): "Try it" uses it instead of the key inline. */
  profile?: string;
}

export interface SandboxCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface RunningSandbox {
  baseUrl: string;
  keys: SandboxKeys;
  closed: Promise<void>;
}

function banner(
  baseUrl: string,
  keys: SandboxKeys,
  seed: number,
  opts: Pick<SandboxCommandOptions, 'command' | 'profile'>,
): string {
  const cmd = opts.command ?? 'schedctl';
  const tryIt = opts.profile
    ? [`  ${cmd} --profile ${opts.profile} triggers ls`, `  ${cmd} --profile ${opts.profile} route`]
    : [`  SCHEDCTL_BASE_URL=${baseUrl} SCHEDCTL_API_KEY=${keys.full} ${cmd} triggers ls`];
  const ws = seedWorkspace(seed, new Date());
  const links = ws.links.map((l) => `${l.slug}`).join(', ');
  return [
    `schedctl sandbox listening on ${baseUrl}`,
    '',
    `  full key       ${keys.full}`,
    `  read-only key  ${keys.readOnly}`,
    `  revoked key    ${keys.revoked}`,
    '',
    `  events    ${ws.events.map((e) => `${e.slug} (${e.duration}m)`).join(', ')}`,
    `  links     ${links}`,
    `  triggers  ${ws.triggers.map((t) => t.name).join(', ')}`,
    '',
    'Try it:',
    ...tryIt,
    '',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** Why the sandbox could not listen, as a usage error saying what to pass instead; undefined when it is something else. */
function listenError(error: unknown, opts: Pick<SandboxCommandOptions, 'host' | 'port'>): UsageError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`port ${opts.port} is in use; pass --port 0 for a free one`, {
        hint: `another program (perhaps another schedctl sandbox) listens on ${opts.host}:${opts.port}`,
      });
    case 'EACCES':
      return new UsageError(`port ${opts.port} needs privileges on this machine; pass --port 0 for a free one`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(`cannot listen on --host ${opts.host}: no such address on this machine`, {
        hint: 'use --host 127.0.0.1',
      });
    default:
      return undefined;
  }
}

export async function runSandboxCommand(opts: SandboxCommandOptions, io: SandboxCommandIo): Promise<RunningSandbox> {
  if (!isLoopbackHost(opts.host)) {
    io.stderr.write(
      `warning: binding ${opts.host} exposes the sandbox and its demo keys beyond this machine; use --host 127.0.0.1 unless you mean it\n`,
    );
  }
  const sandbox = await startSandbox({
    host: opts.host,
    port: opts.port,
    seed: opts.seed,
    // Without --seed, ids never repeat across starts (a ledger would take them for the same meeting).
    uniqueIds: !opts.seeded,
    holdSeconds: opts.holdSeconds,
    rateLimit: opts.rateLimit,
    ...(opts.state ? { stateFile: opts.state } : {}),
  }).catch((error: unknown) => {
    throw listenError(error, opts) ?? error;
  });
  if (opts.json) io.stdout.write(`${JSON.stringify({ baseUrl: sandbox.baseUrl, keys: sandbox.keys })}\n`);
  else io.stdout.write(banner(sandbox.baseUrl, sandbox.keys, opts.seed, opts));

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  // The CLI's own Ctrl-C handling (exit 130 at once, src/cli.ts) stands aside while this runs.
  const ownsSigint = process as unknown as Record<symbol, unknown>;
  ownsSigint[Symbol.for('schedctl.ownsSigint')] = true;
  const shutdown = () => {
    process.off('SIGINT', shutdown);
    process.off('SIGTERM', shutdown);
    void sandbox
      .close()
      .then(resolveClosed, resolveClosed)
      .finally(() => {
        delete ownsSigint[Symbol.for('schedctl.ownsSigint')];
      });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return { baseUrl: sandbox.baseUrl, keys: sandbox.keys, closed };
}
