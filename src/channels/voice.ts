/**
 * Voice notes: transcribed by a local speech-to-text command from the config (for example a
 * whisper.cpp binary). The command runs without a shell, with a timeout and a bounded output.
 * With no command configured, transcribe() throws an error whose text is the answer the user
 * gets, so a voice note is never dropped silently.
 */
import { execFile } from 'node:child_process';
import type { SttConfig } from '../config/channels-schema.js';
import { isRudderError, RudderError } from '../errors.js';

export const VOICE_NOT_SET_UP =
  'Voice notes are not set up: set stt.command in the config (for example a whisper.cpp binary)';

/** Transcripts beyond this are cut; output beyond MAX_OUTPUT_BYTES kills the command. */
export const MAX_TRANSCRIPT_CHARS = 20_000;
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** Placeholder in stt.args replaced by the audio file path. */
export const FILE_PLACEHOLDER = '{file}';

/** Whether an error from transcribe() means speech-to-text is not configured. */
export function isVoiceNotSetUp(err: unknown): boolean {
  return isRudderError(err) && err.context.reason === 'stt-not-configured';
}

export function sttArgs(args: readonly string[], file: string): string[] {
  const replaced = args.map((a) => a.split(FILE_PLACEHOLDER).join(file));
  return args.some((a) => a.includes(FILE_PLACEHOLDER)) ? replaced : [...replaced, file];
}

/**
 * Runs the configured speech-to-text command on `file` and returns its standard output, trimmed.
 * Throws RudderError: STT_NOT_CONFIGURED (context.reason "stt-not-configured", context.userText VOICE_NOT_SET_UP)
 * when no command is set; STT_FAILED (context.reason "stt-failed") when the command fails.
 */
export async function transcribe(file: string, stt: SttConfig | undefined, signal?: AbortSignal): Promise<string> {
  if (!stt?.command) {
    throw new RudderError('STT_NOT_CONFIGURED', VOICE_NOT_SET_UP, {
      setting: 'stt.command',
      reason: 'stt-not-configured',
      userText: VOICE_NOT_SET_UP,
    });
  }
  const args = sttArgs(stt.args, file);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      stt.command,
      args,
      {
        timeout: Math.round(stt.timeoutSeconds * 1000),
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        windowsHide: true,
        signal,
      },
      (err, out, errOut) => {
        if (!err) return resolve(out);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number; signal?: string };
        const why =
          e.code === 'ENOENT'
            ? `the command "${stt.command}" was not found`
            : e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
              ? `its output passed ${MAX_OUTPUT_BYTES} bytes`
              : e.killed || e.signal
                ? `it did not finish within ${stt.timeoutSeconds} s`
                : `it exited with code ${String(e.code)}${errOut ? `: ${lastLine(errOut)}` : ''}`;
        reject(
          new RudderError(
            'STT_FAILED',
            `Speech-to-text failed: ${why}.`,
            { setting: 'stt.command', reason: 'stt-failed' },
            err,
          ),
        );
      },
    );
  });
  const text = stdout.trim();
  return text.length > MAX_TRANSCRIPT_CHARS ? text.slice(0, MAX_TRANSCRIPT_CHARS) + '…' : text;
}

function lastLine(s: string): string {
  const lines = s.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 200);
}
