#!/usr/bin/env node
// Thin entry: run the bundled CLI and set the exit code it returns (see README "Exit codes").
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
// `--version` alone is answered without loading the CLI: scripts call it to probe for schedctl.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  // With --debug, a real crash's stack points at src/ (the bundle ships source maps).
  if (argv.includes('--debug')) process.setSourceMapsEnabled(true);
  const { main } = await import('../dist/cli.js');
  // A closed pipe (`schedctl ... | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await main(argv);
}
