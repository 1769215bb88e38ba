/**
 * The CLI alone, by how it is launched: no host at all, a raw process and its pipes. From a user
 * message written to stdin to the request the mock receives (the mock answering at once), for
 * Rudder's launch (streamArgs, a uuid on each message) and for the SDK's (its flags, its
 * environment, its initialize request), and for Rudder's launch with one difference at a time.
 * It tells whether a gap in "the CLI's part" between the two hosts is the launch and which part.
 */
import { randomUUID } from 'node:crypto';
import { streamArgs } from '../../src/agents/claude/args.js';
import { AgentProcess } from '../../src/agents/claude/process.js';
import { silentLogger } from '../../src/ops/logger.js';
import { WRAPPER_SYSTEM_PROMPT } from '../../src/security/wrap.js';
import { rigLaunch } from '../../tests/support/claude-rig.js';
import { startMockApi } from '../../tests/support/mock-anthropic.js';
import { type Summary, summarize } from '../stats.js';

interface Variant {
  name: string;
  args: string[];
  env?: Record<string, string>;
  uuid: boolean;
  /** The SDK's initialize request first (with the appended system prompt). */
  initialize?: boolean;
}

const without = (args: string[], flag: string, withValue = false) => {
  const i = args.indexOf(flag);
  return i < 0 ? args : [...args.slice(0, i), ...args.slice(i + (withValue ? 2 : 1))];
};

export function variants(): Variant[] {
  const rudder = streamArgs({ permissionMode: 'bypassPermissions', autocompact: 'auto' }, undefined);
  const sdkEnv = { CLAUDE_CODE_ENTRYPOINT: 'sdk-ts', CLAUDE_CODE_SDK_READS_SESSION_STATE: '1' };
  return [
    { name: "Rudder's launch", args: rudder, uuid: true },
    {
      name: "the SDK's launch",
      args: [
        '--output-format',
        'stream-json',
        '--verbose',
        '--input-format',
        'stream-json',
        '--permission-mode=bypassPermissions',
        '--allow-dangerously-skip-permissions',
        '--include-partial-messages',
      ],
      env: sdkEnv,
      uuid: false,
      initialize: true,
    },
    { name: "Rudder's, without -p", args: without(rudder, '-p'), uuid: true },
    { name: "Rudder's, without --replay-user-messages", args: without(rudder, '--replay-user-messages'), uuid: true },
    {
      name: "Rudder's, without --append-system-prompt",
      args: without(rudder, '--append-system-prompt', true),
      uuid: true,
    },
    { name: "Rudder's, messages without a uuid", args: rudder, uuid: false },
    { name: "Rudder's, with the SDK's environment", args: rudder, env: sdkEnv, uuid: true },
  ];
}

export async function cliByFlags(
  rounds: number,
  turns: number,
): Promise<Array<{ name: string; args: string[]; summary: Summary }>> {
  const mock = await startMockApi();
  const all = variants();
  const samples = new Map<string, number[]>(all.map((v) => [v.name, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const v of all) {
        const l = rigLaunch({ mockUrl: mock.url, env: v.env });
        const p = AgentProcess.spawn({
          bin: l.bin,
          args: v.args,
          cwd: l.cwd,
          env: l.env,
          logger: silentLogger(),
          label: 'cli-flags',
        });
        let results = 0;
        p.onLine((line) => void (line.includes('"type":"result"') && results++));
        if (v.initialize)
          p.write(
            JSON.stringify({
              type: 'control_request',
              request_id: randomUUID(),
              request: { subtype: 'initialize', appendSystemPrompt: WRAPPER_SYSTEM_PROMPT },
            }) + '\n',
          );
        try {
          // The first turn warms the process (its start-up is not what is measured here).
          for (let i = 0; i <= turns; i++) {
            const tag = `flags${r}-${all.indexOf(v)}-${i}`;
            const msg: Record<string, unknown> = {
              type: 'user',
              message: { role: 'user', content: `hello tag:${tag}` },
              parent_tool_use_id: null,
              session_id: '',
            };
            if (v.uuid) msg.uuid = randomUUID();
            const before = results;
            const t0 = Date.now();
            p.write(JSON.stringify(msg) + '\n');
            const req = await mock.waitFor((q) => !q.side && q.lastUserText.includes(`tag:${tag}`), 60_000);
            const end = Date.now() + 60_000;
            while (results === before && Date.now() < end) await new Promise((res) => setTimeout(res, 2));
            if (i > 0) samples.get(v.name)!.push(req.at - t0);
          }
        } finally {
          await p.kill('measured');
        }
      }
    }
  } finally {
    await mock.close();
  }
  return all.map((v) => ({ name: v.name, args: v.args, summary: summarize(samples.get(v.name)!) }));
}
