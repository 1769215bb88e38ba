/**
 * The Claude Code sessions of a project, read from the CLI's own store in the agent's config dir
 * ($CLAUDE_CONFIG_DIR, else $HOME/.claude of the agent's environment):
 *   projects/<cwd, each character outside [A-Za-z0-9] as "-">/<session id>.jsonl   the transcripts
 *   sessions/<pid>.json   {"pid","sessionId","cwd","procStart",...}: a running CLI (interactive or -p)
 * Checked on 2.1.332: a name longer than 200 characters is cut there and given "-<hash>".
 * That name is not one-to-one (…/proj/main and …/proj-main share "-…-proj-main"), so a session
 * counts as a directory's only when the cwd its transcript records is that directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { realOrSelf } from '../config/projects.js';
import { alive, startTimeOf } from '../ops/proc.js';
import { MARKER_CLOSE, MARKER_OPEN } from '../security/wrap.js';

export interface OpenBy {
  pid: number;
  /** The cwd the process runs in. */
  cwd?: string;
  /** `cli` for the interactive TUI, `sdk-cli` for `claude -p`. */
  entrypoint?: string;
}

export interface CliSession {
  id: string;
  file: string;
  /** The first entry's time, epoch ms. */
  startedAt?: number;
  /** The transcript's last write, epoch ms. */
  updatedAt: number;
  firstPrompt?: string;
  /** The last thing a person (or Rudder for one) asked in it. */
  lastPrompt?: string;
  lastMessage?: { role: 'user' | 'assistant'; text: string };
  /** The working directory the transcript records (its first entry that has one). */
  cwd?: string;
  /** A running CLI process has this session open. */
  openBy?: OpenBy;
}

const MAX_NAME = 200;
const HEAD_BYTES = 1024 * 1024;
const TAIL_BYTES = 1024 * 1024;

/** The 32-bit string hash the CLI puts after a cut name, in base 36. */
function cliHash(s: string): string {
  let h = 0;
  for (const c of s) h = ((h << 5) - h + c.charCodeAt(0)) | 0;
  return Math.abs(h).toString(36);
}

/** The directory name the CLI keeps a cwd's transcripts under. */
export function cliProjectDirName(cwd: string): string {
  const name = cwd.replace(/[^A-Za-z0-9]/g, '-');
  return name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME)}-${cliHash(cwd)}`;
}

export function transcriptsDir(configDir: string, cwd: string): string {
  return path.join(configDir, 'projects', cliProjectDirName(realOrSelf(cwd)));
}

/**
 * Sessions a running CLI has open, by session id. A file left by a killed process names a pid
 * that is gone, or one reused by another process (its start time differs): neither counts.
 */
export function openSessions(configDir: string): Map<string, OpenBy> {
  const open = new Map<string, OpenBy>();
  const dir = path.join(configDir, 'sessions');
  let files: string[];
  try {
    files = fs.readdirSync(dir).filter((f) => /^\d+\.json$/.test(f));
  } catch {
    return open;
  }
  for (const f of files) {
    let d: { pid?: unknown; sessionId?: unknown; cwd?: unknown; procStart?: unknown; entrypoint?: unknown };
    try {
      d = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    } catch {
      continue;
    }
    if (typeof d.pid !== 'number' || typeof d.sessionId !== 'string' || !alive(d.pid)) continue;
    const started = startTimeOf(d.pid);
    if (typeof d.procStart === 'string' && started !== undefined && started !== d.procStart) continue;
    open.set(d.sessionId, {
      pid: d.pid,
      cwd: typeof d.cwd === 'string' ? d.cwd : undefined,
      entrypoint: typeof d.entrypoint === 'string' ? d.entrypoint : undefined,
    });
  }
  return open;
}

/** Rudder's wrapper markers are not part of what the person wrote. */
export function unwrap(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith(`<<<${MARKER_OPEN} `) && !l.startsWith(`<<<${MARKER_CLOSE} `))
    .join('\n')
    .trim();
}

/** The fields of a transcript line read here; each is whatever JSON the CLI wrote. */
interface TranscriptEntry {
  type?: unknown;
  isMeta?: unknown;
  isCompactSummary?: unknown;
  isSidechain?: unknown;
  timestamp?: unknown;
  cwd?: unknown;
  message?: { content?: unknown } | null;
}

/** A block of a message's content array: text, tool_use, tool_result... */
type ContentBlock = { type?: unknown; text?: unknown } | null | undefined;

/** The text a person or the model wrote in an entry, or undefined for tool traffic, meta entries and commands. */
function entryText(e: TranscriptEntry): { role: 'user' | 'assistant'; text: string } | undefined {
  if ((e.type !== 'user' && e.type !== 'assistant') || e.isMeta || e.isCompactSummary || e.isSidechain)
    return undefined;
  const role = e.type;
  const c = e.message?.content;
  const blocks: ContentBlock[] | undefined = Array.isArray(c) ? c : undefined;
  const text =
    typeof c === 'string'
      ? c
      : blocks && !blocks.some((b) => b?.type === 'tool_result')
        ? blocks
            .filter((b) => b?.type === 'text')
            .map((b) => String(b?.text))
            .join('\n')
        : '';
  const clean = unwrap(text);
  if (
    !clean ||
    /^<(command-name|local-command-stdout|command-message)>/.test(clean) ||
    clean.startsWith('[Request interrupted')
  )
    return undefined;
  return { role, text: clean };
}

/** The lines that parse as JSON objects (no other value has a field this file reads). */
function parseLines(text: string): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const entry: unknown = JSON.parse(line);
      if (typeof entry === 'object' && entry !== null) out.push(entry);
    } catch {
      // a cut line at the edge of what was read, or a line being written
    }
  }
  return out;
}

function readSlice(file: string, start: number, length: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const got = fs.readSync(fd, buf, 0, length, start);
    return buf.subarray(0, got).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads what a listing shows from a transcript's first and last megabyte (transcripts grow large). */
export function describeTranscript(file: string): Omit<CliSession, 'openBy'> | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const head = parseLines(readSlice(file, 0, Math.min(stat.size, HEAD_BYTES)));
  const tailStart = Math.max(0, stat.size - TAIL_BYTES);
  const tail = tailStart === 0 ? head : parseLines(readSlice(file, tailStart, stat.size - tailStart));
  const first = head.map(entryText).find((t) => t?.role === 'user');
  const texts = [...tail].reverse().map(entryText);
  const last = texts.find((t) => t !== undefined);
  const lastPrompt = texts.find((t) => t?.role === 'user')?.text;
  const stamp = head.map((e) => Date.parse(String(e.timestamp))).find((t) => !Number.isNaN(t));
  const cwd = head.map((e) => e.cwd).find((c): c is string => typeof c === 'string' && c !== '');
  return {
    id: path.basename(file, '.jsonl'),
    file,
    cwd,
    startedAt: stamp,
    updatedAt: stat.mtimeMs,
    firstPrompt: first?.text,
    lastPrompt,
    lastMessage: last,
  };
}

/** Whether a transcript is one of these directories': the cwd it records is one of them (none recorded: yes). */
function recordedIn(session: Omit<CliSession, 'openBy'>, cwds: string[]): boolean {
  if (!session.cwd) return true;
  const here = realOrSelf(session.cwd);
  return cwds.some((c) => realOrSelf(c) === here);
}

/** The transcripts in the folders these directories map to, newest first. */
function transcriptFiles(configDir: string, cwds: string[]): Array<{ file: string; mtime: number }> {
  const files: Array<{ file: string; mtime: number }> = [];
  for (const dir of new Set(cwds.map((c) => transcriptsDir(configDir, c)))) {
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => /^[0-9a-f-]{36}\.jsonl$/i.test(n));
    } catch {
      continue;
    }
    for (const n of names) {
      try {
        files.push({ file: path.join(dir, n), mtime: fs.statSync(path.join(dir, n)).mtimeMs });
      } catch {
        // removed while listing
      }
    }
  }
  return files.sort((a, b) => b.mtime - a.mtime);
}

/** The sessions kept for these working directories, most recently used first. */
export function listSessions(configDir: string, cwds: string[], limit = 10): CliSession[] {
  const open = openSessions(configDir);
  const out: CliSession[] = [];
  for (const f of transcriptFiles(configDir, cwds)) {
    if (out.length >= limit) break;
    const s = describeTranscript(f.file);
    if (!s || !(s.firstPrompt || s.lastMessage) || !recordedIn(s, cwds)) continue;
    out.push({ ...s, openBy: open.get(s.id) });
  }
  return out;
}

/** Whether session `id` is one of these directories' (its transcript is there and records one of them). */
export function hasSession(configDir: string, cwds: string[], id: string): boolean {
  return cwds.some((dir) => {
    const s = describeTranscript(path.join(transcriptsDir(configDir, dir), `${id}.jsonl`));
    return !!s && recordedIn(s, cwds);
  });
}
