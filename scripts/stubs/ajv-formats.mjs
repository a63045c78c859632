// Stand-in for ajv-formats inside the bundle (see ajv.mjs).
export default { default: () => undefined };
