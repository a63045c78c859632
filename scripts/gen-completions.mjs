// Regenerates completions/ (schedctl.bash, _schedctl, schedctl.fish) from the BUILT cli, so
// the committed scripts match exactly what `schedctl completion <shell>` prints.
// Usage: npm run build && npm run completions   (test/e2e/completion.test.ts fails when they are stale)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const FILES = { bash: 'schedctl.bash', zsh: '_schedctl', fish: 'schedctl.fish' };

mkdirSync(`${root}/completions`, { recursive: true });
for (const [shell, file] of Object.entries(FILES)) {
  // An empty config dir: the scripts never depend on it, but the CLI must not touch the user's.
  const script = execFileSync(process.execPath, [`${root}/bin/schedctl.js`, 'completion', shell], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SCHEDCTL_CONFIG_DIR: `${root}/.tmp/gen-completions-config` },
    encoding: 'utf8',
  });
  writeFileSync(`${root}/completions/${file}`, script);
  console.log(`completions/${file}`);
}
