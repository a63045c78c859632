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
const code = await main(process.argv.slice(2));
process.exitCode = code;
// fetch's keep-alive pool holds the event loop open for a while after the last response.
// Nothing is left to do: leave as soon as stdout and stderr are flushed (exiting earlier
// could cut a piped JSON document short).
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
