import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$SCHEDCTL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/schedctl`, else `~/.config/schedctl`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.SCHEDCTL_CONFIG_DIR) return env.SCHEDCTL_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(xdg, 'schedctl');
}
