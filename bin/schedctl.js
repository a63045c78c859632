#!/usr/bin/env node
// Thin entry: run the bundled CLI and set the exit code it returns (see README "Exit codes").
// With --debug, a real crash's stack points at src/ (the bundle ships source maps).
if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);
const { main } = await import('../dist/cli.js');

// A closed pipe (`schedctl ... | head`) is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = await main(process.argv.slice(2));
