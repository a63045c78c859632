#!/usr/bin/env node
// Thin entry: run the bundled CLI and set the exit code it returns (see README "Exit codes").
// This file and dist/cli.cjs (commander and the command definitions) are CommonJS, so that
// `--version` and `--help` are answered before Node starts its ES module loader, which alone
// costs about a quarter of a bare `node -e 0` start; the actions load dist/esm/ when they run.
'use strict';
const { readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

// The ledger is on the built-in node:sqlite, unflagged from Node 22.13 (Node 20 reached its end
// of life in April 2026): an older Node gets one line naming its version, exit 2 (a usage error).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  writeSync(
    2,
    `schedctl: needs Node.js 22.13 or newer (this is ${process.version}); install the current LTS (https://nodejs.org) and run it again\n`,
  );
  process.exit(2);
}

const argv = process.argv.slice(2);
// `--version` alone is answered without loading the CLI: scripts call it to probe for schedctl.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
  // The line of src/version.ts's versionLine(), kept here so that this answer loads nothing.
  printVersion(`schedctl ${version} (Node.js ${process.version}, ${process.platform}-${process.arch})\n`);
} else {
  // With --debug, a real crash's stack points at src/ where the build's source maps are (a
  // checkout's build; the package leaves them out to stay small, docs/development.md).
  if (argv.includes('--debug')) process.setSourceMapsEnabled(true);
  const { main } = require('../dist/cli.cjs');
  // A closed pipe (`schedctl ... | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  main(argv).then((code) => {
    process.exitCode = code;
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
