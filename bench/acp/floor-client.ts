/**
 * The floor: the least an ACP client can do, with the SDK and nothing of Rudder's. It spawns the
 * agent, answers nothing but permission requests (allow once), and notes when the first text of a
 * prompt arrives. What AcpSession adds is measured against this.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

export interface AgentSpec {
  bin: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export class FloorClient {
  readonly child: ChildProcess;
  private readonly conn: acp.ClientConnection;
  private firstText: (() => void) | undefined;

  constructor(spec: AgentSpec) {
    const stdio: ['pipe', 'pipe', 'ignore'] = ['pipe', 'pipe', 'ignore'];
    this.child = spawn(spec.bin, spec.args, { cwd: spec.cwd, env: spec.env, stdio, detached: true });
    this.conn = acp
      .client({ name: 'floor' })
      .onNotification('session/update', ({ params }) => {
        if (params.update.sessionUpdate === 'agent_message_chunk') this.firstText?.();
      })
      .onRequest('session/request_permission', ({ params }) => {
        const allow = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0]!;
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      })
      .connect(
        acp.ndJsonStream(
          Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
          Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
        ),
      );
  }

  initialize(): Promise<unknown> {
    return this.conn.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  }

  /** session/new, then the session mode and config options Rudder would set (so both run the agent alike). */
  async newSession(cwd: string, mode: { mode?: string; config?: Record<string, string> } = {}): Promise<string> {
    const { sessionId } = await this.conn.agent.request('session/new', { cwd, mcpServers: [] });
    if (mode.mode) await this.conn.agent.request('session/set_mode', { sessionId, modeId: mode.mode });
    for (const [configId, value] of Object.entries(mode.config ?? {}))
      await this.conn.agent.request('session/set_config_option', { sessionId, configId, value });
    return sessionId;
  }

  /** Sends a prompt; resolves with the ms to its first text chunk and the answer's promise. */
  prompt(sessionId: string, text: string): { firstText: Promise<number>; done: Promise<unknown> } {
    const t0 = performance.now();
    const firstText = new Promise<number>((resolve) => (this.firstText = () => resolve(performance.now() - t0)));
    const done = this.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    return { firstText, done };
  }

  steer(sessionId: string, text: string): Promise<unknown> {
    return this.conn.agent.request('_session/steering', { sessionId, prompt: [{ type: 'text', text }] });
  }

  close(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }
}
