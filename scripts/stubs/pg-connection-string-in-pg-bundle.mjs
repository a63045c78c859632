// pg-connection-string for src/state/postgres/connect.ts in dist/: the parser it needs is the
// copy inside dist/pg.cjs (load-pg.ts, `parseConnectionString`), always there when this runs,
// so a second copy in the ES module chunks would only be compiled for nothing. Running from src/
// (the tests), connect.ts imports the package itself.
export const parse = undefined;
