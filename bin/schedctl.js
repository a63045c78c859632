#!/usr/bin/env node
// Thin entry: run the bundled CLI (ES modules in dist/) and set the exit code it returns
// (see README "Exit codes"). This file is CommonJS (bin/package.json) so that `--version`
// is answered before Node starts its ES module loader: that loader alone costs about a
// quarter of a bare `node -e 0` start.
'use strict';
const { readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
// `--version` alone is answered without loading the CLI: scripts call it to probe for schedctl.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
  printVersion(`${version}\n`);
} else {
  // With --debug, a real crash's stack points at src/ (the bundle ships source maps).
  if (argv.includes('--debug')) process.setSourceMapsEnabled(true);
  import('../dist/cli.js').then(async ({ main }) => {
    // A closed pipe (`schedctl ... | head`) is not an error worth a stack trace.
    process.stdout.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
    process.exitCode = await main(argv);
  });
}

// One synchronous write: creating process.stdout (a stream over a pipe) costs more than the
// rest of this answer. Falls back to the stream when the descriptor can't take it now.
function printVersion(text) {
  try {
    writeSync(1, text);
  } catch (error) {
    if (error.code === 'EPIPE') return;
    process.stdout.write(text);
  }
}
