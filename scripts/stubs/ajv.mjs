// Stand-in for ajv inside the bundle: conf only constructs it when given a JSON schema.
export class Ajv2020 {
  constructor() {
    throw new Error('ajv is not bundled: conf schemas are not supported in schedctl');
  }
}
