import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isVoiceNotSetUp, sttArgs, transcribe, VOICE_NOT_SET_UP } from '../../../src/channels/voice.js';
import { sttSchema } from '../../../src/config/channels-schema.js';
import { isRudderError } from '../../../src/errors.js';

const FAKE_STT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-stt.mjs');

describe('voice notes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-voice-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const audio = () => {
    const file = path.join(dir, 'voice.ogg');
    fs.writeFileSync(file, 'OGG-DATA');
    return file;
  };

  it('without stt.command, answers that voice notes are not set up', async () => {
    const err = await transcribe(audio(), undefined).catch((e: unknown) => e);
    expect(isRudderError(err, 'STT_NOT_CONFIGURED')).toBe(true);
    expect(isVoiceNotSetUp(err)).toBe(true);
    expect((err as Error).message).toContain(VOICE_NOT_SET_UP);
    expect((err as { context: { userText: string } }).context.userText).toBe(VOICE_NOT_SET_UP);
  });

  it('runs the configured command with the file path and returns its trimmed output', async () => {
    const stt = sttSchema.parse({ command: process.execPath, args: [FAKE_STT, '--in', '{file}'] });
    expect(await transcribe(audio(), stt)).toBe('transcript of 8 bytes: hello from the voice note');
  });

  it('appends the file when no {file} placeholder is given', () => {
    expect(sttArgs(['-m', 'model.bin'], '/tmp/a.ogg')).toEqual(['-m', 'model.bin', '/tmp/a.ogg']);
    expect(sttArgs(['-f', '{file}', '-nt'], '/tmp/a.ogg')).toEqual(['-f', '/tmp/a.ogg', '-nt']);
  });

  it('reports a failing or hanging command as a transcription failure, not as "not set up"', async () => {
    const env = process.env.FAKE_STT_MODE;
    try {
      process.env.FAKE_STT_MODE = 'fail';
      const failed = await transcribe(
        audio(),
        sttSchema.parse({ command: process.execPath, args: [FAKE_STT, '{file}'] }),
      ).catch((e: unknown) => e);
      expect(isRudderError(failed, 'STT_FAILED')).toBe(true);
      expect((failed as Error).message).toContain('model not found');
      expect(isVoiceNotSetUp(failed)).toBe(false);

      process.env.FAKE_STT_MODE = 'hang';
      const hung = await transcribe(
        audio(),
        sttSchema.parse({ command: process.execPath, args: [FAKE_STT, '{file}'], timeoutSeconds: 0.5 }),
      ).catch((e: unknown) => e);
      expect((hung as Error).message).toContain('did not finish');
    } finally {
      if (env === undefined) delete process.env.FAKE_STT_MODE;
      else process.env.FAKE_STT_MODE = env;
    }
    const missing = await transcribe(audio(), sttSchema.parse({ command: '/nonexistent/whisper-cli' })).catch(
      (e: unknown) => e,
    );
    expect((missing as Error).message).toContain('was not found');
  });
});
