import base from './vitest.mutation.config.js';
export default { ...base, test: { ...base.test, exclude: [...(base.test?.exclude ?? []), 'test/unit/booking.test.ts', 'test/unit/route-flow.test.ts', 'test/unit/triggers.test.ts'] } };
