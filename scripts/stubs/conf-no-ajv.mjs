// Stand-in for conf's JSON Schema validator (ajv, ajv-formats and their friends: ~150 KB of the
// chunk every API command loads, evaluated at its start). schedctl gives conf no `schema`
// (src/state/config-file.ts validates config.json with its zod schema), so conf never builds one.
const unused = () => {
  throw new Error('ajv is not bundled: conf gets no schema (src/state/config-file.ts validates with zod)');
};
export class Ajv2020 {
  constructor() {
    unused();
  }
}
export default { default: unused };
