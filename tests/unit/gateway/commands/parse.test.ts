/** What a message is (gateway/commands/parse.ts): a command, a bare stop, a permission answer, or text. */
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../../src/gateway/commands/parse.js';

describe('parseInput: the one place that says what a message is', () => {
  const command = (name: string, args = '') => ({ kind: 'command', command: { name, args } });
  it('finds commands, a bare stop in any of its forms, and leaves paths and sentences as text', () => {
    expect(parseInput('/stop', false)).toEqual(command('stop'));
    expect(parseInput('/queue collect', false)).toEqual(command('queue', 'collect'));
    expect(parseInput('/stop@rudder_bot', false)).toEqual(command('stop'));
    for (const t of [' stop ', 'Stop', 'stop.', 'stop!!', 'STOP!.!'])
      expect(parseInput(t, false)).toEqual(command('stop'));
    // What looks like a command is one: invisible characters and escape codes do not count.
    expect(parseInput('/st\u200bop', false)).toEqual(command('stop'));
    expect(parseInput('\u202estop\x1b[0m', false)).toEqual(command('stop'));
    for (const t of ['stop the build', '/tmp/x is full', '/usr/bin is slow', 'please /stop', 'stop?'])
      expect(parseInput(t, false)).toEqual({ kind: 'text' });
  });

  it('reads a bare option number as a permission answer only while a request is pending', () => {
    expect(parseInput('1', true)).toEqual({ kind: 'permission-answer', option: 1 });
    expect(parseInput(' 12 ', true)).toEqual({ kind: 'permission-answer', option: 12 });
    expect(parseInput('1', false)).toEqual({ kind: 'text' });
    expect(parseInput('123', true)).toEqual({ kind: 'text' });
    expect(parseInput('1 please', true)).toEqual({ kind: 'text' });
    expect(parseInput('/allow', true)).toEqual(command('allow'));
  });
});
