// pg's connection-parameters.js loads node:dns at start for the one function that builds a
// connection string for pg-native (never used here): about a millisecond of every team-state
// command's start. Resolved on first use instead.
module.exports = new Proxy({}, { get: (_target, key) => require('node:dns')[key] });
