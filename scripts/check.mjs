// `npm run check`: the static checks, lint (ESLint + Prettier), the type check and unused code
// (knip: unused files, exports and dependencies, knip.jsonc), side by side;
// each one's output printed whole when it has ended, so lines never interleave. Not part of
// `npm test` (the tests); CI runs it first (.ci/run). Exit: the first failure's code, or 0.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.env.npm_execpath;

/** One npm script, its output kept. */
function script(name) {
  const [file, args] = npm ? [process.execPath, [npm, 'run', '-s', name]] : ['npm', ['run', '-s', name]];
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (error) => resolve({ name, code: 127, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 128 : 1), output: Buffer.concat(chunks).toString() }),
    );
  });
}

const results = await Promise.all(['lint', 'typecheck', 'knip'].map(script));
for (const r of results)
  process.stdout.write(`> ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`}\n${r.output}`);
process.exit(results.find((r) => r.code !== 0)?.code ?? 0);
