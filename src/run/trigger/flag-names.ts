import type { FireInputNames } from '../../domain/triggers.js';

/** A fire's inputs as the commands that fire (`trigger fire`, `route`, `smoke`) name them: their flags. */
export const FIRE_FLAGS: FireInputNames = {
  email: '--email',
  file: '--responses',
  required: (f) => `pass --field ${f.name}=${f.options ? f.options.map((o) => o.value).join('|') : '…'}`,
};
