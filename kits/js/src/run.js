'use strict';
// The loop between the referee and a bot: read a line, fold it into the state, answer requests.
//
// PROTOCOL.md §1: one line per message, UTF-8, answers flushed at once; the bot writes nothing but
// its `ready` (or `decline`) and one action per request. Logging goes to stderr, which the referee
// keeps apart. One process plays one match: when the referee closes stdin, the bot exits.

const readline = require('node:readline');
const { parseLine, ready, decline } = require('./protocol');
const { GameState } = require('./state');

/**
 * The answer line to one parsed message, or null when the message asks for none.
 * Exported for tests: a whole dialogue can be scripted without a process.
 */
function answer(bot, state, msg, log = () => {}) {
  state.update(msg);
  if (msg.type === 'hello') {
    if (msg.version !== 1) log(`protocol version ${msg.version} is not 1; answering anyway`);
    if (msg.players !== 2 && !bot.supports(msg.players, msg.profile)) {
      return decline(`does not support ${msg.profile}`);
    }
    return ready(bot.name);
  }
  if (msg.type !== 'request') return null;
  let chosen;
  try {
    chosen = bot.decide(state, msg.actions);
  } catch (err) {
    log(`decide failed: ${err && err.stack ? err.stack : err}`);
  }
  // Only an offered action, written exactly as offered, is legal (§4.1): fall back on one.
  if (!chosen || !msg.actions.some((a) => a.text === chosen.text)) {
    if (chosen) log(`decide returned ${JSON.stringify(chosen)}, not one of the offered actions`);
    chosen = msg.actions.find((a) => a.kind === 'pass') ||
      msg.actions.find((a) => a.kind !== 'unknown' && a.kind !== 'claim') || msg.actions[0];
  }
  return chosen.text;
}

/** Play one match over stdin/stdout. */
function run(bot, input = process.stdin, output = process.stdout) {
  const state = new GameState();
  const log = (text) => process.stderr.write(`${bot.name}: ${text}\n`);
  const lines = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
  lines.on('line', (line) => {
    let msg;
    try {
      msg = parseLine(line);
    } catch (err) {
      log(`ignored a line I cannot read: ${err.message}`);
      return;
    }
    const reply = answer(bot, state, msg, log);
    // Writes to a pipe are synchronous on Linux: the line is sent when write() returns.
    if (reply !== null) output.write(`${reply}\n`);
  });
  lines.on('close', () => process.exit(0));
}

module.exports = { answer, run };
