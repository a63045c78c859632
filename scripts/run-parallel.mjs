// `npm test`'s first step: runs the given npm scripts at once (lint, typecheck and build are
// independent and together take ~40 s one after another from a fresh clone, ~25 s side by side
// on two cores). Each one's output is printed whole when it ends, so lines never interleave;
// the exit code is the first failure's (or 0), after every script has ended.
// Usage: node scripts/run-parallel.mjs <script> [<script> ...]
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('usage: node scripts/run-parallel.mjs <npm script> [<npm script> ...]\n');
  process.exit(2);
}

const npm = process.env.npm_execpath;
const runs = scripts.map((name) =>
  new Promise((resolve) => {
    // Through the npm that runs us (npm_execpath) when there is one, so the same npm runs each script.
    const [file, args] = npm ? [process.execPath, [npm, 'run', '-s', name]] : ['npm', ['run', '-s', name]];
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (error) => resolve({ name, code: 127, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 128 : 1), output: Buffer.concat(chunks).toString() }),
    );
  }).then((r) => {
    process.stdout.write(`> ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`}\n${r.output}`);
    return r;
  }),
);

const results = await Promise.all(runs);
process.exit(results.find((r) => r.code !== 0)?.code ?? 0);
