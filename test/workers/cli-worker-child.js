// Child process for lifecycle.test.ts: `reelflow worker` exactly as the CLI's entry runs it
// (src/starters/cli/main.ts: main() then process.exitCode), its TypeScript compiled on the fly
// (./swc-register.js).
require('./swc-register');

const { main } = require('../../src/starters/cli/main.ts');

main(['worker']).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`reelflow: ${err && err.message}\n`);
    process.exitCode = 1;
  },
);
