/**
 * Replies spoken: a local text-to-speech command from the config (tts.command, for example piper)
 * turns a reply's text into an audio file. The command runs without a shell, with a timeout; the
 * text goes to its standard input (never its arguments), and it writes the file "{out}" names.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { TTS_FORMATS, type TtsConfig } from '../config/channels-schema.js';
import { RudderError } from '../errors.js';

/** Placeholder in tts.args replaced by the path of the audio file to write. */
export const OUT_PLACEHOLDER = '{out}';
/** An audio file larger than this is refused (every platform's limit is above it). */
export const MAX_AUDIO_BYTES = 20 * 1024 * 1024;

export function ttsArgs(args: readonly string[], out: string): string[] {
  const replaced = args.map((a) => a.split(OUT_PLACEHOLDER).join(out));
  return args.some((a) => a.includes(OUT_PLACEHOLDER)) ? replaced : [...replaced, out];
}

export function mimeOf(tts: TtsConfig): string {
  return TTS_FORMATS[tts.format];
}

/** What is read aloud of a Markdown reply: its words, without code, link targets or markup. */
export function speakable(markdown: string, maxChars: number): string {
  const text = markdown
    .replace(/```[\s\S]*?(```|$)/g, ' (code) ')
    .replace(/`([^`\n]*)`/g, '$1')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, '')
    .replace(/[*_~|]+/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

function lastLine(s: string): string {
  return (s.trim().split('\n').at(-1) ?? '').slice(0, 200);
}

type Fail = (why: string, cause?: unknown) => RudderError;

/**
 * Writes `text` spoken to `out` with the configured command. Throws RudderError TTS_FAILED (context.setting
 * "tts.command") saying why: not found, a non-zero exit, the timeout, no file or an empty or oversized one.
 */
export async function synthesize(
  text: string,
  tts: TtsConfig,
  out: string,
  opts: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  const fail: Fail = (why, cause) =>
    new RudderError('TTS_FAILED', `Text-to-speech failed: ${why}.`, { setting: 'tts.command' }, cause);
  await fs.promises.rm(out, { force: true });
  await runCommand(text, tts, out, opts, fail);
  await checkAudio(out, fail);
}

/** Runs the command with the text on its stdin; rejects with why it did not exit 0. */
function runCommand(
  text: string,
  tts: TtsConfig,
  out: string,
  opts: { signal?: AbortSignal; env?: NodeJS.ProcessEnv },
  fail: Fail,
): Promise<void> {
  const { signal } = opts;
  return new Promise<void>((resolve, reject) => {
    // Its own process group, so a wrapper script's children (piper under a shell) stop with it.
    const child = spawn(tts.command, ttsArgs(tts.args, out), {
      stdio: ['pipe', 'ignore', 'pipe'],
      windowsHide: true,
      detached: true,
      ...(opts.env ? { env: opts.env } : {}),
    });
    let stderr = '';
    let why: string | undefined;
    const kill = (reason: string) => {
      // The first reason is the one told.
      why ??= reason;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => kill(`it did not finish within ${tts.timeoutSeconds} s`), tts.timeoutSeconds * 1000);
    const onAbort = () => kill('Rudder is stopping');
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(fail(err.code === 'ENOENT' ? `the command "${tts.command}" was not found` : err.message, err));
    });
    child.on('close', (code, sig) => {
      done();
      if (why) return reject(fail(why));
      if (code !== 0)
        return reject(fail(`it exited with ${code ?? sig}${stderr.trim() ? `: ${lastLine(stderr)}` : ''}`));
      resolve();
    });
    // A command that does not read its input (it takes the text otherwise) must not fail the write.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(text);
  });
}

/** The file the command wrote: there, not empty, and not over MAX_AUDIO_BYTES (removed then). */
async function checkAudio(out: string, fail: Fail): Promise<void> {
  const size = await fs.promises.stat(out).then(
    (s) => s.size,
    () => -1,
  );
  if (size < 0) throw fail(`it wrote no file at ${OUT_PLACEHOLDER} (${out})`);
  if (size === 0) throw fail('the audio file it wrote is empty');
  if (size > MAX_AUDIO_BYTES) {
    await fs.promises.rm(out, { force: true });
    throw fail(`the audio file is over ${MAX_AUDIO_BYTES / 1024 / 1024} MB`);
  }
}
