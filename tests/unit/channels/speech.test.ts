/**
 * The text-to-speech command (channels/speech.ts) with the fake command of tests/support: the text on
 * its standard input, the file where {out} says, and every way it can fail said plainly (TTS_FAILED).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { speakable, synthesize, ttsArgs } from '../../../src/channels/speech.js';
import { ttsSchema } from '../../../src/config/channels-schema.js';
import { isRudderError } from '../../../src/errors.js';
import { tempDir } from '../../support/claude-rig.js';
import { fakeTts, spokenText } from '../../support/tts-rig.js';

afterEach(() => {
  delete process.env.FAKE_TTS_MODE;
});

describe('text-to-speech', () => {
  it('writes the file {out} names from the text on stdin', async () => {
    const out = path.join(tempDir('tts'), 'a.wav');
    await synthesize('hello “there”, ünïcode', ttsSchema.parse(fakeTts()), out);
    expect(spokenText(fs.readFileSync(out))).toBe('hello “there”, ünïcode');
  });

  it('appends the file when no {out} is given', () => {
    expect(ttsArgs(['--model', 'en.onnx', '--output_file', '{out}'], '/x/a.ogg')).toEqual([
      '--model',
      'en.onnx',
      '--output_file',
      '/x/a.ogg',
    ]);
    expect(ttsArgs(['-q'], '/x/a.ogg')).toEqual(['-q', '/x/a.ogg']);
  });

  it('says why it failed: not found, an exit with its error line, a timeout, no file', async () => {
    const out = path.join(tempDir('tts'), 'b.wav');
    const failure = async (cfg: Record<string, unknown>) => {
      const err = await synthesize('x', ttsSchema.parse(cfg), out).catch((e: unknown) => e);
      expect(isRudderError(err, 'TTS_FAILED')).toBe(true);
      return (err as Error).message;
    };
    expect(await failure({ command: '/nonexistent/piper' })).toContain('"/nonexistent/piper" was not found');
    process.env.FAKE_TTS_MODE = 'fail';
    expect(await failure(fakeTts())).toMatch(/exited with 2: voice model not found/);
    process.env.FAKE_TTS_MODE = 'hang';
    expect(await failure(fakeTts({ timeoutSeconds: 0.5 }))).toContain('did not finish within 0.5 s');
    process.env.FAKE_TTS_MODE = 'none';
    expect(await failure(fakeTts())).toContain('wrote no file');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('reads the words of a Markdown reply, not its code, link targets or markup, up to maxChars', () => {
    const md =
      '# Done\n\nSee [the docs](https://x.test/d) and **run** `npm test`:\n\n```sh\nnpm test\n```\n- one\n- two';
    expect(speakable(md, 4000)).toBe('Done\nSee the docs and run npm test:\n(code)\none\ntwo');
    expect(speakable('a'.repeat(300), 100)).toBe(`${'a'.repeat(100)}…`);
  });
});
