/**
 * `fs/read_text_file` and `fs/write_text_file`, served to the agent inside the conversation's
 * directory only. A path is judged where it really leads: `..` is resolved, and every symlink on
 * the way (the file itself included) is followed, so a link inside that points outside is refused
 * like the outside path itself. A refusal is a JSON-RPC error whose message the agent reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { withUserUmask } from '../../ops/data-dir.js';
import {
  ACP_ERRORS,
  acpRequestError,
  type ReadTextFileRequest,
  type RequestError,
  type WriteTextFileRequest,
} from './protocol.js';

/** A file larger than this is not read whole into a reply (the agent can ask for lines). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

function refuse(message: string): RequestError {
  return acpRequestError(ACP_ERRORS.invalidParams, message);
}

/** Where the path really leads: the deepest existing ancestor's real path, then what does not exist yet. */
function realTarget(p: string): string {
  let existing = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(existing), ...rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const parent = path.dirname(existing);
      if (parent === existing) return path.join(existing, ...rest);
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

export class FsGuard {
  private readonly root: string;

  constructor(cwd: string) {
    this.root = fs.realpathSync(cwd);
  }

  /** The real path of `p` when it lies inside the directory; throws the refusal the agent sees otherwise. */
  inside(p: unknown): string {
    if (typeof p !== 'string' || !path.isAbsolute(p)) throw refuse(`The path must be absolute: ${String(p)}`);
    const real = realTarget(path.resolve(p));
    if (real !== this.root && !real.startsWith(this.root + path.sep))
      throw refuse(`Refused: ${p} is outside this conversation's directory (${this.root}).`);
    return real;
  }

  read(req: ReadTextFileRequest): { content: string } {
    const file = this.inside(req.path);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      throw acpRequestError(ACP_ERRORS.resourceNotFound, `No such file: ${req.path}`);
    }
    if (!stat.isFile()) throw refuse(`Not a file: ${req.path}`);
    if (stat.size > MAX_READ_BYTES) throw refuse(`${req.path} is larger than ${MAX_READ_BYTES} bytes.`);
    const text = fs.readFileSync(file, 'utf8');
    if (!req.line && !req.limit) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(0, (req.line ?? 1) - 1);
    const to = req.limit ? from + req.limit : lines.length;
    return { content: lines.slice(from, to).join('\n') };
  }

  write(req: WriteTextFileRequest): Record<string, never> {
    const file = this.inside(req.path);
    if (typeof req.content !== 'string') throw refuse('The content must be text.');
    // The agent writes the user's project: with the user's umask, as its own tools do.
    withUserUmask(() => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, req.content, 'utf8');
    });
    return {};
  }
}
