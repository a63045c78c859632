// `npm test`: lint and the type check from the start, the build beside them, then the whole
// vitest suite (it runs the built CLI) while the checks go on. The suite's workers wait on child
// processes much of the time and the checks fill that time (on two cores, from a fresh clone:
// about 3 min 55 s, against 4 min 10 s one after another). vitest's output streams as it runs;
// each check's output is printed whole when the suite has ended, so lines never interleave.
// Exit: the first failure's code, or 0.
// Usage: npm test [-- <vitest arguments, e.g. a test file>]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.env.npm_execpath;

/** One npm script; its output kept (`stdio: 'pipe'`) or shown as it comes (`'inherit'`). */
function run(file, args, stdio) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: root, stdio: ['ignore', stdio, stdio] });
    const chunks = [];
    child.stdout?.on('data', (c) => chunks.push(c));
    child.stderr?.on('data', (c) => chunks.push(c));
    child.on('error', (error) => resolve({ code: 127, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), output: Buffer.concat(chunks).toString() }),
    );
  });
}
// Through the npm that runs us (npm_execpath) when there is one.
const script = (name, stdio = 'pipe') =>
  npm ? run(process.execPath, [npm, 'run', '-s', name], stdio) : run('npm', ['run', '-s', name], stdio);

// The checks need no build: they start with it.
const checks = ['lint', 'typecheck'].map((name) => script(name).then((r) => ({ name, ...r })));
const built = await script('build', 'inherit');
if (built.code !== 0) {
  await Promise.all(checks);
  process.exit(built.code);
}
const suite = await run(
  process.execPath,
  [`${root}/node_modules/vitest/vitest.mjs`, 'run', ...process.argv.slice(2)],
  'inherit',
);
const results = await Promise.all(checks);
for (const r of results)
  process.stdout.write(`\n> ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`}\n${r.output}`);
process.exit([...results, suite].find((r) => r.code !== 0)?.code ?? 0);
