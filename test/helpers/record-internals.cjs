// Preloaded with `node -r` by the cold-start test: writes Node's list of the internal modules
// the process loaded (process.moduleLoadList) to $SCHEDCTL_INTERNALS_OUT at exit.
'use strict';
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  if (process.env.SCHEDCTL_INTERNALS_OUT)
    writeFileSync(process.env.SCHEDCTL_INTERNALS_OUT, JSON.stringify(process.moduleLoadList));
});
