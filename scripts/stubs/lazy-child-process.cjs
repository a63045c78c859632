// commander loads node:child_process at start only to run executable subcommands, which
// schedctl has none of; loading it costs about a fifth of `--help`. Resolve it on first use.
module.exports = new Proxy({}, { get: (_target, key) => require('node:child_process')[key] });
