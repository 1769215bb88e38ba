/**
 * Where the interactive CLI keeps its session files, and a reader that tails one transcript.
 *   <config dir>/projects/<cwd, every character outside [A-Za-z0-9] as "-">/<session id>.jsonl
 *   <config dir>/sessions/<pid>.json    {"pid","sessionId","cwd",...}: the live session of a process
 * The config dir is $CLAUDE_CONFIG_DIR, else $HOME/.claude, in the AGENT's environment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTranscriptLine, type TranscriptEntry } from './transcript-entries.js';

/** One read takes at most this much, so a huge backlog is read over several polls. */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

export function claudeConfigDir(env: Record<string, string | undefined>): string {
  if (env.CLAUDE_CONFIG_DIR) return env.CLAUDE_CONFIG_DIR;
  return path.join(env.HOME || os.homedir(), '.claude');
}

/** The project directory name the CLI derives from a working directory (checked on 2.1.332: `/a.b_c` -> `-a-b-c`). */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/**
 * The transcript of a session; when the derived name misses (long paths are shortened), any project dir holding the
 * file.
 */
export function transcriptPath(configDir: string, cwd: string, sessionId: string): string {
  let real = cwd;
  try {
    real = fs.realpathSync(cwd);
  } catch {
    // A missing cwd fails the spawn itself; the derived name is still the best guess.
  }
  const derived = path.join(configDir, 'projects', projectDirName(real), `${sessionId}.jsonl`);
  if (fs.existsSync(derived)) return derived;
  try {
    for (const dir of fs.readdirSync(path.join(configDir, 'projects'))) {
      const candidate = path.join(configDir, 'projects', dir, `${sessionId}.jsonl`);
      if (fs.existsSync(candidate)) return candidate;
    }
  } catch {
    // No projects dir yet: nothing has been written.
  }
  return derived;
}

/** The session a live CLI process is on (it changes on /clear); undefined when the file is missing. */
export function sessionOfPid(configDir: string, pid: number): string | undefined {
  try {
    const d = JSON.parse(fs.readFileSync(path.join(configDir, 'sessions', `${pid}.json`), 'utf8')) as {
      sessionId?: unknown;
      pid?: unknown;
    };
    return typeof d.sessionId === 'string' && d.pid === pid ? d.sessionId : undefined;
  } catch {
    return undefined;
  }
}

/** How far into a transcript its first conversation entry is looked for (the session's metadata comes first). */
const CONVERSATION_SCAN_BYTES = 8 * 1024 * 1024;

/**
 * Whether a transcript holds any of the conversation (a user or assistant entry). A TUI killed early
 * in its first turn leaves metadata lines only (`mode`, `permission-mode`, ...): `--resume` of such a
 * session exits with "No conversation found", so there is nothing to resume.
 */
export function transcriptHasConversation(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(64 * 1024);
    let carry = '';
    for (let pos = 0; pos < CONVERSATION_SCAN_BYTES; ) {
      const got = fs.readSync(fd, buf, 0, buf.length, pos);
      if (got === 0) break;
      pos += got;
      const lines = (carry + buf.subarray(0, got).toString('latin1')).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) if (isConversationLine(line)) return true;
    }
    return isConversationLine(carry);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function isConversationLine(line: string): boolean {
  // Cheap filter first: metadata lines are short and never carry these types.
  if (!line.includes('"type":"user"') && !line.includes('"type":"assistant"')) return false;
  try {
    const d = JSON.parse(Buffer.from(line, 'latin1').toString('utf8')) as { type?: unknown; isSidechain?: unknown };
    return (d.type === 'user' || d.type === 'assistant') && d.isSidechain !== true;
  } catch {
    return false;
  }
}

export function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Reads entries appended to a transcript since the last read; a partial last line waits for its end. */
export class TranscriptTail {
  private offset: number;
  private partial = '';
  private fd: number | undefined;

  /** from: the byte offset to start at (the file's size when resuming, so history is skipped). */
  constructor(
    private file: string,
    from = 0,
  ) {
    this.offset = from;
  }

  path(): string {
    return this.file;
  }

  /** Follows another file (the session changed); reading starts at its beginning unless told. */
  switchTo(file: string, from = 0): void {
    this.close();
    this.file = file;
    this.offset = from;
    this.partial = '';
  }

  read(): TranscriptEntry[] {
    const size = fileSize(this.file);
    if (size < this.offset) {
      // Replaced or truncated: start over on the new content.
      this.close();
      this.offset = 0;
      this.partial = '';
    }
    if (size === this.offset) return [];
    try {
      this.fd ??= fs.openSync(this.file, 'r');
    } catch {
      return [];
    }
    const length = Math.min(size - this.offset, READ_CHUNK_BYTES);
    const buf = Buffer.alloc(length);
    const got = fs.readSync(this.fd, buf, 0, length, this.offset);
    this.offset += got;
    // A cut multi-byte character stays in `partial` until the rest of its line arrives.
    const text = this.partial + buf.subarray(0, got).toString('latin1');
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    const entries: TranscriptEntry[] = [];
    for (const raw of lines) {
      const entry = parseTranscriptLine(Buffer.from(raw, 'latin1').toString('utf8'));
      if (entry) entries.push(entry);
    }
    return entries;
  }

  close(): void {
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // already closed
      }
    }
    this.fd = undefined;
  }
}

/** How far back from a transcript's end a turn's own prompt is looked for (a turn's entries rarely pass this). */
const LOOK_BACK_BYTES = 16 * 1024 * 1024;

/**
 * The byte offset where the last entry matching `pred` starts (read from the last 16 MB), or undefined:
 * where a turn followed again after a restart is read from.
 */
export function lastEntryOffset(file: string, pred: (e: TranscriptEntry) => boolean): number | undefined {
  const size = fileSize(file);
  const start = Math.max(0, size - LOOK_BACK_BYTES);
  let text: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      text = Buffer.alloc(size - start);
      fs.readSync(fd, text, 0, text.length, start);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let found: number | undefined;
  // Offsets are in bytes: split the buffer at newlines (a byte a UTF-8 sequence never holds).
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf(0x0a, at);
    const end = nl < 0 ? text.length : nl;
    const entry = parseTranscriptLine(text.subarray(at, end).toString('utf8'));
    if (entry && pred(entry) && (at > 0 || start === 0)) found = start + at;
    at = end + 1;
  }
  return found;
}
