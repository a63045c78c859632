// pg's lib/stream.js for Node only. The original asks at load whether it runs in a Cloudflare
// Worker by constructing a `Response`: on Node 20 that global loads all of undici (about 25 ms),
// in the team database's early connection, before anything else (schedctl's transport does not
// use Node's fetch). These are the original's Node.js functions, unchanged.
'use strict';

module.exports = {
  getStream(_ssl) {
    const net = require('net');
    return new net.Socket();
  },
  getSecureStream(options) {
    const tls = require('tls');
    return tls.connect(options);
  },
};
