/**
 * `rudder doctor` for an ACP backend: the command found and its version (against the preset's pin),
 * a real `initialize` (what the agent offers: its name and version, session loading, steering), a
 * session in a scratch directory and one short prompt, each with the fix when it fails. An agent
 * that answers auth_required is told how it logs in (its preset's way). The prompt runs in the
 * agent's plan or read-only mode where it has one, permission requests answered `cancelled`, so
 * nothing runs; the scratch directory is removed after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentConfig } from '../../config/schema.js';
import { type Logger, silentLogger } from '../../ops/logger.js';
import { checkBinary, firstLine } from '../common/check-binary.js';
import { binaryLines, type Check, type DoctorChecks, failed, passed } from '../common/doctor.js';
import { acpBinary, resolveAcpCommand } from './command.js';
import { AcpConnection } from './connection.js';
import { stderrSummary } from './exit.js';
import { acpEnv } from './launch.js';
import { type AcpPreset, presetOfBackend } from './presets.js';
import {
  ACP_ERRORS,
  type InitializeResponse,
  methodNotFound,
  type NewSessionResponse,
  offersSteering,
  type PromptResponse,
} from './protocol.js';

const FIX = {
  start:
    'Run the command by hand (agent.acp.command with agent.acp.args) to see its error; an agent needs its ACP flag ' +
    '(gemini --acp, copilot --acp --stdio).',
  request: "Check the agent's model, its endpoint and the network; run the agent by hand to see the same failure.",
};

export interface AcpCheckInput {
  /** The backend (acp, acp:gemini…). */
  backend: string;
  agent: AgentConfig | undefined;
  /** Where PATH is read, and the base of the agent's environment. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  say?(line: string): void;
  logger?: Logger;
}

/** The doctor checks of an ACP backend, for the agent table. */
export function acpChecks(backend: string): DoctorChecks {
  return ({ agent, env, answerTimeoutMs, say }) => checkAcp({ backend, agent, env, timeoutMs: answerTimeoutMs, say });
}

/** The checks, in order; each later one runs only when the ones it needs passed. */
export async function checkAcp(input: AcpCheckInput): Promise<Check[]> {
  const preset = presetOfBackend(input.backend);
  const spec = acpBinary(preset);
  const agentEnv = acpEnv(preset, input.agent, input.env);
  const c = await checkBinary(spec, { configured: input.agent?.acp.command, env: input.env, agentEnv }, 20_000);
  const { checks, runs } = binaryLines(spec, c);
  if (!runs) return checks;
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-doctor-acp-'));
  const texts: string[] = [];
  let conn: AcpConnection;
  try {
    conn = AcpConnection.start({
      command: resolveAcpCommand(input.agent?.acp ?? {}, preset, input.env),
      cwd,
      env: agentEnv,
      logger: input.logger ?? silentLogger(),
      label: 'doctor',
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      initTimeoutMs: input.timeoutMs,
      handlers: {
        onUpdate: (n) => {
          const u = n?.update as { sessionUpdate?: string; content?: { text?: unknown } } | undefined;
          if (u?.sessionUpdate === 'agent_message_chunk' && typeof u.content?.text === 'string')
            texts.push(u.content.text);
        },
        onRequest: async (method) => {
          if (method === 'session/request_permission') return { outcome: { outcome: 'cancelled' } };
          throw methodNotFound(method);
        },
      },
    });
  } catch (err) {
    fs.rmSync(cwd, { recursive: true, force: true });
    return [...checks, failed(`${spec.name} initialize`, (err as Error).message, FIX.start)];
  }
  try {
    await sessionChecks({ conn, preset, name: spec.name, cwd, texts, input }, checks);
  } finally {
    await conn.end('doctor done', 2_000, 2_000);
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  return checks;
}

interface Probe {
  conn: AcpConnection;
  preset: AcpPreset | undefined;
  name: string;
  cwd: string;
  texts: string[];
  input: AcpCheckInput;
}

async function sessionChecks(p: Probe, checks: Check[]): Promise<void> {
  let init: InitializeResponse;
  try {
    init = await p.conn.ready;
  } catch (err) {
    const tail = stderrSummary(p.conn.stderrTail());
    checks.push(
      failed(`${p.name} initialize`, `${(err as Error).message}${tail ? ` stderr: ${tail}` : ''}`, FIX.start),
    );
    return;
  }
  checks.push(initializeLine(p, init));
  p.input.say?.(`asking ${p.conn.label} for one short answer…`);
  checks.push(await promptLine(p, init));
}

/** What the agent said of itself: name and version (against the pin), whether it loads sessions and steers. */
function initializeLine(p: Probe, init: InitializeResponse): Check {
  const who = [init.agentInfo?.name, init.agentInfo?.version].filter(Boolean).join(' ') || 'an unnamed agent';
  const pinned = p.preset && init.agentInfo?.version && !init.agentInfo.version.includes(p.preset.pinned);
  const offers = [
    `protocol ${init.protocolVersion}`,
    init.agentCapabilities?.loadSession
      ? 'loads saved sessions'
      : 'cannot load a saved session (a restart starts anew)',
    offersSteering(init) ? 'takes messages mid-turn' : 'no messages mid-turn (they wait for the turn)',
  ];
  const against = pinned ? ` (Rudder is tested against ${p.preset!.pinned})` : '';
  return passed(`${p.name} initialize`, `${who}${against}: ${offers.join(', ')}`);
}

/** session/new in the scratch directory, its plan or read-only mode, then one short prompt. */
async function promptLine(p: Probe, init: InitializeResponse): Promise<Check> {
  const name = `${p.name} request`;
  const t0 = Date.now();
  try {
    const { sessionId, modes } = await p.conn.request<NewSessionResponse>(
      'session/new',
      { cwd: p.cwd, mcpServers: [] },
      p.input.timeoutMs,
    );
    const safe = p.preset?.modes.plan?.mode;
    if (safe && modes?.availableModes.some((m) => m.id === safe))
      await p.conn.request('session/set_mode', { sessionId, modeId: safe }, p.input.timeoutMs);
    const prompt = [{ type: 'text', text: 'Reply with the single word OK.' }];
    const res = await p.conn.request<PromptResponse>('session/prompt', { sessionId, prompt }, p.input.timeoutMs);
    const said = firstLine(p.texts.join('')).slice(0, 60);
    if (res.stopReason !== 'end_turn' || !said)
      return failed(name, `the prompt ended ${res.stopReason}${said ? `: "${said}"` : ' without text'}`, FIX.request);
    return passed(name, `the model answered in ${Date.now() - t0} ms: "${said}"`);
  } catch (err) {
    return requestFailure(p, init, name, err);
  }
}

function requestFailure(p: Probe, init: InitializeResponse, name: string, err: unknown): Check {
  const rpc = err as { code?: unknown; message?: unknown; data?: unknown };
  const detail = `${String(rpc?.message ?? err)}${rpc?.data ? ` (${JSON.stringify(rpc.data).slice(0, 200)})` : ''}`;
  if (rpc?.code === ACP_ERRORS.authRequired) {
    const methods = (init.authMethods ?? []).map((m) => m.name).join(', ');
    const login = p.preset?.login ?? 'Log the agent in with its own command, or set its API key in agent.acp.env.';
    return failed(`${p.name} auth`, `the agent needs a login${methods ? ` (it offers: ${methods})` : ''}`, login);
  }
  const tail = p.conn.alive() ? '' : stderrSummary(p.conn.stderrTail());
  return failed(name, `${detail}${tail ? ` stderr: ${tail}` : ''}`, FIX.request);
}
