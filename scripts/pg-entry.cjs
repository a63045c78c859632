// The entry of dist/pg.cjs (scripts/build.mjs): the PostgreSQL client as one CommonJS file, with
// the connection string parser it already contains (the early connection needs nothing else).
const pg = require('pg');
pg.parseConnectionString = require('pg-connection-string').parse;
module.exports = pg;
