'use strict';
// The sample bot and the loop: answers are always one of the offered actions, and claims come
// exactly at the target.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { parseLine } = require('../src/protocol');
const { GameState } = require('../src/state');
const { SampleBot } = require('../src/bot');
const { answer } = require('../src/run');
const { refereeLines, EXAMPLE_2P } = require('../testdata/transcripts');

test('greetings: ready for two, three and four players', () => {
  const bot = new SampleBot('me-bot');
  for (const line of ['sixtysix 1', 'sixtysix 1 players 3 profile three_player']) {
    assert.equal(answer(bot, new GameState(), parseLine(line)), 'ready me-bot');
  }
});

test('a bot that does not play a variant declines it (§9.1)', () => {
  const bot = new SampleBot();
  bot.supports = (players) => players === 2;
  assert.equal(answer(bot, new GameState(), parseLine('sixtysix 1 players 4 profile four_player')),
    'decline does not support four_player');
});

test('an answer outside the offered list is replaced by an offered one', () => {
  const bot = new SampleBot();
  bot.decide = () => ({ kind: 'claim', text: 'claim' });
  const logged = [];
  const reply = answer(bot, new GameState(), parseLine('follow? play:AC play:9C'), (t) => logged.push(t));
  assert.equal(reply, 'play:AC');
  assert.equal(logged.length, 1);
  bot.decide = () => { throw new Error('bug'); };
  assert.equal(answer(bot, new GameState(), parseLine('after_trick? claim pass')), 'pass');
});

test('claims at exactly the target, and not one point below', () => {
  const lines = refereeLines(EXAMPLE_2P);
  const cut = lines.findIndex((l) => l.startsWith('trick me AC JC'));
  // 59 before the last trick; the trick's cards make 66 exactly, or 62 to 65.
  const at = (trick) => {
    const s = new GameState();
    const bot = new SampleBot();
    for (const line of lines.slice(0, cut)) answer(bot, s, parseLine(line));
    answer(bot, s, parseLine(trick));
    return [s.myPoints(), answer(bot, s, parseLine('after_trick? claim pass'))];
  };
  assert.deepEqual(at('trick me KC QC'), [66, 'claim']);
  assert.deepEqual(at('trick me KC 9S'), [63, 'pass']);
  assert.deepEqual(at('trick me JC QC'), [64, 'pass']);
  assert.deepEqual(at('trick me QC 9S'), [62, 'pass']);
  assert.deepEqual(at('trick me KC JC'), [65, 'pass']);
});

test('the program plays a scripted dialogue over real pipes and exits when stdin closes', () => {
  const input = refereeLines(EXAMPLE_2P).filter((l) => !l.startsWith('claim') && !l.startsWith('settle'))
    .join('\n') + '\n';
  const run = spawnSync(process.execPath, [path.join(__dirname, '..', 'main.js')],
    { input, encoding: 'utf8', timeout: 20000 });
  assert.equal(run.status, 0, run.stderr);
  const out = run.stdout.trim().split('\n');
  assert.equal(out[0], 'ready kit-js');
  assert.equal(out.length, 1 + refereeLines(EXAMPLE_2P).filter((l) => l.includes('? ')).length);
  assert.equal(out[out.length - 1], 'claim');
});
