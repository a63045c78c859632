/**
 * The Context every command receives (built by context.ts's createContext). Declared apart from
 * context.ts, which loads services.ts, so that services.ts and the server clock can name it
 * without an import cycle (test/unit/import-cycles.test.ts).
 */
import type { Api } from './api/endpoints.js';
import type { HttpClient } from './api/client.js';
import type { Clock, GlobalOptions, IO } from './context-basics.js';
import type { State } from './state/index.js';
import type { Target } from './config/target.js';
import type { Ui } from './ui/ui.js';

export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Set by the CLI right before an action runs (commander's optsWithGlobals). */
  globals: GlobalOptions;
  /** Ends what stands in front of stdout once the command is done (--jq): false when it failed. */
  endOutput?: () => Promise<boolean>;
  /**
   * Set with `globals`: the command's names from the top (`['state', 'unlock']`), its arguments and
   * the option names it declares; what a lock's holder record may say of it (state/holder-command.ts).
   */
  invocation?: { path: string[]; argv: string[]; known: string[] } | undefined;
  /** Secrets in use (the API key once resolved), redacted from every message. */
  secrets: string[];
  configDir(): string;
  /** The global --timeout / SCHEDCTL_TIMEOUT in milliseconds (a bad value: UsageError naming it). */
  timeoutMs(): Promise<number>;
  /** The local state store (profiles, journal, remembered outcomes, meetings): the one owner of those files. */
  state(): Promise<State>;
  target(): Promise<Target>;
  http(): Promise<HttpClient>;
  api(): Promise<Api>;
  /** The API with another key and base URL than the command's own (`profile add` checks a key with it). */
  apiWith(to: { baseUrl: string; apiKey: string; rate?: number | undefined }): Promise<Api>;
  ui(): Promise<Ui>;
  /** May the command prompt? Only with a TTY on stdin and stderr, and without --no-input / SCHEDCTL_NO_INPUT. */
  canPrompt(): boolean;
  /** At the command's end: ends the team state's connections, if any were opened (politely, briefly). */
  close?(): Promise<void>;
}
