/**
 * The floor: a hand-written streaming-input client of @anthropic-ai/claude-agent-sdk, the least a
 * host can do to talk to the CLI. Same pinned CLI (pathToClaudeCodeExecutable), same mock, the
 * same environment as Rudder's agents (the allow-listed base set plus mockAgentEnv), the same
 * appended system prompt and permission mode. User messages go in through the AsyncIterable
 * prompt; every message the SDK yields is kept with the time it arrived.
 */
import { spawn } from 'node:child_process';
import { type Query, query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { buildAgentEnv } from '../../src/agents/claude/env.js';
import { WRAPPER_SYSTEM_PROMPT } from '../../src/security/wrap.js';
import { CLAUDE_BIN, mockAgentEnv, tempDir } from '../../tests/support/claude-rig.js';
import { now, type WireTaps } from './wire-tap.js';

/** A queue the SDK reads as its prompt: one SDKUserMessage per push, for as long as the session lives. */
class Inbox implements AsyncIterable<SDKUserMessage> {
  private readonly items: SDKUserMessage[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(text: string): void {
    this.items.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null });
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    while (!this.closed) {
      while (this.items.length) yield this.items.shift()!;
      if (this.closed) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

export interface SdkMessageAt {
  at: number;
  msg: SDKMessage;
}

export class SdkAgent {
  readonly messages: SdkMessageAt[] = [];
  private readonly inbox = new Inbox();
  private readonly q: Query;
  private readonly listeners = new Set<(m: SdkMessageAt) => void>();
  readonly done: Promise<void>;

  /** Starts the CLI through the SDK; its process is tapped under `label`. */
  constructor(opts: { mockUrl: string; label: string; taps: WireTaps; home?: string; cwd?: string }) {
    const home = opts.home ?? tempDir('sdk-home');
    const env = buildAgentEnv({ inherited: process.env, extra: mockAgentEnv(opts.mockUrl, home) });
    this.q = query({
      prompt: this.inbox,
      options: {
        pathToClaudeCodeExecutable: CLAUDE_BIN,
        env,
        cwd: opts.cwd ?? tempDir('sdk-cwd'),
        includePartialMessages: true,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        systemPrompt: { type: 'preset', preset: 'claude_code', append: WRAPPER_SYSTEM_PROMPT },
        spawnClaudeCodeProcess: (o) => {
          const at = now();
          const child = spawn(o.command, o.args, {
            cwd: o.cwd,
            env: o.env as NodeJS.ProcessEnv,
            stdio: ['pipe', 'pipe', 'ignore'],
            signal: o.signal,
          });
          opts.taps.attach(opts.label, child, at);
          return child as never;
        },
      },
    });
    const q = this.q;
    this.done = (async () => {
      for await (const msg of q) {
        const m = { at: now(), msg };
        this.messages.push(m);
        for (const l of this.listeners) l(m);
      }
    })().catch(() => undefined);
  }

  /** Sends a user message; returns the time it was handed to the SDK. */
  push(text: string): number {
    const at = now();
    this.inbox.push(text);
    return at;
  }

  /** The first message at or after `after` that matches, waiting for it. */
  next(pred: (m: SDKMessage) => boolean, after: number, timeoutMs = 120_000): Promise<SdkMessageAt> {
    const hit = this.messages.find((m) => m.at >= after && pred(m.msg));
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => (this.listeners.delete(l), reject(new Error('SDK: no such message in time'))),
        timeoutMs,
      );
      const l = (m: SdkMessageAt) => {
        if (m.at < after || !pred(m.msg)) return;
        clearTimeout(timer);
        this.listeners.delete(l);
        resolve(m);
      };
      this.listeners.add(l);
    });
  }

  async close(): Promise<void> {
    this.inbox.close();
    this.q.close();
    await this.done;
  }
}

/** A streamed text delta of the assistant. */
export const isTextDelta = (m: SDKMessage) =>
  m.type === 'stream_event' &&
  (m.event as { type?: string; delta?: { type?: string } }).type === 'content_block_delta' &&
  (m.event as { delta: { type?: string } }).delta.type === 'text_delta';
export const isResult = (m: SDKMessage) => m.type === 'result';
