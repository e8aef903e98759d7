'use strict';
// The sample bot as a program: `node main.js` plays one match over stdin and stdout.
const { SampleBot } = require('./src/bot');
const { run } = require('./src/run');

run(new SampleBot(process.argv[2] || 'kit-js'));
