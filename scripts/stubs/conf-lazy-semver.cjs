// conf loads semver at start only to order its migrations, which run only when config.json
// is changed (src/state/config-file.ts); evaluating semver costs every command that reads a
// profile about 2 ms. Resolve it on first use.
module.exports = new Proxy({}, { get: (_target, key) => require('semver')[key] });
