// Child process for main.test.ts: runs src/workers/main.ts (compiled on the fly with
// @swc/core, as jest does) with the callback test workflows, prints READY <receiver url>,
// and exits when the worker stops (SIGTERM/SIGINT are the SDK Runtime's to handle).
require('./swc-register');
const path = require('node:path');

const { startWorkerProcess } = require('../../src/workers/main.ts');

startWorkerProcess({
  workflowsPath: path.join(__dirname, '..', 'callbacks', 'callback-workflows.ts'),
  log: (line) => process.stderr.write(`${line}\n`),
})
  .then((w) => {
    process.stdout.write(`READY ${w.receiverUrl}\n`);
    return w.done;
  })
  .then(
    () => {
      process.stdout.write('STOPPED\n');
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`FAILED ${err && err.message}\n`);
      process.exit(1);
    },
  );
