/**
 * Output helpers, loaded only by commands that print: colors (chalk) and spinners (ora)
 * only on a TTY, honoring --no-color, NO_COLOR and FORCE_COLOR. Results go to stdout,
 * everything for humans (progress, notes, warnings) to stderr.
 *
 * These are the sinks of human output, so every line passes the sanitizer here (on a TTY and
 * in pipes alike): text from the server or a local file never drives the terminal. Only our
 * own colors (SGR) survive, and only on a stream that has colors on. `json()` writes the data
 * (see json-text.ts).
 */
import { Chalk, supportsColor, supportsColorStderr, type ChalkInstance } from 'chalk';
import type { GlobalOptions, IO } from '../context-basics.js';
import { jsonText, sanitizeOutput } from './sanitize.js';

export interface Spinner {
  update(text: string): void;
  stop(finalLine?: string): void;
}

export interface Ui {
  out: ChalkInstance;
  err: ChalkInstance;
  /** Write the command's one JSON document to stdout. */
  json(value: unknown): void;
  /** Write result text to stdout. */
  print(text: string): void;
  /** Human progress and notes on stderr; silenced by --quiet. */
  info(line: string): void;
  warn(line: string): void;
  /** A wait of `ms` (a 429's Retry-After): a spinner on a TTY for that long, one line otherwise. */
  waiting(line: string, ms: number): void;
  spinner(text: string): Promise<Spinner>;
}

type Level = 0 | 1 | 2 | 3;

export function colorLevel(
  isTTY: boolean,
  detected: { level: number } | false,
  env: NodeJS.ProcessEnv,
  globals: Pick<GlobalOptions, 'color'>,
): Level {
  if (!globals.color || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return 0;
  if (env.FORCE_COLOR !== undefined) {
    if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return 0;
    return (detected ? Math.max(detected.level, 1) : 1) as Level;
  }
  if (!isTTY) return 0;
  return (detected ? detected.level : 1) as Level;
}

export function createUi(io: IO, env: NodeJS.ProcessEnv, globals: GlobalOptions): Ui {
  const out = new Chalk({ level: colorLevel(io.isStdoutTTY, supportsColor, env, globals) });
  const err = new Chalk({ level: colorLevel(io.isStderrTTY, supportsColorStderr, env, globals) });
  const forOut = (text: string) => sanitizeOutput(text, { keepSgr: out.level > 0 });
  const forErr = (text: string) => sanitizeOutput(text, { keepSgr: err.level > 0 });
  let active: Spinner | undefined;
  let pending: Promise<Spinner> | undefined;
  let waitEnd: NodeJS.Timeout | undefined;
  const ui: Ui = {
    out,
    err,
    json: (value) => {
      io.stdout.write(`${jsonText(value)}\n`);
    },
    print: (text) => {
      const safe = forOut(text);
      io.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
    },
    info: (line) => {
      if (!globals.quiet) io.stderr.write(`${forErr(line)}\n`);
    },
    warn: (line) => {
      io.stderr.write(`${err.yellow('warning:')} ${forErr(line)}\n`);
    },
    waiting: (line, ms) => {
      if (io.isStderrTTY && !globals.quiet) {
        // One line on a terminal, however many waits: a wait that follows another updates it.
        const until = Date.now() + ms;
        const end = (s: Spinner) => {
          if (waitEnd) clearTimeout(waitEnd);
          // The spinner's timer would keep the process alive: it ends with the wait.
          waitEnd = setTimeout(
            () => {
              if (active === s) active = undefined;
              waitEnd = undefined;
              s.stop();
            },
            Math.max(0, until - Date.now()),
          );
          waitEnd.unref();
        };
        if (active) {
          active.update(line);
          end(active);
          return;
        }
        const starting = (pending ??= ui.spinner(line).then((s) => {
          active = s;
          return s;
        }));
        void starting.then((s) => {
          pending = undefined;
          s.update(line);
          end(s);
        });
      } else {
        io.stderr.write(`${forErr(line)}\n`);
      }
    },
    spinner: async (text) => {
      if (!io.isStderrTTY || globals.quiet) {
        return { update: () => undefined, stop: (finalLine) => finalLine && ui.info(finalLine) };
      }
      const { default: ora } = await import('ora');
      // discardStdin off: ora would put the terminal in raw mode and catch Ctrl-C itself, but it
      // never starts reading a stdin nobody has read yet, so Ctrl-C did nothing while a spinner ran.
      // In cooked mode the terminal sends SIGINT, which the CLI answers with exit 130 (src/cli.ts).
      const s = ora({
        text: forErr(text),
        stream: io.stderr as NodeJS.WriteStream,
        isEnabled: true,
        discardStdin: false,
        color: err.level > 0 ? 'cyan' : (false as never),
      }).start();
      return {
        update: (t) => {
          s.text = forErr(t);
        },
        stop: (finalLine) => {
          s.stop();
          if (finalLine) ui.info(finalLine);
        },
      };
    },
  };
  return ui;
}
