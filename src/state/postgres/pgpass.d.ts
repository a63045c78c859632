/** pgpass (node-postgres's reader of ~/.pgpass) ships no types: the one function schedctl calls. */
declare module 'pgpass' {
  const pgpass: (
    info: { host?: string; port?: number; database?: string; user?: string },
    cb: (password?: string) => void,
  ) => void;
  export default pgpass;
}
