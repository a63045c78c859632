// The entry of dist/pg.cjs (scripts/build.mjs): the PostgreSQL client as one CommonJS file.
module.exports = require('pg');
